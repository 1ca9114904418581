//! A BC6H encoder for both signednesses. It works in the space the decoder interpolates
//! in (§19.5.13.8): texels become integers (the f16 pattern, sign and magnitude for SF16),
//! candidate endpoints are fitted along each region's principal axis, quantized to the
//! mode's precision, moved so that the deltas fit (§19.5.13.7), and refined by least
//! squares over the chosen indices. The error of a candidate is worked out from the exact
//! palette the decoder will build, so the mode, partition and endpoints kept are the best
//! of those tried by the decoder's own measure. [`Quality`] sets how many partitions,
//! modes and refinement passes are tried.

use super::decode::{finish_unquantize, interpolate, unquantize, weights};
use super::modes::{HeaderBit, MODES, Mode};
use super::partitions;

/// How hard the encoder looks: more partitions, modes and refinement passes cost time.
/// Every two-region mode is first tried on every partition kept without refinement; only
/// the best few of those are refined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Quality {
    /// The partition that fits best, the modes of widest precision, one refinement pass.
    Fast,
    /// The 4 best-fitting partitions, every mode, the best 3 two-region candidates refined
    /// by two passes.
    Normal,
    /// The 12 best-fitting partitions, every mode, the best 12 two-region candidates
    /// refined by four passes.
    Slow,
}

/// A block whose one-region encoding is off by at most this (the sum of squared errors
/// over its 48 values, in f16 steps: one step each on average) is kept as it is: two
/// regions cannot do better than that by much, and smooth images are mostly such blocks.
const CLOSE_ENOUGH: u64 = 48;

impl Quality {
    /// The name `--quality` takes.
    pub fn name(self) -> &'static str {
        match self {
            Quality::Fast => "fast",
            Quality::Normal => "normal",
            Quality::Slow => "slow",
        }
    }

    /// (partitions tried, refinement passes, two-region modes tried by number, one-region
    /// modes tried by number, two-region candidates refined)
    fn settings(self) -> (usize, usize, &'static [u8], &'static [u8], usize) {
        const ALL_TWO: &[u8] = &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
        const ALL_ONE: &[u8] = &[11, 12, 13, 14];
        match self {
            // Mode 1 (10.555) and mode 10 (6666, never out of range) cover most
            // two-region blocks; 11 (10.10) and 14 (16.4) the one-region ones.
            Quality::Fast => (1, 1, &[1, 10], &[11, 14], 2),
            Quality::Normal => (4, 2, ALL_TWO, ALL_ONE, 3),
            Quality::Slow => (12, 4, ALL_TWO, ALL_ONE, 12),
        }
    }
}

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

