//! ULP distances against an independent count: every pattern of a small format decoded to
//! its exact value, sorted, the two zeros merged, and positions counted. Nothing here uses
//! the descriptor's ordinal or the ulp module's line.

use std::io::{Cursor, Read};

use d3dfloat::format::{F10, F11, F16, F32, FloatFormat, Format};
use d3dfloat::ulp::{
    BufferError, DiffOptions, Layout, Resolved, Size, Summary, compare_streams, diff_pair,
};
use proptest::prelude::*;

const FLUSH: DiffOptions = DiffOptions {
    flush_subnormals: true,
};
const KEEP: DiffOptions = DiffOptions {
    flush_subnormals: false,
};

/// Rank of every pattern on the sorted list of distinct non-NaN values (`None` for NaN),
/// shifted so that zero has rank 0. `decode` gives each pattern's exact value.
fn reference_ranks(fmt: &FloatFormat, decode: impl Fn(u64) -> f64) -> Vec<Option<i64>> {
    let values: Vec<f64> = (0..=fmt.mask()).map(&decode).collect();
    let mut distinct: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
    distinct.sort_by(f64::total_cmp);
    // -0.0 == 0.0, so dedup merges the two zeros into one point.
    distinct.dedup_by(|a, b| a == b);
    let zero = distinct.partition_point(|&v| v < 0.0) as i64;
    values
        .iter()
        .map(|v| (!v.is_nan()).then(|| distinct.partition_point(|&x| x < *v) as i64 - zero))
        .collect()
}

fn distance(fmt: FloatFormat, a: u64, b: u64, opts: DiffOptions) -> Option<i128> {
    diff_pair(
        Format::Float(fmt),
        Resolved::bits(a),
        Resolved::bits(b),
        opts,
    )
    .distance()
}

#[test]
fn every_f10_pair_matches_the_sorted_count() {
    let ranks = reference_ranks(&F10, |b| F10.to_f64(b));
    let layout = Layout::new(Format::Float(F10), KEEP);
    let line = layout.line(0);
    for a in 0..=F10.mask() {
        for b in 0..=F10.mask() {
            let want = ranks[a as usize]
                .zip(ranks[b as usize])
                .map(|(ra, rb)| (rb - ra) as i128);
            assert_eq!(line.distance(a, b), want, "{a:#x} -> {b:#x}");
        }
    }
    // And through the full pair measurement for a stripe of them.
    for a in (0..=F10.mask()).step_by(37) {
        for b in 0..=F10.mask() {
            let want = ranks[a as usize]
                .zip(ranks[b as usize])
                .map(|(ra, rb)| (rb - ra) as i128);
            assert_eq!(distance(F10, a, b, FLUSH), want);
        }
    }
}

#[test]
fn every_f11_pattern_sits_at_its_sorted_rank() {
    let ranks = reference_ranks(&F11, |b| F11.to_f64(b));
    let line = *Layout::new(Format::Float(F11), KEEP).line(0);
    for (bits, want) in ranks.iter().enumerate() {
        assert_eq!(line.position(bits as u64), *want, "{bits:#x}");
    }
    // Infinity is one step past the largest finite value.
    assert_eq!(
        distance(F11, F11.max_finite(), F11.infinity(false), KEEP),
        Some(1)
    );
}

#[test]
fn every_f11_pair_and_two_million_f16_pairs_match_the_sorted_count() {
    let f11 = f11_ranks();
    let line = *Layout::new(Format::Float(F11), KEEP).line(0);
    for a in 0..=F11.mask() {
        for b in 0..=F11.mask() {
            let want = f11[a as usize]
                .zip(f11[b as usize])
                .map(|(ra, rb)| (rb - ra) as i128);
            assert_eq!(line.distance(a, b), want, "f11 {a:#x} -> {b:#x}");
        }
    }
    let f16 = f16_ranks();
    let line = *Layout::new(Format::Float(F16), FLUSH).line(0);
    let mut state = 0x0123_4567_89ab_cdefu64;
    for _ in 0..2_000_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let (a, b) = (state & 0xffff, (state >> 16) & 0xffff);
        let want = f16[a as usize]
            .zip(f16[b as usize])
            .map(|(ra, rb)| (rb - ra) as i128);
        assert_eq!(line.distance(a, b), want, "f16 {a:#x} -> {b:#x}");
    }
}

fn f16_ranks() -> &'static [Option<i64>] {
    static RANKS: std::sync::OnceLock<Vec<Option<i64>>> = std::sync::OnceLock::new();
    // Decoded by the `half` crate, not by our descriptor.
    RANKS.get_or_init(|| reference_ranks(&F16, |b| half::f16::from_bits(b as u16).to_f64()))
}

