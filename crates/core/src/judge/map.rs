//! Where in the input range a run's error lies: every line counted in the cell of its
//! operands' binades, with the largest and the mean distance from the correctly rounded
//! result, the violations, and the worst line of each cell kept as an example.
//!
//! One source operand gives a line of cells in value order: for a float format, one cell
//! per sign and exponent field (the negative binades from the largest magnitude down, then
//! the positive ones up; the zero-and-subnormal field and the infinity-and-NaN field are
//! cells of their own); for an integer, one per sign and bit length. Two or more give a map
//! over the first two operands' exponent fields (or bit lengths), sign folded, so that a map
//! stays small enough to draw: at most [`MAP_SIDE`] cells a side. Vector operands (dp2-dp4)
//! are placed by their first component. The report (`report/`) draws both.

use crate::d3d::Domain;
use crate::judge::slices::Column;

/// The instruction whose lines a map counts, as far as the map asks of it: where its
/// operands lie, and what the exact engine makes of one line's operands.
/// [`crate::judge::Judge`] is one.
pub trait MappedOp {
    /// The operands' domain.
    fn operand_domain(&self) -> Domain;
    /// Source operands, and components per line in each.
    fn arity(&self) -> (usize, usize);
    /// How far the allowed set at these operand patterns (every component in order)
    /// reaches from the correctly rounded result, in representable values; `None` when
    /// the engine refuses them or the result must be NaN.
    fn allowed_reach(&self, args: &[u64]) -> Option<u64>;
    /// The correctly rounded result of each output at these operand patterns; `None` when
    /// the engine refuses them.
    fn preferred(&self, args: &[u64]) -> Option<Vec<u64>>;
}

/// The most cells along the axis of a one-operand line (f64's 4096 sign-and-exponent
/// fields are grouped eight to a cell).
pub const LINE_CELLS: usize = 512;
/// The most cells along each side of a two-operand map.
pub const MAP_SIDE: usize = 32;

/// How one operand's patterns fall into cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Axis {
    /// The operand's domain.
    pub domain: Domain,
    /// Sign included: a line of cells in value order (one operand); otherwise the magnitude's
    /// binade only (a side of a map).
    pub signed: bool,
    /// Neighbouring fields grouped into one cell: `2^shift` of them.
    pub shift: u32,
    /// Cells along the axis.
    pub cells: usize,
    /// Fields of one sign (exponent fields, or bit lengths 0 to 32).
    per_sign: usize,
    /// Whether the axis has a negative half.
    sided: bool,
    /// How a pattern is read, copied out of the domain so that the per-line work touches
    /// no format descriptor: a float's fraction width and sign bit position, or an integer.
    read: Read,
}

/// How [`Axis::cell`] reads a pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Read {
    /// A float: the exponent field above `frac_bits`, the sign at bit `sign_bit` (when the
    /// format has one).
    Float {
        frac_bits: u32,
        sign_bit: Option<u32>,
    },
    /// A signed 32-bit integer, by its magnitude's bit length.
    Signed,
    /// An unsigned 32-bit integer (or a mask), by its bit length.
    Unsigned,
}

impl Axis {
    /// The axis of `domain`, signed or not, grouped to at most `most` cells.
    fn new(domain: Domain, signed: bool, most: usize) -> Axis {
        let per_sign = match domain {
            Domain::Float(f) => 1usize << f.exp_bits,
            // Bit lengths 0 to 32.
            Domain::I32 | Domain::U32 | Domain::Bool => 33,
        };
        let sided = signed
            && match domain {
                Domain::Float(f) => f.signed,
                Domain::I32 => true,
                _ => false,
            };
        let fields = if sided { 2 * per_sign } else { per_sign };
        let mut shift = 0;
        while fields >> shift > most {
            shift += 1;
        }
        let read = match domain {
            Domain::Float(f) => Read::Float {
                frac_bits: f.frac_bits,
                sign_bit: f.signed.then(|| f.width() - 1),
            },
            Domain::I32 => Read::Signed,
            Domain::U32 | Domain::Bool => Read::Unsigned,
        };
        Axis {
            domain,
            signed,
            shift,
            cells: fields.div_ceil(1 << shift),
            per_sign,
            sided,
            read,
        }
    }

