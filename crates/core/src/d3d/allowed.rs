//! The set of results a conforming implementation may return, as ranges on the value line.
//!
//! Patterns are handled through a *key*: an integer that orders them as their values are
//! ordered, with -0 and +0 as two neighbouring keys (the sign of a zero result matters in
//! D3D, e.g. `-0 + 0 = +0`, §3.1.3.2). ULP distances use the format's *ordinal*, where the
//! two zeros are one point (§3.1.2 counts representable steps, and ±0 is one value).

use crate::format::{Class, FloatFormat};

/// What kind of thing an instruction returns, and how its bit patterns map to keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Domain {
    /// A float format's patterns, keyed in value order with -0 just below +0.
    Float(FloatFormat),
    /// A 32-bit two's-complement integer (the result of `ftoi`, the operand of `itof`).
    I32,
    /// A 32-bit unsigned integer (the result of `ftou`, the operand of `utof`).
    U32,
    /// A comparison mask: `0xffffffff` for true, `0x00000000` for false (§22.6).
    Bool,
}

/// The pattern of a true comparison result: all 32 bits set (§22.6).
pub const TRUE_MASK: u64 = 0xffff_ffff;

impl Domain {
    /// Width of the domain's patterns in bits (64, 32 or 16 for the floats; 32 for i32, u32 and the
    /// comparison mask).
    pub fn width(&self) -> u32 {
        match self {
            Domain::Float(f) => f.width(),
            Domain::I32 | Domain::U32 | Domain::Bool => 32,
        }
    }

    /// The name used in messages and output: the format's (`f32`), or `i32`, `u32`, `bool`.
    pub fn name(&self) -> &'static str {
        match self {
            Domain::Float(f) => f.name,
            Domain::I32 => "i32",
            Domain::U32 => "u32",
            Domain::Bool => "bool",
        }
    }

    /// The ordering key of a pattern; `None` for NaN.
    pub fn key(&self, bits: u64) -> Option<i64> {
        match self {
            Domain::Float(f) => float_key(f, bits),
            Domain::I32 => Some(bits as u32 as i32 as i64),
            Domain::U32 => Some(bits as u32 as i64),
            Domain::Bool => Some((bits != 0) as i64),
        }
    }

    /// The pattern with a key.
    pub fn bits(&self, key: i64) -> u64 {
        match self {
            Domain::Float(f) => {
                if key < 0 {
                    f.assemble(true, 0, 0) | (-(key + 1)) as u64
                } else {
                    key as u64
                }
            }
            Domain::I32 => key as i32 as u32 as u64,
            Domain::U32 => key as u64,
            Domain::Bool => {
                if key != 0 {
                    TRUE_MASK
                } else {
                    0
                }
            }
        }
    }

    /// Position used to count ULPs between two keys: the two zeros are one point.
    pub fn ordinal_of_key(&self, key: i64) -> i64 {
        match self {
            Domain::Float(_) if key < 0 => key + 1,
            _ => key,
        }
    }

    /// Whether a pattern is a NaN of a float domain; always false for i32, u32 and bool.
    pub fn is_nan(&self, bits: u64) -> bool {
        matches!(self, Domain::Float(f) if f.class(bits) == Class::Nan)
    }
}

/// Key of a float pattern: negative patterns below the positive ones, -0 just below +0.
pub fn float_key(f: &FloatFormat, bits: u64) -> Option<i64> {
    if f.class(bits) == Class::Nan {
        return None;
    }
    let sign = f.assemble(true, 0, 0);
    let mag = (bits & !sign) as i64;
    Some(if bits & sign != 0 { -mag - 1 } else { mag })
}

/// Key of a position on the ordinal line (ordinal 0 = zero), choosing the zero's sign.
pub fn key_of_ordinal(ordinal: i64, zero_neg: bool) -> i64 {
    match ordinal.cmp(&0) {
        std::cmp::Ordering::Less => ordinal - 1,
        std::cmp::Ordering::Equal => -(zero_neg as i64),
        std::cmp::Ordering::Greater => ordinal,
    }
}

/// How many ranges a set holds without a heap allocation (a step's set is one range, or
/// two around the zeros; batch checking builds millions of them).
const INLINE: usize = 3;

/// The ranges of a set: inline while few, on the heap beyond [`INLINE`].
#[derive(Clone)]
enum Ranges {
    Inline(u8, [(i64, i64); INLINE]),
    Heap(Vec<(i64, i64)>),
}

impl Default for Ranges {
    fn default() -> Self {
        Ranges::Inline(0, [(0, 0); INLINE])
    }
}

