//! `--report FILE.html`: the file is opened before the run (so a path that cannot be
//! written fails before a device or a buffer is touched) and written whole at the end,
//! by the same rules as `convert -o` (a temporary file renamed into place; a device or
//! FIFO written in place).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::judge::Findings;
use crate::output_file::{InputIdentity, OutputFile};
use crate::render::report::{Meta, UlpPage, probe_page, ulp_page};

/// A report file opened for writing.
pub struct ReportFile {
    file: OutputFile,
    path: PathBuf,
    meta: Meta,
}

impl ReportFile {
    /// Opens `path` for the report, refusing one of the run's `inputs` (the report would
    /// destroy it, or a FIFO would wait on itself).
    pub fn create(path: &Path, meta: Meta, inputs: &[InputIdentity]) -> anyhow::Result<ReportFile> {
        let file = OutputFile::create_apart(path, None, inputs)
            .with_context(|| format!("--report {}", crate::path_text::display_path(path)))?;
        Ok(ReportFile {
            file,
            path: path.to_path_buf(),
            meta,
        })
    }

    fn write(mut self, html: std::io::Result<String>) -> anyhow::Result<()> {
        let context = || format!("--report {}", crate::path_text::display_path(&self.path));
        let html = html.with_context(context)?;
        self.file.write_all(html.as_bytes()).with_context(context)?;
        self.file.commit().with_context(context)
    }

    /// Opens the report a command was asked for (`--report`), if it was.
    pub fn create_if(
        report: &Option<(PathBuf, Meta)>,
        inputs: &[InputIdentity],
    ) -> anyhow::Result<Option<ReportFile>> {
        report
            .as_ref()
            .map(|(path, meta)| ReportFile::create(path, meta.clone(), inputs))
            .transpose()
    }

    /// Writes the page of a probe or a buffer verdict.
    pub fn probe(self, report: &Findings) -> anyhow::Result<()> {
        let html = probe_page(report, &self.meta);
        self.write(html)
    }

    /// Writes the page of a buffer comparison.
    pub fn ulp(self, page: &UlpPage) -> anyhow::Result<()> {
        let html = ulp_page(page, &self.meta);
        self.write(html)
    }
}
