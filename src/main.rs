//! d3dfloat: parse, dispatch, exit code. Everything else lives in the library.

fn main() -> std::process::ExitCode {
    d3dfloat::app::main_entry()
}