/// The quantized endpoint whose unquantized value is nearest `u`.
fn quantize(u: f32, p: u8, signed: bool) -> i32 {
    let (lo, hi) = quantized_range(p, signed);
    let estimate = if signed {
        u * (1u32 << (p - 1)) as f32 / 32768.0
    } else {
        u * (1u32 << p) as f32 / 65536.0
    };
    let q0 = (estimate.floor() as i32).clamp(lo, hi);
    let mut best = q0;
    let mut best_error = f32::INFINITY;
    // Measured where the texels are: after the final scaling, so that an endpoint lands
    // on the texel's own pattern when one can.
    let goal = u / prefinish_scale(signed);
    for q in [q0 - 1, q0, q0 + 1] {
        let q = q.clamp(lo, hi);
        let bits = finish_unquantize(unquantize(q, p, signed), signed);
        let e = (decoded_int(bits, signed) as f32 - goal).abs();
        if e < best_error {
            best_error = e;
            best = q;
        }
    }
    best
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

/// The line through a set of texels along their principal axis, from the lowest to the
/// highest projection.
fn fit_line(t: &Texels, members: &[usize]) -> Line {
    let n = members.len() as f32;
    let mut mean = [0f32; 3];
    for &i in members {
        for (m, x) in mean.iter_mut().zip(t.scaled[i]) {
            *m += x;
        }
    }
    mean.iter_mut().for_each(|m| *m /= n);
    let mut cov = [[0f32; 3]; 3];
    for &i in members {
        let d: [f32; 3] = std::array::from_fn(|c| t.scaled[i][c] - mean[c]);
        for a in 0..3 {
            for b in 0..3 {
                cov[a][b] += d[a] * d[b];
            }
        }
    }
    let axis = principal_axis(&cov, 8);
    let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
    for &i in members {
        let p: f32 = (0..3).map(|c| (t.scaled[i][c] - mean[c]) * axis[c]).sum();
        lo = lo.min(p);
        hi = hi.max(p);
    }
    let (umin, umax) = unquantized_range(t.signed);
    let at = |s: f32| std::array::from_fn(|c| (mean[c] + axis[c] * s).clamp(umin, umax));
    [at(lo), at(hi)]
}

/// The eigenvector of the largest eigenvalue of a covariance matrix, by `iterations` steps
/// of power iteration from the diagonal's largest direction.
fn principal_axis(cov: &[[f32; 3]; 3], iterations: usize) -> [f32; 3] {
    let mut v = [1f32, 1.0, 1.0];
    let largest = (0..3)
        .max_by(|&a, &b| cov[a][a].total_cmp(&cov[b][b]))
        .expect("three");
    v[largest] = 2.0;
    for _ in 0..iterations {
        let w: [f32; 3] = std::array::from_fn(|r| (0..3).map(|c| cov[r][c] * v[c]).sum());
        let norm = w.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm < 1e-12 {
            return [0.577_350_3; 3];
        }
        v = w.map(|x| x / norm);
    }
    v
}

/// Sums over a set of texels: count, sum of each channel, sum of each product of two.
#[derive(Clone, Copy, Default)]
struct Moments {
    n: f32,
    sum: [f32; 3],
    sq: [[f32; 3]; 3],
}

impl Moments {
    fn add(&mut self, x: [f32; 3]) {
        self.n += 1.0;
        for a in 0..3 {
            self.sum[a] += x[a];
            for b in 0..3 {
                self.sq[a][b] += x[a] * x[b];
            }
        }
    }

    fn minus(&self, o: &Moments) -> Moments {
        Moments {
            n: self.n - o.n,
            sum: std::array::from_fn(|a| self.sum[a] - o.sum[a]),
            sq: std::array::from_fn(|a| std::array::from_fn(|b| self.sq[a][b] - o.sq[a][b])),
        }
    }

    /// Energy off the best line through the texels.
    fn off_line(&self) -> f32 {
        if self.n == 0.0 {
            return 0.0;
        }
        let cov: [[f32; 3]; 3] = std::array::from_fn(|a| {
            std::array::from_fn(|b| self.sq[a][b] - self.sum[a] * self.sum[b] / self.n)
        });
        // A ranking needs less precision than a fit.
        let axis = principal_axis(&cov, 4);
        let trace = cov[0][0] + cov[1][1] + cov[2][2];
        let along: f32 = (0..3)
            .map(|a| axis[a] * (0..3).map(|b| cov[a][b] * axis[b]).sum::<f32>())
            .sum();
        (trace - along).max(0.0)
    }
}

/// Energy off the best line through each region: how well a partition can do before
/// quantization. Lower is better. `whole` holds the moments of all 16 texels, so only
/// region 1's are summed.
fn partition_score(t: &Texels, whole: &Moments, regions: &[u8; 16]) -> f32 {
    let mut one = Moments::default();
    for i in (0..16).filter(|&i| regions[i] == 1) {
        one.add(t.scaled[i]);
    }
    one.off_line() + whole.minus(&one).off_line()
}

/// The palette of one region: the decoder's exact values, in the integer space.
fn palette(mode: &Mode, a: &[i32; 3], b: &[i32; 3], signed: bool) -> [[i32; 3]; 16] {
    let p = mode.precision;
    let mut out = [[0; 3]; 16];
    for c in 0..3 {
        let (ua, ub) = (unquantize(a[c], p, signed), unquantize(b[c], p, signed));
        for (k, w) in weights(mode).iter().enumerate() {
            let bits = finish_unquantize(interpolate(ua, ub, *w), signed);
            out[k][c] = decoded_int(bits, signed);
        }
    }
    out
}

/// The best index of each texel for the current endpoints, and the total error. An
/// anchor texel may be held to the lower half of the palette (its index has one bit less).
fn assign(
    t: &Texels,
    mode: &Mode,
    regions: &[u8; 16],
    anchors: [usize; 2],
    endpoints: &[[i32; 3]; 4],
    anchor_limited: bool,
    indices: &mut [u8; 16],
) -> u64 {
    let n = weights(mode).len();
    let palettes = [
        palette(mode, &endpoints[0], &endpoints[1], t.signed),
        palette(mode, &endpoints[2], &endpoints[3], t.signed),
    ];
    // Each region's line from its first palette entry to its last: a texel's index is
    // found by projecting it on the line, then the entries either side are measured
    // exactly (the palette is that line up to the final scaling's rounding).
    let lines = palettes.map(|pal| {
        let d: [i64; 3] = std::array::from_fn(|c| (pal[n - 1][c] - pal[0][c]) as i64);
        (d, d.iter().map(|x| x * x).sum::<i64>())
    });
    let mut total = 0u64;
    for i in 0..16 {
        let r = regions[i] as usize;
        let pal = &palettes[r];
        let limit = if anchor_limited && anchors[r] == i {
            n / 2
        } else {
            n
        };
        let (d, len2) = lines[r];
        let guess = if len2 == 0 {
            0
        } else {
            let along: i64 = (0..3)
                .map(|c| (t.target[i][c] - pal[0][c]) as i64 * d[c])
                .sum();
            // The index whose weight (of 64) is about the projection: the weights are
            // within one of k * 64 / (n - 1) (§19.5.13.8's tables), and the entries either
            // side are measured below.
            let w = (along * 64 + len2 / 2).div_euclid(len2).clamp(0, 64) as usize;
            (w * (n - 1) + 32) / 64
        };
        let mut best = (u64::MAX, 0u8);
        let first = guess.saturating_sub(1);
        let end = (guess + 2).min(limit).max(first);
        for (k, entry) in pal.iter().enumerate().take(end).skip(first) {
            let e: u64 = (0..3)
                .map(|c| {
                    let d = (entry[c] - t.target[i][c]) as i64;
                    (d * d) as u64
                })
                .sum();
            if e < best.0 {
                best = (e, k as u8);
            }
        }
        if best.0 == u64::MAX {
            // An anchor whose projection lies in the upper half: the top of the lower.
            let k = limit - 1;
            let e: u64 = (0..3)
                .map(|c| {
                    let d = (pal[k][c] - t.target[i][c]) as i64;
                    (d * d) as u64
                })
                .sum();
            best = (e, k as u8);
        }
        indices[i] = best.1;
        total += best.0;
    }
    total
}

/// Tries one mode on one partition, starting from the fitted lines of its regions.
fn try_mode(
    t: &Texels,
    mode: &'static Mode,
    partition: u8,
    lines: &[Line; 2],
    passes: usize,
) -> Candidate {
    let regions: &[u8; 16] = if mode.regions == 2 {
        partitions::regions(partition)
    } else {
        &[0; 16]
    };
    let anchors = [0, partitions::anchor(partition)];
    let count = 2 * mode.regions as usize;
    let mut best: Option<Candidate> = None;
    let mut current = *lines;
    for pass in 0..=passes {
        let mut endpoints = [[0i32; 3]; 4];
        for (e, end) in endpoints.iter_mut().enumerate().take(count) {
            *end = current[e / 2][e % 2].map(|u| quantize(u, mode.precision, t.signed));
        }
        let mut indices = [0u8; 16];
        let mut error = assign(t, mode, regions, anchors, &endpoints, false, &mut indices);
        // An anchor's index must have its top bit clear: swap that region's ends.
        let n = weights(mode).len() as u8;
        for r in 0..mode.regions as usize {
            if indices[anchors[r]] >= n / 2 {
                endpoints.swap(2 * r, 2 * r + 1);
                for i in 0..16 {
                    if regions[i] as usize == r {
                        indices[i] = n - 1 - indices[i];
                    }
                }
            }
        }
        if fit_deltas(mode, &mut endpoints) {
            error = assign(t, mode, regions, anchors, &endpoints, true, &mut indices);
        }
        let candidate = Candidate {
            mode,
            partition,
            endpoints,
            indices,
            error,
        };
        if best.is_none_or(|b| candidate.error < b.error) {
            best = Some(candidate);
        }
        if pass < passes {
            match refine(t, mode, regions, &indices) {
                Some(lines) => current = lines,
                None => break,
            }
        }
    }
    best.expect("one pass at least")
}

/// Moves endpoints toward the first so that every delta fits its stored width
/// (§19.5.13.7; deltas wrap within the precision). Returns whether any moved.
fn fit_deltas(mode: &Mode, endpoints: &mut [[i32; 3]; 4]) -> bool {
    if !mode.transformed {
        return false;
    }
    let mut moved = false;
    let base = endpoints[0];
    for end in endpoints.iter_mut().take(2 * mode.regions as usize).skip(1) {
        for c in 0..3 {
            let half = 1i32 << (mode.delta_bits[c] - 1);
            let d = end[c] - base[c];
            let fitted = d.clamp(-half, half - 1);
            if fitted != d {
                end[c] = base[c] + fitted;
                moved = true;
            }
        }
    }
    moved
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
        line[0] = std::array::from_fn(|c| ((bb * ra[c] - ab * rb[c]) / det).clamp(umin, umax));
        line[1] = std::array::from_fn(|c| ((aa * rb[c] - ab * ra[c]) / det).clamp(umin, umax));
    }
    Some(lines)
}

