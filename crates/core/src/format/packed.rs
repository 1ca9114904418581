//! The two packed 32-bit HDR words: `R11G11B10_FLOAT` (§19.3.3) and
//! `R9G9B9E5_SHAREDEXP` (§19.3.2).

use num_traits::ToPrimitive;

use super::descriptor::{F10, F11, FloatFormat};
use super::round::{Outcome, RoundOptions, Rounded, Rounding, round_number};
use crate::exact::{Number, Ratio};

/// Channel formats of R11G11B10_FLOAT, red first, with each channel's lowest bit.
pub const R11G11B10_CHANNELS: [(FloatFormat, u32); 3] = [(F11, 0), (F11, 11), (F10, 22)];

/// Splits an R11G11B10_FLOAT word into its three channel patterns (R, G, B).
pub fn r11g11b10_split(word: u32) -> [u64; 3] {
    R11G11B10_CHANNELS.map(|(fmt, shift)| (word as u64 >> shift) & fmt.mask())
}

/// Joins three channel patterns into an R11G11B10_FLOAT word.
pub fn r11g11b10_join(channels: [u64; 3]) -> u32 {
    R11G11B10_CHANNELS
        .iter()
        .zip(channels)
        .fold(0u32, |w, ((fmt, shift), c)| {
            w | ((c & fmt.mask()) << shift) as u32
        })
}

/// Rounds three values into an R11G11B10_FLOAT word, channel by channel.
pub fn r11g11b10_encode(values: &[Number; 3], opts: RoundOptions) -> (u32, [Outcome; 3]) {
    let rounded: [Rounded; 3] =
        std::array::from_fn(|i| round_number(&R11G11B10_CHANNELS[i].0, &values[i], opts));
    (
        r11g11b10_join(rounded.map(|r| r.bits)),
        rounded.map(|r| r.outcome),
    )
}

/// Bits of each RGB9E5 mantissa and of the shared exponent.
pub const RGB9E5_MANTISSA_BITS: u32 = 9;
/// Bias of RGB9E5's shared exponent field.
pub const RGB9E5_EXP_BIAS: i32 = 15;
/// Largest RGB9E5 mantissa, 511; the largest channel value is `511 * 2^(31-24)` = 65408.
pub const RGB9E5_MAX_MANTISSA: u32 = (1 << RGB9E5_MANTISSA_BITS) - 1;
/// Where the shared exponent starts: bits 27-31, above the three mantissas (§19.3.2).
pub const RGB9E5_EXPONENT_SHIFT: u32 = 3 * RGB9E5_MANTISSA_BITS;
/// Largest shared exponent field, 31 (five bits).
pub const RGB9E5_MAX_EXPONENT: u32 = 31;

/// The mantissa of channel `channel` (0 = R) of an RGB9E5 word.
#[inline]
pub fn rgb9e5_channel_mantissa(word: u32, channel: usize) -> u32 {
    (word >> (RGB9E5_MANTISSA_BITS * channel as u32)) & RGB9E5_MAX_MANTISSA
}

/// The shared exponent field of an RGB9E5 word.
#[inline]
pub fn rgb9e5_shared_exponent(word: u32) -> u32 {
    word >> RGB9E5_EXPONENT_SHIFT
}

/// One decoded RGB9E5 channel: `mantissa * 2^(exponent - 24)`, i.e. `0.mantissa * 2^(E-15)`
/// with no implied leading one (§19.3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rgb9e5Channel {
    /// The channel's 9-bit mantissa (no implied leading one).
    pub mantissa: u32,
    /// The shared (biased) exponent field.
    pub exponent: u32,
}

impl Rgb9e5Channel {
    /// The exact value, `mantissa * 2^(exponent - 24)`.
    pub fn value(&self) -> Ratio {
        Ratio::dyadic(self.mantissa, self.exponent as i64 - 24)
    }

    /// The value as an `f64` (exact: 9 bits times a power of two).
    pub fn to_f64(&self) -> f64 {
        self.mantissa as f64 * 2f64.powi(self.exponent as i32 - 24)
    }
}

/// Splits an RGB9E5 word: R = bits 0-8, G = 9-17, B = 18-26, E = 27-31 (§19.3.2).
pub fn rgb9e5_split(word: u32) -> [Rgb9e5Channel; 3] {
    let exponent = rgb9e5_shared_exponent(word);
    [0, 1, 2].map(|channel| Rgb9e5Channel {
        mantissa: rgb9e5_channel_mantissa(word, channel),
        exponent,
    })
}

/// Joins three mantissas (R, G, B) and a shared exponent into an RGB9E5 word.
pub fn rgb9e5_join(mantissas: [u32; 3], exponent: u32) -> u32 {
    let [r, g, b] = mantissas;
    let m = RGB9E5_MANTISSA_BITS;
    r | (g << m) | (b << (2 * m)) | (exponent << RGB9E5_EXPONENT_SHIFT)
}

/// The largest RGB9E5 channel value, 65408, exactly.
pub fn rgb9e5_max() -> Ratio {
    Ratio::dyadic(RGB9E5_MAX_MANTISSA, 31 - 24)
}

