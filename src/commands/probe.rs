//! `probe`: open a device (Vulkan, or the fake one of the tests), run the instructions,
//! render the report, and write the log.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::Exit;
use super::report::ReportFile;
use crate::d3d::RuleSet;
use crate::judge::{Family, Findings, Via};
use crate::output_file::OutputFile;
use crate::probe::fake::Fake;
use crate::probe::translate::{self, Translator};
use crate::probe::vulkan::Vulkan;
use crate::probe::{self, Device, ProbeError, ProbeRequest, catalog, dxbc};
use crate::render::Style;
use crate::render::probe::ProbeRenderer;
use crate::render::report::Meta;

/// What `probe` was asked.
pub struct ProbeCommand {
    /// `--device`: an index or part of a name; the first device when `None`.
    pub device: Option<String>,
    /// `--list-devices`: list the devices instead of probing.
    pub list_devices: bool,
    /// `--ops`: instruction names; every one when empty.
    pub ops: Vec<String>,
    /// `--count`: at least this many lines per instruction.
    pub count: usize,
    /// `--rules`: the rule set results are judged by.
    pub rules: RuleSet,
    /// `--emit-log FILE`: write every line as `OP ARG... = RESULT`.
    pub emit_log: Option<PathBuf>,
    /// `--seed`: the seed of the random inputs.
    pub seed: u64,
    /// `--exhaustive`: every input of each instruction, or a slice of them.
    pub exhaustive: Option<SweepCommand>,
    /// `--report FILE.html`, with what the page says of the run.
    pub report: Option<(PathBuf, Meta)>,
    /// `--via`: the paths of the shaders (direct, vkd3d-shader, dxbc-spirv), as given.
    pub via: Vec<String>,
    /// `--translator-lib PATH`: the vkd3d-shader library to load.
    pub translator_lib: Option<PathBuf>,
    /// `--dump-dxbc DIR`: write the DXBC shaders instead of probing.
    pub dump_dxbc: Option<PathBuf>,
    /// The output style.
    pub style: Style,
}

/// What `--exhaustive` was asked besides.
pub struct SweepCommand {
    /// `--first N` (as `0..N`) or `--range START..END`: the slice of each sweep to run.
    pub range: Option<std::ops::Range<u64>>,
    /// `--violations FILE`: the failing inputs, as lines `op` reads.
    pub violations: Option<PathBuf>,
    /// `--limit N`: violating lines written or listed per instruction.
    pub limit: usize,
    /// `--list`: the violating lines' indexes in `--json` and `--csv`.
    pub list: bool,
}

/// Test hook: `ieee` or `no-flush` replaces Vulkan with the in-process fake device.
const FAKE_DEVICE_VAR: &str = "D3DFLOAT_TEST_FAKE_DEVICE";
/// Test hook: instruction names whose Vulkan shaders are built deliberately wrong.
const WRONG_SHADER_VAR: &str = "D3DFLOAT_TEST_WRONG_SHADER";

fn probe_error(e: ProbeError) -> anyhow::Error {
    anyhow::anyhow!("probe: {e}")
}

