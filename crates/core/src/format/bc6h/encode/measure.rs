//! Measuring a candidate the way the decoder will read it: the palette of each region
//! from the unquantized endpoints (§19.5.13.8), each texel's index and error against it,
//! and the least-squares refinement of the endpoints over the chosen indices.

use super::*;
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
    const WEIGHTS: [i32; 8] = super::super::decode::WEIGHTS3;
    const BELOW: [u8; 65] = index_below(Self::WEIGHTS);
}

impl IndexSet<16> for Four {
    const WEIGHTS: [i32; 16] = super::super::decode::WEIGHTS4;
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
pub(super) fn try_mode(
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
pub(super) fn improve(t: &Texels, start: Candidate, passes: usize) -> Candidate {
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
