//! A BC6H encoder for both signednesses. It works in the space the decoder interpolates
//! in (§19.5.13.8): texels become integers (the f16 pattern, sign and magnitude for SF16),
//! candidate endpoints are fitted along each region's principal axis, quantized to the
//! mode's precision, moved so that the deltas fit (§19.5.13.7), and refined by least
//! squares over the chosen indices.
//!
//! Estimates choose what is tried: partitions are ranked by how far their texels lie off
//! one line per region, and of the modes only the finest precision whose deltas hold the
//! fitted endpoints (and, by [`Quality`], its neighbours) is quantized. What is kept is
//! chosen by the exact error: every candidate's indices and error come from the palette
//! the decoder will build, through the decoder's own arithmetic.

use super::decode::{finish_unquantize, interpolate, unquantize, weights};
use super::modes::{HeaderBit, MODES, Mode};
use super::partitions;

/// How hard the encoder looks: more partitions, precisions and refinement passes cost
/// time. Each mode is tried only near the finest precision whose deltas hold the block's
/// fitted endpoints (modes of one precision decode alike and differ only in how wide
/// their deltas are); every two-region candidate is first measured unrefined and only
/// the best few are refined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Quality {
    /// The best-fitting partition, the finest precision that fits, one refinement pass.
    Fast,
    /// The 4 best-fitting partitions, the finest precision that fits and the next finer
    /// (clamped), the best 3 two-region candidates refined by two passes.
    Normal,
    /// The 12 best-fitting partitions, two finer precisions and one coarser, the best 12
    /// two-region candidates refined by four passes.
    Slow,
}

/// A block whose one-region encoding is off by at most this (the sum of squared errors
/// over its 48 values, in f16 steps: one step each on average) is kept as it is: two
/// regions cannot do better than that by much, and smooth images are mostly such blocks.
const CLOSE_ENOUGH: u64 = 48;

/// What one quality tries.
struct Search {
    /// Partitions encoded, the best by the estimate first.
    partitions: usize,
    /// Precision levels tried finer than the finest that holds the endpoints unclamped.
    finer: usize,
    /// Precision levels tried coarser than it.
    coarser: usize,
    /// Refinement passes of a one-region candidate.
    passes_one: usize,
    /// Refinement passes of a two-region candidate.
    passes_two: usize,
    /// Two-region candidates refined.
    refined: usize,
}

impl Quality {
    /// The name `--quality` takes.
    pub fn name(self) -> &'static str {
        match self {
            Quality::Fast => "fast",
            Quality::Normal => "normal",
            Quality::Slow => "slow",
        }
    }

    fn search(self) -> Search {
        match self {
            Quality::Fast => Search {
                partitions: 1,
                finer: 0,
                coarser: 0,
                passes_one: 1,
                passes_two: 1,
                refined: 1,
            },
            Quality::Normal => Search {
                partitions: 4,
                finer: 1,
                coarser: 0,
                passes_one: 2,
                passes_two: 2,
                refined: 3,
            },
            Quality::Slow => Search {
                partitions: 12,
                finer: 2,
                coarser: 1,
                passes_one: 4,
                passes_two: 4,
                refined: 12,
            },
        }
    }
}

/// The two-region modes by precision, finest first. Modes of one precision quantize and
/// decode endpoints alike; they differ only in which channel's deltas are wider.
const TWO_REGION_LEVELS: [&[u8]; 6] = [&[3, 4, 5], &[1], &[6], &[7, 8, 9], &[2], &[10]];

/// The one-region modes by precision, finest first.
const ONE_REGION_LEVELS: [&[u8]; 4] = [&[14], &[13], &[12], &[11]];

/// An f16 pattern as the integer the encoder measures in: the pattern itself for UF16
/// (negatives and NaN become 0, +infinity the largest finite), the signed magnitude for
/// SF16 (infinities become ±65504, NaN 0), as §19.5.13 encourages encoders to do.
fn target(bits: u16, signed: bool) -> i32 {
    let magnitude = (bits & 0x7fff) as i32;
    let negative = bits & 0x8000 != 0;
    if magnitude > 0x7c00 {
        return 0; // NaN
    }
    let magnitude = magnitude.min(0x7bff);
    match (signed, negative) {
        (_, false) => magnitude,
        (false, true) => 0,
        (true, true) => -magnitude,
    }
}

/// A decoded f16 pattern in the same integer space as [`target`].
fn decoded_int(bits: u16, signed: bool) -> i32 {
    if signed && bits & 0x8000 != 0 {
        -((bits & 0x7fff) as i32)
    } else {
        bits as i32
    }
}

/// The factor from the integer space to the space before `finish_unquantize`, which
/// scales by 31/64 (unsigned) or 31/32 (signed) (§19.5.13.10).
fn prefinish_scale(signed: bool) -> f32 {
    if signed { 32.0 / 31.0 } else { 64.0 / 31.0 }
}

