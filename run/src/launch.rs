//! `peach2 run`: starts one process per rank, gives each its node's host arena (a file
//! both the process and the simulated host memory map), serves their calls, and
//! reports how the run ended.

use crate::device::{Heaps, Line};
use crate::output::Output;
use crate::scheduler::{Outcome, Scheduler};
use crate::server::{serve, RankCtx};
use crate::wire::{read_frame, Reader};
use pcie_model::memory::Backing;
use peach2_driver::alloc::RangeAlloc;
use peach2_sim::cluster::Cluster;
use peach2_sim::setup::HOST_WINDOW;
use peach2_sim::topology::Topology;
use peach2_sim::SimError;
use peach2_testbench::profile::Profile;
use peach2_testbench::sim_backend::SimSystem;
use std::cell::RefCell;
use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::rc::Rc;
use std::sync::mpsc::channel;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Bytes of host memory each rank's process shares with its simulated host: what
/// `tcaMalloc(.., tcaMemoryCPU)`, `cudaMallocHost` and the driver's own buffers come from.
pub const ARENA_BYTES: u64 = 256 << 20;

/// Work done on the cluster before bring-up (starting a VCD or a TLP log).
pub type ClusterSetup = Box<dyn FnOnce(&mut Cluster) -> Result<(), SimError>>;

/// What to run.
pub struct RunConfig {
    /// The cluster (routing already chosen).
    pub topology: Topology,
    /// The model parameters.
    pub profile: Profile,
    /// Ranks (`None`: one per node).
    pub ranks: Option<usize>,
    /// Threads evaluating the chips.
    pub threads: usize,
    /// The program and its arguments.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// Simulated milliseconds with every rank waiting and none progressing before the
    /// run is reported as stalled.
    pub stall_ms: f64,
    /// Set up on the cluster before bring-up (VCD, TLP log).
    pub setup: ClusterSetup,
}

/// What a run did.
#[derive(Debug)]
pub struct RunReport {
    /// How it ended.
    pub outcome: Outcome,
    /// Cycles the ranks ran (from the first rank's start to the end).
    pub cycles: u64,
    /// Cycles the cluster ran in all, bring-up included.
    pub total_cycles: u64,
    /// Wall-clock seconds of the whole run (bring-up included).
    pub wall_s: f64,
    /// Windows the cluster ran while the ranks ran: each ends where the nodes stop
    /// to hand over the cables' messages and a rank acts.
    pub windows: u64,
}