/// Opens the device (or the test hook's fake one), runs the kernels, judges and renders
/// the report; negative when any result violates the rules.
pub fn run(
    req: &ProbeCommand,
    r: &mut dyn ProbeRenderer,
    out: &mut dyn Write,
) -> anyhow::Result<Exit> {
    // Usage errors first, so they do not wait for (or need) a device.
    let kernels = catalog::select(&req.ops).map_err(|e| anyhow::anyhow!("{e}"))?;
    let paths = Via::parse_list(&req.via).map_err(|e| anyhow::anyhow!("--via: {e}"))?;
    if req.translator_lib.is_some() && !paths.contains(&Via::Vkd3dShader) {
        anyhow::bail!("--translator-lib: only --via vkd3d-shader loads a library");
    }
    if let Some(dir) = &req.dump_dxbc {
        return dump_dxbc(&kernels, dir, req.style, out);
    }
    // Translators load before anything else runs: a missing library fails at once.
    let translators: Vec<Box<dyn Translator>> = paths
        .iter()
        .filter(|v| v.translated())
        .map(|&v| translate::open(v, req.translator_lib.as_deref()))
        .collect::<Result<_, _>>()
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let kernels = catalog::through_each(&kernels, &paths);
    // The log files are opened (and refused) now, before any device is touched: a log that
    // cannot be written fails in a moment, not after the run.
    let halves = kernels.iter().any(|k| k.family == Family::F16);
    let others = kernels.iter().any(|k| k.family != Family::F16);
    let logging = !req.list_devices && req.exhaustive.is_none();
    refuse_same_file(req, logging, others, halves)?;
    let mut logs = match &req.emit_log {
        Some(path) if logging => Some(Logs::create("--emit-log", path, others, halves)?),
        _ => None,
    };
    // So does the report's.
    let report_file = ReportFile::create_if(&req.report, &[])?;
    // And the sweep's violations file.
    let violation_logs = match req.exhaustive.as_ref().and_then(|s| s.violations.as_ref()) {
        Some(path) if !req.list_devices => {
            Some(Logs::create("--violations", path, others, halves)?)
        }
        _ => None,
    };
    let fake = std::env::var(FAKE_DEVICE_VAR)
        .ok()
        .filter(|v| !v.is_empty());
    let mut device: Box<dyn Device> = match fake.as_deref() {
        Some("ieee") => Box::new(Fake::ieee()),
        Some("no-flush") => Box::new(Fake::no_flush()),
        Some(other) => anyhow::bail!("{FAKE_DEVICE_VAR}={other}: expected ieee or no-flush"),
        None => {
            let vulkan = Vulkan::open().map_err(probe_error)?;
            if req.list_devices {
                r.devices(out, &vulkan.devices())?;
                return Ok(Exit::Success);
            }
            let wrong = std::env::var(WRONG_SHADER_VAR)
                .map(|v| v.split(',').map(|s| s.trim().to_string()).collect())
                .unwrap_or_default();
            Box::new(
                vulkan
                    .open_device(req.device.as_deref(), wrong, translators)
                    .map_err(probe_error)?,
            )
        }
    };
    if req.list_devices {
        r.devices(out, std::slice::from_ref(device.info()))?;
        return Ok(Exit::Success);
    }
    if let Some(sweep) = &req.exhaustive {
        return exhaustive(
            device.as_mut(),
            kernels,
            sweep,
            violation_logs,
            req.rules,
            report_file,
            r,
            out,
        );
    }
    let request = ProbeRequest {
        kernels,
        count: req.count,
        rules: req.rules,
        seed: req.seed,
        keep_log: req.emit_log.is_some(),
        map: report_file.is_some(),
    };
    let findings = probe::run(device.as_mut(), &request).map_err(probe_error)?;
    if let Some(logs) = logs.take() {
        logs.write(&findings)?;
    }
    if let Some(f) = report_file {
        f.probe(&findings)?;
    }
    r.findings(out, &findings)?;
    Ok(if findings.violate() > 0 {
        Exit::Negative
    } else {
        Exit::Success
    })
}

/// `--dump-dxbc DIR`: each selected instruction's DXBC blob, and its exhaustive form where
/// it has a sweep, written into `DIR` (made when missing) through [`OutputFile`]; one line
/// (or JSON object) per file, and one per instruction Shader Model 5 cannot express.
fn dump_dxbc(
    kernels: &[catalog::Kernel],
    dir: &Path,
    style: Style,
    out: &mut dyn Write,
) -> anyhow::Result<Exit> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("--dump-dxbc {}", crate::path_text::display_path(dir)))?;
    for k in kernels {
        let k = k.through(Via::Vkd3dShader);
        if let Some(why) = dxbc::unsupported(&k) {
            match style {
                Style::Json => writeln!(
                    out,
                    "{}",
                    serde_json::json!({"schema": crate::render::SCHEMA, "kind": "dxbc",
                        "op": k.name, "format": k.format_label(), "skipped": why})
                )?,
                _ => writeln!(out, "skipped {} {}: {why}", k.family.name(), k.name)?,
            }
            continue;
        }
        for indexed in dxbc::forms(&k) {
            let blob =
                dxbc::blob(&k, indexed, false).map_err(|e| anyhow::anyhow!("--dump-dxbc: {e}"))?;
            let path = dir.join(dxbc::file_name(&k, indexed));
            let mut file = OutputFile::create(&path, None).context("--dump-dxbc")?;
            file.write_all(&blob)
                .with_context(|| format!("--dump-dxbc: writing {}", file.shown()))?;
            let shown = file.shown().to_string();
            file.commit().context("--dump-dxbc")?;
            match style {
                Style::Json => writeln!(
                    out,
                    "{}",
                    serde_json::json!({"schema": crate::render::SCHEMA, "kind": "dxbc",
                        "op": k.name, "format": k.format_label(), "indexed": indexed,
                        "path": path.to_string_lossy(), "bytes": blob.len()})
                )?,
                _ => writeln!(out, "{shown}")?,
            }
        }
    }
    Ok(Exit::Success)
}