impl std::ops::Deref for Ranges {
    type Target = [(i64, i64)];
    fn deref(&self) -> &Self::Target {
        match self {
            Ranges::Inline(n, buf) => &buf[..*n as usize],
            Ranges::Heap(v) => v,
        }
    }
}

impl std::ops::DerefMut for Ranges {
    fn deref_mut(&mut self) -> &mut Self::Target {
        match self {
            Ranges::Inline(n, buf) => &mut buf[..*n as usize],
            Ranges::Heap(v) => v,
        }
    }
}

impl PartialEq for Ranges {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for Ranges {}

impl std::fmt::Debug for Ranges {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

impl Ranges {
    fn one(r: (i64, i64)) -> Ranges {
        Ranges::Inline(1, [r; INLINE])
    }

    fn insert(&mut self, at: usize, r: (i64, i64)) {
        match self {
            Ranges::Inline(n, buf) if (*n as usize) < INLINE => {
                let len = *n as usize;
                buf.copy_within(at..len, at + 1);
                buf[at] = r;
                *n += 1;
            }
            Ranges::Inline(_, buf) => {
                let mut v = buf.to_vec();
                v.insert(at, r);
                *self = Ranges::Heap(v);
            }
            Ranges::Heap(v) => v.insert(at, r),
        }
    }

    fn push(&mut self, r: (i64, i64)) {
        let len = self.len();
        self.insert(len, r);
    }

    fn truncate(&mut self, len: usize) {
        match self {
            Ranges::Inline(n, _) => *n = (*n).min(len as u8),
            Ranges::Heap(v) => v.truncate(len),
        }
    }
}

/// Results a conforming implementation may return: key ranges (inclusive, sorted, disjoint,
/// not touching) plus whether any NaN is allowed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AllowedSet {
    ranges: Ranges,
    /// Any NaN pattern conforms (D3D does not keep NaN bits, so one flag stands for them all).
    pub nan: bool,
}

impl AllowedSet {
    /// The set that allows nothing, the start for [`AllowedSet::add_key_range`] and friends.
    pub fn empty() -> AllowedSet {
        AllowedSet::default()
    }

    /// The set that allows every NaN pattern and no number (the result of a NaN operand, §3.1.3.1).
    pub fn any_nan() -> AllowedSet {
        AllowedSet {
            ranges: Ranges::default(),
            nan: true,
        }
    }

    /// The set of one ordering key (see [`Domain::key`]).
    pub fn single_key(key: i64) -> AllowedSet {
        AllowedSet {
            ranges: Ranges::one((key, key)),
            nan: false,
        }
    }

    /// One pattern (a NaN pattern means "any NaN": D3D does not keep NaN bits, §3.1.3.2).
    pub fn single(domain: &Domain, bits: u64) -> AllowedSet {
        match domain.key(bits) {
            Some(k) => AllowedSet::single_key(k),
            None => AllowedSet::any_nan(),
        }
    }

    /// The allowed keys as inclusive `(lo, hi)` ranges, sorted, disjoint and not touching; NaN is
    /// in [`AllowedSet::nan`].
    pub fn key_ranges(&self) -> &[(i64, i64)] {
        &self.ranges
    }

    /// Nothing allowed: no key and no NaN.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty() && !self.nan
    }

    /// Allows every key from `lo` to `hi` inclusive, merging with ranges it overlaps or touches;
    /// nothing when `lo > hi`.
    pub fn add_key_range(&mut self, lo: i64, hi: i64) {
        if lo > hi {
            return;
        }
        // The common cases first: an empty set, or a range at or past the end.
        match self.ranges.last_mut() {
            None => {
                self.ranges.push((lo, hi));
                return;
            }
            Some(last) if lo > last.1.saturating_add(1) => {
                self.ranges.push((lo, hi));
                return;
            }
            Some(last) if lo >= last.0 => {
                last.1 = last.1.max(hi);
                return;
            }
            _ => {}
        }
        // Otherwise insert keeping the list sorted, then merge neighbours that overlap or
        // touch, in place.
        let at = self.ranges.partition_point(|r| r.0 < lo);
        self.ranges.insert(at, (lo, hi));
        let mut w = 0;
        for i in 1..self.ranges.len() {
            let (l, h) = self.ranges[i];
            if l <= self.ranges[w].1.saturating_add(1) {
                self.ranges[w].1 = self.ranges[w].1.max(h);
            } else {
                w += 1;
                self.ranges[w] = (l, h);
            }
        }
        self.ranges.truncate(w + 1);
    }

    /// Allows one key.
    pub fn add_key(&mut self, key: i64) {
        self.add_key_range(key, key);
    }

