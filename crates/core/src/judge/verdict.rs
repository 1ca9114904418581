//! What a run reports: its options, the verdict on its lines (counts, distances, classes,
//! violations, the map of where the error lies), and the tally a task keeps as it judges.

use crate::judge::class::{ClassCount, ViolationClass, ViolationKind};
use crate::judge::map::{ErrorMap, TaskMap};

/// How a run reports.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// The index of the slices' first line in the whole buffer (for streams judged in
    /// blocks: violations and examples carry whole-buffer indexes).
    pub base: u64,
    /// Violations listed by index (every one is counted).
    pub violation_limit: usize,
    /// Use the fast deciders (off: every element through the exact engine, the reference
    /// the tests and benchmarks compare with).
    pub fast: bool,
    /// Name each violation's class and keep an example of each (off: violations are
    /// counted and listed with an empty class, for a caller that needs only the verdicts).
    pub classify: bool,
    /// Count every line by where its operands lie ([`Verdict::map`], for reports).
    pub map: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            base: 0,
            violation_limit: 1000,
            fast: true,
            classify: true,
            map: false,
        }
    }
}

/// Distances from the correctly rounded result in representable values, in powers of two:
/// bucket 0 counts distance 0, bucket `k` (1 to 64) distances in `[2^(k-1), 2^k)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Histogram {
    /// The counts.
    pub buckets: [u64; 65],
    /// Lines where a NaN stands against a number (no distance).
    pub nan: u64,
}

impl Default for Histogram {
    fn default() -> Histogram {
        Histogram {
            buckets: [0; 65],
            nan: 0,
        }
    }
}

impl Histogram {
    /// The bucket of a distance.
    #[inline]
    pub fn bucket(d: u64) -> usize {
        (64 - d.leading_zeros()) as usize
    }

    /// The smallest and largest distance of bucket `k`.
    pub fn range(k: usize) -> (u64, u64) {
        match k {
            0 => (0, 0),
            64 => (1 << 63, u64::MAX),
            _ => (1 << (k - 1), (1 << k) - 1),
        }
    }

    #[inline]
    fn add(&mut self, d: Option<u64>) {
        match d {
            Some(d) => self.buckets[Self::bucket(d)] += 1,
            None => self.nan += 1,
        }
    }

    fn merge(&mut self, other: &Histogram) {
        for (a, b) in self.buckets.iter_mut().zip(other.buckets.iter()) {
            *a += b;
        }
        self.nan += other.nan;
    }
}

/// One violating line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// Its index in the whole buffer.
    pub index: u64,
    /// What it got wrong (one of [`Verdict::classes`]); `None` when the run did not name
    /// classes ([`Options::classify`] off).
    pub class: Option<ViolationClass>,
}

/// The verdict on a run of lines.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verdict {
    /// Lines judged.
    pub lines: u64,
    /// Lines whose results conform.
    pub conform: u64,
    /// Lines whose results break the rules.
    pub violate: u64,
    /// The largest distance, in representable values of the result, of a conforming result
    /// from the correctly rounded one.
    pub max_ulps: u64,
    /// The largest distance of any result from the correctly rounded one (violations
    /// included; a NaN against a number has none).
    pub max_distance: u64,
    /// Every line's distance from the correctly rounded result.
    pub histogram: Histogram,
    /// Each kind of violation with its count and first line, in the order first seen.
    pub classes: Vec<ClassCount>,
    /// The first violations by index, up to [`Options::violation_limit`].
    pub violations: Vec<Violation>,
    /// Lines the fast deciders handed to the exact engine.
    pub exact_engine: u64,
    /// Where the error lies in the input range, when [`Options::map`] asked for it.
    pub map: Option<ErrorMap>,
}

impl Verdict {
    /// Adds the verdict on the lines that follow these.
    pub fn merge(&mut self, later: Verdict, violation_limit: usize) {
        self.lines += later.lines;
        self.conform += later.conform;
        self.violate += later.violate;
        self.max_ulps = self.max_ulps.max(later.max_ulps);
        self.max_distance = self.max_distance.max(later.max_distance);
        self.histogram.merge(&later.histogram);
        self.exact_engine += later.exact_engine;
        for c in later.classes {
            match self.classes.iter_mut().find(|k| k.class == c.class) {
                Some(k) => k.count += c.count,
                None => self.classes.push(c),
            }
        }
        match (&mut self.map, later.map) {
            (Some(m), Some(l)) => m.merge(l),
            (m @ None, l) => *m = l,
            _ => {}
        }
        let room = violation_limit.saturating_sub(self.violations.len());
        self.violations
            .extend(later.violations.into_iter().take(room));
    }

