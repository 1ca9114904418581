//! The per-element core: what every bulk conversion must produce, one group at a time,
//! written with the same functions `encode` and `decode` use. The fast kernels are
//! tested bit for bit (output and counts) against [`convert_slice`] here.
//!
//! Every source value is first widened to `f64`, which holds all of f32, f16, f11, f10
//! and the packed channels exactly; it is then rounded with `round_f64` (binary floats,
//! and the R11G11B10 channels, §19.3.3) or `rgb9e5_encode` (§19.3.2.2).

use super::Conversion;
use super::summary::{Stats, ulp_error};
use crate::exact::Number;
use crate::format::packed::{R11G11B10_CHANNELS, r11g11b10_join, r11g11b10_split};
use crate::format::packed::{rgb9e5_encode, rgb9e5_split};
use crate::format::{Class, F64, FloatFormat, Format, Rounded, round_f64};

/// Reads the little-endian element at the start of `bytes` (`size` bytes long).
pub(crate) fn read_le(bytes: &[u8], size: usize) -> u64 {
    let mut b = [0u8; 8];
    b[..size].copy_from_slice(&bytes[..size]);
    u64::from_le_bytes(b)
}

pub(crate) fn write_le(bytes: &mut [u8], size: usize, value: u64) {
    bytes[..size].copy_from_slice(&value.to_le_bytes()[..size]);
}

/// The channel values of one source group, widened exactly to `f64`.
fn decode_group(conv: &Conversion, src: &[u8]) -> Vec<f64> {
    match conv.from {
        Format::Float(f) => {
            let size = conv.from.element_bytes();
            src.chunks_exact(size)
                // f11/f10 live in the low bits of a u16; the bits above are ignored.
                .map(|e| f.to_f64(read_le(e, size) & f.mask()))
                .collect()
        }
        Format::R11G11B10 => {
            let word = read_le(src, 4) as u32;
            r11g11b10_split(word)
                .iter()
                .zip(R11G11B10_CHANNELS)
                .map(|(&bits, (f, _))| f.to_f64(bits))
                .collect()
        }
        Format::Rgb9e5 => rgb9e5_split(read_le(src, 4) as u32)
            .iter()
            .map(|c| c.to_f64())
            .collect(),
    }
}

/// Rounds `x` into `fmt` and counts it.
fn round_counted(fmt: &FloatFormat, x: f64, conv: &Conversion, stats: &mut Stats) -> Rounded {
    let r = round_f64(fmt, x, conv.opts);
    let class = fmt.class(r.bits);
    let finite = !matches!(class, Class::Nan | Class::Infinity);
    // Saturated values are counted apart; their distance to the largest finite value says
    // nothing about the conversion's precision (issue 37).
    let error = (finite && x.is_finite() && !r.outcome.clamped_negative && !r.outcome.saturated)
        .then(|| ulp_error(fmt.to_f64(r.bits), x, fmt.significand(r.bits).1));
    stats.record(&r.outcome, class == Class::Nan, error);
    r
}

/// Converts one group: `src` is exactly one source group, `dst` one output group.
pub fn convert_group(conv: &Conversion, src: &[u8], dst: &mut [u8], stats: &mut Stats) {
    let values = decode_group(conv, src);
    match conv.to {
        Format::Float(f) => {
            let size = conv.to.element_bytes();
            let from_packed = matches!(conv.from, Format::R11G11B10 | Format::Rgb9e5);
            let mut out = dst.chunks_exact_mut(size);
            for &x in &values {
                let r = round_counted(&f, x, conv, stats);
                write_le(out.next().expect("output group size"), size, r.bits);
            }
            if from_packed && conv.channels == 4 {
                let alpha = round_f64(&f, 1.0, conv.opts).bits;
                write_le(out.next().expect("alpha slot"), size, alpha);
            }
        }
        Format::R11G11B10 => {
            let bits: [u64; 3] = std::array::from_fn(|i| {
                round_counted(&R11G11B10_CHANNELS[i].0, values[i], conv, stats).bits
            });
            write_le(dst, 4, r11g11b10_join(bits) as u64);
        }
        Format::Rgb9e5 => {
            let numbers: [Number; 3] = std::array::from_fn(|i| F64.value(values[i].to_bits()));
            let (word, outcomes) = rgb9e5_encode(&numbers, conv.opts.mode);
            for (i, (ch, o)) in rgb9e5_split(word).iter().zip(&outcomes).enumerate() {
                let x = values[i];
                let error = (x.is_finite() && !o.clamped_negative && !o.nan && !o.saturated)
                    .then(|| ulp_error(ch.to_f64(), x, ch.exponent as i32 - 24));
                stats.record(o, false, error);
            }
            write_le(dst, 4, word as u64);
        }
    }
}

/// Converts whole groups, one at a time, with the core. `src.len()` must be a multiple of
/// the source group and `dst.len()` the matching output length.
pub fn convert_slice(conv: &Conversion, src: &[u8], dst: &mut [u8]) -> Stats {
    let mut stats = Stats::default();
    let (sg, dg) = (conv.src_group_bytes(), conv.dst_group_bytes());
    assert_eq!(src.len() / sg * dg, dst.len(), "output buffer size");
    for (s, d) in src.chunks_exact(sg).zip(dst.chunks_exact_mut(dg)) {
        convert_group(conv, s, d, &mut stats);
    }
    stats
}
