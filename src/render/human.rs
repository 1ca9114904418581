//! The human view: every field explained, coloured on a terminal.

use super::op_text::{allowed_text, bits_text, exact_text, value_text};
use super::ulp_text;
use crate::d3d::line::BatchSummary;
use crate::d3d::{AllowedSet, Domain, Evaluation, OutputReport, OutputVerdict};
use std::io::{self, Write};

use owo_colors::{OwoColorize, Style as Paint};

use super::Renderer;
use crate::convert::Report;
use crate::exact::{Number, Ratio};
use crate::format::describe::{d3d_notes, significand_binary, unbiased_exponent};
use crate::format::encode::{Channel, Encoding};
use crate::format::packed::{R11G11B10_CHANNELS, r11g11b10_split, rgb9e5_split};
use crate::format::{Class, FloatFormat, Format, Outcome, Rounding, hex_bits, text};
use crate::ulp::{ChannelDiff, Compared, Endpoint, PairReport, Resolved, SummaryReport, ValueLine};

/// The colours of one run: all off unless the run decided to colour.
#[derive(Clone, Copy, Debug)]
pub struct Palette {
    on: bool,
}

impl Palette {
    pub fn new(on: bool) -> Palette {
        Palette { on }
    }

    fn paint(&self, s: &str, style: Paint) -> String {
        if self.on {
            s.style(style).to_string()
        } else {
            s.to_string()
        }
    }

    pub fn sign(&self, s: &str) -> String {
        self.paint(s, Paint::new().red().bold())
    }
    pub fn exponent(&self, s: &str) -> String {
        self.paint(s, Paint::new().green().bold())
    }
    pub fn fraction(&self, s: &str) -> String {
        self.paint(s, Paint::new().blue().bold())
    }
    pub fn label(&self, s: &str) -> String {
        self.paint(s, Paint::new().dimmed())
    }
    pub fn value(&self, s: &str) -> String {
        self.paint(s, Paint::new().bold())
    }
    pub fn warn(&self, s: &str) -> String {
        self.paint(s, Paint::new().yellow())
    }
    pub fn good(&self, s: &str) -> String {
        self.paint(s, Paint::new().green())
    }
    pub fn bad(&self, s: &str) -> String {
        self.paint(s, Paint::new().red().bold())
    }
}

pub struct Human {
    p: Palette,
    /// Whether a block was written already: blocks are separated by a blank line.
    started: bool,
}

impl Human {
    pub fn new(p: Palette) -> Human {
        Human { p, started: false }
    }

    fn separate(&mut self, out: &mut dyn Write) -> io::Result<()> {
        if std::mem::replace(&mut self.started, true) {
            writeln!(out)?;
        }
        Ok(())
    }

    fn line(&self, out: &mut dyn Write, indent: &str, label: &str, body: &str) -> io::Result<()> {
        writeln!(
            out,
            "{indent}  {} {body}",
            self.p.label(&format!("{label:<11}"))
        )
    }

    /// The bits split as `s eeeee ffffffffff`, coloured by field.
    fn split_bits(&self, f: &FloatFormat, bits: u64) -> String {
        let fl = f.fields(bits);
        let exp = format!("{:0w$b}", fl.exponent, w = f.exp_bits as usize);
        let frac = format!("{:0w$b}", fl.fraction, w = f.frac_bits as usize);
        let mut s = String::new();
        if f.signed {
            s.push_str(&self.p.sign(if fl.sign { "1" } else { "0" }));
            s.push(' ');
        }
        s.push_str(&self.p.exponent(&exp));
        s.push(' ');
        s.push_str(&self.p.fraction(&frac));
        s
    }

