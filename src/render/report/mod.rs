//! `--report FILE.html`: one self-contained page for a probe, a buffer verdict or a
//! buffer comparison. Everything is inline (styles, SVG charts, PNG pictures as `data:`
//! URLs): the page fetches nothing, runs no script and reads the same offline, attached to
//! a bug report. The numbers in its tables are the ones `--json` prints for the same run
//! (`tests/report_browser.rs` holds them to that).
//!
//! The page is written with a small escaping writer ([`Page`]); the charts come from
//! `plot.rs` (plotters' SVG backend), the heat maps' colour legends from `legend.rs`.

mod legend;
pub mod plot;
mod probe;
mod scale;
mod ulp;

use std::fmt::Write as _;

pub use probe::probe_page;
pub use ulp::{UlpPage, ulp_page};

/// What a page says about the run that made it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Meta {
    /// The command line, quoted for a POSIX shell.
    pub command: String,
    /// When the report was made, UTC, RFC 3339 to the second.
    pub date: String,
}

impl Meta {
    /// This process's command line and the time now.
    pub fn of_this_run() -> Meta {
        let words: Vec<String> = std::env::args_os()
            .enumerate()
            .map(|(i, a)| {
                let a = a.to_string_lossy();
                if i == 0 {
                    "d3dfloat".to_string()
                } else {
                    shell_quote(&a)
                }
            })
            .collect();
        Meta {
            command: words.join(" "),
            date: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
        }
    }
}

/// A word as a POSIX shell reads it back: bare when it holds only safe characters,
/// single-quoted otherwise, and with control characters (a newline, an escape) in
/// `$'...'` with each one escaped (`\n`, `\x1b`; POSIX.1-2024, bash, zsh and ksh read it):
/// the page shows no raw control character, as its other rows show none.
pub fn shell_quote(word: &str) -> String {
    let safe = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if safe {
        word.to_string()
    } else if word.chars().any(char::is_control) {
        let mut out = String::from("$'");
        for c in word.chars() {
            match c {
                '\'' => out.push_str("\\'"),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                c if (c as u32) < 0x80 && c.is_control() => {
                    out.push_str(&format!("\\x{:02x}", c as u32))
                }
                // C1 controls, as UTF-8 (bash's \u needs a UTF-8 locale).
                c if c.is_control() => {
                    let mut buf = [0; 4];
                    for b in c.encode_utf8(&mut buf).bytes() {
                        out.push_str(&format!("\\x{b:02x}"));
                    }
                }
                c => out.push(c),
            }
        }
        out.push('\'');
        out
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Text made safe for HTML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The page's style: system fonts only, nothing fetched.
const STYLE: &str = "\
body{font-family:system-ui,sans-serif;margin:24px auto;max-width:960px;color:#1b1b1b}\
h1{font-size:24px;margin-bottom:4px}h2{font-size:19px;margin-top:32px;border-bottom:1px solid #ccc}\
table{border-collapse:collapse;margin:8px 0 16px}td,th{padding:3px 10px;text-align:left;\
border-bottom:1px solid #e4e4e4;vertical-align:top}th{background:#f3f3f3}\
td.n{text-align:right;font-variant-numeric:tabular-nums}\
code{font-family:ui-monospace,monospace;font-size:13px;background:#f5f5f5;padding:1px 3px}\
.bad{color:#b3191b;font-weight:600}.ok{color:#1d7a1d;font-weight:600}\
figure{margin:8px 0}figcaption{font-size:13px;color:#555}svg{max-width:100%;height:auto}\
.pictures{display:flex;gap:12px;flex-wrap:wrap}.pictures figure{flex:1 1 280px}\
.pictures img{width:100%;height:auto;image-rendering:pixelated;border:1px solid #ccc}";

/// An HTML page under construction.
pub struct Page {
    html: String,
}

impl Page {
    /// A page with its title, and the heading and run facts every report starts with.
    pub fn new(title: &str, meta: &Meta) -> Page {
        let mut html = String::with_capacity(64 << 10);
        let _ = write!(
            html,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width\">\
             <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
             style-src 'unsafe-inline'; img-src data:\">\
             <title>{t}</title><style>{STYLE}</style></head><body>\n<h1>{t}</h1>\n",
            t = escape(title)
        );
        let mut page = Page { html };
        page.facts(&[
            ("Command", format!("<code>{}</code>", escape(&meta.command))),
            ("Made", escape(&meta.date)),
            (
                "By",
                format!("d3dfloat {}", escape(env!("CARGO_PKG_VERSION"))),
            ),
        ]);
        page
    }

    /// Raw HTML (already escaped).
    pub fn raw(&mut self, html: &str) {
        self.html.push_str(html);
    }

    /// A heading.
    pub fn heading(&mut self, level: u8, id: &str, text: &str) {
        let _ = writeln!(
            self.html,
            "<h{level} id=\"{}\">{}</h{level}>",
            escape(id),
            escape(text)
        );
    }

    /// A paragraph of plain text.
    pub fn text(&mut self, text: &str) {
        let _ = writeln!(self.html, "<p>{}</p>", escape(text));
    }

    /// A two-column table of named facts (values already HTML).
    pub fn facts(&mut self, rows: &[(&str, String)]) {
        self.html.push_str("<table class=\"facts\">");
        for (k, v) in rows {
            let _ = write!(self.html, "<tr><th>{}</th><td>{v}</td></tr>", escape(k));
        }
        self.html.push_str("</table>\n");
    }

    /// A figure holding an SVG chart, its caption, and the number of data points drawn
    /// (`data-points`, which the browser test compares with the elements it finds).
    pub fn figure(&mut self, class: &str, svg: &str, points: usize, caption: &str) {
        if svg.is_empty() {
            return;
        }
        let _ = writeln!(
            self.html,
            "<figure class=\"{}\" data-points=\"{points}\">{svg}<figcaption>{}</figcaption></figure>",
            escape(class),
            escape(caption)
        );
    }

    /// The finished document.
    pub fn finish(mut self) -> String {
        self.html.push_str("</body></html>\n");
        self.html
    }
}

/// A count with thousands separated by thin spaces, as tables show them.
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('\u{2009}');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_and_escaping() {
        assert_eq!(shell_quote("--ops"), "--ops");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
        // Control characters never reach the page raw: $'...' escapes, which a shell
        // reads back as the same bytes.
        assert_eq!(shell_quote("a\u{1}b\u{1b}[31m"), r"$'a\x01b\x1b[31m'");
        assert_eq!(shell_quote("it's\n\\"), r"$'it\'s\n\\'");
        assert_eq!(shell_quote("\u{85}"), r"$'\xc2\x85'");
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert_eq!(count(1234567), "1\u{2009}234\u{2009}567");
        assert_eq!(count(12), "12");
    }

    #[test]
    fn a_page_names_its_run_and_fetches_nothing() {
        let meta = Meta {
            command: "d3dfloat probe --report '<x>.html'".into(),
            date: "2026-11-26T00:00:00Z".into(),
        };
        let mut p = Page::new("Probe <report>", &meta);
        p.figure("plot", "<svg><polyline points=\"1,2\"/></svg>", 1, "cap");
        let html = p.finish();
        assert!(html.contains("<title>Probe &lt;report&gt;</title>"));
        assert!(html.contains("&#39;&lt;x&gt;.html&#39;"));
        assert!(html.contains("data-points=\"1\"><svg>"));
        assert!(!html.contains("src=\"http") && !html.contains("href=\"http"));
    }
}
