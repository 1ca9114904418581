//! One module per subcommand: read inputs, call the core, hand results to a renderer.

pub mod convert;
pub mod decode;
pub mod encode;
pub mod inputs;
pub mod op;
pub mod op_buffers;
pub mod probe;
pub mod program;
pub mod report;
pub mod ulp_diff;

/// How a command ended when nothing went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Exit 0.
    Success,
    /// Exit 1: a negative answer (a result that does not conform, a distance over --max).
    Negative,
    /// Exit 130 (128 + SIGINT): an exhaustive sweep stopped by Ctrl-C after printing the
    /// partial report.
    Interrupted,
}