    fn float_block(
        &self,
        out: &mut dyn Write,
        f: &FloatFormat,
        bits: u64,
        indent: &str,
    ) -> io::Result<()> {
        let fl = f.fields(bits);
        let class = f.class(bits);
        let legend = if f.signed {
            format!(
                "{} | {} | {}",
                self.p.sign("sign"),
                self.p.exponent("exponent"),
                self.p.fraction("fraction")
            )
        } else {
            format!(
                "{} | {} (no sign bit)",
                self.p.exponent("exponent"),
                self.p.fraction("fraction")
            )
        };
        self.line(
            out,
            indent,
            "bits",
            &format!("{}   {}", self.split_bits(f, bits), legend),
        )?;
        if f.signed {
            self.line(
                out,
                indent,
                "sign",
                &format!("{} ({})", fl.sign as u8, if fl.sign { "-" } else { "+" }),
            )?;
        }
        let exp_text = match unbiased_exponent(f, bits) {
            Some(e) if class == Class::Normal => {
                format!("{} biased, 2^{e} (bias {})", fl.exponent, f.bias)
            }
            Some(e) => format!(
                "{} biased, subnormal scale 2^{e} (bias {})",
                fl.exponent, f.bias
            ),
            None => format!("{} (all ones: infinity or NaN)", fl.exponent),
        };
        self.line(out, indent, "exponent", &exp_text)?;
        let frac_hex = format!(
            "0x{:0w$x}",
            fl.fraction,
            w = f.frac_bits.div_ceil(4) as usize
        );
        let frac_text = match significand_binary(f, bits) {
            Some(s) => format!("{frac_hex}, significand {s} (binary)"),
            None => frac_hex,
        };
        self.line(out, indent, "fraction", &frac_text)?;
        let class_text = match (class, f.is_quiet_nan(bits)) {
            (Class::Nan, Some(true)) => "NaN (quiet)".to_string(),
            (Class::Nan, Some(false)) => "NaN (signalling)".to_string(),
            (Class::Nan, None) => "NaN".to_string(),
            (Class::Infinity, _) => format!("{}infinity", if fl.sign { "-" } else { "+" }),
            (c, _) => c.as_str().to_string(),
        };
        self.line(out, indent, "class", &self.p.value(&class_text))?;
        if !matches!(class, Class::Nan | Class::Infinity) {
            self.line(out, indent, "exact", &text::exact_decimal(f, bits))?;
            self.line(out, indent, "shortest", &text::shortest_decimal(f, bits))?;
            self.line(out, indent, "hex-float", &text::hex_float(f, bits))?;
        }
        let (prev, next) = f.neighbours(bits);
        let near = |b: Option<u64>| match b {
            Some(b) => format!(
                "{} = {}",
                hex_bits(b, f.width()),
                text::shortest_decimal(f, b)
            ),
            None => "none".to_string(),
        };
        if class != Class::Nan {
            self.line(out, indent, "below", &near(prev))?;
            self.line(out, indent, "above", &near(next))?;
        }
        if let Some(u) = f.ulp(bits) {
            let (_, e) = f.significand(bits);
            self.line(
                out,
                indent,
                "ulp",
                &format!("2^{e} = {}", u.decimal_expansion().unwrap_or_default()),
            )?;
        }
        for n in d3d_notes(f, bits) {
            self.line(out, indent, "D3D", &format!("{} (§{})", n.text, n.section))?;
        }
        Ok(())
    }

    fn number(&self, n: &Number) -> String {
        match n {
            Number::Nan { .. } => "nan".into(),
            Number::Infinity { neg } => if *neg { "-inf" } else { "inf" }.into(),
            Number::Finite { neg, mag } => {
                let d = decimal_or_approx(mag);
                if *neg { format!("-{d}") } else { d }
            }
        }
    }

    fn outcome_notes(&self, o: &Outcome, format: &Format) -> Vec<String> {
        let mut v = Vec::new();
        if o.overflow_to_infinity {
            v.push("overflow: beyond the largest finite value, rounded to infinity".into());
        }
        if o.saturated {
            v.push("saturated: beyond the range, gave the largest finite value".into());
        }
        if o.clamped_negative {
            v.push(format!(
                "negative clamped to 0: {} has no sign (§3.1.6, §19.3.2)",
                format.name()
            ));
        }
        if o.nan {
            v.push(match format {
                Format::Rgb9e5 => "NaN becomes 0: RGB9E5 has no NaN (§3.2.2, §19.3.2)".into(),
                _ => "NaN stays NaN (top payload bits kept, quiet bit set) (§3.2.2)".into(),
            });
        }
        if o.subnormal {
            v.push("result is subnormal".into());
        }
        if o.underflow_to_zero {
            v.push("underflow: a non-zero input rounded to zero".into());
        }
        v
    }
}

