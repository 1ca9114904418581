//! Direct3D shader arithmetic: which results a conforming implementation may return.
//!
//! An [`OpRequest`] names an instruction, its operands as bit patterns, the format and the
//! rule set (text becomes a request in [`crate::input::line`]); [`evaluate`] reads the
//! operands the way the hardware does (denorm flush, §3.1.3.2),
//! works out the exact result, the correctly rounded one, and the allowed set shaped by
//! the rules of §3.1 and the instruction's own section, and checks a claimed result.
//! Pure: no printing, no I/O.

pub mod allowed;
mod arith;
pub mod command; // the op command's words, for lines that reports hand back
mod conversions;
mod divide;
mod evaluation; // the request and the result structs
mod f64_path; // f32 and f16 arithmetic on f64 values, exact fallback beside it
mod f64_path_double; // double arithmetic on the CPU's f64 operations
mod functions;
mod fused;
pub mod instructions; // every instruction once: names, operands, sections, forms
mod irrational;
pub mod numeric;
mod op; // the instructions, their names and domains
mod operands; // the input flush and the verdict on a claim
pub mod rules;
mod select;
mod step;
mod transcendental;

pub use allowed::{AllowedSet, Domain};
pub use command::OpCommand;
pub use evaluation::{
    BatchSummary, ClaimVerdict, Evaluation, ExactResult, OpRequest, OperandReading, OutputResult,
    OutputVerdict, Pattern,
};
pub use instructions::{INSTRUCTIONS, Instruction, Op, op_names};
pub use op::{OpError, Outputs};
pub use rules::{Rule, RuleSet, Ulps};

pub(crate) use step::two_sum;

use smallvec::SmallVec;

/// An operand's components: one, or two to four for the dot products. Held in place (the
/// request and its evaluation allocate little on the batch hot path).
pub type Vector<T> = SmallVec<[T; 4]>;
/// The operands of an instruction, at most three (mad), each a [`Vector`].
pub type Operands<T> = SmallVec<[Vector<T>; 3]>;
/// One entry per output of an instruction: one, or two for sincos.
pub type PerOutput<T> = SmallVec<[T; 2]>;
/// The rules an evaluation applied, in order.
pub type RuleList = SmallVec<[Rule; 6]>;

/// Evaluates one instruction.
pub fn evaluate(req: &OpRequest) -> Result<Evaluation, OpError> {
    evaluate_with(req, true)
}

/// Evaluates one instruction on exact rationals only, never the `f64` fast path: the
/// reference the fast path is tested against.
pub fn evaluate_exact(req: &OpRequest) -> Result<Evaluation, OpError> {
    evaluate_with(req, false)
}

fn evaluate_with(req: &OpRequest, fast: bool) -> Result<Evaluation, OpError> {
    let (operand_domain, out_domains) = req.op.domains(&req.format);
    let op_name = req.op.name(&req.format);
    let (count, width) = req.op.arity();
    if req.args.len() != count {
        return Err(OpError::OperandCount {
            op: op_name.to_string(),
            expected: count,
            got: req.args.len(),
        });
    }
    let mut args = Vec::with_capacity(count);
    for (i, comps) in req.args.iter().enumerate() {
        if comps.len() != width {
            return Err(OpError::VectorWidth {
                op: op_name.to_string(),
                expected: width,
                index: i + 1,
                got: comps.len(),
            });
        }
        let mut read = Vec::with_capacity(width);
        for &p in comps {
            read.push(operands::read(p, &operand_domain, req.op, i + 1)?);
        }
        args.push(read);
    }
    let mut ctx = arith::Ctx::new(req.format, req.rules);
    let fast_outputs = if fast {
        ctx.run_fast(req.op, &args, &out_domains)
    } else {
        None
    };
    let outputs = match fast_outputs {
        Some(o) => o,
        None => {
            ctx = arith::Ctx::new(req.format, req.rules);
            ctx.run(req.op, &args, &out_domains)
        }
    };
    let check = match &req.check {
        Some(claims) => Some(operands::check(claims, &outputs)?),
        None => None,
    };
    Ok(Evaluation {
        op: req.op,
        op_name,
        format: req.format,
        rules: req.rules,
        args,
        outputs,
        rules_applied: ctx.notes,
        check,
    })
}