/// Writes a candidate as a block, through the mode's header layout.
fn pack(c: &Candidate) -> [u8; 16] {
    let mode = c.mode;
    let p = mode.precision;
    let mut word = 0u128;
    for (pos, field) in mode.header().iter().enumerate() {
        let bit = match *field {
            HeaderBit::Mode(n) => (mode.field >> n) & 1 != 0,
            HeaderBit::Partition(n) => (c.partition >> n) & 1 != 0,
            HeaderBit::Endpoint {
                endpoint,
                channel,
                bit,
            } => {
                let (e, ch) = (endpoint as usize, channel as usize);
                let value = if e == 0 {
                    c.endpoints[0][ch] & ((1 << p) - 1)
                } else if mode.transformed {
                    (c.endpoints[e][ch] - c.endpoints[0][ch]) & ((1 << mode.delta_bits[ch]) - 1)
                } else {
                    c.endpoints[e][ch] & ((1 << p) - 1)
                };
                (value >> bit) & 1 != 0
            }
        };
        word |= (bit as u128) << pos;
    }
    let mut pos = mode.header_bits();
    let anchor = partitions::anchor(c.partition);
    for (i, &index) in c.indices.iter().enumerate() {
        let short = i == 0 || (mode.regions == 2 && i == anchor);
        word |= (index as u128) << pos;
        pos += mode.index_bits() - u32::from(short);
    }
    word.to_le_bytes()
}