    /// The cell of a pattern.
    #[inline(always)]
    pub fn cell(&self, bits: u64) -> usize {
        let (negative, field) = match self.read {
            Read::Float {
                frac_bits,
                sign_bit,
            } => (
                sign_bit.is_some_and(|s| bits >> s & 1 != 0),
                (bits >> frac_bits) as usize & (self.per_sign - 1),
            ),
            Read::Signed => {
                let v = bits as u32 as i32;
                (v < 0, (32 - v.unsigned_abs().leading_zeros()) as usize)
            }
            Read::Unsigned => (false, (32 - (bits as u32).leading_zeros()) as usize),
        };
        let position = if !self.sided {
            field
        } else if negative {
            self.per_sign - 1 - field
        } else {
            self.per_sign + field
        };
        position >> self.shift
    }

    /// The fields (before grouping) of cell `c`, as `(negative, first, last)`: exponent
    /// fields for a float, bit lengths for an integer.
    pub fn fields_of(&self, c: usize) -> (bool, usize, usize) {
        let per_sign = self.per_sign;
        let (lo, hi) = (c << self.shift, ((c + 1) << self.shift) - 1);
        if !self.sided {
            (false, lo, hi.min(per_sign - 1))
        } else if hi < per_sign {
            (true, per_sign - 1 - hi, per_sign - 1 - lo)
        } else {
            (false, lo - per_sign, hi - per_sign)
        }
    }
}

/// What the lines of one cell did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cell {
    /// Lines whose operands fall in the cell.
    pub lines: u64,
    /// Of them, violations.
    pub violate: u64,
    /// Of them, a NaN against a number (no distance).
    pub nan: u64,
    /// The sum of the other lines' distances (for the mean).
    pub sum: u128,
    /// The largest distance.
    pub max: u64,
    /// The whole-buffer index of the line with the largest distance (the first of equals);
    /// `u64::MAX` while the cell has no line with a distance.
    pub worst: u64,
}

impl Cell {
    const EMPTY: Cell = Cell {
        lines: 0,
        violate: 0,
        nan: 0,
        sum: 0,
        max: 0,
        worst: u64::MAX,
    };

    /// The mean distance of the lines that have one.
    pub fn mean(&self) -> Option<f64> {
        let n = self.lines - self.nan;
        (n > 0).then(|| self.sum as f64 / n as f64)
    }

    #[inline]
    fn add(&mut self, index: u64, distance: Option<u64>, violates: bool) {
        self.lines += 1;
        self.violate += violates as u64;
        match distance {
            Some(d) => {
                self.sum += d as u128;
                // The first of the worst by index, whatever order the lines come in (the
                // fast deciders count theirs before the exact engine's).
                if self.worst == u64::MAX || d > self.max || (d == self.max && index < self.worst) {
                    self.max = d;
                    self.worst = index;
                }
            }
            None => self.nan += 1,
        }
    }

    fn merge(&mut self, o: &Cell) {
        self.lines += o.lines;
        self.violate += o.violate;
        self.nan += o.nan;
        self.sum += o.sum;
        let better = o.worst != u64::MAX
            && (self.worst == u64::MAX
                || o.max > self.max
                || (o.max == self.max && o.worst < self.worst));
        if better {
            self.max = o.max;
            self.worst = o.worst;
        }
    }
}

/// The worst line of a cell: its operand and result patterns, so that a report can ask the
/// exact engine for the allowed set there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Example {
    /// Every operand component of the line, in order.
    pub args: Vec<u64>,
    /// Its result patterns.
    pub results: Vec<u64>,
}

/// Every line of a run counted by where its operands lie.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorMap {
    /// One axis (a line of cells) or two (a map, the first operand's axis the rows).
    pub axes: Vec<Axis>,
    /// The cells, row-major over [`ErrorMap::axes`].
    pub cells: Vec<Cell>,
    /// The worst line of each cell, by cell (empty while the lines are still being
    /// counted inside a run: [`crate::judge::Judge::run`] reads them from its slices at
    /// the end).
    pub examples: Vec<Option<Example>>,
    /// The largest distance from the correctly rounded result the rules allow at each
    /// cell's worst line (as the exact engine gives it; `None` for a cell without one, or
    /// where only NaN is allowed); filled by [`ErrorMap::fill_bounds`].
    pub bounds: Vec<Option<u64>>,
    /// One operand: whether each cell's results are trivial, the correctly rounded
    /// result(s) at its lowest operand the same as at its highest (exp's 0, 1 and
    /// infinity, a square root's NaN for negative operands): where a report's zoom leaves
    /// off. Filled by [`ErrorMap::fill_bounds`]; empty for maps.
    pub trivial: Vec<bool>,
}