fn decimal_or_approx(r: &Ratio) -> String {
    match r.decimal_expansion() {
        Some(d) if d.len() <= 80 => d,
        _ => format!("~{:e}", r.to_f64_lossy()),
    }
}

/// `= 65504` when the exact value is short enough to read at a glance, else `≈ 0.1`.
fn headline_value(f: &FloatFormat, bits: u64) -> String {
    let exact = text::exact_decimal(f, bits);
    if exact.len() <= 24 {
        format!("= {exact}")
    } else {
        format!("≈ {}", text::shortest_decimal(f, bits))
    }
}

fn mode_text(m: Rounding) -> &'static str {
    match m {
        Rounding::NearestEven => "rne: to nearest, ties to even; overflow to infinity",
        Rounding::TowardZero => {
            "rtz (d3d): toward zero; overflow to the largest finite value (§3.2.2)"
        }
        Rounding::TowardPositive => "rtp: toward +infinity",
        Rounding::TowardNegative => "rtn: toward -infinity",
    }
}

impl Renderer for Human {
    fn decode(&mut self, out: &mut dyn Write, format: &Format, bits: u64) -> io::Result<()> {
        self.separate(out)?;
        match format {
            Format::Float(f) => {
                writeln!(
                    out,
                    "{} {} {}",
                    f.name,
                    self.p.value(&hex_bits(bits, f.width())),
                    self.p.value(&headline_value(f, bits))
                )?;
                self.float_block(out, f, bits, "")
            }
            Format::R11G11B10 => {
                let ch = r11g11b10_split(bits as u32);
                let names = ["R", "G", "B"];
                let summary: Vec<String> = (0..3)
                    .map(|i| {
                        format!(
                            "{} {}",
                            names[i],
                            text::shortest_decimal(&R11G11B10_CHANNELS[i].0, ch[i])
                        )
                    })
                    .collect();
                writeln!(
                    out,
                    "r11g11b10 {} = {}",
                    self.p.value(&hex_bits(bits, 32)),
                    self.p.value(&summary.join(", "))
                )?;
                self.line(
                    out,
                    "",
                    "word",
                    &format!(
                        "{:010b} {:011b} {:011b}   B | G | R (§19.3.3)",
                        ch[2], ch[1], ch[0]
                    ),
                )?;
                for i in 0..3 {
                    let (f, shift) = R11G11B10_CHANNELS[i];
                    writeln!(
                        out,
                        "  {} {} (bits {}-{}) {} = {}",
                        self.p.value(names[i]),
                        f.name,
                        shift,
                        shift + f.width() - 1,
                        hex_bits(ch[i], f.width()),
                        text::shortest_decimal(&f, ch[i])
                    )?;
                    self.float_block(out, &f, ch[i], "  ")?;
                }
                Ok(())
            }
            Format::Rgb9e5 => {
                let ch = rgb9e5_split(bits as u32);
                let names = ["R", "G", "B"];
                let vals: Vec<String> = ch.iter().map(|c| Channel::Rgb9e5(*c).shortest()).collect();
                let summary: Vec<String> = (0..3)
                    .map(|i| format!("{} {}", names[i], vals[i]))
                    .collect();
                writeln!(
                    out,
                    "rgb9e5 {} = {}",
                    self.p.value(&hex_bits(bits, 32)),
                    self.p.value(&summary.join(", "))
                )?;
                let e = ch[0].exponent;
                self.line(
                    out,
                    "",
                    "word",
                    &format!(
                        "{} {:09b} {:09b} {:09b}   E | B | G | R (§19.3.2)",
                        self.p.exponent(&format!("{e:05b}")),
                        ch[2].mantissa,
                        ch[1].mantissa,
                        ch[0].mantissa
                    ),
                )?;
                let scale = Ratio::dyadic(1u32, e as i64 - 15);
                self.line(
                    out,
                    "",
                    "exponent",
                    &format!(
                        "{e} shared (bias 15): each channel is 0.mantissa x 2^{} = mantissa/512 x {}",
                        e as i32 - 15,
                        decimal_or_approx(&scale)
                    ),
                )?;
                for i in 0..3 {
                    self.line(
                        out,
                        "",
                        names[i],
                        &format!(
                            "mantissa {:#05x} = {}/512, value {}",
                            ch[i].mantissa,
                            ch[i].mantissa,
                            decimal_or_approx(&ch[i].value())
                        ),
                    )?;
                }
                self.line(
                    out,
                    "",
                    "D3D",
                    "no implied leading 1, no sign, no INF or NaN; largest value 65408 (§19.3.2)",
                )
            }
        }
    }

