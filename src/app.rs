//! The run of one command line: parse, decide colour and style, dispatch, and map the
//! outcome to an exit code.

use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, ColorChoice, Command, FormatArg, GenerateWhat, OutputArgs};
use crate::commands::{self, Exit};
use crate::format::RoundOptions;
use crate::render::{Style, renderer};

/// Exit code for usage and input errors (clap uses 2 for its own usage errors too).
const EXIT_ERROR: u8 = 2;

/// Parses the process arguments, runs, and turns the outcome into an exit code.
pub fn main_entry() -> ExitCode {
    // Before anything is opened: which descriptors `/dev/fd/N` outputs may name.
    crate::output_file::note_inherited_descriptors();
    let cli = match Cli::try_parse_from(crate::cli::normalize_args(std::env::args_os().collect())) {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    // Every parallel loop of the run uses the pool built here (capped at the cores, and
    // smaller rather than a panic when threads are refused).
    match crate::threads::run(|| run(cli)) {
        Ok(Exit::Success) => ExitCode::SUCCESS,
        Ok(Exit::Negative) => ExitCode::from(1),
        Ok(Exit::Interrupted) => ExitCode::from(130),
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            let message = commands::inputs::stderr_line(&with_flag_hint(&e));
            report_error(&message);
            ExitCode::from(EXIT_ERROR)
        }
    }
}

/// Help and version go to stdout as clap writes them; every other usage error becomes one
/// line on stderr in the tool's own form, exit code 2.
fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
            ExitCode::from(EXIT_ERROR)
        } else {
            ExitCode::SUCCESS
        };
    }
    let message = commands::inputs::stderr_line(&usage_message(&e.render().to_string(), e.kind()));
    report_error(&message);
    ExitCode::from(EXIT_ERROR)
}

/// The one error line on stderr. A stderr that cannot take it (a closed pipe, a full
/// disk) changes nothing: the exit code still says what happened, and `eprintln!` would
/// panic (exit 101) instead.
fn report_error(message: &str) {
    let _ = writeln!(io::stderr(), "d3dfloat: error: {message}");
}

/// Clap's rendered usage error as one line: its first line, the indented details below it
/// (the missing arguments, the possible values), and its first `tip:` (a similar
/// subcommand or argument), then where to look.
fn usage_message(rendered: &str, kind: clap::error::ErrorKind) -> String {
    let mut lines = rendered.lines();
    let first = lines.next().unwrap_or("invalid arguments");
    let first = first.strip_prefix("error: ").unwrap_or(first).trim_end();
    let rest: Vec<&str> = lines.collect();
    let details: Vec<&str> = rest
        .iter()
        .take_while(|l| !l.trim().is_empty())
        .map(|l| l.trim())
        .collect();
    let tip = rest
        .iter()
        .map(|l| l.trim())
        .find_map(|l| l.strip_prefix("tip: "));
    let mut message = if details.is_empty() {
        first.to_string()
    } else if kind == clap::error::ErrorKind::MissingRequiredArgument {
        format!("{first} {}", details.join(", "))
    } else {
        // Possible values, or the lines of a value with a newline in it.
        format!("{first} {}", details.join(" "))
    };
    match tip {
        Some(tip) => message.push_str(&format!(" ({tip}; see --help)")),
        None => message.push_str(" (see --help)"),
    }
    message
}

/// The error's text, with the option that lifts a limit the core refused on, where one
/// does (the core names no flag: its callers are the command line and Python).
fn with_flag_hint(e: &anyhow::Error) -> String {
    let mut text = format!("{e:#}");
    let pixel_limit = e.chain().any(|c| {
        matches!(
            c.downcast_ref::<crate::convert::ConvertError>(),
            Some(crate::convert::ConvertError::PixelLimit { .. })
        )
    });
    if pixel_limit {
        text.push_str(" (raise it with --max-pixels)");
    }
    text
}

/// A reader that went away (`| head -1`) is a normal end, not an error.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}

fn style(o: &OutputArgs) -> Style {
    if o.plain {
        Style::Plain
    } else if o.json {
        Style::Json
    } else if o.csv {
        Style::Csv
    } else {
        Style::Human
    }
}

