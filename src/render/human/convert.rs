//! The human view of `convert`: one line of totals, two of counts.

use std::io::{self, Write};
use std::path::Path;

use super::Human;
use crate::convert::Report;
use crate::format::{F10, F11, Format};
use crate::path_text;

/// Whether common encoders of the target clamp out-of-range values to its largest finite
/// value rather than INF: the packed float formats (DirectXMath's XMStoreFloat3PK, Mesa's
/// float3_to_r11g11b10f) and their f11/f10 channels.
fn encoders_saturate(to: Format) -> bool {
    matches!(to, Format::R11G11B10) || to == Format::Float(F11) || to == Format::Float(F10)
}

impl Human {
    pub(super) fn render_convert(&mut self, out: &mut dyn Write, r: &Report) -> io::Result<()> {
        let p = &self.p;
        let c = &r.conversion;
        let s = &r.stats;
        let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
        let saturate = if c.opts.saturate { ", saturate" } else { "" };
        writeln!(
            out,
            "{} {} values {} -> {} ({}{saturate}): {} ({:.1} MiB) -> {} ({:.1} MiB) in {:.2} s",
            p.label("converted"),
            p.value(&s.values.to_string()),
            // As the machine styles name them: BC6H on a side is named for what the file
            // holds (a BC6H input copied to its own format converts no values).
            r.input_bc6h.map_or(c.from.name(), |b| b.name()),
            r.output_bc6h.map_or(c.to.name(), |b| b.name()),
            c.opts.mode.as_str(),
            path_text::display_path(Path::new(&r.input)),
            mib(r.bytes_in),
            path_text::display_path(Path::new(&r.output)),
            mib(r.bytes_out),
            r.seconds
        )?;
        let count = |n: u64, label: &str| {
            let text = format!("{n} {label}");
            if n == 0 {
                p.label(&text)
            } else {
                p.warn(&text)
            }
        };
        writeln!(
            out,
            "  {}, {}, {}, {}, {}",
            count(s.inexact, "inexact"),
            count(s.saturated, "saturated to max"),
            count(s.overflow_to_infinity, "overflowed to infinity"),
            count(s.clamped_negative, "negatives clamped to 0"),
            count(s.flushed_to_zero, "flushed to zero"),
        )?;
        writeln!(
            out,
            "  {}, {}, {}; max error {} ULP",
            count(s.nan_in, "NaN in"),
            count(s.nan_out, "NaN out"),
            count(s.subnormal_out, "subnormals produced"),
            p.value(&s.max_ulp_error.to_string())
        )?;
        if s.overflow_to_infinity > 0 && encoders_saturate(c.to) {
            let n = s.overflow_to_infinity;
            writeln!(
                out,
                "  {} {n} {} became INF, where DirectXMath and Mesa's encoders give the \
                 largest finite value: --saturate keeps them finite (or --rounding d3d, \
                 toward zero)",
                p.warn("warning:"),
                if n == 1 { "value" } else { "values" }
            )?;
        }
        Ok(())
    }
}
