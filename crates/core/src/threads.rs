//! The worker threads of a run: one rayon pool, built here rather than on rayon's first use,
//! for two reasons. Rayon's global pool panics when the system refuses a thread (`ulimit
//! -u`), and it starts as many threads as `RAYON_NUM_THREADS` asks (500 threads on 2 cores
//! took minutes for a kilobyte). Here the pool never has more threads than the machine has
//! cores, and a refused thread means fewer threads, down to the calling thread alone.

use std::sync::OnceLock;

/// The pool of this run and how it was built.
struct Pool {
    pool: rayon::ThreadPool,
    /// Whether the pool is the calling thread alone (no thread could be started).
    on_caller: bool,
}

static POOL: OnceLock<Pool> = OnceLock::new();

/// Threads for `requested` (`RAYON_NUM_THREADS`, when set to a positive number) on a
/// machine with `cores` cores: never more than the cores, never fewer than one.
pub fn capped(requested: Option<usize>, cores: usize) -> usize {
    requested.unwrap_or(cores).min(cores).max(1)
}

/// `RAYON_NUM_THREADS` as rayon reads it: a positive number, or nothing (unset, `0`, or
/// not a number: every core).
fn requested() -> Option<usize> {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
}

/// The cores this process may use (1 when the system does not say).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Stack of each worker: the whole command runs on one of them ([`run`]), so it gets what
/// a main thread gets on Linux.
const STACK_BYTES: usize = 8 << 20;

/// Builds a pool of `threads` threads, each started by `spawn`; when a thread is refused,
/// half as many, down to two, and at last the calling thread alone, which needs no new
/// thread and so cannot fail. Returns the pool, its threads and whether it is the caller
/// alone.
fn build(
    threads: usize,
    spawn: &mut dyn FnMut(rayon::ThreadBuilder) -> std::io::Result<()>,
) -> (rayon::ThreadPool, usize, bool) {
    if let Some((pool, n)) = build_workers(threads, spawn) {
        return (pool, n, false);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .use_current_thread()
        .build()
        .expect("a pool of the current thread starts no thread");
    (pool, 1, true)
}

/// A pool of at least two new threads for `threads` (halved on each refusal), or `None`.
fn build_workers(
    threads: usize,
    spawn: &mut dyn FnMut(rayon::ThreadBuilder) -> std::io::Result<()>,
) -> Option<(rayon::ThreadPool, usize)> {
    let mut n = threads;
    while n >= 2 {
        let built = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .stack_size(STACK_BYTES)
            .spawn_handler(&mut *spawn)
            .build();
        if let Ok(pool) = built {
            return Some((pool, n));
        }
        n /= 2;
    }
    None
}

/// A pool of its own, as many threads as the run's, for rayon work beside a thread of the
/// run's pool that blocks outside rayon (the probe's device loop waits on each dispatch
/// on one of them, a worker the judge's loops would otherwise never get). `None` when the
/// run has one thread or the system refuses the threads: the caller then uses
/// [`install`].
pub fn side_pool() -> Option<rayon::ThreadPool> {
    build_workers(capped(requested(), cores()), &mut spawn_worker).map(|(pool, _)| pool)
}

/// Starts a worker as rayon does, through `std::thread::Builder`, so a refusal is an
/// error rayon hands back rather than a panic.
fn spawn_worker(thread: rayon::ThreadBuilder) -> std::io::Result<()> {
    let mut b = std::thread::Builder::new();
    if let Some(name) = thread.name() {
        b = b.name(name.to_owned());
    }
    if let Some(size) = thread.stack_size() {
        b = b.stack_size(size);
    }
    b.spawn(|| thread.run())?;
    Ok(())
}

/// Runs `f` (the whole command) in the pool, building it first (once per process, from
/// the thread that calls this first). Rayon's parallel loops inside `f` then use this pool.
pub fn run<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    let p = POOL.get_or_init(|| {
        let (pool, _, on_caller) = build(capped(requested(), cores()), &mut spawn_worker);
        Pool { pool, on_caller }
    });
    if p.on_caller {
        // This thread is the pool's one worker: rayon runs its loops here.
        f()
    } else {
        p.pool.install(f)
    }
}

/// Runs `f` in the pool from a thread of the command's own (a judge beside a reader):
/// its rayon loops then use the pool rather than starting rayon's global one.
pub fn install<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    match POOL.get() {
        Some(p) if !p.on_caller => p.pool.install(f),
        _ => f(),
    }
}

/// Whether a command may hand rayon work to a thread of its own: not when the pool is the
/// run's first thread alone, which would never take it while it waits for that thread.
pub fn side_threads_allowed() -> bool {
    POOL.get().is_none_or(|p| !p.on_caller)
}