/// Colour is decided once per run: `always`/`never` as said; `auto` colours a terminal
/// unless `NO_COLOR` is set to any non-empty value (`NO_COLOR=0` included, as no-color.org
/// says) or `TERM=dumb`, and `CLICOLOR_FORCE` set to anything but empty or `0` forces it.
/// `D3DFLOAT_TEST_TERM=1` makes tests look like a terminal.
pub fn use_color(choice: ColorChoice) -> bool {
    let non_empty = |k: &str| std::env::var_os(k).is_some_and(|v| !v.is_empty());
    let enabled = |k: &str| std::env::var_os(k).is_some_and(|v| !v.is_empty() && v != "0");
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            if non_empty("NO_COLOR") {
                return false;
            }
            if enabled("CLICOLOR_FORCE") {
                return true;
            }
            let terminal = io::stdout().is_terminal() || enabled("D3DFLOAT_TEST_TERM");
            terminal && std::env::var("TERM").map_or(true, |t| t != "dumb")
        }
    }
}

/// Runs one parsed command line: picks the renderer and the colour, dispatches to the
/// subcommand, and says whether the verdict was positive (exit 0) or negative (exit 1).
pub fn run(cli: Cli) -> anyhow::Result<Exit> {
    let style = style(&cli.output);
    let mut r = renderer(style, use_color(cli.output.color));
    // Not locked: `convert` writes its data to stdout from a writer thread.
    let mut out = io::BufWriter::with_capacity(1 << 16, io::stdout());
    let verdict = match cli.command {
        Command::Decode(a) => match a.fmt {
            FormatArg::Format(format) => commands::decode::run(
                &commands::decode::DecodeRequest {
                    format,
                    inputs: a.bits,
                },
                r.as_mut(),
                &mut out,
            ),
            FormatArg::Bc6h(format) => commands::decode::run_blocks(
                &commands::decode::DecodeBlocksRequest {
                    format,
                    inputs: a.bits,
                },
                r.as_mut(),
                &mut out,
            ),
        },
        Command::Encode(a) => commands::encode::run(
            &commands::encode::EncodeRequest {
                format: a.fmt,
                opts: RoundOptions {
                    mode: a.rounding,
                    saturate: a.saturate,
                },
                inputs: a.values,
            },
            r.as_mut(),
            &mut out,
        ),
        Command::Convert(a) => commands::convert::run(
            &commands::convert::ConvertRequest {
                from: a.from,
                to: match a.to {
                    FormatArg::Format(f) => f,
                    // Blocks are encoded from f16 texels, rounded as asked.
                    FormatArg::Bc6h(_) => crate::format::Format::Float(crate::format::F16),
                },
                bc6h: match a.to {
                    FormatArg::Format(_) => None,
                    FormatArg::Bc6h(b) => Some((b, a.quality)),
                },
                channels: a.channels.map(usize::from),
                opts: RoundOptions {
                    mode: a.rounding,
                    saturate: a.saturate,
                },
                input: a.input,
                output: a.output,
                progress: !a.no_progress && io::stderr().is_terminal(),
                stdout_is_terminal: io::stdout().is_terminal(),
                limits: crate::convert::image_in::ImageLimits {
                    max_pixels: a.max_pixels,
                },
                style,
                raw: a.raw,
                exr_compression: a.compression,
            },
            r.as_mut(),
            &mut out,
        ),
        Command::Op(a) if a.asm.is_some() || a.expr.is_some() => commands::program::run(
            &commands::program::ProgramCommand {
                asm: a.asm,
                expr: a.expr,
                format: a.fmt,
                rules: a.rules,
                inputs: a.input,
                output: a.output,
                check: a.check,
                operands: a.operands,
                results: a.results,
                limit: a.limit,
                style,
            },
            &mut out,
        ),
        Command::Op(a) if !a.operands.is_empty() || a.results.is_some() => {
            op_buffers(a, style, use_color(cli.output.color), &mut out)
        }
        Command::Op(a) => commands::op::run(
            &commands::op::OpCommand {
                format: a.fmt,
                rules: a.rules,
                check: a.check,
                words: a.words,
                style,
            },
            r.as_mut(),
            &mut out,
        ),
        Command::UlpDiff(a) => commands::ulp_diff::run(
            &commands::ulp_diff::UlpDiffRequest {
                format: a.fmt,
                opts: crate::ulp::DiffOptions {
                    flush_subnormals: !a.no_flush,
                },
                limit: a.max,
                tolerance: (a.abs_tol.is_some() || a.rel_tol.is_some()).then(|| {
                    crate::ulp::Tolerance {
                        abs: a.abs_tol.unwrap_or(0.0),
                        rel: a.rel_tol.unwrap_or(0.0),
                    }
                }),
                inputs: a.values,
                files: a.files.map(|f| (f[0].clone(), f[1].clone())),
                list: a.list,
                report: a
                    .report
                    .map(|path| (path, crate::render::report::Meta::of_this_run())),
                width: a.width.map(|w| (w, a.channels)),
            },
            r.as_mut(),
            &mut out,
        ),
        Command::Probe(a) => commands::probe::run(
            &commands::probe::ProbeCommand {
                device: a.device,
                list_devices: a.list_devices,
                ops: a.ops,
                count: a.count as usize,
                rules: a.rules,
                emit_log: a.emit_log,
                seed: a.seed,
                exhaustive: a.exhaustive.then(|| commands::probe::SweepCommand {
                    range: a.range.or(a.first.map(|n| 0..n)),
                    violations: a.violations,
                    limit: a.limit,
                    list: a.list,
                }),
                report: a
                    .report
                    .map(|path| (path, crate::render::report::Meta::of_this_run())),
                via: a.via,
                translator_lib: a.translator_lib,
                dump_dxbc: a.dump_dxbc,
                style,
            },
            crate::render::probe::probe_renderer(style, use_color(cli.output.color)).as_mut(),
            &mut out,
        ),
        Command::Generate(a) => generate(a.what, &a.dir).map(|()| Exit::Success),
    };
    // Whatever was written for good inputs goes out before an error is reported.
    let flushed = out.flush();
    let verdict = verdict?;
    flushed?;
    Ok(verdict)
}

