//! What the tool does when a person, not a script, is on the other end: a real
//! pseudo-terminal through util-linux `script`, which gives the command a terminal for
//! stdin, stdout and stderr (Debian's bsdutils, part of every installation).

use std::process::{Command, Output};

/// Runs `args` on a terminal, with `input` typed into it (then end of input); returns
/// what the terminal showed and the command's exit status (`script -e`).
fn on_terminal(args: &str, input: &str) -> (String, i32) {
    let bin = env!("CARGO_BIN_EXE_d3dfloat");
    let mut child = Command::new("script")
        .args(["-qec", &format!("{bin} {args}"), "/dev/null"])
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("util-linux script (bsdutils)");
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let Output { status, stdout, .. } = child.wait_with_output().unwrap();
    (
        String::from_utf8_lossy(&stdout).replace('\r', ""),
        status.code().unwrap_or(-1),
    )
}

#[test]
fn convert_refuses_to_write_binary_to_a_terminal() {
    let (shown, code) = on_terminal("convert --from f32 --to f16 /dev/null", "");
    assert_eq!(code, 2, "{shown}");
    assert!(
        shown.contains("d3dfloat: error: refusing to write binary data to a terminal"),
        "{shown}"
    );
    // `-o -` asks for it.
    let (shown, code) = on_terminal("convert --from f32 --to f16 /dev/null -o -", "");
    assert_eq!(code, 0, "{shown}");
}

#[test]
fn a_command_reading_a_terminal_says_what_it_waits_for() {
    let (shown, code) = on_terminal("decode --fmt f16 --plain", "0x3c00\n");
    assert_eq!(code, 0, "{shown}");
    assert!(
        shown.contains("reading bit patterns from the terminal, one per line; Ctrl-D ends"),
        "{shown}"
    );
    assert!(shown.ends_with("1\n"), "{shown}");
    // Not when stdin is a pipe: scripts see nothing new on stderr.
    let out = assert_cmd::Command::cargo_bin("d3dfloat")
        .unwrap()
        .args(["decode", "--fmt", "f16", "--plain"])
        .write_stdin("0x3c00\n")
        .output()
        .unwrap();
    assert_eq!(out.stderr, b"");
}
