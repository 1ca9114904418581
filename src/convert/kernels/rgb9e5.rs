//! The RGB9E5 target (§19.3.2.2): clamp, one shared exponent from the largest channel,
//! each mantissa rounded at that scale. A vector pass for ordinary texels, the exact
//! branch-free texel code for the rest.

use super::{
    Ordinary, RNE, RTP, Tally, add_ordinary, avx2_vector, bit, flag, pick, pow2, with_elements,
};
use crate::convert::summary::Stats;
use crate::format::packed::{
    RGB9E5_EXP_BIAS, RGB9E5_EXPONENT_SHIFT, RGB9E5_MANTISSA_BITS, RGB9E5_MAX_MANTISSA,
};

#[inline(always)]
pub(super) fn rgb9e5_generic<const M: u8>(
    values: &[u32],
    stride: usize,
    out: &mut [u32],
    tally: &mut Tally,
) {
    for (v, o) in values.chunks_exact(stride).zip(out.iter_mut()) {
        let (w, flags, errs) = rgb9e5_pack::<M>([v[0], v[1], v[2]]);
        for i in 0..3 {
            tally.add(flags[i], errs[i]);
        }
        *o = w;
    }
}

/// 65408.0 as f32: the largest RGB9E5 channel value.
pub(super) const RGB9E5_MAX_F32: u32 = 0x477f_8000;

/// One channel's mantissa at shared exponent `big_e` (value * 2^(24 - E), rounded in `M`)
/// and the bits discarded; `v` is a non-negative f32 pattern no larger than 65408.
#[inline(always)]
pub(super) fn rgb9e5_mantissa<const M: u8>(v: u32, big_e: i32) -> (u32, u32) {
    let exp_field = (v >> 23) as i32;
    let e = exp_field.max(1) - 127;
    let m = (v & 0x7f_ffff) | (((exp_field != 0) as u32) << 23);
    // The largest channel has e = E - 16, so s >= 15; smaller ones shift further.
    let s = (big_e - 1 - e).min(25) as u32;
    let q = m >> s;
    let rem = m & ((1 << s) - 1);
    let half = 1 << (s - 1);
    let up = match M {
        RNE => (rem > half) | ((rem == half) & (q & 1 == 1)),
        RTP => rem != 0,
        _ => false,
    };
    (q + up as u32, rem)
}

/// The shared exponent field of three non-negative f32 patterns no larger than 65408
/// (§19.3.2.2): the largest channel's IEEE exponent + 1 + the bias 15, and one more when
/// the largest mantissa rounds up to 512 at that scale.
#[inline(always)]
fn shared_exponent<const M: u8>(mags: [u32; 3]) -> i32 {
    let largest = mags[0].max(mags[1]).max(mags[2]);
    // f32's exponent field is the IEEE exponent + 127.
    let first_e = ((largest >> 23) as i32 - 127 + 1 + RGB9E5_EXP_BIAS).max(0);
    first_e + (rgb9e5_mantissa::<M>(largest, first_e).0 > RGB9E5_MAX_MANTISSA) as i32
}

