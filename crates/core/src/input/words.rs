//! Words of an input line: the one splitter every line reader uses (`op` batch lines,
//! `ulp-diff` pairs).

/// The white-space separated words of a line, in order. Lines are nearly always ASCII, and
/// for those a byte scan finds the same words as [`str::split_whitespace`] (whose ASCII
/// white space is tab, line feed, vertical tab, form feed, carriage return and space)
/// without decoding characters; other lines take the Unicode rule.
pub fn words(line: &str) -> Words<'_> {
    if line.is_ascii() {
        Words::Ascii(line, 0)
    } else {
        Words::Unicode(line.split_whitespace())
    }
}

/// The iterator [`words`] returns.
#[derive(Clone)]
pub enum Words<'a> {
    /// The line and how far it has been read.
    Ascii(&'a str, usize),
    /// A line with non-ASCII text, split by the standard library.
    Unicode(std::str::SplitWhitespace<'a>),
}

impl<'a> Iterator for Words<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        match self {
            Words::Unicode(w) => w.next(),
            Words::Ascii(line, at) => {
                let space = |b: &u8| matches!(b, b'\t'..=b'\r' | b' ');
                let bytes = line.as_bytes();
                let start = *at + bytes[*at..].iter().position(|b| !space(b))?;
                let end = start
                    + bytes[start..]
                        .iter()
                        .position(space)
                        .unwrap_or(bytes.len() - start);
                *at = end;
                Some(&line[start..end])
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_as_split_whitespace_does() {
        let lines = [
            "",
            " ",
            "add 1 2",
            "\tadd\x0b1\x0c2\r",
            "  mad  1,2   3 ",
            "a\u{a0}b c",
            "x\u{2003}y",
            "dp2 1,2 3,4 = 5",
            "a\x1cb\x1fc\u{85}d",
        ];
        for line in lines {
            let ours: Vec<&str> = words(line).collect();
            let std: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(ours, std, "{line:?}");
        }
    }
}