    /// The classes, most frequent first (first seen first among equals).
    pub fn classes_by_count(&self) -> Vec<ClassCount> {
        let mut v = self.classes.clone();
        v.sort_by_key(|c| std::cmp::Reverse(c.count));
        v
    }
}

/// The verdict on one line from the exact engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// Every result conforms.
    pub conforms: bool,
    /// The largest distance of a result from the correctly rounded one (`None`: a NaN
    /// against a number).
    pub distance: Option<u64>,
    /// What a violating line got wrong.
    pub class: Option<ViolationClass>,
}

/// What a tally asks of the run whose lines it counts, when it names them.
pub(super) trait RunLines {
    /// The class of violations of kind `kind` (the fast deciders name kinds).
    fn class(&self, kind: ViolationKind) -> ViolationClass;
    /// The `op` command that reproduces line `i` (an index into the slices), of `class`.
    fn example(&self, class: &ViolationClass, i: usize) -> String;
    /// The rule line `i` breaks, as `op --check` cites it; empty when the engine names
    /// none.
    fn broken_rule(&self, i: usize) -> String;
}

/// What one task has seen.
pub(super) struct Tally {
    pub(super) verdict: Verdict,
    pub(super) limit: usize,
    pub(super) base: u64,
    pub(super) classify: bool,
    pub(super) map: Option<TaskMap>,
    /// The violations the fast deciders named, per [`ViolationKind`]: how many, and the first line
    /// (an index into the slices).
    kinds: [(u64, usize); ViolationKind::ALL.len()],
    /// The first of them by index (whole-buffer index, kind), up to `limit`.
    fast_violations: Vec<(u64, ViolationKind)>,
}

impl Tally {
    pub(super) fn new(limit: usize, base: u64, classify: bool, map: Option<TaskMap>) -> Tally {
        Tally {
            verdict: Verdict::default(),
            limit,
            base,
            classify,
            map,
            kinds: [(0, 0); ViolationKind::ALL.len()],
            fast_violations: Vec::new(),
        }
    }

    /// Line `i`, which the fast decider proved conforming, at distance `d`.
    #[inline]
    pub(super) fn conform(&mut self, i: usize, d: u64) {
        if let Some(m) = &mut self.map {
            m.add(i, self.base + i as u64, Some(d), false);
        }
        let v = &mut self.verdict;
        v.conform += 1;
        v.max_ulps = v.max_ulps.max(d);
        v.max_distance = v.max_distance.max(d);
        v.histogram.buckets[Histogram::bucket(d)] += 1;
    }

    /// `n` lines proved conforming at distance `d`, where no heat map places each line.
    #[inline]
    pub(super) fn conform_many(&mut self, d: u64, n: u64) {
        debug_assert!(self.map.is_none());
        if n == 0 {
            return;
        }
        let v = &mut self.verdict;
        v.conform += n;
        v.max_ulps = v.max_ulps.max(d);
        v.max_distance = v.max_distance.max(d);
        v.histogram.buckets[Histogram::bucket(d)] += n;
    }

    /// The lines `start + k` for each bit `k` set in `mask`, proved violating in class
    /// `kind` at distance `d`, where no heat map places each line: as many calls of
    /// [`Tally::violate`] in index order would count and list them.
    #[inline]
    pub(super) fn violate_mask(&mut self, kind: ViolationKind, d: u64, mask: u64, start: usize) {
        debug_assert!(self.map.is_none());
        if mask == 0 {
            return;
        }
        let n = u64::from(mask.count_ones());
        let v = &mut self.verdict;
        v.violate += n;
        v.histogram.buckets[Histogram::bucket(d)] += n;
        v.max_distance = v.max_distance.max(d);
        let k = &mut self.kinds[kind.index()];
        if k.0 == 0 {
            k.1 = start + mask.trailing_zeros() as usize;
        }
        k.0 += n;
        let mut rest = mask;
        while rest != 0 && self.fast_violations.len() < self.limit {
            let i = start + rest.trailing_zeros() as usize;
            self.fast_violations.push((self.base + i as u64, kind));
            rest &= rest - 1;
        }
    }