impl ErrorMap {
    /// The axes of a judge's operands: a line of cells for one operand, a map for more.
    fn axes_for(judge: &impl MappedOp) -> Vec<Axis> {
        let domain = judge.operand_domain();
        if judge.arity().0 == 1 {
            vec![Axis::new(domain, true, LINE_CELLS)]
        } else {
            vec![
                Axis::new(domain, false, MAP_SIDE),
                Axis::new(domain, false, MAP_SIDE),
            ]
        }
    }

    /// An empty map for a judge's operands.
    pub fn for_judge(judge: &impl MappedOp) -> ErrorMap {
        let axes = Self::axes_for(judge);
        let n = axes.iter().map(|a| a.cells).product();
        ErrorMap {
            axes,
            cells: vec![Cell::EMPTY; n],
            examples: Vec::new(),
            bounds: Vec::new(),
            trivial: Vec::new(),
        }
    }

    /// Adds the counts (and examples) of lines that come after these.
    pub(super) fn merge(&mut self, later: ErrorMap) {
        if self.examples.is_empty() {
            self.examples = vec![None; self.cells.len()];
        }
        let mut later_examples = later.examples.into_iter();
        for (i, (a, b)) in self.cells.iter_mut().zip(&later.cells).enumerate() {
            let before = a.worst;
            a.merge(b);
            let example = later_examples.next().flatten();
            if a.worst != before
                && let Some(e) = example
            {
                self.examples[i] = Some(e);
            }
        }
    }

    /// Reads each cell's worst line from the slices the run judged, `lines` lines that
    /// `line` reads by their index in the slices (`base` is the whole-buffer index of slice
    /// line 0); cells whose worst line lies elsewhere keep no example.
    pub(super) fn read_examples(
        &mut self,
        base: u64,
        lines: usize,
        line: impl Fn(usize) -> Example,
    ) {
        self.examples = self
            .cells
            .iter()
            .map(|c| {
                let i = c.worst.checked_sub(base)? as usize;
                (c.worst != u64::MAX && i < lines).then(|| line(i))
            })
            .collect();
    }

    /// Asks the exact engine for the allowed set at each cell's worst line (one evaluation
    /// per cell that has lines, so at most a few hundred) and keeps how far it reaches from
    /// the correctly rounded result: the bound a report draws beside the distances.
    pub fn fill_bounds(&mut self, judge: &impl MappedOp) {
        self.bounds = (0..self.cells.len())
            .map(|c| judge.allowed_reach(&self.example(c)?.args))
            .collect();
        if let [axis] = self.axes[..] {
            self.trivial = (0..self.cells.len())
                .map(|c| self.cells[c].lines > 0 && constant_cell(judge, &axis, c))
                .collect();
        }
    }

    /// The example of cell `c`, if it has one.
    pub fn example(&self, c: usize) -> Option<&Example> {
        self.examples.get(c)?.as_ref()
    }
}

