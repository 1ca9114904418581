//! Any numpy array read at memory speed in its logical (C) order: a C-contiguous array in
//! the machine's byte order is borrowed as it is; any other (strided, sliced, reversed,
//! Fortran-ordered, unaligned, the other byte order) is gathered block by block into a
//! reused buffer (a few hundred KiB per core) and handed to the same bulk kernels the
//! contiguous path uses, as numpy's buffered ufunc loops do. The outer axes are walked by
//! index arithmetic, the innermost by a tight loop (a `memcpy` where its elements are
//! adjacent), and a byte swap is done in that copy rather than in a whole copy of the array.
//!
//! All the `unsafe` of the binding is here: reading an array's memory through its data
//! pointer, strides and shape, as numpy lays it out.

use std::borrow::Cow;
use std::marker::PhantomData;
use std::mem::size_of;

use d3dfloat_core::convert::raw::convert_parallel;
use d3dfloat_core::convert::{Conversion, Stats};
use rayon::prelude::*;

/// Elements gathered per block: 256 KiB of float32, the bulk kernels' own task size
/// (`convert::raw`'s `TASK_BYTES`), so that a gathered block is converted while it is
/// still in the core's cache, and one block per task keeps every core busy.
pub const BLOCK: usize = 1 << 16;

/// An element type the package reads: plain bits, with the byte swap of the other order.
pub trait Elem: bytemuck::Pod + Send + Sync {
    /// The value whose bytes are this one's in reverse order.
    fn swapped(self) -> Self;
}

