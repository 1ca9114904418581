//! `ulp-diff`: distances in ULPs between two values, between `A B` lines on stdin, or
//! between two raw buffers element by element.

use std::fs::File;
use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;

use super::Exit;
use super::inputs::{BadInput, Origin, for_each_stdin_line, no_input};
use crate::convert::Container;
use crate::format::Format;
use crate::input::{resolve_operand, split_pair};
use crate::render::Renderer;
use crate::render::report::UlpPage;
use crate::ulp::images::{ImageBuffer, Picture};
use crate::ulp::{
    Compared, DiffOptions, Layout, PairDiff, PairReport, Resolved, Summary, SummaryReport,
    compare_streams, compare_streams_listing, diff_pair,
};

/// What `ulp-diff` was asked.
pub struct UlpDiffRequest {
    /// The format of A and B.
    pub format: Format,
    /// Whether f32 subnormals count as zero.
    pub opts: DiffOptions,
    /// `--max N`: a distance beyond N (or a NaN) is a negative verdict.
    pub limit: Option<u64>,
    /// `--abs-tol A --rel-tol R`: a comparison not within it is a negative verdict.
    pub tolerance: Option<crate::ulp::Tolerance>,
    /// `A B` as typed; stdin pairs when empty.
    pub inputs: Vec<String>,
    /// `--files EXPECTED ACTUAL`.
    pub files: Option<(PathBuf, PathBuf)>,
    /// `--list`: every element over the limit, streamed before the summary.
    pub list: bool,
    /// `--report FILE.html`, with what the page says of the run.
    pub report: Option<(PathBuf, crate::render::report::Meta)>,
    /// `--width W --channels N`: the raw buffers are images W pixels of N elements wide
    /// (for the report).
    pub width: Option<(u32, u32)>,
}

fn read(format: Format, origin: Origin, text: &str) -> Result<Resolved, BadInput> {
    resolve_operand(text, format).map_err(|e| BadInput::new(origin, text, e))
}

fn exit(failed: bool) -> Exit {
    if failed {
        Exit::Negative
    } else {
        Exit::Success
    }
}

/// Measures every pair (arguments, stdin lines or two buffers) and renders each and the
/// summary; negative when `--max` is exceeded or a NaN is involved.
pub fn run(
    req: &UlpDiffRequest,
    r: &mut dyn Renderer,
    out: &mut dyn Write,
) -> anyhow::Result<Exit> {
    if let Some((expected, actual)) = &req.files {
        if !req.inputs.is_empty() {
            anyhow::bail!("--files compares two files; give no values with it");
        }
        return compare_files(req, expected, actual, r, out);
    }
    if req.list {
        anyhow::bail!("--list lists the elements of a --files comparison; give --files A B");
    }
    match req.inputs.len() {
        0 => compare_stdin_pairs(req, r, out),
        2 => {
            // Both operands are read before anything is written.
            let a = read(req.format, Origin::Argument(1), &req.inputs[0])?;
            let b = read(req.format, Origin::Argument(2), &req.inputs[1])?;
            let pair = diff_pair(req.format, a, b, req.opts);
            r.ulp_diff(
                out,
                &PairReport {
                    pair: &pair,
                    inputs: [&req.inputs[0], &req.inputs[1]],
                    limit: req.limit,
                    batch: false,
                },
            )?;
            let mut summary = Summary::new(req.limit).with_tolerance(req.tolerance);
            summary.record_pair(1, &pair);
            Ok(exit(
                req.limit.is_some_and(|l| pair.exceeds(l)) || summary.over_tolerance > 0,
            ))
        }
        n => anyhow::bail!(
            "ulp-diff takes two values A B (or none, to read A B lines from stdin); {n} given"
        ),
    }
}