/// Whether the correctly rounded results of a one-operand instruction are the same at the
/// lowest and the highest float operand of cell `c` (two evaluations), or the cell is
/// infinity and NaN; never for an integer operand or an instruction of vectors.
fn constant_cell(judge: &impl MappedOp, axis: &Axis, c: usize) -> bool {
    let Domain::Float(f) = axis.domain else {
        return false;
    };
    if judge.arity().1 != 1 {
        return false;
    }
    let (negative, first, last) = axis.fields_of(c);
    if first == (1 << f.exp_bits) - 1 {
        // Infinity and the NaNs: special operands, whose results are the rules' own.
        return true;
    }
    let lo = f.assemble(negative, first as u32, 0);
    let hi = f.assemble(negative, last as u32, u64::MAX);
    match (judge.preferred(&[lo]), judge.preferred(&[hi])) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// One task's counts, by the cell of each of its lines.
pub(super) struct TaskMap {
    axes: Vec<Axis>,
    start: usize,
    positions: Vec<u32>,
    cells: Vec<Cell>,
}

thread_local! {
    /// The cell of each line of the task in hand, kept from task to task on each thread:
    /// a fresh 64 KiB buffer per task cost page faults that showed in profiles.
    static POSITIONS: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl TaskMap {
    /// The cells of lines `range` of the slices, for a task to count into.
    pub(super) fn new(
        judge: &impl MappedOp,
        operands: &[Column],
        width: usize,
        range: &std::ops::Range<usize>,
    ) -> TaskMap {
        let axes = ErrorMap::axes_for(judge);
        let mut positions = POSITIONS.with(|p| std::mem::take(&mut *p.borrow_mut()));
        positions.clear();
        positions.resize(range.len(), 0);
        for (&axis, column) in axes.iter().zip(operands) {
            // One pass per operand over its typed slice: the cell index grows row-major.
            // The axis is a local copy, so its fields stay in registers through the loop.
            let side = axis.cells as u32;
            macro_rules! fill {
                ($s:expr) => {{
                    let lines = &$s[range.start * width..range.end * width];
                    for (p, x) in positions.iter_mut().zip(lines.iter().step_by(width)) {
                        *p = *p * side + axis.cell(*x as u64) as u32;
                    }
                }};
            }
            match column {
                Column::U16(s) => fill!(s),
                Column::U32(s) => fill!(s),
                Column::U64(s) => fill!(s),
            }
        }
        let cells = vec![Cell::EMPTY; axes.iter().map(|a| a.cells).product()];
        TaskMap {
            axes,
            start: range.start,
            positions,
            cells,
        }
    }

    /// Counts line `i` (an index into the slices; `index` in the whole buffer).
    #[inline]
    pub(super) fn add(&mut self, i: usize, index: u64, distance: Option<u64>, violates: bool) {
        let c = self.positions[i - self.start] as usize;
        self.cells[c].add(index, distance, violates);
    }

    /// The task's counts as a map (without examples: the run reads those once, at its end).
    pub(super) fn finish(self) -> ErrorMap {
        let TaskMap {
            axes,
            positions,
            cells,
            ..
        } = self;
        POSITIONS.with(|p| *p.borrow_mut() = positions);
        ErrorMap {
            axes,
            cells,
            examples: Vec::new(),
            bounds: Vec::new(),
            trivial: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{F16, F32};

    #[test]
    fn a_signed_line_orders_cells_by_value() {
        let a = Axis::new(Domain::Float(F32), true, LINE_CELLS);
        assert_eq!((a.cells, a.shift), (512, 0));
        // -inf/NaN first, then down to -0, +0 just after, +inf/NaN last.
        assert_eq!(a.cell(0xff80_0000), 0);
        assert_eq!(a.cell(0x8000_0000), 255);
        assert_eq!(a.cell(0x8000_0001), 255);
        assert_eq!(a.cell(0x0000_0000), 256);
        assert_eq!(a.cell(0x3f80_0000), 256 + 127);
        assert_eq!(a.cell(0x7fc0_0000), 511);
        assert_eq!(a.fields_of(255), (true, 0, 0));
        assert_eq!(a.fields_of(256 + 127), (false, 127, 127));
        assert_eq!(a.fields_of(0), (true, 255, 255));
    }

    #[test]
    fn map_sides_fold_the_sign_and_group_fields() {
        let a = Axis::new(Domain::Float(F32), false, MAP_SIDE);
        assert_eq!((a.cells, a.shift), (32, 3));
        assert_eq!(a.cell(0x3f80_0000), 127 >> 3);
        assert_eq!(a.cell(0xbf80_0000), 127 >> 3);
        assert_eq!(a.fields_of(15), (false, 120, 127));
        let h = Axis::new(Domain::Float(F16), false, MAP_SIDE);
        assert_eq!((h.cells, h.shift), (32, 0));
    }

    #[test]
    fn integers_fall_by_bit_length() {
        let a = Axis::new(Domain::I32, true, LINE_CELLS);
        assert_eq!(a.cells, 66);
        assert_eq!(a.cell(0), 33);
        assert_eq!(a.cell(1), 34);
        assert_eq!(a.cell(u32::MAX as u64), 31); // -1: bit length 1
        assert_eq!(a.cell(0x8000_0000), 0); // i32::MIN: bit length 32
        let u = Axis::new(Domain::U32, true, LINE_CELLS);
        assert_eq!((u.cells, u.cell(u32::MAX as u64)), (33, 32));
    }

    #[test]
    fn cells_keep_the_first_of_their_worst_lines() {
        let mut a = Cell::EMPTY;
        a.add(5, Some(0), false);
        a.add(6, Some(3), true);
        a.add(7, None, true);
        a.add(8, Some(3), false);
        assert_eq!(
            (a.lines, a.violate, a.nan, a.sum, a.max, a.worst),
            (4, 2, 1, 6, 3, 6)
        );
        assert_eq!(a.mean(), Some(2.0));
        let mut b = Cell::EMPTY;
        b.add(1, Some(3), false);
        let mut m = a;
        m.merge(&b);
        assert_eq!((m.max, m.worst, m.lines), (3, 1, 5));
    }
}
