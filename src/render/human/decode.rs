//! The human view of `decode`: the fields coloured, the class, the value in three forms,
//! the neighbours, the ULP and the Direct3D notes; packed words channel by channel.

use std::io::{self, Write};

use super::{Human, decimal_or_approx};
use crate::exact::Ratio;
use crate::format::decoded::{Decoded, DecodedChannel, DecodedFloat, Neighbour};
use crate::format::packed::R11G11B10_CHANNELS;
use crate::format::{Class, Format, hex_bits};

/// `= 65504` when the exact value is short enough to read at a glance, else `≈ 0.1`.
fn headline_value(d: &DecodedFloat) -> String {
    if d.exact.len() <= 24 {
        format!("= {}", d.exact)
    } else {
        format!("≈ {}", d.shortest)
    }
}

const NAMES: [&str; 3] = ["R", "G", "B"];

impl Human {
    pub(super) fn render_decode(&mut self, out: &mut dyn Write, d: &Decoded) -> io::Result<()> {
        self.separate(out)?;
        match d.format {
            Format::Float(_) => {
                let DecodedChannel::Float(f) = &d.channels[0] else {
                    unreachable!("a float pattern decodes to one float channel")
                };
                writeln!(
                    out,
                    "{} {} {}",
                    f.format.name,
                    self.p.value(&hex_bits(f.bits, f.format.width())),
                    self.p.value(&headline_value(f))
                )?;
                self.typed_decimal_note(out, d)?;
                self.float_block(out, f, "")
            }
            Format::R11G11B10 => self.r11g11b10(out, d),
            Format::Rgb9e5 => self.rgb9e5(out, d),
        }
    }

    /// The headline of a packed word, then the note on a word typed in decimal.
    fn packed_headline(&self, out: &mut dyn Write, d: &Decoded) -> io::Result<()> {
        writeln!(
            out,
            "{} {} = {}",
            d.format.name(),
            self.p.value(&hex_bits(d.bits, 32)),
            self.p.value(&Self::channel_summary(d))
        )?;
        self.typed_decimal_note(out, d)
    }

    /// The channel summary of a packed word's headline: `R 1, G 2, B 3`.
    fn channel_summary(d: &Decoded) -> String {
        let summary: Vec<String> = d
            .channels
            .iter()
            .zip(NAMES)
            .map(|(c, name)| format!("{name} {}", c.shortest()))
            .collect();
        summary.join(", ")
    }

    fn r11g11b10(&self, out: &mut dyn Write, d: &Decoded) -> io::Result<()> {
        let floats: Vec<&DecodedFloat> = d
            .channels
            .iter()
            .filter_map(|c| match c {
                DecodedChannel::Float(f) => Some(f),
                DecodedChannel::Rgb9e5(_) => None,
            })
            .collect();
        self.packed_headline(out, d)?;
        self.line(
            out,
            "",
            "word",
            &format!(
                "{:010b} {:011b} {:011b}   B | G | R (§19.3.3)",
                floats[2].bits, floats[1].bits, floats[0].bits
            ),
        )?;
        for (i, f) in floats.iter().enumerate() {
            let shift = R11G11B10_CHANNELS[i].1;
            writeln!(
                out,
                "  {} {} (bits {}-{}) {} = {}",
                self.p.value(NAMES[i]),
                f.format.name,
                shift,
                shift + f.format.width() - 1,
                hex_bits(f.bits, f.format.width()),
                f.shortest
            )?;
            self.float_block(out, f, "  ")?;
        }
        Ok(())
    }

    fn rgb9e5(&self, out: &mut dyn Write, d: &Decoded) -> io::Result<()> {
        let ch: Vec<_> = d
            .channels
            .iter()
            .filter_map(|c| match c {
                DecodedChannel::Rgb9e5(c) => Some(c),
                DecodedChannel::Float(_) => None,
            })
            .collect();
        self.packed_headline(out, d)?;
        let e = d.shared_exponent.unwrap_or_default();
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
        for (c, name) in ch.iter().zip(NAMES) {
            self.line(
                out,
                "",
                name,
                &format!(
                    "mantissa {:#05x} = {}/512, value {}",
                    c.mantissa,
                    c.mantissa,
                    decimal_or_approx(&c.value)
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

    /// For a pattern typed in decimal (`decode 1`): that it was read as bits.
    fn typed_decimal_note(&self, out: &mut dyn Write, d: &Decoded) -> io::Result<()> {
        if !d.typed_decimal {
            return Ok(());
        }
        writeln!(
            out,
            "  {}        {} in decimal, read as the bit pattern {} (decode reads bits; \
             encode rounds a value)",
            self.p.label("read"),
            d.bits,
            hex_bits(d.bits, d.format.width())
        )
    }

    fn float_block(&self, out: &mut dyn Write, d: &DecodedFloat, indent: &str) -> io::Result<()> {
        let f = &d.format;
        let fl = d.fields;
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
            &format!("{}   {}", self.split_bits(f, d.bits), legend),
        )?;
        if f.signed {
            self.line(
                out,
                indent,
                "sign",
                &format!("{} ({})", fl.sign as u8, if fl.sign { "-" } else { "+" }),
            )?;
        }
        let exp_text = match d.unbiased_exponent {
            Some(e) if d.class == Class::Normal => {
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
        let frac_text = match &d.significand_binary {
            Some(s) => format!("{frac_hex}, significand {s} (binary)"),
            None => frac_hex,
        };
        self.line(out, indent, "fraction", &frac_text)?;
        let class_text = match (d.class, d.quiet) {
            (Class::Nan, Some(true)) => "NaN (quiet)".to_string(),
            (Class::Nan, Some(false)) => "NaN (signalling)".to_string(),
            (Class::Nan, None) => "NaN".to_string(),
            (Class::Infinity, _) => format!("{}infinity", if fl.sign { "-" } else { "+" }),
            (c, _) => c.as_str().to_string(),
        };
        self.line(out, indent, "class", &self.p.value(&class_text))?;
        if !matches!(d.class, Class::Nan | Class::Infinity) {
            self.line(out, indent, "exact", &d.exact)?;
            self.line(out, indent, "shortest", &d.shortest)?;
            self.line(out, indent, "hex-float", &d.hex_float)?;
        }
        let near = |n: &Option<Neighbour>| match n {
            Some(n) => format!("{} = {}", hex_bits(n.bits, f.width()), n.shortest),
            None => "none".to_string(),
        };
        if d.class != Class::Nan {
            self.line(out, indent, "below", &near(&d.previous))?;
            self.line(out, indent, "above", &near(&d.next))?;
        }
        if let Some(u) = &d.ulp {
            self.line(
                out,
                indent,
                "ulp",
                &format!("2^{} = {}", u.log2, u.decimal.clone().unwrap_or_default()),
            )?;
        }
        for n in &d.notes {
            self.line(out, indent, "D3D", &format!("{} (§{})", n.text, n.section))?;
        }
        Ok(())
    }
}