/// Encodes three values as RGB9E5 following §19.3.2.2:
/// 1. each channel is clamped to [0, 65408]: NaN and negatives give 0, +INF and larger
///    values saturate (the format has no sign, INF or NaN);
/// 2. the shared exponent comes from the largest channel, stored as its IEEE exponent
///    plus one plus the bias 15 (the reading that matches the spec's worked example in
///    §19.3.2.1 and Microsoft's MiniEngine reference; the pseudo-code alone is ambiguous);
/// 3. every channel's mantissa is `value * 2^(24 - E)` rounded in the chosen mode; if the
///    largest channel rounds up to 512 the exponent goes up by one and all channels are
///    rounded again at the new scale.
pub fn rgb9e5_encode(values: &[Number; 3], mode: Rounding) -> (u32, [Outcome; 3]) {
    let mut outcomes = [Outcome::default(); 3];
    let clamped: [Ratio; 3] = std::array::from_fn(|i| {
        let (r, o) = rgb9e5_clamp(&values[i]);
        outcomes[i] = o;
        r
    });
    let largest = clamped.iter().max().expect("three channels");
    let mut exponent = if largest.is_zero() {
        0
    } else {
        (largest.floor_log2() + 1 + RGB9E5_EXP_BIAS as i64).max(0)
    };
    loop {
        let rounded: [(u32, bool); 3] = std::array::from_fn(|i| {
            let (q, residue) = clamped[i].scaled_floor(24 - exponent);
            let q = q.to_u32().expect("mantissa fits after clamping");
            let up = mode.rounds_up(false, q & 1 == 1, residue);
            (q + up as u32, residue.nonzero)
        });
        if rounded.iter().any(|&(m, _)| m > RGB9E5_MAX_MANTISSA) {
            exponent += 1;
            continue;
        }
        for (o, &(m, inexact)) in outcomes.iter_mut().zip(&rounded) {
            if !o.nan && !o.clamped_negative {
                o.exact = !inexact && !o.saturated;
                o.underflow_to_zero = m == 0 && inexact;
            }
        }
        let word = rgb9e5_join(rounded.map(|(m, _)| m), exponent as u32);
        return (word, outcomes);
    }
}

/// Step 1 of [`rgb9e5_encode`]: the channel's value after clamping, and what clamping did.
fn rgb9e5_clamp(x: &Number) -> (Ratio, Outcome) {
    let flagged = |f: fn(&mut Outcome)| {
        let mut o = Outcome::default();
        f(&mut o);
        o
    };
    match x {
        // §3.2.2: a format without NaN takes 0.
        Number::Nan { .. } => (Ratio::zero(), flagged(|o| o.nan = true)),
        Number::Infinity { neg: true } => (Ratio::zero(), flagged(|o| o.clamped_negative = true)),
        Number::Infinity { neg: false } => (rgb9e5_max(), flagged(|o| o.saturated = true)),
        Number::Finite { neg: true, mag } if !mag.is_zero() => {
            (Ratio::zero(), flagged(|o| o.clamped_negative = true))
        }
        Number::Finite { mag, .. } if *mag > rgb9e5_max() => {
            (rgb9e5_max(), flagged(|o| o.saturated = true))
        }
        Number::Finite { mag, .. } => (mag.clone(), Outcome::default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(x: f64) -> Number {
        if x.is_nan() {
            return Number::QUIET_NAN;
        }
        if x.is_infinite() {
            return Number::Infinity { neg: x < 0.0 };
        }
        let (m, e) = crate::format::descriptor::F64.significand(x.abs().to_bits());
        Number::finite(x < 0.0, Ratio::dyadic(m, e as i64))
    }

    #[test]
    fn spec_example_decodes() {
        let ch = rgb9e5_split(0x999320c8);
        let vals: Vec<f64> = ch.iter().map(|c| c.to_f64()).collect();
        assert_eq!(vals, [6.25, 12.5, 3.125]);
    }

    #[test]
    fn spec_example_encodes_back() {
        let (w, _) = rgb9e5_encode(&[num(6.25), num(12.5), num(3.125)], Rounding::NearestEven);
        assert_eq!(w, 0x999320c8);
    }

    #[test]
    fn carry_into_the_next_exponent() {
        // 511.75 at E = 24 (scale 1) would need mantissa 512: goes to E = 25, mantissa 256.
        let (w, o) = rgb9e5_encode(&[num(511.75), num(0.0), num(0.0)], Rounding::NearestEven);
        assert_eq!(
            rgb9e5_split(w)[0],
            Rgb9e5Channel {
                mantissa: 256,
                exponent: 25
            }
        );
        assert!(!o[0].exact);
        let (w, _) = rgb9e5_encode(&[num(511.75), num(0.0), num(0.0)], Rounding::TowardZero);
        assert_eq!(
            rgb9e5_split(w)[0],
            Rgb9e5Channel {
                mantissa: 511,
                exponent: 24
            }
        );
    }

    #[test]
    fn clamps_and_specials() {
        let (w, o) = rgb9e5_encode(
            &[num(f64::NAN), num(-2.0), num(f64::INFINITY)],
            Rounding::NearestEven,
        );
        let ch = rgb9e5_split(w);
        assert_eq!(
            (ch[0].mantissa, ch[1].mantissa, ch[2].mantissa),
            (0, 0, 511)
        );
        assert_eq!(ch[2].exponent, 31);
        assert!(o[0].nan && o[1].clamped_negative && o[2].saturated);
        let (w, _) = rgb9e5_encode(&[num(1e9), num(0.0), num(0.0)], Rounding::NearestEven);
        assert_eq!(rgb9e5_split(w)[0].to_f64(), 65408.0);
    }

    #[test]
    fn r11g11b10_round_trip() {
        let opts = RoundOptions::new(Rounding::NearestEven);
        let (w, _) = r11g11b10_encode(&[num(1.0), num(2.0), num(f64::INFINITY)], opts);
        assert_eq!(r11g11b10_split(w), [0x3c0, 0x400, 0x3e0]);
        assert_eq!(r11g11b10_join([0x3c0, 0x400, 0x3e0]), w);
    }
}