    fn convert(&mut self, out: &mut dyn Write, r: &Report) -> io::Result<()> {
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
            c.from.name(),
            c.to.name(),
            c.opts.mode.as_str(),
            r.input,
            mib(r.bytes_in),
            r.output,
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
        )
    }

    fn encode(&mut self, out: &mut dyn Write, e: &Encoding) -> io::Result<()> {
        self.separate(out)?;
        let width = e.format.width();
        writeln!(
            out,
            "{} {} = {}",
            e.format.name(),
            e.inputs.join(" "),
            self.p.value(&hex_bits(e.bits, width))
        )?;
        self.line(
            out,
            "",
            "rounding",
            &format!(
                "{}{}",
                mode_text(e.opts.mode),
                if e.opts.saturate { ", saturating" } else { "" }
            ),
        )?;
        if let Format::Rgb9e5 = e.format {
            self.line(
                out,
                "",
                "rule",
                "shared exponent from the largest channel (IEEE exponent + 1 + bias 15), each mantissa rounded at that scale, exponent bumped when the largest rounds up to 512 (§19.3.2.2)",
            )?;
        }
        let chans = e.channels();
        let names = ["R", "G", "B"];
        for (i, c) in chans.iter().enumerate() {
            let prefix = if chans.len() > 1 {
                format!("{} ", names[i])
            } else {
                String::new()
            };
            let bits_text = match c {
                Channel::Float(f, b) => {
                    format!("{} = {}", hex_bits(*b, f.width()), self.split_bits(f, *b))
                }
                Channel::Rgb9e5(ch) => format!(
                    "mantissa {:#05x}, shared exponent {}",
                    ch.mantissa, ch.exponent
                ),
            };
            self.line(out, "", &format!("{prefix}bits"), &bits_text)?;
            self.line(
                out,
                "",
                &format!("{prefix}input"),
                &self.number(&e.values[i]),
            )?;
            self.line(
                out,
                "",
                &format!("{prefix}result"),
                &format!(
                    "{} (shortest {})",
                    self.number(&c.value()),
                    self.p.value(&c.shortest())
                ),
            )?;
            let o = &e.outcomes[i];
            let verdict = if o.exact {
                self.p.good("exact")
            } else if o.clamped_negative {
                self.p.warn("clamped: the format holds no negative values")
            } else if o.overflow_to_infinity {
                self.p.warn("inexact: overflowed to infinity")
            } else {
                match e.error(i) {
                    Some(err) => self.p.warn(&format!(
                        "inexact: {} {} the input, relative {:.3e}, {:.4} ULP",
                        decimal_or_approx(&err.absolute),
                        if err.result_above { "above" } else { "below" },
                        err.relative,
                        err.ulps
                    )),
                    None => self.p.warn("inexact"),
                }
            };
            self.line(out, "", &format!("{prefix}error"), &verdict)?;
            for n in self.outcome_notes(o, &e.format) {
                self.line(out, "", &format!("{prefix}note"), &n)?;
            }
        }
        for (m, bits) in e.alternatives() {
            let vals: Vec<String> = crate::format::encode::channels(&e.format, bits)
                .iter()
                .map(|c| c.shortest())
                .collect();
            self.line(
                out,
                "",
                "other mode",
                &format!(
                    "{} gives {} = {}",
                    m.as_str(),
                    hex_bits(bits, width),
                    vals.join(" ")
                ),
            )?;
        }
        Ok(())
    }

    fn ulp_diff(&mut self, out: &mut dyn Write, d: &PairReport) -> io::Result<()> {
        let p = d.pair;
        let exceeds = d.limit.map(|l| p.exceeds(l));
        if d.batch {
            // One line per pair; the summary after them is set off by a blank line.
            self.started = true;
            let ds: Vec<String> = p
                .channels
                .iter()
                .map(|c| {
                    let t = super::distance_text(c.distance, true);
                    match c.channel {
                        Some(name) => format!("{} {t}", name.to_uppercase()),
                        None => t,
                    }
                })
                .collect();
            let flag = match exceeds {
                Some(true) => format!("  {}", self.p.bad("over --max")),
                _ => String::new(),
            };
            return writeln!(
                out,
                "{} {}  {}{flag}",
                d.inputs[0],
                d.inputs[1],
                self.p.value(&ds.join(", "))
            );
        }
        self.separate(out)?;
        let width = p.format.width();
        let headline = match p.distance() {
            Some(dist) => format!("{} ULP", super::distance_text(Some(dist), true)),
            None => "NaN, not measured".to_string(),
        };
        writeln!(
            out,
            "{} ulp-diff {} -> {}: {}",
            p.format.name(),
            hex_bits(p.a.bits, width),
            hex_bits(p.b.bits, width),
            self.p.value(&headline)
        )?;
        for (label, r, input) in [("A", &p.a, d.inputs[0]), ("B", &p.b, d.inputs[1])] {
            if let Some(note) = self.operand_note(r, input) {
                self.line(out, "", &format!("{label} input"), &note)?;
            }
        }
        for c in &p.channels {
            self.channel_diff(out, c)?;
        }
        if p.channels.len() > 1 {
            self.line(
                out,
                "",
                "distance",
                &format!("{headline} (the channel farthest apart)"),
            )?;
        }
        match (d.limit, exceeds) {
            (Some(l), Some(true)) => self.line(
                out,
                "",
                "verdict",
                &self.p.bad(&if p.has_nan() {
                    format!("fails --max {l}: a NaN is involved")
                } else {
                    format!("exceeds --max {l}")
                }),
            ),
            (Some(l), _) => self.line(
                out,
                "",
                "verdict",
                &self.p.good(&format!("within --max {l}")),
            ),
            _ => Ok(()),
        }
    }

    fn ulp_summary(&mut self, out: &mut dyn Write, s: &SummaryReport) -> io::Result<()> {
        self.separate(out)?;
        let m = s.summary;
        let what = match &s.compared {
            Compared::Pairs => format!("{} comparisons from stdin", m.compared),
            Compared::Files {
                expected,
                actual,
                elements,
            } => format!(
                "{expected} (expected) vs {actual} (actual): {elements} elements, {} comparisons",
                m.compared
            ),
        };
        writeln!(out, "{} summary, {}", s.format.name(), self.p.value(&what))?;
        if s.format == Format::Float(crate::format::F32) {
            self.line(
                out,
                "",
                "subnormals",
                if s.opts.flush_subnormals {
                    "counted as zero, as D3D arithmetic reads them (§3.1.3.2)"
                } else {
                    "counted as values (--no-flush)"
                },
            )?;
        }
        self.line(
            out,
            "",
            "measured",
            &format!(
                "{}; NaN {} ({} against a number, {} both NaN)",
                m.measured(),
                m.nans(),
                m.nan_mismatches,
                m.nan_both
            ),
        )?;
        self.line(out, "", "max |d|", &m.max_abs.to_string())?;
        self.line(
            out,
            "",
            "mean |d|",
            &m.mean_abs().map_or("-".to_string(), |x| {
                if x != 0.0 && x < 1e-3 {
                    format!("{x:.3e}")
                } else {
                    format!("{x:.6}")
                }
            }),
        )?;
        if m.measured() > 0 {
            self.line(out, "", "histogram", "|distance|  count")?;
            let rows = ulp_text::histogram_rows(m);
            let rows: Vec<_> = rows.into_iter().filter(|(_, n)| *n > 0).collect();
            let widest = rows.iter().map(|(_, n)| *n).max().unwrap_or(1);
            let label_width = rows.iter().map(|(l, _)| l.len()).max().unwrap_or(1).max(10);
            for (label, n) in rows {
                let bar = "#".repeat(((n as f64 / widest as f64) * 40.0).ceil() as usize);
                writeln!(
                    out,
                    "  {:>w$}  {n:>12}  {}",
                    label,
                    self.p.label(&bar),
                    w = label_width + 2
                )?;
            }
        }
        let index_word = match s.compared {
            Compared::Pairs => "line",
            Compared::Files { .. } => "element",
        };
        let sample_text = |x: &crate::ulp::Sample| {
            let ch = x
                .channel
                .map(|c| format!(" {}", crate::ulp::CHANNEL_NAMES[c].to_uppercase()))
                .unwrap_or_default();
            format!(
                "{index_word} {}{ch}: {} vs {}, {}",
                x.index,
                super::sample_bits(s.format, x, x.a),
                super::sample_bits(s.format, x, x.b),
                super::distance_text(x.distance, true)
            )
        };
        for x in &m.worst {
            self.line(out, "", "worst", &sample_text(x))?;
        }
        for x in &m.first_nans {
            self.line(out, "", "NaN at", &sample_text(x))?;
        }
        if let Some(l) = m.limit {
            let text = if m.failed() {
                self.p.bad(&format!(
                    "fails --max {l}: {} over, {} NaN",
                    m.over_limit,
                    m.nans()
                ))
            } else {
                self.p.good(&format!("all within --max {l}"))
            };
            self.line(out, "", "verdict", &text)?;
        }
        Ok(())
    }

    fn op(&mut self, out: &mut dyn Write, e: &Evaluation, batch: bool) -> io::Result<()> {
        if batch {
            return self.op_line(out, e);
        }
        self.separate(out)?;
        let p = self.p;
        let call = op_call(e);
        let rules = match e.rules {
            crate::d3d::RuleSet::D3D11 => "Direct3D 11 rules",
            crate::d3d::RuleSet::D3D10 => "Direct3D 10 rules",
        };
        writeln!(
            out,
            "{}  {}",
            p.value(&call),
            p.label(&format!("({}, {rules})", e.format.name))
        )?;
        let multi = e.args.iter().any(|a| a.len() > 1);
        for (i, comps) in e.args.iter().enumerate() {
            for (j, c) in comps.iter().enumerate() {
                let label = if multi {
                    format!("src{i}.{}", ["x", "y", "z", "w"][j])
                } else {
                    format!("src{i}")
                };
                let mut body = format!(
                    "{} = {}",
                    bits_text(&c.domain, c.bits),
                    value_text(&c.domain, c.bits)
                );
                if c.inexact_literal {
                    body.push_str(&p.warn(&format!("  ({} rounded to nearest-even)", c.text)));
                }
                if let Some(z) = c.flushed_to {
                    body.push_str(&p.warn(&format!(
                        "  denorm, read as {} (§3.1.3.2)",
                        value_text(&c.domain, z)
                    )));
                }
                self.line(out, "", &format!("{label:<10}"), &body)?;
            }
        }
        for o in &e.outputs {
            let indent = if e.outputs.len() > 1 {
                writeln!(out, "  {}", p.value(&format!("{}:", o.name)))?;
                "  "
            } else {
                ""
            };
            self.op_output(out, indent, o)?;
        }
        let mut first = true;
        for r in &e.rules_applied {
            let label = if std::mem::replace(&mut first, false) {
                "rules     "
            } else {
                "          "
            };
            self.line(
                out,
                "",
                label,
                &format!("{}  {}", p.label(r.section()), r.text()),
            )?;
        }
        if let Some(c) = &e.check {
            for (v, o) in c.verdicts.iter().zip(&e.outputs) {
                let label = if c.verdicts.len() > 1 {
                    format!("check {:<4}", o.name)
                } else {
                    "check     ".to_string()
                };
                let body = format!(
                    "{} = {}: {}",
                    bits_text(&o.domain, v.result),
                    value_text(&o.domain, v.result),
                    self.verdict_text(v)
                );
                self.line(out, "", &label, &body)?;
                if let Some(rule) = v.broken {
                    self.line(out, "", "          ", &format!("breaks {}", rule.cite()))?;
                }
            }
        }
        Ok(())
    }

    fn op_summary(&mut self, out: &mut dyn Write, s: &BatchSummary) -> io::Result<()> {
        let text = s.text();
        let painted = if s.violate == 0 {
            self.p.good(&text)
        } else {
            self.p.bad(&text)
        };
        writeln!(out, "{painted}")
    }
}