/// Refuses a run whose outputs (each log, its `.f16` beside it, the report) share a file
/// (issue 39: one of the two was silently lost).
fn refuse_same_file(
    req: &ProbeCommand,
    logging: bool,
    others: bool,
    halves: bool,
) -> anyhow::Result<()> {
    let shown = |flag: &str, p: &Path| format!("{flag} {}", crate::path_text::display_path(p));
    let mut outputs = Vec::new();
    let mut log = |flag: &str, path: &Path| {
        if others {
            outputs.push((shown(flag, path), path.to_path_buf()));
        }
        if halves {
            let f16 = half_log(path);
            outputs.push((
                format!("{flag}'s {}", crate::path_text::display_path(&f16)),
                f16,
            ));
        }
    };
    if let Some(path) = req.emit_log.as_ref().filter(|_| logging) {
        log("--emit-log", path);
    }
    let sweep_log = req.exhaustive.as_ref().and_then(|s| s.violations.as_ref());
    if let Some(path) = sweep_log.filter(|_| !req.list_devices) {
        log("--violations", path);
    }
    if let Some((report, _)) = &req.report {
        outputs.push((shown("--report", report), report.clone()));
    }
    let outputs: Vec<(String, &Path)> = outputs
        .iter()
        .map(|(s, p)| (s.clone(), p.as_path()))
        .collect();
    crate::output_file::refuse_same_file(&outputs)?;
    Ok(())
}

/// `FILE.f16`, beside the log `FILE`.
fn half_log(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(".f16");
    PathBuf::from(p)
}

/// `--emit-log FILE` (and a sweep's `--violations FILE`): the log for `op` (f32 and double
/// lines) and, when 16-bit arithmetic is probed, `FILE.f16` for `op --fmt f16`. Both are
/// output files ([`OutputFile`]): replaced whole when the run completes, never left
/// half-written. With only f16 instructions selected, FILE itself is not written (issue
/// 38: it was left empty).
struct Logs {
    /// The option that named the files, for messages.
    option: &'static str,
    main: Option<OutputFile>,
    /// `FILE.f16`, opened when an f16 instruction was selected.
    halves: Option<OutputFile>,
}

impl Logs {
    fn create(
        option: &'static str,
        path: &Path,
        others: bool,
        halves: bool,
    ) -> anyhow::Result<Logs> {
        let main = if others {
            Some(OutputFile::create(path, None).context(option)?)
        } else {
            None
        };
        let shown = || crate::path_text::display_path(path);
        // The f16 lines go to a file beside the log; beside a device, a FIFO or a
        // descriptor there is no such place (`/dev/null.f16` would be a new regular file
        // in /dev), so the f16 instructions are refused there, before anything runs.
        if halves && std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
            anyhow::bail!(
                "{option} {}: not a regular file, so there is no FILE.f16 beside it for the \
                 f16 instructions' lines; log to a regular file, or leave the f16 \
                 instructions out of --ops",
                main.as_ref().map_or_else(shown, |m| m.shown().to_string())
            );
        }
        let halves = if halves {
            Some(OutputFile::create(&half_log(path), None).context(option)?)
        } else {
            None
        };
        Ok(Logs {
            option,
            main,
            halves,
        })
    }

    /// One line, into FILE.f16 when `half` (an f16 instruction's), else into FILE.
    fn line(&mut self, half: bool, line: &str) -> anyhow::Result<()> {
        let file = if half {
            &mut self.halves
        } else {
            &mut self.main
        };
        let Some(file) = file else {
            return Ok(());
        };
        writeln!(file, "{line}")
            .with_context(|| format!("{}: writing {}", self.option, file.shown()))
    }

    /// Both files into place.
    fn commit(self) -> anyhow::Result<()> {
        for file in [self.main, self.halves].into_iter().flatten() {
            file.commit().context(self.option)?;
        }
        Ok(())
    }

    /// `--emit-log`: every line of the report; FILE.f16 only when the device ran an f16
    /// instruction.
    fn write(mut self, report: &Findings) -> anyhow::Result<()> {
        for o in &report.ops {
            for line in &o.log {
                self.line(o.family == Family::F16, line)?;
            }
        }
        let ran_halves = report
            .ops
            .iter()
            .any(|o| o.family == Family::F16 && !o.log.is_empty());
        if !ran_halves {
            // Dropped uncommitted: no file is made.
            self.halves = None;
        }
        self.commit()
    }
}

