//! Where inputs come from: the arguments, or stdin one per line.

use std::fmt;
use std::io::{self, BufRead, IsTerminal, Write};

/// Where one input came from, for error messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The Nth command-line argument of its kind.
    Argument(usize),
    /// The Nth line of stdin.
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

/// An input that could not be read, with where it came from. Its message shows the input
/// as [`echo`] does.
#[derive(Debug, thiserror::Error)]
#[error("{origin}: {}: {message}", echo(text))]
pub struct BadInput {
    /// Where the input came from.
    pub origin: Origin,
    /// The input as read.
    pub text: String,
    /// Why it could not be read.
    pub message: String,
}

impl BadInput {
    /// An input error from its origin, its text and the reason.
    pub fn new(origin: Origin, text: &str, message: impl fmt::Display) -> BadInput {
        BadInput {
            origin,
            text: text.to_string(),
            message: message.to_string(),
        }
    }
}

/// Characters of an input that an error message shows.
pub const ECHO_CHARS: usize = 80;

/// An input as an error message shows it: quoted, on one line (control characters and
/// newlines escaped, so nothing echoed can move the cursor, change colours or add a line),
/// and cut after [`ECHO_CHARS`] characters with its full length noted.
pub fn echo(text: &str) -> String {
    let mut out = String::from("'");
    for (shown, c) in text.chars().enumerate() {
        if shown == ECHO_CHARS {
            out.push_str(&format!("...' ({} bytes in all)", text.len()));
            return out;
        }
        push_escaped(&mut out, c);
    }
    out.push('\'');
    out
}

/// Appends `c`, escaped when it is a control character.
fn push_escaped(out: &mut String, c: char) {
    if c.is_control() {
        out.extend(c.escape_default());
    } else {
        out.push(c);
    }
}

/// Any error message made safe for one stderr line: control characters escaped, and any
/// run of more than [`ECHO_CHARS`] characters without a space (an echoed token that did
/// not go through [`echo`]) cut, with its length noted.
pub fn stderr_line(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(1024));
    for (i, word) in message.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        // What `echo` made is left alone: its cut and quotes add a few characters.
        if word.chars().nth(ECHO_CHARS + 8).is_none() {
            word.chars().for_each(|c| push_escaped(&mut out, c));
        } else {
            word.chars()
                .take(ECHO_CHARS)
                .for_each(|c| push_escaped(&mut out, c));
            // The cut keeps quotes balanced: a closing quote only for a word that opened
            // one (echoed text, a quoted file name).
            let quote = if word.starts_with('\'') { "'" } else { "" };
            out.push_str(&format!("...{quote} ({} bytes in all)", word.len()));
            if word.ends_with(':') {
                out.push(':');
            }
        }
        // A message of many short words is still one line of reasonable length.
        if out.len() > 16 * ECHO_CHARS {
            out.push_str(&format!("... ({} bytes in all)", message.len()));
            break;
        }
    }
    out
}

/// The longest stdin line read: 64 MiB. Far more than any input needs, yet above the
/// 50 MB decimal literals that exact parsing promises to read in linear time (tests/
/// hostile.rs); a stream without newlines (`decode < /dev/zero`) ends here with an error
/// naming its line, after at most this much memory.
pub const MAX_LINE_BYTES: usize = 64 << 20;

/// The error for a line longer than [`MAX_LINE_BYTES`].
fn line_too_long(line_no: usize) -> anyhow::Error {
    anyhow::anyhow!(
        "line {line_no}: longer than {MAX_LINE_BYTES} bytes (64 MiB), the most a line may hold"
    )
}