impl Human {
    /// What happened to an operand given as a value.
    fn operand_note(&self, r: &Resolved, input: &str) -> Option<String> {
        if !r.from_value {
            return None;
        }
        Some(if r.exact {
            format!("{input} (a value, represented exactly)")
        } else {
            self.p.warn(&format!(
                "{input} (a value, rounded to nearest even: inexact; the distance is measured from the rounded pattern)"
            ))
        })
    }

    /// `0x3c00 = 1 (normal)`, with the flush note where it applies.
    fn endpoint_text(&self, c: &ChannelDiff, e: &Endpoint) -> String {
        let exp = match c.line {
            ValueLine::Rgb9e5 => format!(" at shared exponent {}", e.rgb9e5_exponent()),
            ValueLine::Float { .. } => String::new(),
        };
        let mut t = format!(
            "{}{exp} = {} ({})",
            ulp_text::bits_text(c, e),
            self.p.value(&ulp_text::value_text(c, e)),
            ulp_text::class_text(c, e)
        );
        if e.counted_as_zero {
            t.push_str(&self.p.warn(&format!(
                ", counted as {}0: D3D arithmetic flushes f32 subnormals (§3.1.3.2; --no-flush counts them)",
                if e.value.is_negative() { "-" } else { "+" }
            )));
        }
        t
    }