fn f11_ranks() -> &'static [Option<i64>] {
    static RANKS: std::sync::OnceLock<Vec<Option<i64>>> = std::sync::OnceLock::new();
    RANKS.get_or_init(|| reference_ranks(&F11, |b| F11.to_f64(b)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn f16_pairs_match_the_sorted_count(a in 0u64..=0xffff, b in 0u64..=0xffff) {
        let ranks = f16_ranks();
        let want = ranks[a as usize].zip(ranks[b as usize]).map(|(ra, rb)| (rb - ra) as i128);
        // f16 keeps its subnormals (§3.1.5) with or without the flush option.
        prop_assert_eq!(distance(F16, a, b, FLUSH), want);
        prop_assert_eq!(distance(F16, a, b, KEEP), want);
    }

    #[test]
    fn f11_pairs_match_the_sorted_count(a in 0u64..=0x7ff, b in 0u64..=0x7ff) {
        let ranks = f11_ranks();
        let want = ranks[a as usize].zip(ranks[b as usize]).map(|(ra, rb)| (rb - ra) as i128);
        prop_assert_eq!(distance(F11, a, b, KEEP), want);
    }

    #[test]
    fn f32_pairs_match_a_binade_count(a in any::<u32>(), b in any::<u32>()) {
        for opts in [FLUSH, KEEP] {
            let want = f32_rank(a, opts.flush_subnormals)
                .zip(f32_rank(b, opts.flush_subnormals))
                .map(|(ra, rb)| (rb - ra) as i128);
            prop_assert_eq!(distance(F32, a as u64, b as u64, opts), want);
        }
    }
}

/// An f32's rank counted from its value by the hardware: how many positive f32 values (as
/// D3D sees them) lie in (0, |x|], by binades. Independent of the pattern layout.
fn f32_rank(bits: u32, flush: bool) -> Option<i64> {
    let x = f32::from_bits(bits) as f64;
    if x.is_nan() {
        return None;
    }
    let mag = x.abs();
    let per_binade = 1i64 << 23;
    let min_normal = 2f64.powi(-126);
    let count = if mag.is_infinite() {
        // One past the largest finite: 254 normal binades plus the subnormals.
        let subnormals = if flush { 0 } else { per_binade - 1 };
        subnormals + 254 * per_binade + 1
    } else if mag < min_normal {
        if flush {
            0
        } else {
            (mag / 2f64.powi(-149)) as i64
        }
    } else {
        let mut e = mag.log2().floor() as i32;
        // log2 may land one off at a binade edge; correct by comparison.
        if 2f64.powi(e) > mag {
            e -= 1;
        }
        if 2f64.powi(e + 1) <= mag {
            e += 1;
        }
        let subnormals = if flush { 0 } else { per_binade - 1 };
        let steps_in_binade = (mag / 2f64.powi(e - 23)) as i64 - per_binade;
        subnormals + (e + 126) as i64 * per_binade + steps_in_binade + 1
    };
    Some(if x < 0.0 { -count } else { count })
}

#[test]
fn zeros_are_one_point_and_signs_count_across_zero() {
    assert_eq!(distance(F32, 0x8000_0000, 0, FLUSH), Some(0));
    assert_eq!(distance(F16, 0x8001, 0x0001, KEEP), Some(2));
    assert_eq!(distance(F16, 0x0001, 0x8001, KEEP), Some(-2));
    // -1 to +1 in f16: 15 binades of 1024 on each side, down to the subnormals.
    let one = 0x3c00;
    assert_eq!(
        distance(F16, 0x8000 | one, one, KEEP),
        Some(2 * one as i128)
    );
}

#[test]
fn flush_changes_only_f32() {
    let min_normal = 0x0080_0000;
    assert_eq!(distance(F32, 0x8000_0001, min_normal, FLUSH), Some(1));
    assert_eq!(
        distance(F32, 0x8000_0001, min_normal, KEEP),
        Some(0x80_0001)
    );
    let pair = diff_pair(
        Format::Float(F32),
        Resolved::bits(1),
        Resolved::bits(0),
        FLUSH,
    );
    assert!(pair.channels[0].a.counted_as_zero);
    assert_eq!(pair.distance(), Some(0));
}

#[test]
fn nan_is_reported_not_measured() {
    for (a, b) in [
        (0x7e00, 0x3c00),
        (0x3c00, 0x7e00),
        (0x7e00, 0x7e00),
        (0xfc01, 0x7c00),
    ] {
        let pair = diff_pair(
            Format::Float(F16),
            Resolved::bits(a),
            Resolved::bits(b),
            KEEP,
        );
        assert_eq!(pair.distance(), None);
        assert!(pair.has_nan());
        assert!(pair.exceeds(u64::MAX), "NaN fails --max");
    }
}

#[test]
fn infinities_are_one_past_max() {
    assert_eq!(distance(F16, 0x7bff, 0x7c00, KEEP), Some(1));
    assert_eq!(distance(F16, 0xfc00, 0xfbff, KEEP), Some(1));
    assert_eq!(distance(F16, 0xfc00, 0x7c00, KEEP), Some(2 * 0x7c00));
    assert_eq!(distance(F32, 0x7f7f_ffff, 0x7f80_0000, FLUSH), Some(1));
    assert_eq!(
        distance(F10, F10.max_finite(), F10.infinity(false), KEEP),
        Some(1)
    );
}

#[test]
fn packed_words_measure_each_channel() {
    // R11G11B10: R 1.0 -> next up, G 2.0 -> 1.0 (one binade of 64 down), B inf -> max.
    let word = |r: u32, g: u32, b: u32| (r | g << 11 | b << 22) as u64;
    let pair = diff_pair(
        Format::R11G11B10,
        Resolved::bits(word(0x3c0, 0x400, 0x3e0)),
        Resolved::bits(word(0x3c1, 0x3c0, 0x3df)),
        FLUSH,
    );
    let ds: Vec<_> = pair.channels.iter().map(|c| c.distance).collect();
    assert_eq!(ds, [Some(1), Some(-64), Some(-1)]);
    assert_eq!(pair.distance(), Some(-64));
    // A NaN in one channel makes the whole pair NaN.
    let pair = diff_pair(
        Format::R11G11B10,
        Resolved::bits(word(0x3c0, 0x7c1, 0)),
        Resolved::bits(word(0x3c0, 0x3c0, 0)),
        FLUSH,
    );
    assert_eq!(pair.distance(), None);
}

#[test]
fn rgb9e5_words_with_different_exponents_compare_by_value() {
    // The spec's example 0x999320c8 is (6.25, 12.5, 3.125) at E = 19. The same values
    // at E = 20 (mantissas halved) are the same points.
    let spec = 0x9993_20c8u64;
    let e20 = (100u32 | 200 << 9 | 50 << 18 | 20 << 27) as u64;
    let pair = diff_pair(
        Format::Rgb9e5,
        Resolved::bits(spec),
        Resolved::bits(e20),
        FLUSH,
    );
    let ds: Vec<_> = pair.channels.iter().map(|c| c.distance).collect();
    assert_eq!(ds, [Some(0), Some(0), Some(0)]);
    // One mantissa unit within a word is one step.
    let next = spec + 1;
    let pair = diff_pair(
        Format::Rgb9e5,
        Resolved::bits(spec),
        Resolved::bits(next),
        FLUSH,
    );
    assert_eq!(pair.channels[0].distance, Some(1));
    // Across words, steps of the finer grid: 6.25 at E = 19 (step 2^-5) against 101 * 2^-4
    // = 6.3125 at E = 20 is 0.0625 / 2^-5 = 2 steps.
    let e20_next = e20 + 1;
    let pair = diff_pair(
        Format::Rgb9e5,
        Resolved::bits(spec),
        Resolved::bits(e20_next),
        FLUSH,
    );
    assert_eq!(pair.channels[0].distance, Some(2));
}

#[test]
fn value_operands_are_rounded_to_nearest_even_and_say_so() {
    use d3dfloat::input::resolve_operand;
    let f16 = Format::Float(F16);
    let one = resolve_operand("1", f16).unwrap();
    assert_eq!((one.bits, one.from_value, one.exact), (0x3c00, true, true));
    let tenth = resolve_operand("0.1", f16).unwrap();
    assert_eq!((tenth.bits, tenth.exact), (0x2e66, false));
    let bits = resolve_operand("0x3c00", f16).unwrap();
    assert_eq!((bits.bits, bits.from_value), (0x3c00, false));
    let packed = resolve_operand("1,2,inf", Format::R11G11B10).unwrap();
    assert_eq!(packed.bits, (0x3c0u32 | 0x400 << 11 | 0x3e0 << 22) as u64);
    assert!(resolve_operand("1,2", Format::Rgb9e5).is_err());
    let spec = resolve_operand("6.25,12.5,3.125", Format::Rgb9e5).unwrap();
    assert_eq!((spec.bits, spec.exact), (0x9993_20c8, true));
}

// ---- buffers ----

fn compare(fmt: Format, e: &[u8], a: &[u8], limit: Option<u64>) -> Result<Summary, BufferError> {
    let mut s = Summary::new(limit);
    compare_streams(&Layout::new(fmt, FLUSH), e, a, &mut s)?;
    Ok(s)
}

/// A reader that hands out a few bytes at a time, as pipes do.
struct Trickle<'a>(&'a [u8], usize);
impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.1.min(buf.len()).min(self.0.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

fn le32(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn buffers_agree_with_pair_by_pair_measurement_across_chunks() {
    // A little over two chunks of f32, with scattered differences of every kind.
    let n = (2 << 20) / 4 + 1000;
    let mut rng = 0x1234_5678_9abc_def0u64;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let expected: Vec<u32> = (0..n).map(|_| next() as u32).collect();
    let actual: Vec<u32> = expected
        .iter()
        .map(|&w| match next() % 1000 {
            0 => w.wrapping_add(1),
            1 => w ^ 0x8000_0000,
            2 => next() as u32,
            3 => 0x7fc0_0000,
            _ => w,
        })
        .collect();
    let (e, a) = (le32(&expected), le32(&actual));
    let mut fast = Summary::new(Some(3));
    let layout = Layout::new(Format::Float(F32), FLUSH);
    let elements = compare_streams(&layout, Trickle(&e, 4093), Cursor::new(&a), &mut fast).unwrap();
    assert_eq!(elements, n as u64);

    let mut slow = Summary::new(Some(3));
    for (i, (&x, &y)) in expected.iter().zip(&actual).enumerate() {
        let pair = diff_pair(
            Format::Float(F32),
            Resolved::bits(x as u64),
            Resolved::bits(y as u64),
            FLUSH,
        );
        slow.record_pair(i as u64, &pair);
    }
    assert_eq!(fast, slow);
    assert!(fast.nans() > 0 && fast.over_limit > 0);
}

#[test]
fn packed_buffers_compare_channel_by_channel() {
    let e = le32(&[0x9993_20c8, 0x3c0 | 0x400 << 11]);
    let a = le32(&[0x9993_20c9, 0x3c0 | 0x7c1 << 11]);
    let s = compare(Format::Rgb9e5, &e, &e, None).unwrap();
    assert_eq!((s.compared, s.histogram[0]), (6, 6));
    let s = compare(Format::R11G11B10, &e, &a, Some(0)).unwrap();
    assert_eq!(s.compared, 6);
    assert_eq!(s.nan_mismatches, 1);
    assert_eq!(s.first_nans[0].index, 1);
    assert_eq!(s.first_nans[0].channel, Some(1));
    assert!(s.failed());
}

#[test]
fn f11_buffers_travel_in_u16_and_refuse_stray_bits() {
    let e: Vec<u8> = [0x3c0u16, 0x7c0]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let a: Vec<u8> = [0x3c2u16, 0x7bf]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let s = compare(Format::Float(F11), &e, &a, None).unwrap();
    assert_eq!((s.max_abs, s.sum_abs), (2, 3));
    let bad: Vec<u8> = [0x3c0u16, 0x8000]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let err = compare(Format::Float(F11), &e, &bad, None).unwrap_err();
    assert!(matches!(
        err,
        BufferError::StrayBits {
            index: 1,
            which: "actual",
            ..
        }
    ));
}

#[test]
fn sizes_must_match_and_be_whole_elements() {
    let err = compare(Format::Float(F32), &[0; 8], &[0; 12], None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the files differ in size: expected has 8 bytes, actual has 12 bytes"
    );
    let big = vec![0u8; (1 << 20) + 4];
    let err = compare(Format::Float(F32), &big, &big[..big.len() - 4], None).unwrap_err();
    assert!(matches!(err, BufferError::SizeMismatch { expected, actual }
        if expected == Size { bytes: (1 << 20) + 4, exact: true }
            && actual == Size { bytes: 1 << 20, exact: true }));
    let err = compare(Format::Float(F32), &[0; 6], &[0; 6], None).unwrap_err();
    assert!(
        err.to_string()
            .contains("expected has 6 bytes, actual has 6 bytes")
    );
    let err = compare(Format::Float(F32), &[], &[0; 4], None).unwrap_err();
    assert!(matches!(
        err,
        BufferError::SizeMismatch {
            expected: Size {
                bytes: 0,
                exact: true
            },
            actual: Size {
                bytes: 4,
                exact: true
            }
        }
    ));
}

#[test]
fn empty_buffers_compare_as_nothing() {
    let s = compare(Format::Float(F32), &[], &[], Some(0)).unwrap();
    assert_eq!((s.compared, s.mean_abs(), s.failed()), (0, None, false));
}
