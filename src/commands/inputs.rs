//! Where inputs come from: the arguments, or stdin one per line.

use std::fmt;
use std::io::{self, BufRead};

/// Where one input came from, for error messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    Argument(usize),
    Line(usize),
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Argument(n) => write!(f, "argument {n}"),
            Origin::Line(n) => write!(f, "line {n}"),
        }
    }
}

/// An input that could not be read, with where it came from.
#[derive(Debug, thiserror::Error)]
#[error("{origin}: '{text}': {message}")]
pub struct BadInput {
    pub origin: Origin,
    pub text: String,
    pub message: String,
}

impl BadInput {
    pub fn new(origin: Origin, text: &str, message: impl fmt::Display) -> BadInput {
        BadInput {
            origin,
            text: text.to_string(),
            message: message.to_string(),
        }
    }
}

/// Calls `each` with every stdin line that holds an input (blank lines and `#` comments
/// skipped), reusing one buffer. Stops at the first error; a line that is not UTF-8 is
/// an error naming its line number.
pub fn for_each_stdin_line(
    mut each: impl FnMut(Origin, &str) -> anyhow::Result<()>,
) -> anyhow::Result<usize> {
    let stdin = io::stdin();
    let mut reader = io::BufReader::with_capacity(1 << 16, stdin.lock());
    let mut buf = Vec::new();
    let mut line_no = 0;
    let mut count = 0;
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf)? == 0 {
            return Ok(count);
        }
        line_no += 1;
        let origin = Origin::Line(line_no);
        let line = std::str::from_utf8(&buf).map_err(|_| {
            BadInput::new(
                origin,
                String::from_utf8_lossy(&buf).trim(),
                "not valid UTF-8 text",
            )
        })?;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        count += 1;
        each(origin, line)?;
    }
}

/// The error for a run that found nothing to work on.
pub fn no_input() -> anyhow::Error {
    anyhow::anyhow!("no input: give values as arguments, or one per line on stdin")
}