    /// Allows one pattern of `domain`; a NaN pattern allows every NaN.
    pub fn add_bits(&mut self, domain: &Domain, bits: u64) {
        match domain.key(bits) {
            Some(k) => self.add_key(k),
            None => self.nan = true,
        }
    }

    /// Allows everything `other` allows.
    pub fn union(&mut self, other: &AllowedSet) {
        for &(l, h) in other.ranges.iter() {
            self.add_key_range(l, h);
        }
        self.nan |= other.nan;
    }

    /// Whether a pattern of `domain` is allowed; a NaN pattern is when any NaN is.
    pub fn contains(&self, domain: &Domain, bits: u64) -> bool {
        match domain.key(bits) {
            None => self.nan,
            Some(k) => self.contains_key(k),
        }
    }

    /// Whether an ordering key is allowed.
    pub fn contains_key(&self, k: i64) -> bool {
        let i = self.ranges.partition_point(|r| r.1 < k);
        i < self.ranges.len() && self.ranges[i].0 <= k
    }

    /// The patterns as inclusive `(lo, hi)` pairs, ordered on the value line.
    /// The human view uses this order; scripts get [`AllowedSet::ascending_bit_ranges`].
    pub fn bit_ranges(&self, domain: &Domain) -> Vec<(u64, u64)> {
        self.ranges
            .iter()
            .map(|&(l, h)| (domain.bits(l), domain.bits(h)))
            .collect()
    }

    /// The patterns as inclusive `(lo, hi)` pairs for scripts: each pair has `lo <= hi` as
    /// bit patterns, so `lo <= bits <= hi` tests membership. A range that crosses zero on the
    /// value line is split there (negative floats and integers do not sort like their bits);
    /// the pairs are still listed in value order.
    pub fn ascending_bit_ranges(&self, domain: &Domain) -> Vec<(u64, u64)> {
        let mut out = Vec::with_capacity(self.ranges.len() + 1);
        for &(l, h) in self.ranges.iter() {
            let parts = if l < 0 && h >= 0 {
                vec![(l, -1), (0, h)]
            } else {
                vec![(l, h)]
            };
            for (a, b) in parts {
                let (x, y) = (domain.bits(a), domain.bits(b));
                out.push((x.min(y), x.max(y)));
            }
        }
        out
    }

    /// Number of non-NaN patterns allowed.
    pub fn count(&self) -> u64 {
        self.ranges.iter().map(|&(l, h)| (h - l) as u64 + 1).sum()
    }

    /// Lowest and highest key, if any number is allowed.
    pub fn extremes(&self) -> Option<(i64, i64)> {
        Some((self.ranges.first()?.0, self.ranges.last()?.1))
    }

    /// Lowest and highest finite member (float domains; infinities skipped).
    pub fn finite_extremes(&self, domain: &Domain) -> Option<(i64, i64)> {
        let (ninf, pinf) = match domain {
            Domain::Float(f) => (
                domain.key(f.infinity(true)).unwrap_or(i64::MIN),
                domain.key(f.infinity(false)).unwrap_or(i64::MAX),
            ),
            _ => (i64::MIN, i64::MAX),
        };
        let mut out: Option<(i64, i64)> = None;
        for &(l, h) in self.ranges.iter() {
            let l = if l == ninf { l + 1 } else { l };
            let h = if h == pinf { h - 1 } else { h };
            if l <= h {
                out = Some(match out {
                    None => (l, h),
                    Some((a, b)) => (a.min(l), b.max(h)),
                });
            }
        }
        out
    }

    /// Replace every subnormal by the zero of its sign: D3D's output flush (§3.1.3.2).
    /// Returns whether the set changed.
    pub fn flush_subnormals(&mut self, f: &FloatFormat) -> bool {
        let top_sub = (1i64 << f.frac_bits) - 1;
        // Nothing to do unless a range reaches a subnormal key.
        let touches =
            |&(l, h): &(i64, i64)| (l <= -2 && h >= -top_sub - 1) || (l <= top_sub && h >= 1);
        if !self.ranges.iter().any(touches) {
            return false;
        }
        let mut out = AllowedSet {
            ranges: Ranges::default(),
            nan: self.nan,
        };
        for &(l, h) in self.ranges.iter() {
            // Negative subnormals: keys -top_sub-1 ..= -2; positive: 1 ..= top_sub.
            let pieces = [
                (l, h.min(-top_sub - 2)),
                (l.max(-1), h.min(0)),
                (l.max(top_sub + 1), h),
            ];
            for (pl, ph) in pieces {
                out.add_key_range(pl, ph);
            }
            if l <= -2 && h >= -top_sub - 1 {
                out.add_key(-1);
            }
            if h >= 1 && l <= top_sub {
                out.add_key(0);
            }
        }
        let changed = *self != out;
        *self = out;
        changed
    }