    fn channel_diff(&self, out: &mut dyn Write, c: &ChannelDiff) -> io::Result<()> {
        let prefix = c
            .channel
            .map(|n| format!("{} ", n.to_uppercase()))
            .unwrap_or_default();
        let label = |l: &str| format!("{prefix}{l}");
        self.line(out, "", &label("A"), &self.endpoint_text(c, &c.a))?;
        self.line(out, "", &label("B"), &self.endpoint_text(c, &c.b))?;
        let dist = match c.distance {
            Some(0) => "0: the same point on the value line".to_string(),
            Some(d) => {
                let n = d.unsigned_abs();
                let plural = if n == 1 { "" } else { "s" };
                let side = if d > 0 { "above" } else { "below" };
                let steps = match c.line {
                    ValueLine::Rgb9e5 => {
                        let finer = c.a.rgb9e5_exponent().min(c.b.rgb9e5_exponent()) as i64 - 24;
                        format!("{n} step{plural} of 2^{finer}, the finer word's grid,")
                    }
                    ValueLine::Float { .. } => format!("{n} representable value{plural}"),
                };
                format!(
                    "{} (B is {steps} {side} A)",
                    super::distance_text(Some(d), true)
                )
            }
            None => {
                let which = match (c.a.value.is_nan(), c.b.value.is_nan()) {
                    (true, true) => "A and B are NaN",
                    (true, false) => "A is NaN",
                    _ => "B is NaN",
                };
                format!("not measured: {which}, and NaN is not on the value line")
            }
        };
        self.line(out, "", &label("distance"), &dist)?;
        let ulp = |e: &Endpoint| {
            e.ulp
                .as_ref()
                .map_or("none (infinite or NaN)".to_string(), |u| {
                    format!("2^{} = {}", u.floor_log2(), super::error_text(u))
                })
        };
        let ulp_text = if c.a.ulp == c.b.ulp {
            format!("{} at both", ulp(&c.a))
        } else {
            format!("{} at A, {} at B", ulp(&c.a), ulp(&c.b))
        };
        self.line(out, "", &label("ulp"), &ulp_text)?;
        if c.distance.is_some() {
            self.line(
                out,
                "",
                &label("abs error"),
                &c.abs_error
                    .as_ref()
                    .map_or("infinite".to_string(), super::error_text),
            )?;
            self.line(
                out,
                "",
                &label("rel error"),
                &c.rel_error
                    .as_ref()
                    .map_or("infinite (A is zero or infinite)".to_string(), |r| {
                        if r.is_zero() {
                            "0".to_string()
                        } else {
                            format!("{:.6e}", r.to_f64_lossy())
                        }
                    }),
            )?;
        }
        Ok(())
    }
}