/// Encodes 16 texels (texel 0 top left, row by row; R, G, B as f16 patterns) into one
/// block. Unsigned blocks hold no negatives (they become 0); NaN becomes 0 and infinities
/// the largest finite value.
pub fn encode_block(texels: &[[u16; 3]; 16], signed: bool, quality: Quality) -> [u8; 16] {
    let scale = prefinish_scale(signed);
    let target = texels.map(|t| t.map(|b| target(b, signed)));
    let t = Texels {
        signed,
        target,
        scaled: target.map(|t| t.map(|v| v as f32 * scale)),
    };
    let (partition_count, passes, two, one, refined) = quality.settings();
    let all: Vec<usize> = (0..16).collect();
    let whole = fit_line(&t, &all);
    let mut best: Option<Candidate> = None;
    let keep = |best: &mut Option<Candidate>, c: Candidate| {
        if best.is_none_or(|b| c.error < b.error) {
            *best = Some(c);
        }
    };
    for &n in one {
        keep(
            &mut best,
            try_mode(&t, &MODES[n as usize - 1], 0, &[whole, whole], passes),
        );
    }
    if best.is_some_and(|b| b.error > CLOSE_ENOUGH) {
        let mut moments = Moments::default();
        t.scaled.iter().for_each(|x| moments.add(*x));
        let mut ranked: Vec<(f32, u8)> = (0..32u8)
            .map(|p| (partition_score(&t, &moments, partitions::regions(p)), p))
            .collect();
        ranked.sort_by(|a, b| a.0.total_cmp(&b.0));
        // Every mode on every partition kept, unrefined; then the best few refined.
        let mut first: Vec<(Candidate, [Line; 2])> = Vec::with_capacity(two.len() * 12);
        for &(_, p) in ranked.iter().take(partition_count) {
            let regions = partitions::regions(p);
            let lines: [Line; 2] = std::array::from_fn(|r| {
                let members: Vec<usize> = (0..16).filter(|&i| regions[i] as usize == r).collect();
                fit_line(&t, &members)
            });
            for &n in two {
                first.push((try_mode(&t, &MODES[n as usize - 1], p, &lines, 0), lines));
            }
        }
        first.sort_by_key(|(c, _)| c.error);
        for (c, lines) in first.iter().take(refined) {
            keep(&mut best, *c);
            if passes > 0 {
                keep(&mut best, try_mode(&t, c.mode, c.partition, lines, passes));
            }
        }
    }
    pack(&best.expect("a one-region mode at least"))
}