/// Starts `f` on a new scoped thread named `name`, or returns `None` (dropping `f`) when the system
/// refuses one: the caller then does the work itself. A thread that runs rayon loops must
/// also ask [`side_threads_allowed`] first.
pub fn spawn_scoped<'scope, 'env, T: Send + 'scope, F>(
    scope: &'scope std::thread::Scope<'scope, 'env>,
    name: &str,
    f: F,
) -> Option<std::thread::ScopedJoinHandle<'scope, T>>
where
    F: FnOnce() -> T + Send + 'scope,
{
    std::thread::Builder::new()
        .name(name.to_owned())
        .spawn_scoped(scope, f)
        .ok()
}

/// One stage of a pipeline, on a thread of its own beside the caller's: the caller hands
/// items in with [`Stage::send`], the stage's work turns each into an output, in order, and
/// the caller takes them back with [`Stage::recv`] or [`Stage::try_recv`]. The one shape of
/// every pipeline of the tool: a reader that fills the buffers it is sent (`op --operands`,
/// `convert`), a judge of the chunks a device computes (`probe --exhaustive`), a writer
/// that hands back the buffers it wrote (`convert`); outputs carry storage back to be
/// used again, so memory stays at the few items in flight.
///
/// At most `depth` items wait for the stage; outputs wait unbounded (no more can exist than
/// items sent), so the stage never blocks on the caller. When the system refuses the
/// thread, or the caller says not to start one, the stage runs on the caller's thread:
/// [`Stage::send`] does the work at once and keeps its output, the same outputs in the same
/// order. A stage whose work fails stops: `send` then returns false, and [`Stage::finish`]
/// returns the error.
pub struct Stage<'scope, T, U, E> {
    way: Way<'scope, T, U, E>,
}

/// Where a stage's work runs.
enum Way<'scope, T, U, E> {
    /// On a thread of its own.
    Thread {
        items: Option<std::sync::mpsc::SyncSender<T>>,
        outputs: std::sync::mpsc::Receiver<U>,
        handle: std::thread::ScopedJoinHandle<'scope, Result<(), E>>,
    },
    /// On the caller's thread, in [`Stage::send`].
    Inline {
        work: Box<dyn FnMut(T) -> Result<U, E> + 'scope>,
        outputs: std::collections::VecDeque<U>,
        failed: Option<E>,
    },
}