fn compare_stdin_pairs(
    req: &UlpDiffRequest,
    r: &mut dyn Renderer,
    out: &mut dyn Write,
) -> anyhow::Result<Exit> {
    let mut summary = Summary::new(req.limit).with_tolerance(req.tolerance);
    let n = for_each_stdin_line(&mut *out, "pairs 'A B'", |out, origin, line| {
        let [a_text, b_text] = split_pair(line).map_err(|e| BadInput::new(origin, line, e))?;
        let a = read(req.format, origin, a_text)?;
        let b = read(req.format, origin, b_text)?;
        let pair: PairDiff = diff_pair(req.format, a, b, req.opts);
        let line_no = match origin {
            Origin::Line(n) | Origin::Argument(n) => n as u64,
        };
        summary.record_pair(line_no, &pair);
        r.ulp_diff(
            out,
            &PairReport {
                pair: &pair,
                inputs: [a_text, b_text],
                limit: req.limit,
                batch: true,
            },
        )?;
        Ok(())
    })?;
    if n == 0 {
        return Err(no_input());
    }
    r.ulp_summary(
        out,
        &SummaryReport {
            format: req.format,
            opts: req.opts,
            compared: Compared::Pairs,
            summary: &summary,
        },
    )?;
    Ok(exit(summary.failed()))
}

fn compare_files(
    req: &UlpDiffRequest,
    expected: &PathBuf,
    actual: &PathBuf,
    r: &mut dyn Renderer,
    out: &mut dyn Write,
) -> anyhow::Result<Exit> {
    // Neither the report nor stdout may be one of the files compared.
    let inputs: Vec<_> = [expected, actual]
        .into_iter()
        .filter_map(|p| crate::output_file::InputIdentity::path(p))
        .collect();
    crate::output_file::refuse_stdout_is_input(&inputs)?;
    let report_file = super::report::ReportFile::create_if(&req.report, &inputs)?;
    let shown = |p: &PathBuf| crate::path_text::display_path(p);
    let names = format!("{} and {}", shown(expected), shown(actual));
    let containers = (Container::of_path(expected), Container::of_path(actual));
    if containers.0 != containers.1 {
        anyhow::bail!(
            "{names}: one is {} and the other {}; compare two files of one kind",
            containers.0.name(),
            containers.1.name()
        );
    }
    if containers.0 != Container::Raw || req.width.is_some() {
        let files = Files {
            expected,
            actual,
            names,
        };
        return compare_images(req, &files, containers.0, report_file, r, out);
    }
    let open = |p: &PathBuf| File::open(p).with_context(|| format!("opening {}", shown(p)));
    let (fe, fa) = (open(expected)?, open(actual)?);
    let layout = Layout::new(req.format, req.opts);
    // Regular files tell their sizes up front, so a mismatch costs no reading; pipes and
    // other streams are checked by the comparison itself as they end.
    if let (Ok(me), Ok(ma)) = (fe.metadata(), fa.metadata())
        && me.is_file()
        && ma.is_file()
    {
        let (se, sa) = (me.len(), ma.len());
        let element = layout.format.element_bytes() as u64;
        if se != sa {
            anyhow::bail!(
                "{names} differ in size: {} is {se} bytes, {} is {sa} bytes",
                shown(expected),
                shown(actual)
            );
        }
        if se % element != 0 {
            anyhow::bail!(
                "{names}: {se} bytes (both) is not a whole number of {element}-byte {} elements",
                req.format.name()
            );
        }
    }
    let mut summary = Summary::new(req.limit).with_tolerance(req.tolerance);
    let elements = if req.list {
        compare_streams_listing(&layout, fe, fa, &mut summary, &mut |s, over| {
            if over {
                r.ulp_listed(out, req.format, s)
            } else {
                Ok(())
            }
        })
    } else {
        compare_streams(&layout, fe, fa, &mut summary)
    }
    .with_context(|| format!("comparing {names}"))?;
    let files = Files {
        expected,
        actual,
        names,
    };
    let measured = Measured {
        holds: format!("raw {} elements", req.format.name()),
        format: req.format,
        elements,
        summary,
        picture: None,
    };
    finish(req, &files, measured, report_file, r, out)
}

/// The two files compared, as named on the command line and in messages.
struct Files<'a> {
    expected: &'a PathBuf,
    actual: &'a PathBuf,
    /// `A and B`, each on one line.
    names: String,
}

/// What a comparison of two files measured.
struct Measured {
    /// What the files hold, in words.
    holds: String,
    /// The element format compared.
    format: Format,
    /// Elements compared.
    elements: u64,
    summary: Summary,
    /// The pictures, when the files are images.
    picture: Option<Picture>,
}