/// Calls `each` with every stdin line that holds an input (blank lines and `#` comments
/// skipped), reusing one buffer, and hands it `out` to write to. Stops at the first error; a
/// line that is not UTF-8, or longer than [`MAX_LINE_BYTES`], is an error naming its line
/// number (a long line is refused as soon as it passes the limit, never gathered whole).
///
/// `out` is flushed before every read of stdin that may wait: a live feed (`tail -f log |
/// d3dfloat op`) gets each answer as its line arrives, while a batch still writes in large
/// blocks (one flush per 64 KiB of input read).
pub fn for_each_stdin_line(
    out: &mut dyn Write,
    expects: &str,
    mut each: impl FnMut(&mut dyn Write, Origin, &str) -> anyhow::Result<()>,
) -> anyhow::Result<usize> {
    // `decode < log >> log` would read its own answers back and grow without end.
    let stdin_input: Vec<_> = crate::output_file::InputIdentity::stdin()
        .into_iter()
        .collect();
    crate::output_file::refuse_stdout_is_input(&stdin_input)?;
    let stdin = io::stdin();
    if stdin.is_terminal() {
        // Someone typed the command without inputs: say what it waits for, on stderr only.
        let _ = writeln!(
            io::stderr(),
            "d3dfloat: reading {expects} from the terminal, one per line; Ctrl-D ends"
        );
    }
    let mut reader = io::BufReader::with_capacity(1 << 16, stdin.lock());
    // A line that runs past the end of the reader's buffer, gathered here.
    let mut partial = Vec::new();
    let mut line_no = 0;
    let mut count = 0;
    // One line: its text (or its bytes, when they are not UTF-8) and its number.
    let mut one = |out: &mut dyn Write, line: Result<&str, &[u8]>, line_no: usize| {
        let origin = Origin::Line(line_no);
        let line = match line {
            Ok(text) => text,
            Err(bytes) => std::str::from_utf8(bytes).map_err(|_| {
                BadInput::new(
                    origin,
                    String::from_utf8_lossy(bytes).trim(),
                    "not valid UTF-8 text",
                )
            })?,
        };
        // A byte order mark, as some Windows editors write, is not part of the first input.
        let line = if line_no == 1 {
            line.strip_prefix('\u{feff}').unwrap_or(line)
        } else {
            line
        };
        let line = trim(line);
        if line.is_empty() || line.as_bytes()[0] == b'#' {
            return Ok(());
        }
        count += 1;
        each(out, origin, line)
    };
    loop {
        if reader.buffer().is_empty() {
            out.flush()?;
        }
        let available = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
        };
        if available.is_empty() {
            if !partial.is_empty() {
                line_no += 1;
                one(out, Err(&partial), line_no)?;
            }
            return Ok(count);
        }
        let newline = available.iter().position(|&b| b == b'\n');
        if partial.len() + newline.unwrap_or(available.len()) > MAX_LINE_BYTES {
            return Err(line_too_long(line_no + 1));
        }
        let used = match newline {
            None => {
                partial.extend_from_slice(available);
                available.len()
            }
            Some(end) if !partial.is_empty() => {
                // Finish the gathered line; the next round reads the rest in place.
                partial.extend_from_slice(&available[..end]);
                line_no += 1;
                one(out, Err(&partial), line_no)?;
                partial.clear();
                end + 1
            }
            Some(first) => {
                let last = available.iter().rposition(|&b| b == b'\n').unwrap_or(first);
                // Every whole line in the buffer, read in place: one UTF-8 check for all of
                // them (a failing block is checked line by line, to name the line).
                let block = &available[..last];
                match std::str::from_utf8(block) {
                    Ok(text) => {
                        let mut start = 0;
                        for end in memchr::memchr_iter(b'\n', block).chain([block.len()]) {
                            line_no += 1;
                            one(out, Ok(&text[start..end]), line_no)?;
                            start = end + 1;
                        }
                    }
                    Err(_) => {
                        for line in block.split(|&b| b == b'\n') {
                            line_no += 1;
                            one(out, Err(line), line_no)?;
                        }
                    }
                }
                last + 1
            }
        };
        reader.consume(used);
    }
}

/// `line.trim()`, without the Unicode scan in the common case of a line that starts and
/// ends with a printable ASCII character (which is never white space).
#[inline]
fn trim(line: &str) -> &str {
    let printable = |b: &u8| (b'!'..=b'~').contains(b);
    let bytes = line.as_bytes();
    if bytes.first().is_some_and(printable) && bytes.last().is_some_and(printable) {
        line
    } else {
        line.trim()
    }
}

/// The error for a run that found nothing to work on.
pub fn no_input() -> anyhow::Error {
    anyhow::anyhow!("no input: give values as arguments, or one per line on stdin")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trim_is_str_trim() {
        for line in [
            "",
            " ",
            "a",
            " a",
            "a ",
            "\u{b}a",
            "a\u{b}",
            "\u{a0}a",
            "a\u{3000}",
            "\t1\r",
            "~!",
            "\u{7f}",
            "é",
            "1 2",
        ] {
            assert_eq!(trim(line), line.trim(), "{line:?}");
        }
    }
}
