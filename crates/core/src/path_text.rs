//! A file name as one line of output shows it: every error, warning and summary line that
//! names a file goes through [`display_path`], so a name holding a newline, a terminal escape
//! or invalid UTF-8 can neither add a line nor move the cursor, and a long name is cut
//! with its quotes still balanced.

use std::path::Path;

/// Characters of a name shown before it is cut.
pub const PATH_CHARS: usize = 80;

/// `path` for one line: as it is when it is short and holds nothing but printable
/// characters other than spaces, quotes and backslashes (the common case, so messages
/// stay as they read in a shell); otherwise in single quotes, with control characters
/// escaped (`\n`, `\u{1b}`), quotes and backslashes escaped, bytes that are not UTF-8
/// replaced by U+FFFD, and cut after [`PATH_CHARS`] characters inside the quotes, with
/// the full length noted after them.
pub fn display_path(path: &Path) -> String {
    let text = path.to_string_lossy();
    // U+FFFD too: the name shown is then not the name on disk, which the quotes flag.
    let plain = |c: char| {
        !c.is_control() && !c.is_whitespace() && !matches!(c, '\'' | '"' | '\\' | '\u{fffd}')
    };
    let long = text.chars().nth(PATH_CHARS).is_some();
    if !long && text.chars().all(plain) && !text.is_empty() {
        return text.into_owned();
    }
    let mut out = String::with_capacity(text.len().min(PATH_CHARS * 2) + 2);
    out.push('\'');
    for c in text.chars().take(PATH_CHARS) {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    if long {
        out.push_str(&format!("...' ({} bytes in all)", path.as_os_str().len()));
    } else {
        out.push('\'');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_are_shown_as_typed() {
        assert_eq!(display_path(Path::new("out.f16")), "out.f16");
        assert_eq!(
            display_path(Path::new("/tmp/a-b_c/ü.f16")),
            "/tmp/a-b_c/ü.f16"
        );
    }

    #[test]
    fn names_with_newlines_spaces_or_quotes_are_quoted_and_escaped() {
        assert_eq!(display_path(Path::new("a\nb.f16")), "'a\\nb.f16'");
        assert_eq!(display_path(Path::new("my file")), "'my file'");
        assert_eq!(display_path(Path::new("it's")), "'it\\'s'");
        assert_eq!(display_path(Path::new("\u{1b}[31m")), "'\\u{1b}[31m'");
        assert_eq!(display_path(Path::new("")), "''");
    }

    #[cfg(unix)]
    #[test]
    fn bytes_that_are_not_utf8_are_replaced() {
        use std::os::unix::ffi::OsStrExt;
        let name = std::ffi::OsStr::from_bytes(b"a\xffb");
        assert_eq!(display_path(Path::new(name)), "'a\u{fffd}b'");
    }

    #[test]
    fn a_long_name_is_cut_inside_balanced_quotes() {
        let name = format!("{}\n", "d/".repeat(200));
        let shown = display_path(Path::new(&name));
        assert!(shown.starts_with("'d/d/"), "{shown}");
        assert!(shown.ends_with("...' (401 bytes in all)"), "{shown}");
        assert_eq!(shown.matches('\'').count(), 2, "{shown}");
        assert!(!shown.contains('\n'));
    }
}
