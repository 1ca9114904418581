//! Signals that end the run while a temporary file is in flight: the file is removed and
//! the process exits with 128 + the signal's number, as a shell reports a process killed
//! by it.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

static TEMP_FILES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The flag the next SIGINT sets instead of ending the run ([`first_interrupt_sets`]).
static SOFT_STOP: Mutex<Option<Arc<AtomicBool>>> = Mutex::new(None);

fn registry() -> MutexGuard<'static, Vec<PathBuf>> {
    TEMP_FILES.lock().unwrap_or_else(|p| p.into_inner())
}

/// Runs `f` on the list of temporary files in flight while holding it, so the signal
/// thread sees a temporary file either before it exists or after it is listed, and
/// never one renamed into place.
pub(super) fn with_registry<T>(
    f: impl FnOnce(&mut Vec<PathBuf>) -> std::io::Result<T>,
) -> std::io::Result<T> {
    f(&mut registry())
}

/// Every catchable signal whose default action ends the process (POSIX "T" and "A"
/// actions), but SIGPIPE and SIGXFSZ. SIGPIPE is ignored by every Rust program, so a
/// closed pipe is a write error (EPIPE), which removes the temporary file on its way
/// out. SIGXFSZ is caught below and ignored, so a file past `ulimit -f` is a write
/// error too (EFBIG), named like any other. SIGKILL and SIGSTOP cannot be caught; SIGSEGV,
/// SIGBUS, SIGILL, SIGFPE, SIGSYS, SIGTRAP and SIGABRT are faults (or a panic's abort)
/// that no cleanup should run after.
#[cfg(unix)]
pub const ENDING_SIGNALS: &[i32] = {
    use signal_hook::consts::signal::*;
    &[
        SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU,
    ]
};

/// Set by [`leave_to_host`]: the process is someone else's (the Python package's
/// interpreter), which handles its own signals.
static HOSTED: AtomicBool = AtomicBool::new(false);

/// For the library inside another program (the Python package): never install the
/// handler, so that the host's own handling stays (Python's KeyboardInterrupt on Ctrl-C,
/// not an exit of the interpreter). A temporary file is then removed by its drop when
/// the host unwinds, or left as a SIGKILL leaves it.
pub fn leave_to_host() {
    HOSTED.store(true, Ordering::SeqCst);
}

/// Installs the handler once per process (never after [`leave_to_host`]). Until then,
/// and without a temporary file in flight, these signals end the process with the same
/// status as they always do.
#[cfg(unix)]
pub fn install() -> std::io::Result<()> {
    use std::sync::OnceLock;
    if HOSTED.load(Ordering::SeqCst) {
        return Ok(());
    }
    static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();
    INSTALLED
        .get_or_init(|| start().map_err(|e| e.to_string()))
        .clone()
        .map_err(|e| std::io::Error::other(format!("installing the signal handler: {e}")))
}

#[cfg(unix)]
fn start() -> std::io::Result<()> {
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;
    // The flag is never read: a handler that does nothing makes the write that passes
    // the limit fail with EFBIG instead of ending the process.
    signal_hook::flag::register(
        signal_hook::consts::SIGXFSZ,
        Arc::new(AtomicBool::new(false)),
    )?;
    let mut signals = signal_hook::iterator::Signals::new(ENDING_SIGNALS)?;
    // When the system refuses the thread (`ulimit -u`), the handlers are dropped with
    // it: the output is still written, and these signals end the run as they always
    // do, leaving the temporary file as SIGKILL would (docs/convert.md says where).
    let _ = std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                let soft = SOFT_STOP.lock().unwrap_or_else(|p| p.into_inner()).take();
                if let Some(stop) = soft.filter(|_| signal == signal_hook::consts::SIGINT) {
                    stop.store(true, Ordering::SeqCst);
                    continue;
                }
                // Held until exit: no new temporary file can appear meanwhile.
                let files = registry();
                for f in files.iter() {
                    let _ = std::fs::remove_file(f);
                }
                std::process::exit(128 + signal);
            }
        });
    Ok(())
}

/// Makes the next Ctrl-C (SIGINT) set `stop` instead of ending the run, for a command
/// that ends early with what it has and still writes its outputs whole (`probe
/// --exhaustive`'s partial report and page); the one after ends the run as any signal
/// does, removing the temporary files. Other signals are unchanged.
#[cfg(unix)]
pub fn first_interrupt_sets(stop: Arc<AtomicBool>) -> std::io::Result<()> {
    install()?;
    *SOFT_STOP.lock().unwrap_or_else(|p| p.into_inner()) = Some(stop);
    Ok(())
}

/// Elsewhere the temporary file is left to the operating system's own cleanup.
#[cfg(not(unix))]
pub fn install() -> std::io::Result<()> {
    Ok(())
}
