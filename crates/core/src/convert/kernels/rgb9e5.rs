//! The RGB9E5 target (§19.3.2.2): clamp, one shared exponent from the largest channel,
//! each mantissa rounded at that scale. One full pass takes every texel, whatever its
//! channels hold (NaN, INF, negatives, values past 65408, subnormals); the per-element
//! core (`convert::element`) is the reference the tests hold it to.

use super::lanes::{units_to_ulps, with_elements};
use super::simd::{Simd, dispatch};
use super::target::Mode;
use crate::convert::summary::Stats;
use crate::format::Rounding;
use crate::format::packed::{
    RGB9E5_EXP_BIAS, RGB9E5_EXPONENT_SHIFT, RGB9E5_MANTISSA_BITS, RGB9E5_MAX_EXPONENT,
    RGB9E5_MAX_MANTISSA,
};
use crate::format::pow2::pow2_normal as pow2;

/// The largest RGB9E5 channel value as an f32 pattern: the largest mantissa at the
/// largest shared exponent, 511 * 2^(31 - 15 - 9) = 65408 (§19.3.2.2).
pub(super) const RGB9E5_MAX_F32: u32 = (RGB9E5_MAX_MANTISSA as f32
    * (1u32 << (RGB9E5_MAX_EXPONENT - RGB9E5_EXP_BIAS as u32 - RGB9E5_MANTISSA_BITS)) as f32)
    .to_bits();

/// One channel's mantissa at shared exponent `big_e` (value * 2^(24 - E), rounded in `M`);
/// `v` is a non-negative f32 pattern no larger than 65408.
#[inline(always)]
pub(super) fn rgb9e5_mantissa<M: Mode>(v: u32, big_e: i32) -> u32 {
    let exp_field = (v >> 23) as i32;
    let e = exp_field.max(1) - 127;
    let m = (v & 0x7f_ffff) | (((exp_field != 0) as u32) << 23);
    // The largest channel has e = E - 16, so s >= 15; smaller ones shift further.
    let s = (big_e - 1 - e).min(25) as u32;
    // Rounded in one addition, as in `narrow`: the bias lifts exactly the remainders that
    // round up past the next multiple of 2^s (m < 2^24, bias < 2^25: no wrap). Channels
    // are non-negative, so toward -INF is toward zero.
    let one = 1u32 << s;
    let bias = match M::ROUNDING {
        Rounding::NearestEven => (one >> 1) - 1 + ((m >> s) & 1),
        Rounding::TowardPositive => one - 1,
        Rounding::TowardZero | Rounding::TowardNegative => 0,
    };
    (m + bias) >> s
}

/// The shared exponent field of three non-negative f32 patterns no larger than 65408
/// (§19.3.2.2): the largest channel's IEEE exponent + 1 + the bias 15, and one more when
/// the largest mantissa rounds up to 512 at that scale.
#[inline(always)]
fn shared_exponent<M: Mode>(mags: [u32; 3]) -> i32 {
    let largest = mags[0].max(mags[1]).max(mags[2]);
    // f32's exponent field is the IEEE exponent + 127.
    let first_e = ((largest >> 23) as i32 - 127 + 1 + RGB9E5_EXP_BIAS).max(0);
    first_e + (rgb9e5_mantissa::<M>(largest, first_e) > RGB9E5_MAX_MANTISSA) as i32
}

/// One channel clamped to [0, 65408] (§19.3.2.2): NaN and negatives (-INF included) to 0,
/// anything larger (+INF included) to 65408, as a non-negative f32 pattern; with whether
/// it was NaN, negative or over the range, as masks.
#[inline(always)]
fn clamp_channel(u: u32) -> (u32, u32, u32, u32) {
    let mag = u & 0x7fff_ffff;
    let nan = mask(mag > 0x7f80_0000);
    let negative = !nan & mask(u >> 31 != 0) & mask(mag != 0);
    let over = !nan & !negative & mask(mag > RGB9E5_MAX_F32);
    let zero = nan | negative;
    let clamped = (!zero & !over & mag) | (over & RGB9E5_MAX_F32);
    (clamped, nan, negative, over)
}

#[inline(always)]
fn mask(c: bool) -> u32 {
    (c as u32).wrapping_neg()
}