/// Three f32 patterns to an RGB9E5 word by §19.3.2.2, as `rgb9e5_encode` does it: clamp
/// to [0, 65408], shared exponent from the largest channel (IEEE exponent + 1 + 15), and
/// one step up when the largest mantissa rounds to 512.
#[inline(always)]
pub(super) fn rgb9e5_pack<const M: u8>(rgb: [u32; 3]) -> (u32, [u32; 3], [f64; 3]) {
    let mut flags = [0u32; 3];
    let mut clamped = [0u32; 3];
    for i in 0..3 {
        let mag = rgb[i] & 0x7fff_ffff;
        let nan = mag > 0x7f80_0000;
        let negative = !nan && rgb[i] >> 31 != 0 && mag != 0;
        let over = !nan && !negative && mag > RGB9E5_MAX_F32;
        clamped[i] = pick(nan || negative, 0, pick(over, RGB9E5_MAX_F32, mag));
        flags[i] = bit(nan, flag::NAN_IN | flag::INEXACT)
            | bit(negative, flag::CLAMPED | flag::INEXACT)
            | bit(over, flag::SATURATED | flag::INEXACT);
    }
    let big_e = shared_exponent::<M>(clamped);
    let mut word = (big_e as u32) << RGB9E5_EXPONENT_SHIFT;
    let mut errs = [0f64; 3];
    for i in 0..3 {
        let (q, rem) = rgb9e5_mantissa::<M>(clamped[i], big_e);
        word |= q << (RGB9E5_MANTISSA_BITS * i as u32);
        let plain = flags[i] == 0;
        flags[i] |=
            bit(plain && rem != 0, flag::INEXACT) | bit(plain && rem != 0 && q == 0, flag::FLUSHED);
        let input = f32::from_bits(rgb[i]);
        let measured = flags[i] & (flag::NAN_IN | flag::CLAMPED) == 0 && input.is_finite();
        let err = (q as f64 - input as f64 * pow2(24 - big_e)).abs();
        errs[i] = if measured { err } else { 0.0 };
    }
    (word, flags, errs)
}

/// What the RGB9E5 vector pass found in one texel.
#[derive(Clone, Copy)]
pub(super) struct Rgb9e5Texel {
    word: u32,
    ok: bool,
    inexact: u32,
    flushed: u32,
    /// The largest error of the channels within 25 bits of the shared exponent, in units
    /// of 2^-26 ULPs (exact: the discarded part over 2^shift).
    near_units: u32,
    /// Channels further below the shared exponent (mantissa 0 or 1), whose errors are
    /// m * 2^-shift or 1 - m * 2^-shift and need an f64; only counted here.
    far_zero: u32,
    far_one: u32,
}

/// An RGB9E5 texel on the vector path: every channel ±0 or in (0, 65408] (no NaN,
/// negative or saturated channel) makes it ordinary. Integer operations only.
#[inline(always)]
pub(super) fn rgb9e5_ordinary_texel<const M: u8>(rgb: [u32; 3]) -> Rgb9e5Texel {
    let mut ok = true;
    let mut mags = [0u32; 3];
    for i in 0..3 {
        let mag = rgb[i] & 0x7fff_ffff;
        ok &= (mag <= RGB9E5_MAX_F32) & ((rgb[i] >> 31 == 0) | (mag == 0));
        mags[i] = mag;
    }
    let big_e = shared_exponent::<M>(mags);
    let mut t = Rgb9e5Texel {
        word: (big_e as u32) << RGB9E5_EXPONENT_SHIFT,
        ok,
        inexact: 0,
        flushed: 0,
        near_units: 0,
        far_zero: 0,
        far_one: 0,
    };
    for (i, &mag) in mags.iter().enumerate() {
        let exp_field = (mag >> 23) as i32;
        // The channel's value is m * 2^-shift ULPs of the shared exponent.
        let shift = big_e - 1 - (exp_field.max(1) - 127);
        let (q, rem) = rgb9e5_mantissa::<M>(mag, big_e);
        t.word |= q << (RGB9E5_MANTISSA_BITS * i as u32);
        let m = (mag & 0x7f_ffff) | (((exp_field != 0) as u32) << 23);
        let s = shift.clamp(0, 25) as u32;
        // q << s <= m + 2^s <= 2^26: no overflow.
        let units = (q << s).abs_diff(m) << (26 - s);
        let near = (shift <= 25) | (mag == 0);
        t.near_units = t.near_units.max(if near { units } else { 0 });
        t.far_zero += (!near & (q == 0)) as u32;
        t.far_one += (!near & (q != 0)) as u32;
        t.inexact += (rem != 0) as u32;
        t.flushed += ((q == 0) & (rem != 0)) as u32;
    }
    t
}

