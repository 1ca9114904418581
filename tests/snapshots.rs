//! Snapshot tests of the human output: each `tests/cmd/*.toml` holds a command line and the
//! exact output it must print, so a reviewer reads the output itself. Refresh after an
//! intended change with `TRYCMD=overwrite cargo test --test snapshots`, then read the diff.

#[test]
fn human_output() {
    trycmd::TestCases::new()
        .env("NO_COLOR", "1")
        .case("tests/cmd/*.toml");
}