/// Why a run could not start.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A bad option.
    #[error("{0}")]
    Config(String),
    /// The cluster could not be built or brought up.
    #[error(transparent)]
    Sim(#[from] SimError),
    /// The program could not be started or did not connect.
    #[error("{0}")]
    Launch(String),
    /// A file of the run could not be made.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> RunError + '_ {
    move |source| RunError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A rank's host arena: the simulated host memory's view of the shared file.
struct Arena {
    file: File,
}

impl Backing for Arena {
    fn read(&self, offset: u64, buf: &mut [u8]) {
        if self.file.read_exact_at(buf, offset).is_err() {
            buf.fill(0);
        }
    }
    fn write(&self, offset: u64, data: &[u8]) {
        // The file is ARENA_BYTES long and the model only writes inside it.
        let _ = self.file.write_all_at(data, offset);
    }
}

/// A scratch folder for the run's socket, arenas and output files, removed on drop.
struct WorkDir(PathBuf);

impl WorkDir {
    fn new() -> Result<WorkDir, RunError> {
        // tmpfs where there is one: the arenas are memory, not disk.
        let shm = PathBuf::from("/dev/shm");
        let base = if shm.is_dir() {
            shm
        } else {
            std::env::temp_dir()
        };
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = base.join(format!("peach2-run-{}-{stamp}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        Ok(WorkDir(dir))
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Waits for every rank's connection; each says its rank first.
fn accept_all(
    listener: &UnixListener,
    children: &[Arc<Mutex<Child>>],
) -> Result<Vec<UnixStream>, RunError> {
    listener
        .set_nonblocking(true)
        .map_err(|e| RunError::Launch(e.to_string()))?;
    let n = children.len();
    let mut socks: Vec<Option<UnixStream>> = (0..n).map(|_| None).collect();
    let deadline = Instant::now() + Duration::from_secs(60);
    while socks.iter().any(Option::is_none) {
        match listener.accept() {
            Ok((mut s, _)) => {
                s.set_nonblocking(false)
                    .map_err(|e| RunError::Launch(e.to_string()))?;
                s.set_read_timeout(Some(Duration::from_secs(10)))
                    .map_err(|e| RunError::Launch(e.to_string()))?;
                let hello = read_frame(&mut s).ok().flatten().map(Reader::new);
                let rank = hello.and_then(|mut r| {
                    let code = r.u32().ok()?;
                    (i64::from(code) == crate::abi::CALL_HELLO).then_some(())?;
                    r.u64().ok()?;
                    r.u64().ok()?;
                    r.u32().ok()
                });
                let slot = rank
                    .and_then(|r| socks.get_mut(r as usize))
                    .filter(|s| s.is_none());
                let Some(slot) = slot else {
                    return Err(RunError::Launch("a process sent a bad greeting".into()));
                };
                s.set_read_timeout(None)
                    .map_err(|e| RunError::Launch(e.to_string()))?;
                *slot = Some(s);
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                for (r, c) in children.iter().enumerate() {
                    if socks[r].is_none() {
                        let done = c.lock().map(|mut c| c.try_wait().ok().flatten());
                        if let Ok(Some(status)) = done {
                            return Err(RunError::Launch(format!(
                                "rank {r} {status} before it reached the runtime: was the program built with `peach2 cc`?"
                            )));
                        }
                    }
                }
                if Instant::now() > deadline {
                    return Err(RunError::Launch(
                        "the ranks did not connect within 60 s".into(),
                    ));
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            Err(e) => return Err(RunError::Launch(e.to_string())),
        }
    }
    Ok(socks.into_iter().flatten().collect())
}

/// Runs `cfg.program` on the simulated cluster; the ranks' output goes to `out`/`err`.
pub fn run(
    cfg: RunConfig,
    out: Box<dyn Write + Send>,
    err: Box<dyn Write + Send>,
) -> Result<RunReport, RunError> {
    let t0 = Instant::now();
    let nodes = cfg.topology.nodes.len();
    let ranks = cfg.ranks.unwrap_or(nodes);
    if ranks == 0 || ranks > nodes {
        return Err(RunError::Config(format!(
            "--np {ranks}: 1..={nodes} (one rank per node of the topology)"
        )));
    }
    if cfg.threads == 0 {
        return Err(RunError::Config("--threads: at least 1".into()));
    }
    if !cfg.program.is_file() {
        return Err(RunError::Config(format!(
            "{}: no such program",
            cfg.program.display()
        )));
    }
    let threads = cfg.threads;
    let setup = cfg.setup;
    let mut sys = SimSystem::with_setup(cfg.topology, &cfg.profile, move |c| {
        c.set_threads(threads)?;
        setup(c)
    })?;
    let work = WorkDir::new()?;
    let mut files = Vec::new();
    let mut children = Vec::new();
    let sock_path = work.0.join("sock");
    let listener = UnixListener::bind(&sock_path).map_err(io(&sock_path))?;
    for r in 0..ranks {
        let arena_path = work.0.join(format!("arena-{r}"));
        let arena = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&arena_path)
            .map_err(io(&arena_path))?;
        arena.set_len(ARENA_BYTES).map_err(io(&arena_path))?;
        sys.cluster.nodes[r].host.rc.host_memory_mut().attach(
            HOST_WINDOW,
            ARENA_BYTES,
            Arc::new(Arena { file: arena }),
        );
        let (o, e) = (
            work.0.join(format!("{r}.out")),
            work.0.join(format!("{r}.err")),
        );
        let of = File::create(&o).map_err(io(&o))?;
        let ef = File::create(&e).map_err(io(&e))?;
        let gpus = sys.cluster.nodes[r].host.gpus.len();
        let child = Command::new(&cfg.program)
            .args(&cfg.args)
            .env("PEACH2_RUN_SOCKET", &sock_path)
            .env("PEACH2_RUN_RANK", r.to_string())
            .env("PEACH2_RUN_SIZE", ranks.to_string())
            .env("PEACH2_RUN_ARENA", &arena_path)
            .env("PEACH2_RUN_ARENA_BUS", HOST_WINDOW.to_string())
            .env("PEACH2_RUN_ARENA_BYTES", ARENA_BYTES.to_string())
            .env("PEACH2_RUN_GPUS", gpus.to_string())
            .stdin(Stdio::null())
            .stdout(of)
            .stderr(ef)
            .spawn()
            .map_err(|e| RunError::Launch(format!("{}: {e}", cfg.program.display())))?;
        children.push(Arc::new(Mutex::new(child)));
        files.push((o, e));
    }
    let socks = match accept_all(&listener, &children) {
        Ok(s) => s,
        Err(e) => {
            kill_all(&children);
            return Err(e);
        }
    };
    let keep: Vec<UnixStream> = socks.iter().filter_map(|s| s.try_clone().ok()).collect();
    let (tx, rx) = channel();
    let mut servers = Vec::new();
    for (r, sock) in socks.into_iter().enumerate() {
        let line = Line::new(r, tx.clone());
        let gpus: Vec<(u64, u64)> = sys.cluster.nodes[r]
            .host
            .gpus
            .iter()
            .map(|g| g.bar.unwrap_or((0, 0)))
            .collect();
        let (cpu, software) = (sys.cpu, sys.software);
        let child = children[r].clone();
        let f = files[r].clone();
        servers.push(std::thread::spawn(move || {
            let heaps = Heaps {
                host: RangeAlloc::new(HOST_WINDOW, ARENA_BYTES),
                gpus: gpus.iter().map(|&(b, s)| RangeAlloc::new(b, s)).collect(),
            };
            let ctx = RankCtx {
                rank: r,
                ranks,
                line,
                cpu,
                software,
                heaps: Rc::new(RefCell::new(heaps)),
                tca: Default::default(),
                cuda: Default::default(),
            };
            serve(ctx, sock, child, f);
        }));
    }
    drop(tx);
    let stall = (cfg.stall_ms * 250e3) as u64;
    let (start, windows_before) = (sys.cluster.cycle, sys.cluster.windows());
    let mut sched = Scheduler::new(sys, ranks, stall, Output::new(files, out, err));
    let outcome = sched.run(&rx);
    if outcome != Outcome::Success {
        sched.abandon();
        for s in &keep {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
        kill_all(&children);
    }
    // Let the servers see their ranks end; their last requests find no scheduler.
    drop(rx);
    for s in servers {
        let _ = s.join();
    }
    let sys = sched.system();
    let cycles = sys.cluster.cycle - start;
    sys.cluster.finish()?;
    Ok(RunReport {
        outcome,
        cycles,
        total_cycles: sys.cluster.cycle,
        windows: sys.cluster.windows() - windows_before,
        wall_s: t0.elapsed().as_secs_f64(),
    })
}

fn kill_all(children: &[Arc<Mutex<Child>>]) {
    for c in children {
        if let Ok(mut c) = c.lock() {
            let _ = c.kill();
        }
    }
}