/// The exact largest error of an ordinary texel's far channels, as the core computes it
/// (one rounding of the exact difference, scaled by powers of two).
pub(super) fn rgb9e5_far_error<const M: u8>(rgb: [u32; 3]) -> f64 {
    let mags = rgb.map(|u| u & 0x7fff_ffff);
    let big_e = shared_exponent::<M>(mags);
    let mut max_err = 0f64;
    for mag in mags {
        let exp_field = (mag >> 23) as i32;
        let shift = big_e - 1 - (exp_field.max(1) - 127);
        if shift > 25 && mag != 0 {
            let (q, _) = rgb9e5_mantissa::<M>(mag, big_e);
            let m = (mag & 0x7f_ffff) | (((exp_field != 0) as u32) << 23);
            let err = (q as f64 * pow2(shift) - m as f64).abs() * pow2(-shift);
            max_err = max_err.max(err);
        }
    }
    max_err
}

/// Counts of the RGB9E5 vector pass over a block.
#[derive(Clone, Copy, Default)]
pub(super) struct Rgb9e5Pass {
    ordinary: Ordinary,
    exceptions: u32,
    far_zero: u32,
    far_one: u32,
}

#[inline(always)]
pub(super) fn rgb9e5_vector_generic<const M: u8, const STRIDE: usize>(
    values: &[u32],
    out: &mut [u32],
) -> Rgb9e5Pass {
    let mut p = Rgb9e5Pass::default();
    for (v, d) in values.chunks_exact(STRIDE).zip(out.iter_mut()) {
        let t = rgb9e5_ordinary_texel::<M>([v[0], v[1], v[2]]);
        *d = t.word;
        let keep = |x: u32| if t.ok { x } else { 0 };
        p.ordinary.inexact += keep(t.inexact);
        p.ordinary.flushed += keep(t.flushed);
        p.ordinary.max_units = p.ordinary.max_units.max(keep(t.near_units));
        p.far_zero += keep(t.far_zero);
        p.far_one += keep(t.far_one);
        p.exceptions += !t.ok as u32;
    }
    p
}

pub(super) fn rgb9e5_block<const M: u8>(
    values: &[u32],
    stride: usize,
    dst: &mut [u8],
    stats: &mut Stats,
) {
    with_elements::<u32>(dst, |out| {
        let pass = if stride == 3 {
            vector_pass!(
                avx2_vector::rgb9e5::<M, 3>,
                rgb9e5_vector_generic::<M, 3>,
                values,
                out
            )
        } else {
            vector_pass!(
                avx2_vector::rgb9e5::<M, 4>,
                rgb9e5_vector_generic::<M, 4>,
                values,
                out
            )
        };
        let mut o = pass.ordinary;
        // A far channel's error is below 1/4 ULP when its mantissa is 0 and above 3/4 when
        // it is 1: it can only be the block's largest if nothing near reached that far.
        let quarter = 1 << 24;
        if pass.far_one > 0 || (pass.far_zero > 0 && o.max_units < quarter) {
            let far = values
                .chunks_exact(stride)
                .filter(|v| v[..3].iter().all(|&u| rgb9e5_plain(u)))
                .map(|v| rgb9e5_far_error::<M>([v[0], v[1], v[2]]))
                .fold(0f64, f64::max);
            o.max_err_bits = far.to_bits() as i64;
        }
        let ordinary = (values.len() / stride) as u32 - pass.exceptions;
        add_ordinary(stats, 3 * ordinary, o);
        if pass.exceptions > 0 {
            let mut tally = Tally::default();
            for (v, d) in values.chunks_exact(stride).zip(out.iter_mut()) {
                if !v[..3].iter().all(|&u| rgb9e5_plain(u)) {
                    rgb9e5_generic::<M>(v, stride, std::slice::from_mut(d), &mut tally);
                }
            }
            tally.into_stats(stats);
        }
    })
}

/// Whether an RGB9E5 channel can take the vector pass: ±0 or in (0, 65408].
#[inline(always)]
pub(super) fn rgb9e5_plain(u: u32) -> bool {
    let mag = u & 0x7fff_ffff;
    (mag <= RGB9E5_MAX_F32) & ((u >> 31 == 0) | (mag == 0))
}
