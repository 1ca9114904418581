//! `probe`: open a device (Vulkan, or the fake one of the tests), run the instructions,
//! render the report, and write the log.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::Verdict;
use super::report::ReportFile;
use crate::d3d::RuleSet;
use crate::output_file::OutputFile;
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
    // The log files are opened (and refused) now, before any device is touched: a log that
    // cannot be written fails in a moment, not after the run.
    let halves = kernels.iter().any(|k| k.family == Family::F16);
    let logging = !req.list_devices && req.exhaustive.is_none();
    refuse_same_file(req, logging, halves)?;
    let mut logs = match &req.emit_log {
        Some(path) if logging => Some(Logs::create(path, halves)?),
        _ => None,
    };
    // So does the report's.
    let report_file = ReportFile::create_if(&req.report, &[])?;
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
    if let Some(logs) = logs.take() {
        logs.write(&report)?;
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

/// Refuses a run whose outputs (the log, its `.f16` beside it, the report) share a file.
fn refuse_same_file(req: &ProbeCommand, logging: bool, halves: bool) -> anyhow::Result<()> {
    let shown = |flag: &str, p: &Path| format!("{flag} {}", crate::path_text::one_line(p));
    let log = req.emit_log.as_ref().filter(|_| logging);
    let f16 = log.filter(|_| halves).map(|p| half_log(p));
    let mut outputs = Vec::new();
    if let Some(log) = log {
        outputs.push((shown("--emit-log", log), log.as_path()));
    }
    if let Some(f16) = &f16 {
        let shown = format!("--emit-log's {}", crate::path_text::one_line(f16));
        outputs.push((shown, f16.as_path()));
    }
    if let Some((report, _)) = &req.report {
        outputs.push((shown("--report", report), report.as_path()));
    }
    crate::output_file::refuse_same_file(&outputs)?;
    Ok(())
}

/// `--emit-log FILE`: the log for `op` (f32 and double lines) and, when 16-bit arithmetic
/// is probed, `FILE.f16` for `op --fmt f16`. Both are output files ([`OutputFile`]):
/// replaced whole when the run completes, never left half-written.
struct Logs {
    main: OutputFile,
    /// `FILE.f16`, opened when an f16 instruction was selected; written only when the
    /// device ran one.
    halves: Option<OutputFile>,
}

impl Logs {
    fn create(path: &Path, halves: bool) -> anyhow::Result<Logs> {
        let main = OutputFile::create(path, None).context("--emit-log")?;
        // The f16 lines go to a file beside the log; beside a device, a FIFO or a
        // descriptor there is no such place (`/dev/null.f16` would be a new regular file
        // in /dev), so the f16 instructions are refused there, before anything runs.
        if halves && std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
            anyhow::bail!(
                "--emit-log {}: not a regular file, so there is no FILE.f16 beside it for the \
                 f16 instructions' lines; log to a regular file, or leave the f16 \
                 instructions out of --ops",
                main.shown()
            );
        }
        let halves = if halves {
            Some(OutputFile::create(&half_log(path), None).context("--emit-log")?)
        } else {
            None
        };
        Ok(Logs { main, halves })
    }

    fn write(self, report: &ProbeReport) -> anyhow::Result<()> {
        let Logs { main, halves } = self;
        let lines = report.ops.iter().filter(|o| o.family != Family::F16);
        write_log(main, lines.flat_map(|o| o.log.iter()))?;
        let f16 = report.ops.iter().filter(|o| o.family == Family::F16);
        if let Some(file) = halves
            && f16.clone().any(|o| !o.log.is_empty())
        {
            write_log(file, f16.flat_map(|o| o.log.iter()))?;
        }
        Ok(())
    }
}

/// `FILE.f16`, beside the log `FILE`.
fn half_log(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(".f16");
    PathBuf::from(p)
}

fn write_log<'a>(
    mut file: OutputFile,
    lines: impl Iterator<Item = &'a String>,
) -> anyhow::Result<()> {
    for line in lines {
        writeln!(file, "{line}")
            .with_context(|| format!("--emit-log: writing {}", file.shown()))?;
    }
    file.commit().context("--emit-log")?;
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