/// `--exhaustive`: every sweep, with a progress bar on a terminal and Ctrl-C ending it with
/// the partial report (exit 130).
#[allow(clippy::too_many_arguments)] // each is one of the command's parts, named once
fn exhaustive(
    device: &mut dyn Device,
    kernels: Vec<catalog::Kernel>,
    sweep: &SweepCommand,
    mut violation_logs: Option<Logs>,
    rules: RuleSet,
    report_file: Option<ReportFile>,
    r: &mut dyn ProbeRenderer,
    out: &mut dyn Write,
) -> anyhow::Result<Exit> {
    use std::io::IsTerminal;
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    let request = probe::sweep::SweepRequest {
        kernels,
        rules,
        range: sweep.range.clone(),
        map: report_file.is_some(),
        violation_limit: if sweep.list || violation_logs.is_some() {
            sweep.limit
        } else {
            0
        },
    };
    let stop = Arc::new(AtomicBool::new(false));
    // The first Ctrl-C ends the sweep after the chunk in hand, and the partial report is
    // written (stdout and --report); a second one exits at once, removing the report's
    // temporary file (output_file::interrupts). The flag is also set here directly, for a
    // run whose signal thread the system refused.
    #[cfg(unix)]
    {
        use signal_hook::{consts::SIGINT, flag};
        crate::output_file::interrupts::first_interrupt_sets(Arc::clone(&stop))
            .and_then(|()| flag::register(SIGINT, Arc::clone(&stop)).map(drop))
            .context("listening for Ctrl-C")?;
    }
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new(request.total_lines(device));
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:40} {human_pos}/{human_len} lines {per_sec} eta {eta}",
            )
            .expect("valid template"),
        );
        bar
    });
    let mut progress = |done: u64, _total: u64| {
        if let Some(b) = &bar {
            b.set_position(done);
        }
    };
    // Each violating line goes to its file as it is judged; the first write error is kept
    // and reported when the sweep ends.
    let mut write_error: Option<anyhow::Error> = None;
    let has_logs = violation_logs.is_some();
    let mut findings = {
        let mut sink = |k: &catalog::Kernel, index: u64, line: &str| {
            if let (Some(logs), None) = (&mut violation_logs, &write_error)
                && let Err(e) =
                    logs.line(k.family == Family::F16, &format!("{line}  # index {index}"))
            {
                write_error = Some(e);
            }
        };
        let sink: Option<&mut probe::sweep::ViolationSink> =
            if has_logs { Some(&mut sink) } else { None };
        probe::sweep::run_exhaustive(device, &request, &mut progress, &stop, sink)
            .map_err(probe_error)?
    };
    if let Some(e) = write_error {
        return Err(e);
    }
    if let Some(mut logs) = violation_logs {
        // An instruction with more violations than were written says so at its file's end.
        for op in findings
            .ops
            .iter()
            .filter(|o| o.violate > sweep.limit as u64)
        {
            logs.line(
                op.family == Family::F16,
                &format!(
                    "# {} {}: {} more violating lines not written (--limit {})",
                    op.name,
                    op.format,
                    op.violate - sweep.limit as u64,
                    sweep.limit
                ),
            )?;
        }
        logs.commit()?;
    }
    if !sweep.list {
        for op in &mut findings.ops {
            op.violations.clear();
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if let Some(f) = report_file {
        f.probe(&findings)?;
    }
    r.findings(out, &findings)?;
    Ok(if findings.partial {
        Exit::Interrupted
    } else if findings.violate() > 0 {
        Exit::Negative
    } else {
        Exit::Success
    })
}
