//! Batch input: one instruction per line, `OP ARG... [= RESULT]`.

use super::{Op, OpError, OpRequest, RuleSet};
use crate::format::FloatFormat;

/// Splits a batch line into a request. Vector operands are written `1,2,3`.
pub fn parse_line(line: &str, fmt: &FloatFormat, rules: RuleSet) -> Result<OpRequest, OpError> {
    let (lhs, check) = match line.split_once('=') {
        Some((l, r)) => (l, Some(r.trim().to_string())),
        None => (line, None),
    };
    let mut words = lhs.split_whitespace();
    let name = words
        .next()
        .ok_or_else(|| OpError::UnknownOp(String::new()))?;
    let (op, format) = Op::parse(name, fmt)?;
    let args = words
        .map(|w| w.split(',').map(str::to_string).collect())
        .collect();
    Ok(OpRequest {
        op,
        format,
        rules,
        args,
        check,
    })
}

/// The tally of a batch run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchSummary {
    /// Lines evaluated.
    pub lines: u64,
    /// Lines with `= RESULT`.
    pub checked: u64,
    pub conform: u64,
    pub violate: u64,
}

impl BatchSummary {
    pub fn add(&mut self, conforms: Option<bool>) {
        self.lines += 1;
        match conforms {
            Some(true) => {
                self.checked += 1;
                self.conform += 1;
            }
            Some(false) => {
                self.checked += 1;
                self.violate += 1;
            }
            None => {}
        }
    }

    /// `N conform, M do not` (and how many lines had nothing to check).
    pub fn text(&self) -> String {
        let mut s = format!("{} conform, {} do not", self.conform, self.violate);
        let unchecked = self.lines - self.checked;
        if unchecked > 0 {
            s.push_str(&format!(
                " ({unchecked} evaluated without a result to check)"
            ));
        }
        s
    }
}
