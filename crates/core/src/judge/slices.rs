//! The slices a judge reads: one per source operand and one of results, each in the
//! element type its domain needs (module docs of `judge` give the layouts).

use crate::d3d::Domain;

/// The element type of a slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    /// 16-bit words: f16 patterns.
    U16,
    /// 32-bit words: f32 patterns, i32 and u32 values, comparison masks.
    U32,
    /// 64-bit words: f64 patterns.
    U64,
}

impl Elem {
    /// The element type that holds a domain's patterns.
    pub fn of(domain: &Domain) -> Elem {
        match domain.width() {
            16 => Elem::U16,
            64 => Elem::U64,
            _ => Elem::U32,
        }
    }

    /// Bytes per element.
    pub fn bytes(self) -> usize {
        match self {
            Elem::U16 => 2,
            Elem::U32 => 4,
            Elem::U64 => 8,
        }
    }

    /// The name used in messages: `u16`, `u32`, `u64`.
    pub fn name(self) -> &'static str {
        match self {
            Elem::U16 => "u16",
            Elem::U32 => "u32",
            Elem::U64 => "u64",
        }
    }
}

/// One operand's or the results' slice.
#[derive(Clone, Copy, Debug)]
pub enum Column<'a> {
    /// f16 patterns.
    U16(&'a [u16]),
    /// f32 patterns, i32/u32 values or comparison masks.
    U32(&'a [u32]),
    /// f64 patterns.
    U64(&'a [u64]),
}

impl<'a> Column<'a> {
    /// Elements in the slice.
    pub fn len(&self) -> usize {
        match self {
            Column::U16(s) => s.len(),
            Column::U32(s) => s.len(),
            Column::U64(s) => s.len(),
        }
    }

    /// No elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The element type.
    pub fn elem(&self) -> Elem {
        match self {
            Column::U16(_) => Elem::U16,
            Column::U32(_) => Elem::U32,
            Column::U64(_) => Elem::U64,
        }
    }

    /// Elements `range` of the slice (a block of lines, for a caller that judges in
    /// pieces).
    pub fn range(&self, range: std::ops::Range<usize>) -> Column<'a> {
        match *self {
            Column::U16(s) => Column::U16(&s[range]),
            Column::U32(s) => Column::U32(&s[range]),
            Column::U64(s) => Column::U64(&s[range]),
        }
    }

    /// Element `i`, widened.
    #[inline]
    pub fn get(&self, i: usize) -> u64 {
        match self {
            Column::U16(s) => s[i] as u64,
            Column::U32(s) => s[i] as u64,
            Column::U64(s) => s[i],
        }
    }
}

/// Patterns held in a slice of the element type their domain needs (what a reader of
/// files or device buffers fills, and [`Buffer::column`] lends to the judge).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Buffer {
    /// f16 patterns.
    U16(Vec<u16>),
    /// 32-bit words.
    U32(Vec<u32>),
    /// f64 patterns.
    U64(Vec<u64>),
}

impl Default for Buffer {
    fn default() -> Buffer {
        Buffer::U32(Vec::new())
    }
}

impl Buffer {
    /// Patterns of any width, narrowed to `elem`'s.
    pub fn from_patterns(elem: Elem, patterns: impl Iterator<Item = u64>) -> Buffer {
        match elem {
            Elem::U16 => Buffer::U16(patterns.map(|b| b as u16).collect()),
            Elem::U32 => Buffer::U32(patterns.map(|b| b as u32).collect()),
            Elem::U64 => Buffer::U64(patterns.collect()),
        }
    }

    /// `n` zero elements, to be filled through [`Buffer::bytes_mut`].
    pub fn zeroed(elem: Elem, n: usize) -> Buffer {
        match elem {
            Elem::U16 => Buffer::U16(vec![0; n]),
            Elem::U32 => Buffer::U32(vec![0; n]),
            Elem::U64 => Buffer::U64(vec![0; n]),
        }
    }

    /// The elements' bytes, for a reader to fill with little-endian data; call
    /// [`Buffer::from_le`] after.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        match self {
            Buffer::U16(v) => bytemuck::cast_slice_mut(v),
            Buffer::U32(v) => bytemuck::cast_slice_mut(v),
            Buffer::U64(v) => bytemuck::cast_slice_mut(v),
        }
    }

    /// `n` elements of type `elem`, reusing the storage when the type is the same (the
    /// contents are the caller's to fill).
    pub fn reset(&mut self, elem: Elem, n: usize) {
        match (self, elem) {
            (Buffer::U16(v), Elem::U16) => v.resize(n, 0),
            (Buffer::U32(v), Elem::U32) => v.resize(n, 0),
            (Buffer::U64(v), Elem::U64) => v.resize(n, 0),
            (b, _) => *b = Buffer::zeroed(elem, n),
        }
    }

    /// `n` elements of type `elem`, element `i` the pattern `f(i)` (cut to the element's
    /// width), reusing the storage when the type is the same.
    pub fn refill(&mut self, elem: Elem, n: usize, f: impl Fn(usize) -> u64) {
        self.reset(elem, n);
        match self {
            Buffer::U16(v) => v.iter_mut().enumerate().for_each(|(i, w)| *w = f(i) as u16),
            Buffer::U32(v) => v.iter_mut().enumerate().for_each(|(i, w)| *w = f(i) as u32),
            Buffer::U64(v) => v.iter_mut().enumerate().for_each(|(i, w)| *w = f(i)),
        }
    }

    /// Keeps the first `n` elements.
    pub fn truncate(&mut self, n: usize) {
        match self {
            Buffer::U16(v) => v.truncate(n),
            Buffer::U32(v) => v.truncate(n),
            Buffer::U64(v) => v.truncate(n),
        }
    }

    /// Reads the elements filled as little-endian bytes in the machine's order (nothing to
    /// do on a little-endian machine).
    pub fn from_le(&mut self) {
        match self {
            Buffer::U16(v) => v.iter_mut().for_each(|x| *x = u16::from_le(*x)),
            Buffer::U32(v) => v.iter_mut().for_each(|x| *x = u32::from_le(*x)),
            Buffer::U64(v) => v.iter_mut().for_each(|x| *x = u64::from_le(*x)),
        }
    }

    /// The slice as the judge reads it.
    pub fn column(&self) -> Column<'_> {
        match self {
            Buffer::U16(v) => Column::U16(v),
            Buffer::U32(v) => Column::U32(v),
            Buffer::U64(v) => Column::U64(v),
        }
    }
}
