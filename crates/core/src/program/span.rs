//! A value a program holds in one register component: the interval of keys (value order,
//! -0 just below +0, see [`crate::d3d::allowed::float_key`]) every chain of
//! per-instruction choices may put there, and whether a NaN may.

use crate::d3d::{AllowedSet, Domain};
use crate::format::FloatFormat;

/// Every result one register component may hold: the keys from `lo` to `hi` (when there is
/// a number at all) and any NaN when `nan`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Span {
    /// The smallest and largest key, `None` when only NaN is possible.
    pub keys: Option<(i64, i64)>,
    /// Whether a NaN is possible.
    pub nan: bool,
}

impl Span {
    /// Nothing possible (the start of a union).
    pub const EMPTY: Span = Span {
        keys: None,
        nan: false,
    };

    /// One pattern of `format`.
    pub fn point(format: &FloatFormat, bits: u64) -> Span {
        match Domain::Float(*format).key(bits) {
            Some(k) => Span {
                keys: Some((k, k)),
                nan: false,
            },
            None => Span {
                keys: None,
                nan: true,
            },
        }
    }

    /// The hull of an allowed set.
    pub fn of_set(set: &AllowedSet) -> Span {
        Span {
            keys: set.extremes(),
            nan: set.nan,
        }
    }

    /// The smallest span holding both.
    pub fn union(self, o: Span) -> Span {
        let keys = match (self.keys, o.keys) {
            (None, k) | (k, None) => k,
            (Some((a, b)), Some((c, d))) => Some((a.min(c), b.max(d))),
        };
        Span {
            keys,
            nan: self.nan || o.nan,
        }
    }

    /// Whether it is one pattern (or only NaN).
    pub fn is_point(&self) -> bool {
        match self.keys {
            Some((lo, hi)) => lo == hi && !self.nan,
            None => true,
        }
    }

    /// Whether a pattern lies inside.
    pub fn contains(&self, format: &FloatFormat, bits: u64) -> bool {
        match Domain::Float(*format).key(bits) {
            Some(k) => matches!(self.keys, Some((lo, hi)) if lo <= k && k <= hi),
            None => self.nan,
        }
    }

    /// The negation (`-`, §22.18.2): exact, the order reversed.
    pub fn negate(self) -> Span {
        Span {
            keys: self.keys.map(|(lo, hi)| (-hi - 1, -lo - 1)),
            nan: self.nan,
        }
    }

    /// The absolute value (`_abs`, §22.18.1): the sign forced positive.
    pub fn abs(self) -> Span {
        let keys = self.keys.map(|(lo, hi)| {
            if lo >= 0 {
                (lo, hi)
            } else if hi < 0 {
                (-hi - 1, -lo - 1)
            } else {
                (0, hi.max(-lo - 1))
            }
        });
        Span {
            keys,
            nan: self.nan,
        }
    }

    /// Also the zero of each sign that a subnormal end may be flushed to (§3.1.3.2): the
    /// keys of a sign's subnormals and its zero are neighbours, so the interval only grows
    /// toward zero.
    pub fn with_flush(self, format: &FloatFormat) -> Span {
        let min_normal = Domain::Float(*format)
            .key(format.assemble(false, 1, 0))
            .expect("a number");
        let keys = self.keys.map(|(mut lo, mut hi)| {
            // Positive subnormals are keys 1 ..= min_normal - 1, flushed to +0 (key 0);
            // negative ones -2 ..= -min_normal, flushed to -0 (key -1).
            if lo > 0 && lo < min_normal {
                lo = 0;
            }
            if hi < -1 && hi > -min_normal - 1 {
                hi = -1;
            }
            (lo, hi)
        });
        Span {
            keys,
            nan: self.nan,
        }
    }

    /// The ends as patterns of `format`: `(lo, hi)`, `None` when only NaN.
    pub fn bits(&self, format: &FloatFormat) -> Option<(u64, u64)> {
        let d = Domain::Float(*format);
        self.keys.map(|(lo, hi)| (d.bits(lo), d.bits(hi)))
    }

    /// The width in ULPs (the two zeros one point, §3.1.2), 0 for a point or NaN alone.
    pub fn ulps(&self, format: &FloatFormat) -> u64 {
        let d = Domain::Float(*format);
        self.keys.map_or(0, |(lo, hi)| {
            (d.ordinal_of_key(hi) - d.ordinal_of_key(lo)).unsigned_abs()
        })
    }
}