/// Writes the report page, when asked, and the summary; the verdict of `--max`.
fn finish(
    req: &UlpDiffRequest,
    files: &Files,
    m: Measured,
    report_file: Option<super::report::ReportFile>,
    r: &mut dyn Renderer,
    out: &mut dyn Write,
) -> anyhow::Result<Exit> {
    let (expected, actual) = (
        files.expected.display().to_string(),
        files.actual.display().to_string(),
    );
    if let Some(f) = report_file {
        f.ulp(&UlpPage {
            expected: &expected,
            actual: &actual,
            holds: m.holds,
            format: m.format,
            opts: req.opts,
            elements: m.elements,
            summary: &m.summary,
            picture: m.picture,
        })?;
    }
    r.ulp_summary(
        out,
        &SummaryReport {
            format: m.format,
            opts: req.opts,
            compared: Compared::Files {
                expected,
                actual,
                elements: m.elements,
            },
            summary: &m.summary,
        },
    )?;
    Ok(exit(m.summary.failed()))
}

/// Two images (or raw buffers with `--width`), read whole, compared element by element,
/// with the pictures for the report.
fn compare_images(
    req: &UlpDiffRequest,
    files: &Files,
    container: Container,
    report_file: Option<super::report::ReportFile>,
    r: &mut dyn Renderer,
    out: &mut dyn Write,
) -> anyhow::Result<Exit> {
    let load = |p: &PathBuf| -> anyhow::Result<ImageBuffer> {
        match (container, req.width) {
            (Container::Raw, Some((w, channels))) => {
                // Read whole, but no further than the largest picture `convert` reads
                // (its --max-pixels default): /dev/zero is not a picture.
                let limit = crate::convert::image_in::DEFAULT_MAX_PIXELS
                    * channels as u64
                    * req.format.element_bytes() as u64;
                let shown = crate::path_text::display_path(p);
                let mut file = File::open(p).with_context(|| format!("opening {shown}"))?;
                let mut data = Vec::new();
                let more = crate::io::read_at_most(&mut file, &mut data, limit, None)
                    .map_err(|e| anyhow::anyhow!("reading {shown}: {e}"))?;
                if more {
                    anyhow::bail!(
                        "{shown} holds more than {limit} bytes, the largest picture --width \
                         reads ({} pixels)",
                        crate::convert::image_in::DEFAULT_MAX_PIXELS
                    );
                }
                Ok(ImageBuffer::raw(
                    req.format,
                    w as u64,
                    channels as usize,
                    data,
                ))
            }
            _ => ImageBuffer::read(p, container).with_context(|| crate::path_text::display_path(p)),
        }
    };
    let (e, a) = (load(files.expected)?, load(files.actual)?);
    let names = &files.names;
    if (e.format, e.per_pixel, e.width, e.height) != (a.format, a.per_pixel, a.width, a.height)
        || e.data.len() != a.data.len()
    {
        // Raw buffers read with one --width have the same words: their sizes tell them
        // apart.
        anyhow::bail!(
            "{names} are not the same kind of image: {}, {} bytes, against {}, {} bytes",
            e.holds,
            e.data.len(),
            a.holds,
            a.data.len()
        );
    }
    let element = e.format.element_bytes();
    if e.data.len() % element != 0 {
        anyhow::bail!(
            "{names}: {} bytes (both) is not a whole number of {element}-byte {} elements",
            e.data.len(),
            e.format.name()
        );
    }
    let layout = Layout::new(e.format, req.opts);
    let mut summary = Summary::new(req.limit).with_tolerance(req.tolerance);
    let mut picture = Picture::new(e.width, e.height);
    let elements = compare_streams_listing(
        &layout,
        &e.data[..],
        &a.data[..],
        &mut summary,
        &mut |s, over| {
            picture.record(&e, s);
            if req.list && over {
                r.ulp_listed(out, e.format, &e.locate(s))?;
            }
            Ok(())
        },
    )
    .with_context(|| format!("comparing {names}"))?;
    // The worst elements and the first NaNs named by pixel, as the listing names them.
    for s in summary
        .worst
        .iter_mut()
        .chain(summary.first_nans.iter_mut())
    {
        *s = e.locate(s);
    }
    picture.previews(&e, &a);
    let measured = Measured {
        holds: e.holds.clone(),
        format: e.format,
        elements,
        summary,
        // Empty buffers have no picture, as without --width (a picture has pixels).
        picture: (elements > 0).then_some(picture),
    };
    finish(req, files, measured, report_file, r, out)
}