/// `add 1 0x33800000` as the user wrote it.
fn op_call(e: &Evaluation) -> String {
    let mut call = e.op_name.to_string();
    for comps in &e.args {
        call.push(' ');
        let texts: Vec<&str> = comps.iter().map(|c| c.text.trim()).collect();
        call.push_str(&texts.join(","));
    }
    call
}

/// A range of patterns with its values, count and width.
fn range_text(domain: &Domain, lo: u64, hi: u64) -> String {
    if lo == hi {
        return format!("{} = {}", bits_text(domain, lo), value_text(domain, lo));
    }
    let (klo, khi) = (domain.key(lo).unwrap_or(0), domain.key(hi).unwrap_or(0));
    let count = (khi - klo) as u64 + 1;
    let width = AllowedSet::ulp_width(domain, (klo, khi));
    format!(
        "{}-{} = {} to {}  ({count} patterns, {width} ULP{} wide)",
        bits_text(domain, lo),
        bits_text(domain, hi),
        value_text(domain, lo),
        value_text(domain, hi),
        if width == 1 { "" } else { "s" }
    )
}

impl Human {
    fn op_output(&self, out: &mut dyn Write, indent: &str, o: &OutputReport) -> io::Result<()> {
        let p = self.p;
        if let Some(x) = exact_text(&o.exact) {
            self.line(out, indent, "exact     ", &x)?;
        }
        let strict = if o.domain.is_nan(o.preferred) {
            "NaN".to_string()
        } else {
            format!(
                "{} = {}",
                bits_text(&o.domain, o.preferred),
                value_text(&o.domain, o.preferred)
            )
        };
        self.line(
            out,
            indent,
            "strict    ",
            &format!("{}  {}", p.value(&strict), p.label("(correctly rounded)")),
        )?;
        let ranges = o.allowed.bit_ranges(&o.domain);
        let mut lines: Vec<String> = ranges
            .iter()
            .map(|&(lo, hi)| range_text(&o.domain, lo, hi))
            .collect();
        if o.allowed.nan {
            lines.push("any NaN".to_string());
        }
        for (i, l) in lines.iter().enumerate() {
            let label = if i == 0 { "allowed   " } else { "          " };
            self.line(out, indent, label, &p.good(l))?;
        }
        Ok(())
    }