/// The unquantized (pre-finish) range: 0..=0xffff unsigned, ±0x7fff signed.
fn unquantized_range(signed: bool) -> (f32, f32) {
    if signed {
        (-32767.0, 32767.0)
    } else {
        (0.0, 65535.0)
    }
}

/// The quantized endpoints a mode can hold at precision `p`. Signed endpoints stop one
/// short of the most negative, which would decode to -infinity (§19.5.13.10).
fn quantized_range(p: u8, signed: bool) -> (i32, i32) {
    if signed {
        let m = (1 << (p - 1)) - 1;
        (-m, m)
    } else {
        (0, (1 << p) - 1)
    }
}

/// Quantized steps per unit of the pre-finish space at precision `p`: `unquantize` spreads
/// 2^p steps over 0x10000 (unsigned), or 2^(p-1) over 0x8000 of magnitude (signed).
fn steps_per_unit(p: u8) -> f32 {
    (1u32 << p) as f32 / 65536.0
}

/// The quantized endpoint whose unquantized value is nearest `u`. At 12 bits and more it
/// is measured where the texels are, after the final scaling, so that an endpoint lands on
/// the texel's own pattern when one can (a flat block comes back exactly through mode 14).
/// At 11 bits and fewer a step is at least 15 f16 steps wide and the final scaling moves a
/// value by less than one, so the nearest step before it is kept.
fn quantize(u: f32, p: u8, signed: bool) -> i32 {
    let (lo, hi) = quantized_range(p, signed);
    // `unquantize` puts step q in the middle of its share of the pre-finish space, so the
    // truncated estimate is the nearest step before the final scaling.
    let q0 = ((u * steps_per_unit(p)) as i32).clamp(lo, hi);
    if p <= 11 {
        return q0;
    }
    let goal = u / prefinish_scale(signed);
    let decoded = |q: i32| {
        let bits = finish_unquantize(unquantize(q, p, signed), signed);
        decoded_int(bits, signed) as f32
    };
    let at = decoded(q0);
    // The decoded value never falls as q grows: only the neighbour toward the goal can
    // be nearer.
    let q1 = if at < goal { q0 + 1 } else { q0 - 1 }.clamp(lo, hi);
    if (decoded(q1) - goal).abs() < (at - goal).abs() {
        q1
    } else {
        q0
    }
}

/// `[f(0), f(1), f(2)]`: per channel, written out (`array::from_fn` and `array::map` are
/// not always inlined, and these are the inner loops).
#[inline(always)]
fn rgb<T>(f: impl Fn(usize) -> T) -> [T; 3] {
    [f(0), f(1), f(2)]
}

/// One candidate encoding: quantized endpoints (w, x, y, z), indices and its error.
#[derive(Clone, Copy)]
struct Candidate {
    mode: &'static Mode,
    partition: u8,
    endpoints: [[i32; 3]; 4],
    indices: [u8; 16],
    error: u64,
}

/// A region's endpoints before quantization, in the pre-finish space.
type Line = [[f32; 3]; 2];

/// The block being encoded: its targets in both spaces.
struct Texels {
    signed: bool,
    /// Integer space ([`target`]).
    target: [[i32; 3]; 16],
    /// Pre-finish space.
    scaled: [[f32; 3]; 16],
}

impl Texels {
    fn new(texels: &[[u16; 3]; 16], signed: bool) -> Texels {
        let scale = prefinish_scale(signed);
        let target = texels.map(|t| t.map(|b| target(b, signed)));
        Texels {
            signed,
            target,
            scaled: target.map(|t| t.map(|v| v as f32 * scale)),
        }
    }
}