/// What the RGB9E5 passes found in one texel (counts over its three channels).
#[derive(Clone, Copy)]
pub(super) struct Rgb9e5Texel {
    word: u32,
    inexact: u32,
    saturated: u32,
    nan: u32,
    clamped: u32,
    flushed: u32,
    /// The largest finite input that saturated (its error grows with it), or 0.
    saturated_mag: u32,
    /// The largest error of the in-range channels within 25 bits of the shared exponent,
    /// in units of 2^-26 ULPs (exact: the discarded part over 2^shift).
    near_units: u32,
    /// In-range channels further below the shared exponent (mantissa 0 or 1), whose
    /// errors are m * 2^-shift or 1 - m * 2^-shift and need an f64; only counted here.
    far_zero: u32,
    far_one: u32,
    /// All ones unless the short pass met a channel that needs clamping.
    ok: u32,
}

/// A texel on the vector path: the channels clamped, the shared exponent from the
/// largest, each mantissa rounded at that scale, and the counts. Integer operations only.
///
/// `FULL` takes any texel. Without it (the short pass) the clamping and its counts are
/// left out and `ok` says whether the texel needed none (every channel ±0 or in
/// (0, 65408]); only then are its word and counts right.
#[inline(always)]
pub(super) fn rgb9e5_texel<M: Mode, const FULL: bool>(rgb: [u32; 3]) -> Rgb9e5Texel {
    let mut mags = [0u32; 3];
    let mut in_range = [0u32; 3];
    let mut t = Rgb9e5Texel {
        word: 0,
        inexact: 0,
        saturated: 0,
        nan: 0,
        clamped: 0,
        flushed: 0,
        saturated_mag: 0,
        near_units: 0,
        far_zero: 0,
        far_one: 0,
        ok: u32::MAX,
    };
    for i in 0..3 {
        if !FULL {
            let mag = rgb[i] & 0x7fff_ffff;
            mags[i] = mag;
            in_range[i] = u32::MAX;
            t.ok &= mask((mag <= RGB9E5_MAX_F32) & ((rgb[i] >> 31 == 0) | (mag == 0)));
            continue;
        }
        let (c, nan, negative, over) = clamp_channel(rgb[i]);
        mags[i] = c;
        in_range[i] = !(nan | negative | over);
        t.inexact += (nan | negative | over) & 1;
        t.saturated += over & 1;
        t.nan += nan & 1;
        t.clamped += negative & 1;
        let finite = mask(rgb[i] & 0x7fff_ffff < 0x7f80_0000);
        t.saturated_mag = t.saturated_mag.max(over & finite & rgb[i]);
    }
    let big_e = shared_exponent::<M>(mags);
    t.word = (big_e as u32) << RGB9E5_EXPONENT_SHIFT;
    for (i, &mag) in mags.iter().enumerate() {
        let exp_field = (mag >> 23) as i32;
        // The channel's value is m * 2^-shift ULPs of the shared exponent.
        let shift = big_e - 1 - (exp_field.max(1) - 127);
        let q = rgb9e5_mantissa::<M>(mag, big_e);
        t.word |= q << (RGB9E5_MANTISSA_BITS * i as u32);
        let m = (mag & 0x7f_ffff) | (((exp_field != 0) as u32) << 23);
        let s = shift.clamp(0, 25) as u32;
        // q << s <= m + 2^s <= 2^26: no overflow.
        let diff = (q << s).abs_diff(m);
        let units = diff << (26 - s);
        let near = mask((shift <= 25) | (mag == 0));
        let plain = in_range[i];
        t.near_units = t.near_units.max(plain & near & units);
        t.far_zero += plain & !near & mask(q == 0) & 1;
        t.far_one += plain & !near & mask(q != 0) & 1;
        t.inexact += plain & mask(diff != 0) & 1;
        t.flushed += plain & mask((q == 0) & (diff != 0)) & 1;
    }
    t
}

/// The exact largest error of a texel's far channels, as the core computes it (one
/// rounding of the exact difference, scaled by powers of two). Clamped channels are
/// never far (0 and 65408), so the clamped texel is all it needs.
pub(super) fn rgb9e5_far_error<M: Mode>(rgb: [u32; 3]) -> f64 {
    let mags = rgb.map(|u| clamp_channel(u).0);
    let big_e = shared_exponent::<M>(mags);
    let mut max_err = 0f64;
    for mag in mags {
        let exp_field = (mag >> 23) as i32;
        let shift = big_e - 1 - (exp_field.max(1) - 127);
        if shift > 25 && mag != 0 {
            let q = rgb9e5_mantissa::<M>(mag, big_e);
            let m = (mag & 0x7f_ffff) | (((exp_field != 0) as u32) << 23);
            let err = (q as f64 * pow2(shift) - m as f64).abs() * pow2(-shift);
            max_err = max_err.max(err);
        }
    }
    max_err
}