/// `op --operands ... --results ...`: the instruction's name is the one word.
fn op_buffers(
    a: crate::cli::OpArgs,
    style: crate::render::Style,
    color: bool,
    out: &mut dyn Write,
) -> anyhow::Result<Exit> {
    let (Some(results), false) = (a.results, a.operands.is_empty()) else {
        anyhow::bail!("--operands and --results go together: name both");
    };
    let op = match a.words.as_slice() {
        [op] => op.clone(),
        [] => anyhow::bail!("--operands needs the instruction: d3dfloat op OP --operands ..."),
        [_, extra, ..] => {
            anyhow::bail!("with --operands the operands come from the files; remove '{extra}'")
        }
    };
    let crate::format::Format::Float(format) = a.fmt else {
        anyhow::bail!(
            "op works in f32, f16 or f64 (D3D has no {} arithmetic)",
            a.fmt.name()
        );
    };
    commands::op_buffers::run(
        &commands::op_buffers::BufferCommand {
            op,
            format,
            rules: a.rules,
            operands: a.operands,
            results,
            violations: a.violations,
            list: a.list.then_some(a.limit),
            report: a
                .report
                .map(|path| (path, crate::render::report::Meta::of_this_run())),
        },
        crate::render::probe::probe_renderer(style, color).as_mut(),
        out,
    )
}

fn generate(what: GenerateWhat, dir: &std::path::Path) -> anyhow::Result<()> {
    use anyhow::Context;
    std::fs::create_dir_all(dir)
        .with_context(|| format!("creating {}", crate::path_text::display_path(dir)))?;
    let files = match what {
        GenerateWhat::Completions => crate::docs::completions(),
        GenerateWhat::Man => crate::docs::man_pages(),
    };
    for (name, bytes) in files {
        let path = dir.join(name);
        std::fs::write(&path, bytes)
            .with_context(|| format!("writing {}", crate::path_text::display_path(&path)))?;
    }
    Ok(())
}