    fn verdict_text(&self, v: &OutputVerdict) -> String {
        if v.conforms {
            return self.p.good("conforms");
        }
        let how = match v.miss_ulps {
            // Only the other zero is allowed: an IEEE sign rule or a table fixes the sign.
            Some(0) => "violates: the sign of zero is fixed here".to_string(),
            Some(n) => format!(
                "violates, {n} ULP{} outside the allowed set",
                if n == 1 { "" } else { "s" }
            ),
            None => "violates".to_string(),
        };
        self.p.bad(&how)
    }

    /// The one-line form of a batch line.
    fn op_line(&mut self, out: &mut dyn Write, e: &Evaluation) -> io::Result<()> {
        let call = op_call(e);
        let o = e.main_output();
        match &e.check {
            Some(c) => {
                let v = c
                    .verdicts
                    .iter()
                    .find(|v| !v.conforms)
                    .unwrap_or(&c.verdicts[0]);
                let mut line = format!("{call} = {}  {}", c.text, self.verdict_text(v));
                if !v.conforms {
                    let oi = c
                        .verdicts
                        .iter()
                        .position(|x| std::ptr::eq(x, v))
                        .unwrap_or(0);
                    let ob = &e.outputs[oi];
                    line.push_str(&format!(
                        ": allowed {}",
                        allowed_text(&ob.domain, &ob.allowed)
                    ));
                    if let Some(r) = v.broken {
                        line.push_str(&format!(" ({} {})", r.section(), r.text()));
                    }
                }
                writeln!(out, "{line}")
            }
            None => {
                let parts: Vec<String> = e
                    .outputs
                    .iter()
                    .map(|o| {
                        format!(
                            "{}  allowed {}",
                            bits_text(&o.domain, o.preferred),
                            allowed_text(&o.domain, &o.allowed)
                        )
                    })
                    .collect();
                let _ = o;
                writeln!(out, "{call}  -> {}", parts.join("; "))
            }
        }
    }
}