/// Counts of an RGB9E5 pass over a block.
#[derive(Clone, Copy, Default)]
pub(super) struct Rgb9e5Pass {
    inexact: u32,
    saturated: u32,
    nan: u32,
    clamped: u32,
    flushed: u32,
    saturated_mag: u32,
    near_units: u32,
    far_zero: u32,
    far_one: u32,
    /// Texels the short pass could not take (0 after the full pass).
    exceptions: u32,
}

impl Rgb9e5Pass {
    /// Adds the counts of another part of the block.
    fn merge(&mut self, o: &Rgb9e5Pass) {
        self.inexact += o.inexact;
        self.saturated += o.saturated;
        self.nan += o.nan;
        self.clamped += o.clamped;
        self.flushed += o.flushed;
        self.saturated_mag = self.saturated_mag.max(o.saturated_mag);
        self.near_units = self.near_units.max(o.near_units);
        self.far_zero += o.far_zero;
        self.far_one += o.far_one;
        self.exceptions += o.exceptions;
    }
}

#[inline(always)]
pub(super) fn rgb9e5_pass_portable<M: Mode, const STRIDE: usize, const FULL: bool>(
    values: &[u32],
    out: &mut [u32],
) -> Rgb9e5Pass {
    // Plain local sums and maxima: what keeps the loop a vector loop.
    let (mut inexact, mut saturated, mut nan, mut clamped) = (0u32, 0u32, 0u32, 0u32);
    let (mut flushed, mut saturated_mag, mut near_units) = (0u32, 0u32, 0u32);
    let (mut far_zero, mut far_one, mut exceptions) = (0u32, 0u32, 0u32);
    for (v, d) in values.chunks_exact(STRIDE).zip(out.iter_mut()) {
        let t = rgb9e5_texel::<M, FULL>([v[0], v[1], v[2]]);
        *d = t.word;
        inexact += t.inexact;
        saturated += t.saturated;
        nan += t.nan;
        clamped += t.clamped;
        flushed += t.flushed;
        saturated_mag = saturated_mag.max(t.saturated_mag);
        near_units = near_units.max(t.near_units);
        far_zero += t.far_zero;
        far_one += t.far_one;
        exceptions += !t.ok & 1;
    }
    Rgb9e5Pass {
        inexact,
        saturated,
        nan,
        clamped,
        flushed,
        saturated_mag,
        near_units,
        far_zero,
        far_one,
        exceptions,
    }
}

#[cfg(target_arch = "x86_64")]
mod x86;

/// The float pass over the whole groups of eight texels (`float_pass`, `None` where it
/// met a texel it cannot take) and the portable pass over the rest.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn with_tail<M: Mode, const FULL: bool, const STRIDE: usize>(
    values: &[u32],
    out: &mut [u32],
    float_pass: impl FnOnce(&[u32], &mut [u32]) -> Option<Rgb9e5Pass>,
) -> Rgb9e5Pass {
    let whole = values.len() / (8 * STRIDE) * (8 * STRIDE);
    let Some(mut pass) = float_pass(&values[..whole], out) else {
        return Rgb9e5Pass {
            exceptions: 1,
            ..Rgb9e5Pass::default()
        };
    };
    let rest =
        rgb9e5_pass_portable::<M, STRIDE, FULL>(&values[whole..], &mut out[whole / STRIDE..]);
    pass.merge(&rest);
    pass
}

/// One pass over a block at `simd`'s level: the short one when `full` is false.
fn rgb9e5_pass<M: Mode>(
    simd: Simd,
    values: &[u32],
    stride: usize,
    out: &mut [u32],
    full: bool,
) -> Rgb9e5Pass {
    macro_rules! at {
        ($stride:literal, $full:literal) => {
            dispatch!(simd, {
                avx512 => with_tail::<M, $full, $stride>(values, out, |g, o| {
                    x86::avx512::rgb9e5_float_pass::<M, $full, $stride>(g, o)
                }),
                avx2 => with_tail::<M, $full, $stride>(values, out, |g, o| {
                    x86::avx2::rgb9e5_float_pass::<M, $full, $stride>(g, o)
                }),
                portable => rgb9e5_pass_portable::<M, $stride, $full>(values, out),
            })
        };
    }
    match (stride, full) {
        (3, false) => at!(3, false),
        (3, true) => at!(3, true),
        (_, false) => at!(4, false),
        (_, true) => at!(4, true),
    }
}

