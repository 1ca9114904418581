//! The instruction lists people read (the README's and docs/rules.md's) against the table
//! of instructions the tool parses, helps and probes from (`d3d::instructions`): a row
//! added to the table, or a name dropped from a page, fails here.

use d3dfloat::d3d::INSTRUCTIONS;
use d3dfloat::d3d::instructions::{conveniences, double_names, f16_names, f32_instruction_names};

fn read(path: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The code spans of `text` that follow `marker` on its paragraph or table row, with
/// whitespace (line breaks inside a span) made single spaces.
fn spans_after(text: &str, marker: &str) -> Vec<String> {
    let start = text.find(marker).unwrap_or_else(|| panic!("no {marker:?}")) + marker.len();
    let rest = &text[start..];
    let end = rest
        .find("\n- ")
        .into_iter()
        .chain(rest.find("\n|"))
        .chain(rest.find("\n\n"))
        .min()
        .unwrap_or(rest.len());
    rest[..end]
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

fn joined(names: impl Iterator<Item = &'static str>) -> String {
    names.collect::<Vec<_>>().join(" ")
}

struct Lists {
    f32: String,
    f32_conveniences: String,
    f16: String,
    f64: String,
    f64_conveniences: String,
}

fn table() -> Lists {
    let d3d_doubles = INSTRUCTIONS
        .iter()
        .filter_map(|i| i.double.filter(|d| d.section.is_some()))
        .map(|d| d.name);
    let convenience_doubles = INSTRUCTIONS
        .iter()
        .filter_map(|i| i.double.filter(|d| d.section.is_none()))
        .map(|d| d.name);
    let f32_conveniences: Vec<&str> = conveniences().map(|(n, _)| n).collect();
    Lists {
        f32: joined(f32_instruction_names()),
        f32_conveniences: f32_conveniences.join(" "),
        f16: joined(f16_names()),
        f64: joined(d3d_doubles),
        f64_conveniences: joined(convenience_doubles),
    }
}

#[test]
fn the_readme_lists_every_instruction() {
    let readme = read("README.md");
    let t = table();
    let f32 = spans_after(&readme, "- f32: ");
    assert_eq!(
        f32,
        [t.f32.clone(), t.f32_conveniences.clone()],
        "README f32"
    );
    assert_eq!(
        spans_after(&readme, "- `--fmt f16`: "),
        std::slice::from_ref(&t.f16),
        "README f16"
    );
    assert_eq!(
        spans_after(&readme, "- f64: "),
        [t.f64.clone(), t.f64_conveniences.clone()],
        "README f64"
    );
}

#[test]
fn docs_rules_lists_every_instruction() {
    let rules = read("docs/rules.md");
    let t = table();
    assert_eq!(
        spans_after(&rules, "| `f32` (default) | "),
        [t.f32, t.f32_conveniences.clone()],
        "docs/rules.md f32"
    );
    assert_eq!(
        spans_after(&rules, "| `f16` | ")[0],
        t.f16,
        "docs/rules.md f16"
    );
    let f64 = spans_after(&rules, "| `f64` | ");
    assert_eq!(
        f64[..2],
        [t.f64, t.f64_conveniences.clone()],
        "docs/rules.md f64"
    );
    // The paragraph on conveniences names each one, and each double one.
    let paragraph = spans_after(&rules, "Conveniences that are not D3D instructions").join(" ");
    for name in t
        .f32_conveniences
        .split(' ')
        .chain(t.f64_conveniences.split(' '))
    {
        assert!(
            paragraph.split(' ').any(|w| w == name),
            "docs/rules.md's conveniences paragraph lacks {name}: {paragraph}"
        );
    }
}

#[test]
fn the_help_lists_what_the_table_has() {
    let out = assert_cmd::Command::cargo_bin("d3dfloat")
        .unwrap()
        .args(["op", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
    let t = table();
    for list in [&t.f32, &t.f16] {
        assert!(flat.contains(list.as_str()), "op --help lacks {list}");
    }
    for name in double_names() {
        assert!(
            flat.split(' ')
                .any(|w| w.trim_matches(|c: char| !c.is_alphanumeric()) == name)
        );
    }
}