/// The line through a set of texels (bit `i` of `members` for texel `i`, `m` their
/// [`Moments`]) along their principal axis, from the lowest to the highest projection,
/// turned so that texel `anchor` lies in its first half: an anchor's index must be in the
/// palette's lower half (§19.5.13.4), so its end is the one stored first.
fn fit_line(t: &Texels, m: &Moments, members: u16, anchor: usize) -> Line {
    let n = m[0];
    let mean: [f64; 3] = [m[1] / n, m[2] / n, m[3] / n];
    let covariance = |k: usize, a: usize, b: usize| (m[k] - m[1 + a] * mean[b]) as f32;
    let (rr, rg, rb) = (
        covariance(4, 0, 0),
        covariance(5, 0, 1),
        covariance(6, 0, 2),
    );
    let (gg, gb, bb) = (
        covariance(7, 1, 1),
        covariance(8, 1, 2),
        covariance(9, 2, 2),
    );
    let axis = principal_axis(&[[rr, rg, rb], [rg, gg, gb], [rb, gb, bb]], 8);
    // Projections from the mean, in the integer space ([`Moments`] are from texel 0).
    let origin: [f32; 3] = rgb(|c| t.target[0][c] as f32 + mean[c] as f32);
    let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
    for i in (0..16).filter(|&i| members >> i & 1 != 0) {
        let p: f32 = (0..3)
            .map(|c| (t.target[i][c] as f32 - origin[c]) * axis[c])
            .sum();
        lo = lo.min(p);
        hi = hi.max(p);
    }
    let (umin, umax) = unquantized_range(t.signed);
    let scale = prefinish_scale(t.signed);
    let at = |s: f32| rgb(|c| ((origin[c] + axis[c] * s) * scale).clamp(umin, umax));
    let line: Line = [at(lo), at(hi)];
    let along: f32 = (0..3)
        .map(|c| (t.scaled[anchor][c] - line[0][c]) * (line[1][c] - line[0][c]))
        .sum();
    let length2: f32 = (0..3).map(|c| (line[1][c] - line[0][c]).powi(2)).sum();
    if 2.0 * along > length2 {
        [line[1], line[0]]
    } else {
        line
    }
}

/// The eigenvector of the largest eigenvalue of a covariance matrix, by `iterations` steps
/// of power iteration from the column of the largest diagonal entry. The matrix is first
/// divided by its trace, so that no step needs normalizing: its eigenvalues are then at
/// most 1 and the largest at least 1/3.
fn principal_axis(cov: &[[f32; 3]; 3], iterations: usize) -> [f32; 3] {
    const EVEN: [f32; 3] = [0.577_350_3; 3];
    let trace = cov[0][0] + cov[1][1] + cov[2][2];
    if trace <= 1e-6 {
        return EVEN;
    }
    let r = 1.0 / trace;
    let c = rgb(|a| rgb(|b| cov[a][b] * r));
    let largest = (0..3)
        .max_by(|&a, &b| c[a][a].total_cmp(&c[b][b]))
        .expect("three");
    let mut v = c[largest];
    for _ in 0..iterations {
        v = rgb(|r| c[r][0] * v[0] + c[r][1] * v[1] + c[r][2] * v[2]);
    }
    let norm = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if norm > 1e-30 {
        rgb(|k| v[k] / norm)
    } else {
        EVEN
    }
}

/// Sums over a set of texels, each relative to texel 0 in the integer space: the count,
/// each channel, and each product of two channels (RR, RG, RB, GG, GB, BB). In f64: a
/// set's spread is the difference of two such sums, which can be far larger than it.
type Moments = [f64; 10];

fn plus(a: &Moments, b: &Moments) -> Moments {
    let mut out = *a;
    for (o, x) in out.iter_mut().zip(b) {
        *o += x;
    }
    out
}

fn minus(a: &Moments, b: &Moments) -> Moments {
    let mut out = *a;
    for (o, x) in out.iter_mut().zip(b) {
        *o -= x;
    }
    out
}

/// The [`Moments`] of every subset of each row of four texels, so that any set's are the
/// sum of four.
struct RowMoments([[Moments; 16]; 4]);

impl RowMoments {
    fn new(t: &Texels) -> RowMoments {
        let mut rows = [[[0f64; 10]; 16]; 4];
        for (r, row) in rows.iter_mut().enumerate() {
            for subset in 1..16usize {
                let i = 4 * r + subset.trailing_zeros() as usize;
                let x: [f64; 3] = rgb(|c| (t.target[i][c] - t.target[0][c]) as f64);
                let one = [
                    1.0,
                    x[0],
                    x[1],
                    x[2],
                    x[0] * x[0],
                    x[0] * x[1],
                    x[0] * x[2],
                    x[1] * x[1],
                    x[1] * x[2],
                    x[2] * x[2],
                ];
                row[subset] = plus(&row[subset & (subset - 1)], &one);
            }
        }
        RowMoments(rows)
    }

    /// The moments of the texels in `members` (bit `i` for texel `i`).
    fn of(&self, members: u16) -> Moments {
        let m = members as usize;
        let r = &self.0;
        plus(
            &plus(&r[0][m & 15], &r[1][m >> 4 & 15]),
            &plus(&r[2][m >> 8 & 15], &r[3][m >> 12]),
        )
    }
}

/// 1 / n for the texel counts of a set, 0 to 16 (0 for none).
const RECIPROCALS: [f64; 17] = {
    let mut out = [0.0; 17];
    let mut n = 1;
    while n <= 16 {
        out[n] = 1.0 / n as f64;
        n += 1;
    }
    out
};

