//! Worker threads that run the nodes of one window in parallel.
//!
//! Within a window the nodes are independent (what crosses a cable arrives after the
//! window), so they can run on several cores; the cluster waits for all of them before
//! the cables' messages are handed over. A window of one busy node is a few hundred
//! microseconds and a window of one cycle a few, so the hand-off must cost far less:
//! workers spin on a generation counter (then yield, then park when the cluster is idle
//! for long), never a mutex and condition variable per window. Nodes are claimed one at
//! a time, so a busy node does not wait behind idle ones on the same thread.
//!
//! Results do not depend on the thread count: each item is processed by exactly one
//! thread and items do not share state.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle, Thread};
use std::time::Duration;

/// Spins before a waiting thread starts yielding its core (none when the pool has more
/// threads than the machine has cores: a spinning thread would take the core from one
/// that still has a node to run).
const SPINS: u32 = 4_000;
/// Yields before a waiting worker parks (the cluster has gone idle).
const YIELDS: u32 = 2_000;

/// The job of one generation: `call(i)` for every index below `len`.
type Job = &'static (dyn Fn(usize) + Sync);

struct Shared {
    generation: AtomicU64,
    job: Mutex<Option<Job>>,
    len: AtomicUsize,
    /// Per block, the next item to claim: one block per thread, or a single one all
    /// threads claim from when there are more threads than cores (a thread the system
    /// parks while it holds a block would hold up the window; claiming one at a time,
    /// nobody waits for it long).
    cursors: Vec<Cursor>,
    /// Workers that finished the current generation.
    done: AtomicUsize,
    panicked: AtomicBool,
    sleepers: AtomicUsize,
    stop: AtomicBool,
    /// Spins before yielding: `SPINS`, or 0 when oversubscribed.
    spins: u32,
}

/// A claim counter on a cache line of its own (threads claim from each other's).
#[repr(align(64))]
struct Cursor(AtomicUsize);

/// A pool of `threads - 1` workers; the calling thread is the last one.
pub struct EvalPool {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
    threads: Vec<Thread>,
}

impl EvalPool {
    /// A pool that runs work on `threads` threads in all (the caller included).
    /// `threads` is at least 2; the cluster runs one thread without a pool.
    pub fn new(threads: usize) -> std::io::Result<Self> {
        let oversubscribed = threads > thread::available_parallelism().map_or(1, usize::from);
        let shared = Arc::new(Shared {
            generation: AtomicU64::new(0),
            job: Mutex::new(None),
            len: AtomicUsize::new(0),
            cursors: (0..if oversubscribed { 1 } else { threads.max(2) })
                .map(|_| Cursor(AtomicUsize::new(0)))
                .collect(),
            done: AtomicUsize::new(0),
            panicked: AtomicBool::new(false),
            sleepers: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            spins: if oversubscribed { 0 } else { SPINS },
        });
        let mut pool = Self {
            shared,
            workers: Vec::new(),
            threads: Vec::new(),
        };
        for i in 1..threads.max(2) {
            let s = Arc::clone(&pool.shared);
            let h = thread::Builder::new()
                .name(format!("peach2-eval-{i}"))
                .spawn(move || worker(&s, i))?;
            pool.threads.push(h.thread().clone());
            pool.workers.push(h);
        }
        Ok(pool)
    }

    /// Threads that run work, the caller included.
    pub fn threads(&self) -> usize {
        self.workers.len() + 1
    }

    /// Calls `f` on every item, each on exactly one of the pool's threads, and returns
    /// when all calls have returned. A panic in `f` is raised again here.
    pub fn for_each_mut<T: Send>(&self, items: &mut [T], f: impl Fn(&mut T) + Sync) {
        let base = SendPtr(items.as_mut_ptr());
        let call = move |i: usize| {
            let base = &base;
            // SAFETY: `i < items.len()` and every index is claimed by exactly one thread
            // (the `fetch_add` of its block's cursor), so this is the only reference to
            // item `i`; `items` is borrowed mutably until every thread has finished
            // (`done` below).
            f(unsafe { &mut *base.0.add(i) });
        };
        let job: &(dyn Fn(usize) + Sync) = &call;
        // SAFETY: the 'static lifetime is a lie told to the workers only while this
        // function waits for every one of them to finish the generation (also when `f`
        // panics here), after which no worker touches the job again.
        let job: Job = unsafe { std::mem::transmute::<&(dyn Fn(usize) + Sync), Job>(job) };
        let s = &*self.shared;
        *s.job.lock().unwrap_or_else(|e| e.into_inner()) = Some(job);
        s.len.store(items.len(), Ordering::Relaxed);
        for (t, c) in s.cursors.iter().enumerate() {
            c.0.store(
                block(t, s.cursors.len(), items.len()).start,
                Ordering::Relaxed,
            );
        }
        s.done.store(0, Ordering::Relaxed);
        s.generation.fetch_add(1, Ordering::SeqCst);
        if s.sleepers.load(Ordering::SeqCst) > 0 {
            for t in &self.threads {
                t.unpark();
            }
        }
        let mine = catch_unwind(AssertUnwindSafe(|| run(s, job, 0)));
        let mut spins = 0u32;
        while s.done.load(Ordering::Acquire) < self.workers.len() {
            backoff(&mut spins, s.spins);
        }
        *s.job.lock().unwrap_or_else(|e| e.into_inner()) = None;
        let worker_panicked = s.panicked.swap(false, Ordering::Relaxed);
        if let Err(p) = mine {
            resume_unwind(p);
        }
        if worker_panicked {
            panic!("a node panicked on a worker thread");
        }
    }
}

