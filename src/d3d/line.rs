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
