//! `probe`: open a device (Vulkan, or the fake one of the tests), run the instructions,
//! render the report, and write the log.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::Verdict;
use super::report::ReportFile;
use crate::d3d::RuleSet;
use crate::probe::fake::Fake;
use crate::probe::vulkan::Vulkan;
use crate::probe::{self, Device, Family, ProbeError, ProbeReport, ProbeRequest, catalog};
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
    /// `--exhaustive`, with `--first N` when given: every input of each instruction.
    pub exhaustive: Option<Option<u64>>,
    /// `--report FILE.html`, with what the page says of the run.
    pub report: Option<(PathBuf, Meta)>,
    /// The output style.
    pub style: Style,
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
) -> anyhow::Result<Verdict> {
    // Usage errors first, so they do not wait for (or need) a device.
    let kernels = catalog::select(&req.ops).map_err(|e| anyhow::anyhow!("{e}"))?;
    // An output that cannot be written fails before the device is opened.
    let report_file = match &req.report {
        Some((path, meta)) => Some(ReportFile::create(path, meta.clone())?),
        None => None,
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
                return Ok(Verdict::Success);
            }
            let wrong = std::env::var(WRONG_SHADER_VAR)
                .map(|v| v.split(',').map(|s| s.trim().to_string()).collect())
                .unwrap_or_default();
            Box::new(
                vulkan
                    .open_device(req.device.as_deref(), wrong)
                    .map_err(probe_error)?,
            )
        }
    };
    if req.list_devices {
        r.devices(out, std::slice::from_ref(device.info()))?;
        return Ok(Verdict::Success);
    }
    if let Some(first) = req.exhaustive {
        return exhaustive(
            device.as_mut(),
            kernels,
            first,
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
    let report = probe::run(device.as_mut(), &request).map_err(probe_error)?;
    if let Some(path) = &req.emit_log {
        write_logs(path, &report)?;
    }
    if let Some(f) = report_file {
        f.probe(&report)?;
    }
    r.report(out, &report)?;
    Ok(if report.violate() > 0 {
        Verdict::Negative
    } else {
        Verdict::Success
    })
}

/// The log for `op` (f32 and double lines) and, when 16-bit arithmetic ran, `FILE.f16`
/// for `op --fmt f16`. Each is written under a temporary name and renamed into place.
fn write_logs(path: &Path, report: &ProbeReport) -> anyhow::Result<()> {
    let f16_path = {
        let mut p = path.as_os_str().to_owned();
        p.push(".f16");
        PathBuf::from(p)
    };
    let main = report.ops.iter().filter(|o| o.family != Family::F16);
    write_log(path, main.flat_map(|o| o.log.iter()))?;
    if report
        .ops
        .iter()
        .any(|o| o.family == Family::F16 && !o.log.is_empty())
    {
        let halves = report.ops.iter().filter(|o| o.family == Family::F16);
        write_log(&f16_path, halves.flat_map(|o| o.log.iter()))?;
    }
    Ok(())
}

fn write_log<'a>(path: &Path, lines: impl Iterator<Item = &'a String>) -> anyhow::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let context = || format!("--emit-log {}", path.display());
    let tmp = tempfile::NamedTempFile::new_in(dir).with_context(context)?;
    {
        let mut w = BufWriter::new(tmp.as_file());
        for line in lines {
            writeln!(w, "{line}").with_context(context)?;
        }
        w.flush().with_context(context)?;
    }
    tmp.persist(path)
        .map_err(|e| e.error)
        .with_context(context)?;
    Ok(())
}

/// `--exhaustive`: every sweep, with a progress bar on a terminal and Ctrl-C ending it with
/// the partial report (exit 130).
fn exhaustive(
    device: &mut dyn Device,
    kernels: Vec<catalog::Kernel>,
    first: Option<u64>,
    rules: RuleSet,
    report_file: Option<ReportFile>,
    r: &mut dyn ProbeRenderer,
    out: &mut dyn Write,
) -> anyhow::Result<Verdict> {
    use std::io::IsTerminal;
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    let request = probe::sweep::SweepRequest {
        kernels,
        rules,
        first,
        map: report_file.is_some(),
    };
    let stop = Arc::new(AtomicBool::new(false));
    // The first Ctrl-C ends the sweep after the chunk in hand; a second one exits at once.
    #[cfg(unix)]
    {
        use signal_hook::{consts::SIGINT, flag};
        flag::register_conditional_shutdown(SIGINT, 130, Arc::clone(&stop))
            .and_then(|_| flag::register(SIGINT, Arc::clone(&stop)))
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
    let report = probe::sweep::run_exhaustive(device, &request, &mut progress, &stop)
        .map_err(probe_error)?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if let Some(f) = report_file {
        f.probe(&report)?;
    }
    r.report(out, &report)?;
    Ok(if report.partial {
        Verdict::Interrupted
    } else if report.violate() > 0 {
        Verdict::Negative
    } else {
        Verdict::Success
    })
}