impl<'scope, T: Send + 'scope, U: Send + 'scope, E: Send + 'scope> Stage<'scope, T, U, E> {
    /// A stage named `name` in `scope`, doing `work` on each item; on a thread of its own
    /// when `on_thread` and the system allows one.
    pub fn start<'env, W>(
        scope: &'scope std::thread::Scope<'scope, 'env>,
        name: &str,
        depth: usize,
        on_thread: bool,
        work: W,
    ) -> Self
    where
        W: FnMut(T) -> Result<U, E> + Send + 'scope,
    {
        let inline = |work: W| Stage {
            way: Way::Inline {
                work: Box::new(work),
                outputs: std::collections::VecDeque::new(),
                failed: None,
            },
        };
        if !on_thread {
            return inline(work);
        }
        // The work goes to the thread once it has started, so that a refused thread leaves
        // it here to run inline.
        let (work_tx, work_rx) = std::sync::mpsc::sync_channel::<W>(1);
        let (items_tx, items_rx) = std::sync::mpsc::sync_channel::<T>(depth);
        let (outputs_tx, outputs_rx) = std::sync::mpsc::channel::<U>();
        let handle = spawn_scoped(scope, name, move || {
            let Ok(mut work) = work_rx.recv() else {
                return Ok(());
            };
            for item in items_rx {
                if outputs_tx.send(work(item)?).is_err() {
                    break; // the caller is gone
                }
            }
            Ok(())
        });
        match handle {
            Some(handle) => {
                work_tx
                    .send(work)
                    .unwrap_or_else(|_| unreachable!("the thread waits for its work"));
                Stage {
                    way: Way::Thread {
                        items: Some(items_tx),
                        outputs: outputs_rx,
                        handle,
                    },
                }
            }
            None => inline(work),
        }
    }

    /// Hands `item` to the stage (waiting while `depth` items wait); false when the stage
    /// has stopped on an error, which [`Stage::finish`] returns.
    pub fn send(&mut self, item: T) -> bool {
        match &mut self.way {
            Way::Thread { items, .. } => items.as_ref().is_some_and(|tx| tx.send(item).is_ok()),
            Way::Inline {
                work,
                outputs,
                failed,
            } => {
                if failed.is_some() {
                    return false;
                }
                match work(item) {
                    Ok(out) => outputs.push_back(out),
                    Err(e) => *failed = Some(e),
                }
                failed.is_none()
            }
        }
    }

    /// The next output, waiting for it; `None` when the stage stopped. Call it only with
    /// an item sent and its output not yet taken: on a thread, it waits for that output.
    pub fn recv(&mut self) -> Option<U> {
        match &mut self.way {
            Way::Thread { outputs, .. } => outputs.recv().ok(),
            Way::Inline { outputs, .. } => outputs.pop_front(),
        }
    }

    /// The next output if one is ready.
    pub fn try_recv(&mut self) -> Option<U> {
        match &mut self.way {
            Way::Thread { outputs, .. } => outputs.try_recv().ok(),
            Way::Inline { outputs, .. } => outputs.pop_front(),
        }
    }

    /// Ends the stage after the items sent: its error, if its work failed.
    pub fn finish(self) -> Result<(), E> {
        match self.way {
            Way::Thread {
                mut items,
                outputs,
                handle,
            } => {
                items.take(); // the thread's loop ends after the last item
                let result = handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                drop(outputs);
                result
            }
            Way::Inline { failed, .. } => failed.map_or(Ok(()), Err),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_are_capped_at_the_cores() {
        assert_eq!(capped(Some(100_000), 2), 2);
        assert_eq!(capped(Some(500), 16), 16);
        assert_eq!(capped(Some(3), 16), 3);
        assert_eq!(capped(None, 8), 8);
        assert_eq!(capped(None, 0), 1);
    }

    #[test]
    fn a_refused_thread_gives_a_smaller_pool_and_no_panic() {
        // The system refuses a third thread.
        let mut spawn = |t: rayon::ThreadBuilder| {
            if t.index() >= 2 {
                return Err(std::io::Error::from_raw_os_error(11)); // EAGAIN
            }
            spawn_worker(t)
        };
        let (pool, n, on_caller) = build(8, &mut spawn);
        assert!(!on_caller);
        assert_eq!(n, 2, "8 refused, 4 refused, then 2");
        assert_eq!(pool.current_num_threads(), 2);
        let sum: u64 = pool.install(|| {
            use rayon::prelude::*;
            (1..=1000u64).into_par_iter().sum()
        });
        assert_eq!(sum, 500_500);
    }

    #[test]
    fn no_thread_at_all_runs_everything_on_the_caller() {
        let mut refuse = |_: rayon::ThreadBuilder| Err(std::io::Error::from_raw_os_error(11));
        // On a thread of its own: the caller becomes the pool's worker for good.
        std::thread::spawn(move || {
            let (pool, n, on_caller) = build(4, &mut refuse);
            assert!(on_caller && n == 1);
            let sum: u64 = pool.install(|| {
                use rayon::prelude::*;
                (1..=1000u64).into_par_iter().sum()
            });
            assert_eq!(sum, 500_500);
        })
        .join()
        .unwrap();
    }

    /// The items a stage hands back, on a thread or inline: each output in the order sent,
    /// and a failure that stops the stage, returned by `finish`.
    fn stage_outputs(on_thread: bool, fail_at: Option<u32>) -> (Vec<u32>, Result<(), String>) {
        std::thread::scope(|s| {
            let work = |x: u32| {
                if Some(x) == fail_at {
                    Err(format!("item {x}"))
                } else {
                    Ok(x * 10)
                }
            };
            let mut stage = Stage::start(s, "test-stage", 1, on_thread, work);
            let mut got = Vec::new();
            for x in 0..5 {
                if !stage.send(x) {
                    break;
                }
                match stage.recv() {
                    Some(y) => got.push(y),
                    None => break,
                }
            }
            (got, stage.finish())
        })
    }

    #[test]
    fn a_stage_gives_the_same_outputs_on_a_thread_and_inline() {
        for on_thread in [true, false] {
            assert_eq!(
                stage_outputs(on_thread, None),
                (vec![0, 10, 20, 30, 40], Ok(()))
            );
            let (got, end) = stage_outputs(on_thread, Some(2));
            assert_eq!(got, vec![0, 10], "{on_thread}");
            assert_eq!(end, Err("item 2".to_string()), "{on_thread}");
        }
    }

    #[test]
    fn a_stage_keeps_items_in_order_with_several_in_flight() {
        for on_thread in [true, false] {
            let got: Vec<u64> = std::thread::scope(|s| {
                let mut stage =
                    Stage::start(s, "test-stage", 2, on_thread, |x: u64| Ok::<_, ()>(x + 1));
                let mut got = Vec::new();
                for x in 0..1000 {
                    assert!(stage.send(x));
                    if x % 2 == 1 {
                        got.extend(stage.recv());
                        got.extend(stage.recv());
                    }
                }
                stage.finish().unwrap();
                got
            });
            assert_eq!(got, (1..=1000).collect::<Vec<_>>());
        }
    }
}