impl Drop for EvalPool {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        self.shared.generation.fetch_add(1, Ordering::SeqCst);
        for t in &self.threads {
            t.unpark();
        }
        for h in self.workers.drain(..) {
            // A worker never panics outside `catch_unwind`; nothing to report.
            let _ = h.join();
        }
    }
}

struct SendPtr<T>(*mut T);
// SAFETY: the pointer is only dereferenced at indices handed out once each (see
// `for_each_mut`), and `T: Send` there.
unsafe impl<T: Send> Sync for SendPtr<T> {}

/// Block `t` of `len` items cut into `blocks`.
fn block(t: usize, blocks: usize, len: usize) -> std::ops::Range<usize> {
    t * len / blocks..(t + 1) * len / blocks
}

/// Runs thread `me`'s block of the current job, then claims what is left of the other
/// blocks until none is left.
fn run(s: &Shared, job: Job, me: usize) {
    let (len, blocks) = (s.len.load(Ordering::Relaxed), s.cursors.len());
    for k in 0..blocks {
        let t = (me + k) % blocks;
        let end = block(t, blocks, len).end;
        loop {
            let i = s.cursors[t].0.fetch_add(1, Ordering::Relaxed);
            if i >= end {
                break;
            }
            job(i);
        }
    }
}

fn backoff(spins: &mut u32, limit: u32) {
    if *spins < limit {
        std::hint::spin_loop();
    } else {
        thread::yield_now();
    }
    *spins = spins.saturating_add(1);
}

fn worker(s: &Shared, me: usize) {
    let mut seen = 0u64;
    loop {
        let mut spins = 0u32;
        loop {
            let g = s.generation.load(Ordering::Acquire);
            if g != seen {
                seen = g;
                break;
            }
            if spins >= s.spins + YIELDS {
                s.sleepers.fetch_add(1, Ordering::SeqCst);
                if s.generation.load(Ordering::SeqCst) == seen {
                    // The timeout only bounds a wake-up this protocol should not miss.
                    thread::park_timeout(Duration::from_millis(50));
                }
                s.sleepers.fetch_sub(1, Ordering::SeqCst);
                continue;
            }
            backoff(&mut spins, s.spins);
        }
        if s.stop.load(Ordering::SeqCst) {
            return;
        }
        let job = *s.job.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(job) = job {
            if catch_unwind(AssertUnwindSafe(|| run(s, job, me))).is_err() {
                s.panicked.store(true, Ordering::Relaxed);
            }
        }
        s.done.fetch_add(1, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_once_per_call_over_many_generations() {
        let pool = EvalPool::new(3).unwrap();
        assert_eq!(pool.threads(), 3);
        let mut items = vec![0u64; 37];
        for g in 0..2_000u64 {
            pool.for_each_mut(&mut items, |x| *x += 1);
            assert!(items.iter().all(|&x| x == g + 1), "generation {g}");
        }
        pool.for_each_mut(&mut [] as &mut [u64], |_| unreachable!());
    }

    #[test]
    fn work_is_spread_over_the_threads() {
        let pool = EvalPool::new(2).unwrap();
        let mut items: Vec<Option<thread::ThreadId>> = vec![None; 64];
        let mut seen = std::collections::HashSet::new();
        for _ in 0..200 {
            pool.for_each_mut(&mut items, |x| {
                std::thread::sleep(Duration::from_micros(20));
                *x = Some(thread::current().id());
            });
            seen.extend(items.iter().flatten().copied());
            if seen.len() == 2 {
                return;
            }
        }
        panic!("only {} thread(s) ever ran items", seen.len());
    }

    #[test]
    fn a_panic_in_a_call_reaches_the_caller_and_the_pool_survives() {
        let pool = EvalPool::new(2).unwrap();
        let mut items = vec![0u32; 8];
        let r = catch_unwind(AssertUnwindSafe(|| {
            pool.for_each_mut(&mut items, |x| {
                if *x == 0 {
                    panic!("boom");
                }
            });
        }));
        assert!(r.is_err());
        let mut items = vec![1u32; 8];
        pool.for_each_mut(&mut items, |x| *x += 1);
        assert!(items.iter().all(|&x| x == 2));
    }

    #[test]
    fn parked_workers_wake_up() {
        let pool = EvalPool::new(2).unwrap();
        // Long enough for the worker to park.
        std::thread::sleep(Duration::from_millis(200));
        let mut items = vec![0u8; 100];
        pool.for_each_mut(&mut items, |x| *x = 7);
        assert!(items.iter().all(|&x| x == 7));
    }
}
