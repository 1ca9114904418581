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
use crate::format::choice::{Choice, UnknownChoice, parse_choice};

mod fit;
mod measure;

use fit::*;
use measure::*;

/// How hard the encoder looks: more partitions, precisions and refinement passes cost
/// time. Each mode is tried only near the finest precision whose deltas hold the block's
/// fitted endpoints (modes of one precision decode alike and differ only in how wide
/// their deltas are); every two-region candidate is first measured unrefined and only
/// the best few are refined.
///
/// The default is [`Quality::Normal`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Quality {
    /// The best-fitting partition, the finest precision that fits, one refinement pass.
    Fast,
    /// The 4 best-fitting partitions, the finest precision that fits and the next finer
    /// (clamped), the best 3 two-region candidates refined by two passes.
    #[default]
    Normal,
    /// The 12 best-fitting partitions, two finer precisions and one coarser, the best 12
    /// two-region candidates refined by four passes.
    Slow,
}

impl Choice for Quality {
    const WHAT: &'static str = "quality";
    const ALL: &'static [Quality] = &Quality::ALL;

    fn name(self) -> &'static str {
        Quality::name(self)
    }

    fn summary(self) -> &'static str {
        match self {
            Quality::Fast => {
                "The best-fitting partition, the finest precision that fits, one refinement pass"
            }
            Quality::Normal => {
                "The 4 best-fitting partitions, that precision and the next finer, two passes"
            }
            Quality::Slow => {
                "The 12 best-fitting partitions, two precisions finer and one coarser, four passes"
            }
        }
    }
}

impl std::str::FromStr for Quality {
    type Err = UnknownChoice;
    fn from_str(s: &str) -> Result<Quality, UnknownChoice> {
        parse_choice(s)
    }
}

impl std::fmt::Display for Quality {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
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
    /// The names `--quality` and `quality=` take, one per value.
    pub const NAMES: [&'static str; 3] = ["fast", "normal", "slow"];
    /// Every quality, in the order of [`Quality::NAMES`].
    pub const ALL: [Quality; 3] = [Quality::Fast, Quality::Normal, Quality::Slow];

    /// The name `--quality` takes.
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
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
