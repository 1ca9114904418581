//! The checked-in completions and man pages must match what the clap definition generates.

use std::path::Path;

fn check(dir: &str, files: Vec<(String, Vec<u8>)>, what: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut stale = Vec::new();
    for (name, bytes) in &files {
        match std::fs::read(root.join(name)) {
            Ok(on_disk) if on_disk == *bytes => {}
            _ => stale.push(name.clone()),
        }
    }
    assert!(
        stale.is_empty(),
        "{dir}/ is stale ({}): run `cargo run -- generate {what} {dir}` to refresh",
        stale.join(", ")
    );
    // No leftovers from removed subcommands or shells either.
    let expected: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    for entry in std::fs::read_dir(&root).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        assert!(
            expected.contains(&name.as_str()),
            "{dir}/{name} is not generated any more: delete it"
        );
    }
}

#[test]
fn completions_are_fresh() {
    check("completions", d3dfloat::docs::completions(), "completions");
}

#[test]
fn man_pages_are_fresh() {
    check("man", d3dfloat::docs::man_pages(), "man");
}