/// f32 texels (`stride` 3, or 4 with alpha ignored) to RGB9E5 words.
pub(super) fn rgb9e5_block<M: Mode>(
    simd: Simd,
    values: &[u32],
    stride: usize,
    dst: &mut [u8],
    stats: &mut Stats,
) {
    with_elements::<u32, _>(dst, |out| {
        // The short pass first when the first texels need no clamping (the usual case);
        // a block where it meets one is done again by the full pass.
        let looks_plain = values
            .chunks_exact(stride)
            .take(16)
            .flat_map(|v| &v[..3])
            .all(|&u| u & 0x7fff_ffff <= RGB9E5_MAX_F32 && (u >> 31 == 0 || u << 1 == 0));
        let mut pass = rgb9e5_pass::<M>(simd, values, stride, out, !looks_plain);
        if pass.exceptions > 0 {
            pass = rgb9e5_pass::<M>(simd, values, stride, out, true);
        }
        let mut err = units_to_ulps(pass.near_units);
        // A far channel's error is below 1/4 ULP when its mantissa is 0 and above 3/4 when
        // it is 1: it can only be the block's largest if nothing else reached that far.
        if pass.far_one > 0 || (pass.far_zero > 0 && err < 0.25) {
            let far = values
                .chunks_exact(stride)
                .map(|v| rgb9e5_far_error::<M>([v[0], v[1], v[2]]))
                .fold(0f64, f64::max);
            err = err.max(far);
        }
        stats.merge(&Stats {
            values: 3 * (values.len() / stride) as u64,
            inexact: pass.inexact as u64,
            saturated: pass.saturated as u64,
            nan_in: pass.nan as u64,
            clamped_negative: pass.clamped as u64,
            flushed_to_zero: pass.flushed as u64,
            max_ulp_error: err,
            ..Stats::default()
        });
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::kernels::lanes::xorshift;
    use crate::convert::kernels::simd::for_each_level;
    use crate::convert::kernels::target::{Rne, Rtn, Rtp, Rtz};

    /// Channels that need no clamping, from every region the shared exponent meets:
    /// ±0, subnormals, tiny values beside large ones, the bump thresholds, 65408.
    fn plain_channels(n: usize, mut state: u64) -> Vec<u32> {
        (0..n)
            .map(|i| {
                let r = xorshift(&mut state) as u32;
                match i % 8 {
                    0 => [0, 0x8000_0000, RGB9E5_MAX_F32, 0x477f_7fff][(r % 4) as usize],
                    1 => r % 0x0080_0000,
                    2 => (r % 0x4780_0000).min(RGB9E5_MAX_F32),
                    3 => {
                        ((100 + r % 43) << 23)
                            | [0x7f_c000, 0x7f_bfff, 0x7f_8000, 0x7f_8001][(r % 4) as usize]
                    }
                    4 => ((110 + r % 3) << 23) | (r & 0x7f_ffff),
                    _ => (((r >> 23) % 40 + 103) << 23) | (r & 0x7f_ffff),
                }
            })
            .collect()
    }

    fn same_as_portable<M: Mode>(values: &[u32]) {
        same_pass_as_portable::<M, false>(values)
    }

    /// The counts of a pass, in one array.
    fn fields(p: Rgb9e5Pass) -> [u32; 9] {
        [
            p.inexact,
            p.saturated,
            p.nan,
            p.clamped,
            p.flushed,
            p.saturated_mag,
            p.near_units,
            p.far_zero,
            p.far_one,
        ]
    }

    /// `rgb9e5_pass` (AVX2 or AVX-512 where the CPU has it) and the AVX2 copy against
    /// the portable pass, short or full, on the texels of `values` (three channels), and
    /// on the same texels with a fourth channel (alpha, which must be ignored: NaN, INF
    /// and negatives among them).
    fn same_pass_as_portable<M: Mode, const FULL: bool>(values: &[u32]) {
        let texels = values.len() / 3;
        let values = &values[..3 * texels];
        let alphas = [0x7fc0_dead, 0xff80_0000, 0xbf80_0000, 0x3f80_0000];
        let rgba: Vec<u32> = values
            .chunks_exact(3)
            .enumerate()
            .flat_map(|(i, t)| [t[0], t[1], t[2], alphas[i % 4]])
            .collect();
        same_stride_as_portable::<M, FULL, 3>(values);
        same_stride_as_portable::<M, FULL, 4>(&rgba);
    }

    fn same_stride_as_portable<M: Mode, const FULL: bool, const STRIDE: usize>(values: &[u32]) {
        let m = M::ROUNDING;
        let texels = values.len() / STRIDE;
        let (mut a, mut b) = (vec![0u32; texels], vec![0u32; texels]);
        let pb = rgb9e5_pass_portable::<M, STRIDE, FULL>(values, &mut b);
        // Every level's dispatch: AVX2's float pass and its AVX-512 copy where the CPU
        // has them.
        for_each_level(|simd| {
            let what = format!("mode {m:?}, {STRIDE} channels, {:?}", simd.level());
            let pa = rgb9e5_pass::<M>(simd, values, STRIDE, &mut a, FULL);
            assert_eq!(pa.exceptions > 0, pb.exceptions > 0, "exceptions, {what}");
            if pb.exceptions == 0 {
                assert_eq!(a, b, "words, {what}");
                assert_eq!(fields(pa), fields(pb), "counts, {what}");
            }
        });
    }

    #[test]
    fn the_largest_channel_is_the_cores() {
        let word =
            crate::format::packed::rgb9e5_join([RGB9E5_MAX_MANTISSA; 3], RGB9E5_MAX_EXPONENT);
        let core = crate::format::packed::rgb9e5_split(word)[0].to_f64();
        assert_eq!(core, crate::format::packed::rgb9e5_max().to_f64_lossy());
        assert_eq!(RGB9E5_MAX_F32, (core as f32).to_bits());
        assert_eq!(RGB9E5_MAX_F32, 0x477f_8000);
    }

    #[test]
    fn short_pass_matches_the_portable_one() {
        let values = plain_channels(300_003, 0x9e5);
        let mut with_negative = values.clone();
        with_negative[1000] = 0xbf80_0000;
        for v in [&values, &with_negative] {
            for len in [0, 3, 21, 24, 27, 3000, v.len()] {
                same_as_portable::<Rne>(&v[..len]);
                same_as_portable::<Rtz>(&v[..len]);
                same_as_portable::<Rtp>(&v[..len]);
                same_as_portable::<Rtn>(&v[..len]);
            }
        }
        // A few texels at a time, so each error is the largest once.
        for chunk in values.chunks(24).step_by(13) {
            same_as_portable::<Rne>(chunk);
            same_as_portable::<Rtz>(chunk);
            same_as_portable::<Rtp>(chunk);
            same_as_portable::<Rtn>(chunk);
        }
    }

    /// The full pass on channels that need clamping too: NaN of both signs with payloads,
    /// ±INF, negatives (and -0), values just past 65408, huge finite ones, mixed into
    /// texels with every region of `plain_channels`.
    #[test]
    fn full_pass_matches_the_portable_one() {
        let mut state = 0x0f_u64 << 40 | 0x9e5;
        let specials = [
            0x7fc0_0000u32,
            0xffc0_0001,
            0x7f80_0001,
            0xff80_0000,
            0x7f80_0000,
            0x8000_0000,
            0x8000_0001,
            0xbf80_0000,
            0xff7f_ffff,
            RGB9E5_MAX_F32 + 1,
            0x477f_ffff,
            0x7f7f_ffff,
            0x4780_0000,
        ];
        let mut values = plain_channels(90_003, 0x51);
        for (i, v) in values.iter_mut().enumerate() {
            xorshift(&mut state);
            match i % 5 {
                0 => *v = specials[(state % specials.len() as u64) as usize],
                1 => *v = state as u32,
                _ => {}
            }
        }
        for len in [0, 3, 21, 24, 27, 3000, values.len()] {
            same_pass_as_portable::<Rne, true>(&values[..len]);
            same_pass_as_portable::<Rtz, true>(&values[..len]);
            same_pass_as_portable::<Rtp, true>(&values[..len]);
            same_pass_as_portable::<Rtn, true>(&values[..len]);
        }
        for chunk in values.chunks(24).step_by(7) {
            same_pass_as_portable::<Rne, true>(chunk);
            same_pass_as_portable::<Rtp, true>(chunk);
            same_pass_as_portable::<Rtn, true>(chunk);
        }
    }
}
