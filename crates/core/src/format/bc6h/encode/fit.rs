//! Fitting a block's texels: the moments of every subset of each row of four, the line
//! through a set of texels along its principal axis, and the ranking of the 32 two-region
//! partitions by how far their texels lie off one line per region (§19.5.13.3's
//! partitions, [`partitions`]).

use super::*;
/// The line through a set of texels (bit `i` of `members` for texel `i`, `m` their
/// [`Moments`]) along their principal axis, from the lowest to the highest projection,
/// turned so that texel `anchor` lies in its first half: an anchor's index must be in the
/// palette's lower half (§19.5.13.4), so its end is the one stored first.
pub(super) fn fit_line(t: &Texels, m: &Moments, members: u16, anchor: usize) -> Line {
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
pub(super) type Moments = [f64; 10];

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
pub(super) struct RowMoments([[Moments; 16]; 4]);

impl RowMoments {
    pub(super) fn new(t: &Texels) -> RowMoments {
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
    pub(super) fn of(&self, members: u16) -> Moments {
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
pub(super) fn rank_partitions(rows: &RowMoments, keep: usize) -> ([u8; 32], usize) {
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