/// The `keep` partitions whose regions lie closest to one line each, best first. The
/// measure is a region's energy off its best line: the trace of its covariance less the
/// largest eigenvalue, estimated by the Rayleigh quotient after three steps of power
/// iteration. A ranking needs no more; the 64 regions go through it side by side.
fn rank_partitions(rows: &RowMoments, keep: usize) -> ([u8; 32], usize) {
    let whole = rows.of(0xffff);
    // The covariances of region 1 of partition p at p, region 0 at 32 + p.
    let mut c = [[0f32; 64]; 6];
    for p in 0..32 {
        let one = rows.of(partitions::region_one_mask(p as u8));
        for (j, m) in [(p, one), (32 + p, minus(&whole, &one))] {
            let r = RECIPROCALS[m[0] as usize];
            let covariance = [
                m[4] - m[1] * m[1] * r,
                m[5] - m[1] * m[2] * r,
                m[6] - m[1] * m[3] * r,
                m[7] - m[2] * m[2] * r,
                m[8] - m[2] * m[3] * r,
                m[9] - m[3] * m[3] * r,
            ];
            for k in 0..6 {
                c[k][j] = covariance[k] as f32;
            }
        }
    }
    let mut energy = [0f32; 64];
    for j in 0..64 {
        let trace = c[0][j] + c[3][j] + c[5][j];
        // Divided by the trace, so that the power steps neither overflow nor vanish.
        let scale = if trace > 0.0 { 1.0 / trace } else { 0.0 };
        let (rr, rg, rb) = (c[0][j] * scale, c[1][j] * scale, c[2][j] * scale);
        let (gg, gb, bb) = (c[3][j] * scale, c[4][j] * scale, c[5][j] * scale);
        // The column of the largest diagonal entry: one step from that channel's axis.
        let red = rr >= gg && rr >= bb;
        let green = !red && gg >= bb;
        let x0 = if red {
            rr
        } else if green {
            rg
        } else {
            rb
        };
        let y0 = if red {
            rg
        } else if green {
            gg
        } else {
            gb
        };
        let z0 = if red {
            rb
        } else if green {
            gb
        } else {
            bb
        };
        let x1 = rr * x0 + rg * y0 + rb * z0;
        let y1 = rg * x0 + gg * y0 + gb * z0;
        let z1 = rb * x0 + gb * y0 + bb * z0;
        let x2 = rr * x1 + rg * y1 + rb * z1;
        let y2 = rg * x1 + gg * y1 + gb * z1;
        let z2 = rb * x1 + gb * y1 + bb * z1;
        let length2 = x1 * x1 + y1 * y1 + z1 * z1;
        let along = x1 * x2 + y1 * y2 + z1 * z2;
        let largest = if length2 > 1e-30 {
            along / length2
        } else {
            1.0
        };
        energy[j] = trace * (1.0 - largest).max(0.0);
    }
    let mut ranked = [(0f32, 0u8); 32];
    for (p, slot) in ranked.iter_mut().enumerate() {
        *slot = (energy[p] + energy[32 + p], p as u8);
    }
    let keep = keep.min(32);
    ranked.select_nth_unstable_by(keep - 1, |a, b| a.0.total_cmp(&b.0));
    ranked[..keep].sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
    let mut order = [0u8; 32];
    for (o, r) in order.iter_mut().zip(&ranked) {
        *o = r.1;
    }
    (order, keep)
}

/// How far a mode's deltas fall short of the fitted endpoints (0: they hold them), in
/// quantized steps summed over the endpoints stored as deltas.
fn overflow(mode: &Mode, lines: &[Line; 2]) -> f32 {
    if !mode.transformed {
        return 0.0;
    }
    let scale = steps_per_unit(mode.precision);
    let base = lines[0][0];
    let mut total = 0.0;
    for e in 1..2 * mode.regions as usize {
        let end = lines[e / 2][e % 2];
        for c in 0..3 {
            let half = (1i32 << (mode.delta_bits[c] - 1)) as f32;
            let d = (end[c] - base[c]) * scale;
            total += (d - (half - 1.0)).max(0.0) + (-half - d).max(0.0);
        }
    }
    total
}