    /// Add, for every subnormal allowed, the zero it flushes to (for min/max, whose result
    /// may or may not be flushed, §3.1.3.2).
    pub fn also_flushed(&mut self, f: &FloatFormat) {
        let mut flushed = self.clone();
        flushed.flush_subnormals(f);
        self.union(&flushed);
    }

    /// How many ULPs (ordinal steps) a non-NaN pattern lies outside the set; 0 inside.
    /// `None` when nothing but NaN is allowed.
    pub fn miss_ulps(&self, domain: &Domain, bits: u64) -> Option<u64> {
        let k = domain.key(bits)?;
        let o = domain.ordinal_of_key(k);
        self.ranges
            .iter()
            .map(|&(l, h)| {
                let (ol, oh) = (domain.ordinal_of_key(l), domain.ordinal_of_key(h));
                // f64 ordinals span nearly all of i64: the distance needs all of u64.
                if o < ol {
                    ol.abs_diff(o)
                } else if o > oh {
                    o.abs_diff(oh)
                } else {
                    0
                }
            })
            .min()
    }

    /// Width of a key range in ULPs (ordinal steps from its low to its high end).
    pub fn ulp_width(domain: &Domain, range: (i64, i64)) -> u64 {
        (domain.ordinal_of_key(range.1) - domain.ordinal_of_key(range.0)) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_spill_past_the_inline_ones_and_stay_sorted() {
        let mut s = AllowedSet::empty();
        for (l, h) in [(40, 41), (10, 11), (30, 30), (0, 0), (20, 22)] {
            s.add_key_range(l, h);
        }
        assert_eq!(
            s.key_ranges(),
            &[(0, 0), (10, 11), (20, 22), (30, 30), (40, 41)]
        );
        s.add_key_range(1, 39);
        assert_eq!(s.key_ranges(), &[(0, 41)]);
        let mut t = AllowedSet::single_key(41);
        t.add_key_range(0, 40);
        assert_eq!(s, t);
    }

    #[test]
    fn script_ranges_ascend_and_split_at_zero() {
        let f = Domain::Float(crate::format::F32);
        let mut s = AllowedSet::empty();
        // -0 .. +0, and -1.6500001 .. -1.65.
        s.add_bits(&f, 0x8000_0000);
        s.add_bits(&f, 0);
        s.add_bits(&f, 0xbfd3_3333);
        s.add_bits(&f, 0xbfd3_3334);
        assert_eq!(
            s.ascending_bit_ranges(&f),
            vec![
                (0xbfd3_3333, 0xbfd3_3334),
                (0x8000_0000, 0x8000_0000),
                (0, 0)
            ]
        );
        let i = Domain::I32;
        let mut s = AllowedSet::empty();
        s.add_key_range(-2, 1);
        assert_eq!(
            s.ascending_bit_ranges(&i),
            vec![(0xffff_fffe, 0xffff_ffff), (0, 1)]
        );
    }
    use crate::format::F32;

    #[test]
    fn keys_order_the_value_line() {
        let d = Domain::Float(F32);
        let ks: Vec<i64> = [0xff80_0000u64, 0xbf80_0000, 0x8000_0001, 0x8000_0000, 0, 1]
            .iter()
            .map(|&b| d.key(b).unwrap())
            .collect();
        assert!(ks.windows(2).all(|w| w[0] < w[1]), "{ks:?}");
        for &b in &[0xff80_0000u64, 0x8000_0000, 0, 0x3f80_0000] {
            assert_eq!(d.bits(d.key(b).unwrap()), b);
        }
        assert_eq!(d.key(0x7fc0_0000), None);
    }

    #[test]
    fn flush_replaces_subnormals_by_signed_zero() {
        let d = Domain::Float(F32);
        let mut s = AllowedSet::empty();
        s.add_key_range(d.key(0x8000_0003).unwrap(), d.key(0x0080_0001).unwrap());
        s.flush_subnormals(&F32);
        assert_eq!(
            s.bit_ranges(&d),
            vec![(0x8000_0000, 0x0000_0000), (0x0080_0000, 0x0080_0001)]
        );
    }

    #[test]
    fn miss_counts_zero_once() {
        let d = Domain::Float(F32);
        let s = AllowedSet::single(&d, 1);
        assert_eq!(s.miss_ulps(&d, 0x8000_0001), Some(2));
        assert_eq!(s.miss_ulps(&d, 1), Some(0));
    }
}