macro_rules! int_elems {
    ($($t:ty),*) => { $(impl Elem for $t { #[inline(always)] fn swapped(self) -> Self { self.swap_bytes() } })* };
}
int_elems!(u16, u32, u64);

impl Elem for f32 {
    #[inline(always)]
    fn swapped(self) -> Self {
        f32::from_bits(self.to_bits().swap_bytes())
    }
}

impl Elem for f64 {
    #[inline(always)]
    fn swapped(self) -> Self {
        f64::from_bits(self.to_bits().swap_bytes())
    }
}

/// The elements of one array, as numpy lays them out: a data pointer, and for each axis
/// its length and its stride in bytes (negative for a reversed axis, any multiple of
/// nothing in particular), with the axes numpy could have merged already merged.
pub struct Strided<'a, T> {
    ptr: *const u8,
    /// Axes of more than one element, outermost first, adjacent axes merged where one
    /// step of the outer is a whole run of the inner (so a C-contiguous array has one).
    shape: Vec<usize>,
    strides: Vec<isize>,
    len: usize,
    swap: bool,
    _borrow: PhantomData<&'a [T]>,
}

// SAFETY: a `Strided` only reads the array's memory, which the caller's read-only borrow
// of the array (`PyReadonlyArray`, held for `'a`) keeps alive and unchanged by Rust code;
// reading it from several threads at once is as safe as sharing a `&[T]`.
unsafe impl<T: Sync> Sync for Strided<'_, T> {}
// SAFETY: as for `Sync`: a `Strided` owns nothing and reads through a shared borrow.
unsafe impl<T: Sync> Send for Strided<'_, T> {}

impl<'a, T: Elem> Strided<'a, T> {
    /// The array at `ptr` of `shape` and byte `strides`, its elements in the other byte
    /// order where `swap`.
    ///
    /// # Safety
    ///
    /// Every element that `shape` and `strides` address from `ptr` must be readable (as
    /// `size_of::<T>()` bytes, at any alignment) and unchanged for `'a`: what a numpy
    /// array borrowed read-only for `'a` guarantees of its data.
    pub unsafe fn new(ptr: *const u8, shape: &[usize], strides: &[isize], swap: bool) -> Self {
        let len = shape.iter().product();
        let mut axes: Vec<(usize, isize)> = Vec::with_capacity(shape.len());
        if len > 1 {
            for (&n, &s) in shape.iter().zip(strides) {
                if n == 1 {
                    continue; // its stride is never used
                }
                match axes.last_mut() {
                    // One step of the outer axis is a whole run of this one: one axis.
                    Some((m, t)) if s.checked_mul(n as isize) == Some(*t) => {
                        *m *= n;
                        *t = s;
                    }
                    _ => axes.push((n, s)),
                }
            }
        }
        Strided {
            ptr,
            shape: axes.iter().map(|a| a.0).collect(),
            strides: axes.iter().map(|a| a.1).collect(),
            len,
            swap,
            _borrow: PhantomData,
        }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The elements as a slice of the array's own memory, where that memory holds them in
    /// C order, adjacent, aligned, in this machine's byte order.
    pub fn contiguous(&self) -> Option<&'a [T]> {
        if self.len == 0 {
            return Some(&[]);
        }
        let adjacent = match self.strides[..] {
            [] => true,
            [s] => s == size_of::<T>() as isize,
            _ => false,
        };
        let aligned = (self.ptr as usize).is_multiple_of(std::mem::align_of::<T>());
        // SAFETY: `len` adjacent aligned elements from `ptr`, readable for `'a` (`new`).
        (adjacent && aligned && !self.swap)
            .then(|| unsafe { std::slice::from_raw_parts(self.ptr.cast::<T>(), self.len) })
    }

    /// Copies elements `start..start + dst.len()` (in C order) into `dst`, byte-swapped
    /// where the array is of the other byte order.
    pub fn gather(&self, start: usize, dst: &mut [T]) {
        assert!(start + dst.len() <= self.len, "gather past the array's end");
        if dst.is_empty() {
            return;
        }
        let k = self.shape.len();
        if k == 0 {
            // One element (a 0-d array, or every axis of length 1).
            // SAFETY: the array's one element is at `ptr` (`new`).
            let v = unsafe { self.ptr.cast::<T>().read_unaligned() };
            dst[0] = if self.swap { v.swapped() } else { v };
            return;
        }
        let (n0, s0) = (self.shape[k - 1], self.strides[k - 1]);
        // Where `start` is: the index of each outer axis, the byte offset of its row,
        // and its position in that row.
        let mut idx = vec![0usize; k - 1];
        let mut row = start / n0;
        let mut at = start % n0;
        let mut offset = 0isize;
        for a in (0..k - 1).rev() {
            idx[a] = row % self.shape[a];
            row /= self.shape[a];
            offset += idx[a] as isize * self.strides[a];
        }
        let mut done = 0;
        while done < dst.len() {
            let left = dst.len() - done;
            let rows = if at == 0 && k >= 2 && left >= n0 {
                // Whole rows along the next axis out, at once.
                let rows = (self.shape[k - 2] - idx[k - 2]).min(left / n0);
                let out = &mut dst[done..done + rows * n0];
                // SAFETY: `offset` is that of the current row (the outer indices' strides
                // added up), each row `n0` elements `s0` apart, the rows `strides[k - 2]`
                // apart, and no more rows are read than that axis has left (`new`).
                unsafe {
                    copy_rows(
                        self.ptr.offset(offset),
                        self.strides[k - 2],
                        s0,
                        n0,
                        out,
                        self.swap,
                    )
                };
                done += rows * n0;
                rows
            } else {
                let take = (n0 - at).min(left);
                let out = &mut dst[done..done + take];
                // SAFETY: elements `at..at + take` of the current row, which has `n0`
                // (`offset` and the strides as above).
                unsafe {
                    let from = self.ptr.offset(offset + at as isize * s0);
                    copy_rows(from, 0, s0, take, out, self.swap);
                }
                done += take;
                at += take;
                if at < n0 {
                    break; // `dst` is full
                }
                at = 0;
                1
            };
            if k >= 2 && done < dst.len() {
                self.advance(&mut idx, &mut offset, rows);
            }
        }
    }

    /// Moves the outer indices `rows` rows on (never past the next axis's end), carrying.
    fn advance(&self, idx: &mut [usize], offset: &mut isize, rows: usize) {
        let mut a = idx.len() - 1;
        idx[a] += rows;
        *offset += rows as isize * self.strides[a];
        while idx[a] == self.shape[a] && a > 0 {
            *offset -= self.shape[a] as isize * self.strides[a];
            idx[a] = 0;
            a -= 1;
            idx[a] += 1;
            *offset += self.strides[a];
        }
    }

    /// The elements in C order: borrowed where [`Self::contiguous`], else gathered on
    /// every core into one new vector (for the functions that need them all at once).
    pub fn elements(&self) -> Cow<'a, [T]> {
        if let Some(s) = self.contiguous() {
            return Cow::Borrowed(s);
        }
        let mut v = vec![T::zeroed(); self.len];
        v.par_chunks_mut(BLOCK)
            .enumerate()
            .for_each(|(b, chunk)| self.gather(b * BLOCK, chunk));
        Cow::Owned(v)
    }

    /// The first element (in C order) for which `f` holds, with its index: read in
    /// blocks, so that no copy of the whole array is made.
    pub fn position(&self, f: impl Fn(T) -> bool + Sync) -> Option<(usize, T)> {
        let first = |base: usize, s: &[T]| s.iter().position(|&x| f(x)).map(|i| (base + i, s[i]));
        if let Some(s) = self.contiguous() {
            return first(0, s);
        }
        let blocks = self.len.div_ceil(BLOCK);
        (0..blocks)
            .into_par_iter()
            .map_init(
                || vec![T::zeroed(); BLOCK],
                |scratch, b| {
                    let start = b * BLOCK;
                    let block = &mut scratch[..BLOCK.min(self.len - start)];
                    self.gather(start, block);
                    first(start, block)
                },
            )
            .find_first(|hit| hit.is_some())
            .flatten()
    }

    /// Converts the elements through `conv` into `dst` (`conv.dst_len` of their bytes),
    /// as `convert_parallel` converts a slice: directly where [`Self::contiguous`], else
    /// block by block, each gathered into a buffer reused by its thread.
    pub fn convert(&self, conv: &Conversion, dst: &mut [u8]) -> Stats {
        if let Some(s) = self.contiguous() {
            return convert_parallel(conv, bytemuck::cast_slice(s), dst);
        }
        let group = conv.src_group_bytes() / size_of::<T>();
        let groups = (BLOCK / group).max(1);
        let block = groups * group;
        let dg = conv.dst_group_bytes();
        dst.par_chunks_mut(groups * dg)
            .enumerate()
            .map_init(
                || vec![T::zeroed(); block],
                |scratch, (b, out)| {
                    let src = &mut scratch[..out.len() / dg * group];
                    self.gather(b * block, src);
                    convert_parallel(conv, bytemuck::cast_slice(src), out)
                },
            )
            .reduce(Stats::default, |mut a, b| {
                a.merge(&b);
                a
            })
    }
}

/// Copies `dst.len() / n` rows of `n` elements into `dst`: row `r` starts `r * row_stride`
/// bytes after `src`, its elements `stride` bytes apart. The short rows of an RGB slice
/// (`rgba[..., :3]`) get loops of a fixed length, long rows of adjacent elements a
/// `memcpy` (or with the byte swap a loop the compiler vectorises).
///
/// # Safety
///
/// Every element so addressed must be readable as `size_of::<T>()` bytes.
unsafe fn copy_rows<T: Elem>(
    src: *const u8,
    row_stride: isize,
    stride: isize,
    n: usize,
    dst: &mut [T],
    swap: bool,
) {
    let adjacent = stride == size_of::<T>() as isize;
    // One copy of the loop for each short row length (1 to 4: a fixed number of moves,
    // where a `memcpy` a row would cost a call per texel), swap and adjacency.
    macro_rules! by_length {
        ($swap:literal, $adjacent:literal) => {
            match n {
                1 => rows::<T, 1, $swap, $adjacent>(src, row_stride, stride, n, dst),
                2 => rows::<T, 2, $swap, $adjacent>(src, row_stride, stride, n, dst),
                3 => rows::<T, 3, $swap, $adjacent>(src, row_stride, stride, n, dst),
                4 => rows::<T, 4, $swap, $adjacent>(src, row_stride, stride, n, dst),
                _ => rows::<T, 0, $swap, $adjacent>(src, row_stride, stride, n, dst),
            }
        };
    }
    // Long rows of elements 2, 3 or 4 apart (one channel of an image, `rgba[..., 0]`): a
    // constant step lets the compiler unroll the gather.
    let step = stride / size_of::<T>() as isize;
    if !swap && n > 4 && stride == step * size_of::<T>() as isize {
        // SAFETY: passed on from the caller.
        unsafe {
            match step {
                2 => return stepped_rows::<T, 2>(src, row_stride, n, dst),
                3 => return stepped_rows::<T, 3>(src, row_stride, n, dst),
                4 => return stepped_rows::<T, 4>(src, row_stride, n, dst),
                _ => {}
            }
        }
    }
    // SAFETY: passed on from the caller.
    unsafe {
        match (swap, adjacent) {
            (false, true) => by_length!(false, true),
            (true, true) => by_length!(true, true),
            (false, false) => by_length!(false, false),
            (true, false) => by_length!(true, false),
        }
    }
}

/// [`copy_rows`] for rows of `N` elements (`N == 0`: of `n`), swapped where `SWAP`,
/// adjacent where `ADJACENT`.
///
/// # Safety
///
/// As [`copy_rows`].
#[inline(always)]
unsafe fn rows<T: Elem, const N: usize, const SWAP: bool, const ADJACENT: bool>(
    src: *const u8,
    row_stride: isize,
    stride: isize,
    n: usize,
    dst: &mut [T],
) {
    let n = if N == 0 { n } else { N };
    let size = size_of::<T>();
    for (r, out) in dst.chunks_exact_mut(n).enumerate() {
        // SAFETY: row `r` and its `n` elements are readable (the caller's promise).
        unsafe {
            let row = src.offset(r as isize * row_stride);
            if ADJACENT && !SWAP && N == 0 {
                std::ptr::copy_nonoverlapping(row, out.as_mut_ptr().cast::<u8>(), n * size);
            } else if ADJACENT {
                for (j, o) in out.iter_mut().enumerate() {
                    let v = row.cast::<T>().add(j).read_unaligned();
                    *o = if SWAP { v.swapped() } else { v };
                }
            } else {
                for (j, o) in out.iter_mut().enumerate() {
                    let v = row.offset(j as isize * stride).cast::<T>().read_unaligned();
                    *o = if SWAP { v.swapped() } else { v };
                }
            }
        }
    }
}

/// [`copy_rows`] for rows of `n` elements `STEP` elements apart.
///
/// # Safety
///
/// As [`copy_rows`].
#[inline(always)]
unsafe fn stepped_rows<T: Elem, const STEP: usize>(
    src: *const u8,
    row_stride: isize,
    n: usize,
    dst: &mut [T],
) {
    for (r, out) in dst.chunks_exact_mut(n).enumerate() {
        // SAFETY: row `r` and its `n` elements are readable (the caller's promise).
        let row = unsafe { src.offset(r as isize * row_stride).cast::<T>() };
        for (j, o) in out.iter_mut().enumerate() {
            // SAFETY: as above.
            *o = unsafe { row.add(j * STEP).read_unaligned() };
        }
    }
}