    /// Line `i`, which the fast decider proved violating, in class `kind`, at distance `d`
    /// from the correctly rounded result (`None`: a NaN against a number). Counted as the
    /// exact engine counts its violations; the names are given once, in
    /// [`Tally::name_fast`].
    #[inline]
    pub(super) fn violate(&mut self, i: usize, kind: ViolationKind, d: Option<u64>) {
        let index = self.base + i as u64;
        if let Some(m) = &mut self.map {
            m.add(i, index, d, true);
        }
        let v = &mut self.verdict;
        v.violate += 1;
        v.histogram.add(d);
        if let Some(d) = d {
            v.max_distance = v.max_distance.max(d);
        }
        let k = &mut self.kinds[kind.index()];
        if k.0 == 0 {
            k.1 = i;
        }
        k.0 += 1;
        if self.fast_violations.len() < self.limit {
            self.fast_violations.push((index, kind));
        }
    }

    /// Line `i`, which the exact engine judged.
    pub(super) fn exact(&mut self, lines: &impl RunLines, i: usize, l: Line) {
        if let Some(m) = &mut self.map {
            m.add(i, self.base + i as u64, l.distance, !l.conforms);
        }
        let v = &mut self.verdict;
        v.exact_engine += 1;
        v.histogram.add(l.distance);
        if let Some(d) = l.distance {
            v.max_distance = v.max_distance.max(d);
        }
        if l.conforms {
            v.conform += 1;
            v.max_ulps = v.max_ulps.max(l.distance.unwrap_or(0));
            return;
        }
        v.violate += 1;
        let class = l.class;
        let index = self.base + i as u64;
        if let (true, Some(class)) = (self.classify, class) {
            match v.classes.iter_mut().find(|c| c.class == class) {
                // A task hands its lines over in index order: the first one keeps the
                // example.
                Some(c) => c.count += 1,
                None => v.classes.push(ClassCount {
                    class,
                    count: 1,
                    example: lines.example(&class, i),
                    rule: lines.broken_rule(i),
                    first: index,
                }),
            }
        }
        if v.violations.len() < self.limit {
            v.violations.push(Violation { index, class });
        }
    }

    /// Names the violations the fast deciders found and puts them among the exact
    /// engine's, after both have counted: classes in the order of their first line (the
    /// order a run through the engine alone meets them), violations by index, the first
    /// `limit` kept.
    pub(super) fn name_fast(&mut self, lines: &impl RunLines) {
        if self.fast_violations.is_empty() && self.kinds.iter().all(|k| k.0 == 0) {
            return;
        }
        let v = &mut self.verdict;
        // The classes of the kinds met (a violation listed is always counted too).
        let classes: Vec<Option<ViolationClass>> = ViolationKind::ALL
            .iter()
            .zip(&self.kinds)
            .map(|(&k, &(count, _))| (self.classify && count > 0).then(|| lines.class(k)))
            .collect();
        if self.classify && self.kinds.iter().any(|k| k.0 > 0) {
            for (kind, &(count, i)) in ViolationKind::ALL.iter().zip(&self.kinds) {
                if count == 0 {
                    continue;
                }
                let first = self.base + i as u64;
                let class = classes[kind.index()].expect("a kind met is named");
                match v.classes.iter_mut().find(|c| c.class == class) {
                    Some(c) => {
                        c.count += count;
                        if first < c.first {
                            c.first = first;
                            c.example = lines.example(&class, i);
                            c.rule = lines.broken_rule(i);
                        }
                    }
                    None => v.classes.push(ClassCount {
                        class,
                        count,
                        example: lines.example(&class, i),
                        rule: lines.broken_rule(i),
                        first,
                    }),
                }
            }
            v.classes.sort_by_key(|c| c.first);
        }
        if !self.fast_violations.is_empty() {
            v.violations.extend(
                self.fast_violations
                    .drain(..)
                    .map(|(index, kind)| Violation {
                        index,
                        class: classes[kind.index()],
                    }),
            );
            v.violations.sort_by_key(|x| x.index);
            v.violations.truncate(self.limit);
        }
    }
}