/// The modes to try for fitted lines: of each precision in `levels` (finest first) the
/// mode that needs the least clamping, for the finest precision that needs none and
/// `finer` and `coarser` levels beside it.
fn modes_for(
    lines: &[Line; 2],
    levels: &[&[u8]],
    finer: usize,
    coarser: usize,
) -> ([&'static Mode; 6], usize) {
    let mut chosen = [&MODES[0]; 6];
    let mut fits = levels.len() - 1;
    for (l, numbers) in levels.iter().enumerate() {
        let (mode, excess) = numbers
            .iter()
            .map(|&n| {
                let mode = &MODES[n as usize - 1];
                (mode, overflow(mode, lines))
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .expect("a mode at every level");
        chosen[l] = mode;
        if excess == 0.0 {
            fits = l;
            break;
        }
    }
    let first = fits.saturating_sub(finer);
    let last = (fits + coarser).min(levels.len() - 1);
    for (l, numbers) in levels.iter().enumerate().take(last + 1).skip(fits + 1) {
        chosen[l] = numbers
            .iter()
            .map(|&n| &MODES[n as usize - 1])
            .min_by(|a, b| overflow(a, lines).total_cmp(&overflow(b, lines)))
            .expect("a mode at every level");
    }
    let mut out = [&MODES[0]; 6];
    out[..last + 1 - first].copy_from_slice(&chosen[first..=last]);
    (out, last + 1 - first)
}

/// Quantizes fitted lines at a mode's precision, then moves endpoints so that the deltas
/// fit.
fn quantize_lines(lines: &[Line; 2], mode: &Mode, signed: bool) -> [[i32; 3]; 4] {
    let mut endpoints = [[0i32; 3]; 4];
    for (e, end) in endpoints
        .iter_mut()
        .enumerate()
        .take(2 * mode.regions as usize)
    {
        let line = &lines[e / 2][e % 2];
        *end = rgb(|c| quantize(line[c], mode.precision, signed));
    }
    fit_deltas(mode, &mut endpoints);
    endpoints
}

/// Whether every delta from the first endpoint fits its stored width (§19.5.13.7).
fn deltas_fit(mode: &Mode, endpoints: &[[i32; 3]; 4]) -> bool {
    !mode.transformed
        || endpoints[1..2 * mode.regions as usize].iter().all(|end| {
            (0..3).all(|c| {
                let half = 1i32 << (mode.delta_bits[c] - 1);
                (-half..half).contains(&(end[c] - endpoints[0][c]))
            })
        })
}

/// Moves endpoints toward the first so that every delta fits its stored width
/// (§19.5.13.7; deltas wrap within the precision).
fn fit_deltas(mode: &Mode, endpoints: &mut [[i32; 3]; 4]) {
    if !mode.transformed {
        return;
    }
    let base = endpoints[0];
    for end in endpoints.iter_mut().take(2 * mode.regions as usize).skip(1) {
        for c in 0..3 {
            let half = 1i32 << (mode.delta_bits[c] - 1);
            end[c] = base[c] + (end[c] - base[c]).clamp(-half, half - 1);
        }
    }
}

/// The palette of one region: the decoder's exact values, in the integer space.
fn palette<const N: usize>(
    weights: &[i32; N],
    p: u8,
    a: &[i32; 3],
    b: &[i32; 3],
    signed: bool,
) -> [[i32; 3]; N] {
    let ua = rgb(|c| unquantize(a[c], p, signed));
    let ub = rgb(|c| unquantize(b[c], p, signed));
    let mut out = [[0; 3]; N];
    for (entry, &w) in out.iter_mut().zip(weights) {
        for c in 0..3 {
            let bits = finish_unquantize(interpolate(ua[c], ub[c], w), signed);
            entry[c] = decoded_int(bits, signed);
        }
    }
    out
}

/// For each weight w of 0 to 64, the highest index whose weight is at most w: a texel that
/// projects to w is nearest that index or the next (§19.5.13.8's weight tables).
const fn index_below<const N: usize>(weights: [i32; N]) -> [u8; 65] {
    let mut out = [0u8; 65];
    let mut w = 0;
    while w <= 64 {
        let mut k = 0;
        while k + 1 < N && weights[k + 1] <= w as i32 {
            k += 1;
        }
        out[w] = k as u8;
        w += 1;
    }
    out
}

/// The 3-bit and 4-bit index sets: weights and [`index_below`]'s table.
trait IndexSet<const N: usize> {
    const WEIGHTS: [i32; N];
    const BELOW: [u8; 65];
}

struct Three;
struct Four;

impl IndexSet<8> for Three {
    const WEIGHTS: [i32; 8] = super::decode::WEIGHTS3;
    const BELOW: [u8; 65] = index_below(Self::WEIGHTS);
}

impl IndexSet<16> for Four {
    const WEIGHTS: [i32; 16] = super::decode::WEIGHTS4;
    const BELOW: [u8; 65] = index_below(Self::WEIGHTS);
}

/// A region's palette with the line from its first entry to its last, on which texels
/// are projected to find their index.
#[derive(Clone, Copy)]
struct Region<const N: usize> {
    palette: [[i32; 3]; N],
    first: [f32; 3],
    /// The line's direction scaled so that a projection comes out in weights (0 to 64).
    step: [f32; 3],
}

impl<const N: usize> Region<N> {
    fn new(palette: [[i32; 3]; N]) -> Self {
        let first = rgb(|c| palette[0][c] as f32);
        let d: [f32; 3] = rgb(|c| (palette[N - 1][c] - palette[0][c]) as f32);
        let length2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        let scale = if length2 > 0.0 { 64.0 / length2 } else { 0.0 };
        Region {
            palette,
            first,
            step: rgb(|c| d[c] * scale),
        }
    }

    /// The nearest entry below `limit` to a texel, and its squared distance: the entries
    /// either side of the texel's projection on the line, measured exactly (the palette
    /// is that line but for the final scaling's rounding).
    #[inline(always)]
    fn nearest(&self, x: &[i32; 3], below: &[u8; 65], limit: usize) -> (u64, u8) {
        let w = (x[0] as f32 - self.first[0]) * self.step[0]
            + (x[1] as f32 - self.first[1]) * self.step[1]
            + (x[2] as f32 - self.first[2]) * self.step[2];
        let k = (below[(w.max(0.0) as usize).min(64)] as usize).min(limit - 1);
        let distance = |entry: &[i32; 3]| -> u64 {
            let d = rgb(|c| (entry[c] - x[c]) as i64);
            (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) as u64
        };
        let here = distance(&self.palette[k]);
        if k + 1 < limit {
            let next = distance(&self.palette[k + 1]);
            if next < here {
                return (next, k as u8 + 1);
            }
        }
        (here, k as u8)
    }
}

/// The indices and exact error of quantized endpoints. An anchor whose nearest index is
/// in the upper half gets its region's endpoints swapped (and every index of the region
/// mirrored, which decodes to the same values: the weights are symmetric), unless the
/// swap would break a delta; then it takes the nearest index of the lower half.
fn evaluate(t: &Texels, mode: &'static Mode, partition: u8, endpoints: [[i32; 3]; 4]) -> Candidate {
    if mode.regions == 2 {
        evaluate_with::<8, Three>(t, mode, partition, endpoints)
    } else {
        evaluate_with::<16, Four>(t, mode, partition, endpoints)
    }
}

fn evaluate_with<const N: usize, S: IndexSet<N>>(
    t: &Texels,
    mode: &'static Mode,
    partition: u8,
    mut endpoints: [[i32; 3]; 4],
) -> Candidate {
    let two = mode.regions == 2;
    let regions = if two {
        partitions::regions(partition)
    } else {
        &[0; 16]
    };
    let region = |r: usize| {
        let (a, b) = (&endpoints[2 * r], &endpoints[2 * r + 1]);
        Region::<N>::new(palette(&S::WEIGHTS, mode.precision, a, b, t.signed))
    };
    let first = region(0);
    let palettes = [first, if two { region(1) } else { first }];
    let mut indices = [0u8; 16];
    let mut errors = [0u64; 16];
    for i in 0..16 {
        (errors[i], indices[i]) = palettes[regions[i] as usize].nearest(&t.target[i], &S::BELOW, N);
    }
    let mirror = |indices: &mut [u8; 16], r: u8| {
        for (k, &region) in indices.iter_mut().zip(regions) {
            if region == r {
                *k = (N - 1) as u8 - *k;
            }
        }
    };
    // y and z are both deltas from w: swapping them keeps every delta.
    if two && indices[partitions::anchor(partition)] as usize >= N / 2 {
        endpoints.swap(2, 3);
        mirror(&mut indices, 1);
    }
    if indices[0] as usize >= N / 2 {
        let mut swapped = endpoints;
        swapped.swap(0, 1);
        if deltas_fit(mode, &swapped) {
            endpoints = swapped;
            mirror(&mut indices, 0);
        } else {
            (errors[0], indices[0]) = palettes[0].nearest(&t.target[0], &S::BELOW, N / 2);
        }
    }
    Candidate {
        mode,
        partition,
        endpoints,
        indices,
        error: errors.iter().sum(),
    }
}

/// Tries one mode on one partition from the fitted lines of its regions, refined
/// `passes` times.
fn try_mode(
    t: &Texels,
    mode: &'static Mode,
    partition: u8,
    lines: &[Line; 2],
    passes: usize,
) -> Candidate {
    let first = evaluate(t, mode, partition, quantize_lines(lines, mode, t.signed));
    improve(t, first, passes)
}

/// Refines a candidate up to `passes` times: least-squares endpoints for its indices,
/// quantized and measured again. The best of them all.
fn improve(t: &Texels, start: Candidate, passes: usize) -> Candidate {
    let mode = start.mode;
    let regions: &[u8; 16] = if mode.regions == 2 {
        partitions::regions(start.partition)
    } else {
        &[0; 16]
    };
    let (mut current, mut best) = (start, start);
    for _ in 0..passes {
        let Some(lines) = refine(t, mode, regions, &current.indices) else {
            break;
        };
        let endpoints = quantize_lines(&lines, mode, t.signed);
        if endpoints == current.endpoints {
            break; // The same endpoints give the same indices.
        }
        current = evaluate(t, mode, start.partition, endpoints);
        if current.error < best.error {
            best = current;
        }
    }
    best
}

/// Least-squares endpoints for the indices chosen: per region, the two ends that bring the
/// palette nearest the texels in the pre-finish space.
fn refine(t: &Texels, mode: &Mode, regions: &[u8; 16], indices: &[u8; 16]) -> Option<[Line; 2]> {
    let w = weights(mode);
    let (umin, umax) = unquantized_range(t.signed);
    let mut lines = [[[0f32; 3]; 2]; 2];
    for (r, line) in lines.iter_mut().enumerate().take(mode.regions as usize) {
        let (mut aa, mut ab, mut bb) = (0f32, 0f32, 0f32);
        let (mut ra, mut rb) = ([0f32; 3], [0f32; 3]);
        for i in (0..16).filter(|&i| regions[i] as usize == r) {
            let beta = w[indices[i] as usize] as f32 / 64.0;
            let alpha = 1.0 - beta;
            aa += alpha * alpha;
            ab += alpha * beta;
            bb += beta * beta;
            for c in 0..3 {
                ra[c] += alpha * t.scaled[i][c];
                rb[c] += beta * t.scaled[i][c];
            }
        }
        let det = aa * bb - ab * ab;
        if det.abs() < 1e-6 {
            return None;
        }
        line[0] = rgb(|c| ((bb * ra[c] - ab * rb[c]) / det).clamp(umin, umax));
        line[1] = rgb(|c| ((aa * rb[c] - ab * ra[c]) / det).clamp(umin, umax));
    }
    Some(lines)
}

/// Writes a candidate as a block, through the mode's header layout.
fn pack(c: &Candidate) -> [u8; 16] {
    let mode = c.mode;
    let p = mode.precision;
    // Each endpoint field as stored: w in full, the others as deltas in a transformed
    // mode (§19.5.13.7).
    let stored: [[u32; 3]; 4] = std::array::from_fn(|e| {
        std::array::from_fn(|ch| {
            let value = if e == 0 {
                c.endpoints[0][ch] & ((1 << p) - 1)
            } else if mode.transformed {
                (c.endpoints[e][ch] - c.endpoints[0][ch]) & ((1 << mode.delta_bits[ch]) - 1)
            } else {
                c.endpoints[e][ch] & ((1 << p) - 1)
            };
            value as u32
        })
    });
    // The block as two 64-bit halves, low first.
    let mut half = [0u64; 2];
    for (pos, field) in mode.header().iter().enumerate() {
        let bit = match *field {
            HeaderBit::Mode(n) => (mode.field >> n) & 1,
            HeaderBit::Partition(n) => (c.partition >> n) & 1,
            HeaderBit::Endpoint {
                endpoint,
                channel,
                bit,
            } => (stored[endpoint as usize][channel as usize] >> bit) as u8 & 1,
        };
        half[pos / 64] |= (bit as u64) << (pos % 64);
    }
    // The indices follow the header, all in the upper half (the header is 65 or 82 bits).
    let mut pos = mode.header_bits() - 64;
    let anchor = partitions::anchor(c.partition);
    for (i, &index) in c.indices.iter().enumerate() {
        let short = i == 0 || (mode.regions == 2 && i == anchor);
        half[1] |= (index as u64) << pos;
        pos += mode.index_bits() - u32::from(short);
    }
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&half[0].to_le_bytes());
    out[8..].copy_from_slice(&half[1].to_le_bytes());
    out
}

/// The best few candidates by error, best first (at most 12).
struct Shortlist {
    entries: [Candidate; 12],
    len: usize,
    keep: usize,
}

impl Shortlist {
    /// An empty list that will keep `keep` candidates (at most 12); `filler` only fills
    /// the unused entries.
    fn new(keep: usize, filler: Candidate) -> Shortlist {
        Shortlist {
            entries: [filler; 12],
            len: 0,
            keep: keep.clamp(1, 12),
        }
    }

    fn offer(&mut self, c: Candidate) {
        if self.len == self.keep && c.error >= self.entries[self.keep - 1].error {
            return;
        }
        let mut at = self.len.min(self.keep - 1);
        while at > 0 && self.entries[at - 1].error > c.error {
            self.entries[at] = self.entries[at - 1];
            at -= 1;
        }
        self.entries[at] = c;
        self.len = (self.len + 1).min(self.keep);
    }

    fn candidates(&self) -> &[Candidate] {
        &self.entries[..self.len]
    }
}

/// Encodes 16 texels (texel 0 top left, row by row; R, G, B as f16 patterns) into one
/// block. Unsigned blocks hold no negatives (they become 0); NaN becomes 0 and infinities
/// the largest finite value.
pub fn encode_block(texels: &[[u16; 3]; 16], signed: bool, quality: Quality) -> [u8; 16] {
    let t = Texels::new(texels, signed);
    let s = quality.search();
    let rows = RowMoments::new(&t);
    let whole = fit_line(&t, &rows.of(0xffff), 0xffff, 0);
    let lines = [whole, whole];
    let (modes, count) = modes_for(&lines, &ONE_REGION_LEVELS, s.finer, s.coarser);
    let mut best = try_mode(&t, modes[0], 0, &lines, s.passes_one);
    for &mode in &modes[1..count] {
        let c = try_mode(&t, mode, 0, &lines, s.passes_one);
        if c.error < best.error {
            best = c;
        }
    }
    if best.error > CLOSE_ENOUGH {
        let (ranked, kept) = rank_partitions(&rows, s.partitions);
        // Every mode chosen on every partition kept, unrefined; then the best few refined.
        let mut shortlist = Shortlist::new(s.refined, best);
        for &p in &ranked[..kept] {
            let mask = partitions::region_one_mask(p);
            let lines = [
                fit_line(&t, &rows.of(!mask), !mask, 0),
                fit_line(&t, &rows.of(mask), mask, partitions::anchor(p)),
            ];
            let (modes, count) = modes_for(&lines, &TWO_REGION_LEVELS, s.finer, s.coarser);
            for &mode in &modes[..count] {
                let c = try_mode(&t, mode, p, &lines, 0);
                if c.error < best.error {
                    best = c;
                }
                shortlist.offer(c);
            }
        }
        if s.passes_two > 0 {
            for &c in shortlist.candidates() {
                let r = improve(&t, c, s.passes_two);
                if r.error < best.error {
                    best = r;
                }
            }
        }
    }
    pack(&best)
}

#[cfg(test)]
mod tests {
    use super::super::decode::decode_block;
    use super::*;

    /// splitmix64: a fixed stream of random words.
    fn next(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Texels between two random colours with some noise, or (one block in four) 16
    /// unrelated colours: wide deltas, anchors on either end, clamping.
    fn random_texels(state: &mut u64, signed: bool) -> [[u16; 3]; 16] {
        let pattern = |state: &mut u64| {
            let magnitude = (next(state) % 0x7c00) as u16;
            if signed && next(state).is_multiple_of(2) {
                magnitude | 0x8000
            } else {
                magnitude
            }
        };
        if next(state).is_multiple_of(4) {
            return std::array::from_fn(|_| std::array::from_fn(|_| pattern(state)));
        }
        let (a, b): ([u16; 3], [u16; 3]) = (
            std::array::from_fn(|_| pattern(state)),
            std::array::from_fn(|_| pattern(state)),
        );
        let mut texels = [[0u16; 3]; 16];
        for (i, texel) in texels.iter_mut().enumerate() {
            let along = (next(state) % 64) as i32;
            for c in 0..3 {
                let (x, y) = (target(a[c], signed), target(b[c], signed));
                let noise = (next(state) % 64) as i32 - 32;
                let v = (x + (y - x) * along / 64 + noise * (i as i32 % 3)).clamp(-0x7bff, 0x7bff);
                texel[c] = if v < 0 {
                    0x8000 | (-v) as u16
                } else {
                    v as u16
                };
            }
        }
        texels
    }

    /// The invariant the search rests on: the error a candidate carries is the decoder's.
    /// Packed and decoded, every candidate (every mode, every partition, refined, its
    /// anchors swapped or held to the lower half, its deltas clamped) is off its texels by
    /// exactly the error it was kept for.
    #[test]
    fn a_candidates_error_is_the_decoders() {
        let mut state = 37;
        for signed in [false, true] {
            for round in 0..300 {
                let texels = random_texels(&mut state, signed);
                let t = Texels::new(&texels, signed);
                let rows = RowMoments::new(&t);
                let partition = (round % 32) as u8;
                let mask = partitions::region_one_mask(partition);
                let whole = fit_line(&t, &rows.of(0xffff), 0xffff, 0);
                let split = [
                    fit_line(&t, &rows.of(!mask), !mask, 0),
                    fit_line(&t, &rows.of(mask), mask, partitions::anchor(partition)),
                ];
                for mode in &MODES {
                    let lines = if mode.regions == 2 { split } else { [whole; 2] };
                    let c = try_mode(&t, mode, partition, &lines, 2);
                    let decoded = decode_block(&pack(&c), signed);
                    let error: u64 = (0..16)
                        .flat_map(|i| (0..3).map(move |ch| (i, ch)))
                        .map(|(i, ch)| {
                            let d = decoded_int(decoded[i][ch], signed) - t.target[i][ch];
                            (d as i64 * d as i64) as u64
                        })
                        .sum();
                    assert_eq!(
                        error, c.error,
                        "mode {} partition {partition} signed {signed} round {round}",
                        mode.number
                    );
                }
            }
        }
    }
}
