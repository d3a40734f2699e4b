//! The few MPI calls the co-simulation needs to spread one cluster over several
//! processes (`mpirun -np K peach2 sim ...`): all-to-all exchange of bytes, reductions of
//! counters, and nothing else. Open MPI, through a C shim compiled with `mpicc`'s flags;
//! every call returns an error instead of aborting the job.
//!
//! MPI is initialised once per process, by [`World::init`], and only when the process was
//! started by `mpirun` ([`World::launched`]); it is finalised when the [`World`] drops.
//! All calls come from the thread that made the [`World`] (`MPI_THREAD_FUNNELED`), so
//! a `World` is neither `Send` nor `Sync`.

use std::ffi::{c_char, c_int, c_void};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering};

extern "C" {
    fn p2mpi_init(rank: *mut c_int, size: *mut c_int) -> c_int;
    fn p2mpi_finalize() -> c_int;
    fn p2mpi_alltoall_u64(send: *const u64, recv: *mut u64) -> c_int;
    fn p2mpi_alltoallv(
        send: *const c_void,
        scounts: *const c_int,
        sdispls: *const c_int,
        recv: *mut c_void,
        rcounts: *const c_int,
        rdispls: *const c_int,
    ) -> c_int;
    fn p2mpi_allreduce_u64(v: *mut u64, n: c_int, op: c_int) -> c_int;
    fn p2mpi_error_string(code: c_int, buf: *mut c_char, len: c_int);
    fn p2mpi_abort(code: c_int);
}

/// An MPI call that failed.
#[derive(Debug, thiserror::Error)]
pub enum MpiError {
    /// MPI said no.
    #[error("MPI: {call}: {message} (code {code})")]
    Call {
        /// The MPI function.
        call: &'static str,
        /// Its error code.
        code: i32,
        /// MPI's message for it.
        message: String,
    },
    /// MPI was initialised before in this process.
    #[error("MPI: initialised twice in one process")]
    Twice,
    /// A message too large for MPI's `int` counts.
    #[error("MPI: {0} bytes in one exchange (at most 2 GiB)")]
    TooLarge(usize),
}

fn check(call: &'static str, code: c_int) -> Result<(), MpiError> {
    if code == 0 {
        return Ok(());
    }
    let mut buf = [0 as c_char; 512];
    // SAFETY: the shim writes at most `len` bytes, NUL-terminated.
    unsafe { p2mpi_error_string(code, buf.as_mut_ptr(), buf.len() as c_int) };
    let bytes: Vec<u8> = buf
        .iter()
        .take_while(|c| **c != 0)
        .map(|c| *c as u8)
        .collect();
    Err(MpiError::Call {
        call,
        code,
        message: String::from_utf8_lossy(&bytes).into_owned(),
    })
}

/// How [`World::all_reduce`] combines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduce {
    /// The sum over ranks.
    Sum,
    /// The maximum over ranks.
    Max,
}

static INITIALISED: AtomicBool = AtomicBool::new(false);

/// This process's place in an MPI job.
pub struct World {
    rank: usize,
    size: usize,
    /// MPI calls come from the thread that initialised it.
    _funneled: PhantomData<*const ()>,
}

impl World {
    /// This process was started by `mpirun` (Open MPI, or a PMI launcher).
    pub fn launched() -> bool {
        ["OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"]
            .iter()
            .any(|v| std::env::var_os(v).is_some())
    }

    /// Initialises MPI (once per process).
    pub fn init() -> Result<World, MpiError> {
        if INITIALISED.swap(true, Ordering::SeqCst) {
            return Err(MpiError::Twice);
        }
        let (mut rank, mut size) = (0, 0);
        // SAFETY: plain out-parameters.
        check("MPI_Init_thread", unsafe {
            p2mpi_init(&mut rank, &mut size)
        })?;
        Ok(World {
            rank: rank as usize,
            size: size as usize,
            _funneled: PhantomData,
        })
    }

    /// This process's rank.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Processes in the job.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Sends `out[r]` to rank `r` (`out` has one entry per rank, this one's ignored) and
    /// returns what every rank sent this one. A collective: every rank calls it.
    pub fn exchange(&self, out: &[Vec<u8>]) -> Result<Vec<Vec<u8>>, MpiError> {
        assert_eq!(out.len(), self.size, "one message per rank");
        let sizes: Vec<u64> = out.iter().map(|m| m.len() as u64).collect();
        let mut incoming = vec![0u64; self.size];
        // SAFETY: both buffers hold one u64 per rank.
        check("MPI_Alltoall", unsafe {
            p2mpi_alltoall_u64(sizes.as_ptr(), incoming.as_mut_ptr())
        })?;
        let counts = |v: &[u64]| -> Result<(Vec<c_int>, Vec<c_int>), MpiError> {
            let total: u64 = v.iter().sum();
            if total > i32::MAX as u64 {
                return Err(MpiError::TooLarge(total as usize));
            }
            let c: Vec<c_int> = v.iter().map(|n| *n as c_int).collect();
            let d: Vec<c_int> = c
                .iter()
                .scan(0, |at, n| {
                    let d = *at;
                    *at += n;
                    Some(d)
                })
                .collect();
            Ok((c, d))
        };
        let (sc, sd) = counts(&sizes)?;
        let (rc, rd) = counts(&incoming)?;
        // Never two empty vectors: their dangling pointers are equal, and MPI takes a
        // send buffer equal to the receive buffer for a misuse of MPI_IN_PLACE.
        let mut send: Vec<u8> = Vec::with_capacity(sizes.iter().sum::<u64>() as usize + 1);
        for m in out {
            send.extend_from_slice(m);
        }
        let mut recv = Vec::with_capacity(incoming.iter().sum::<u64>() as usize + 1);
        recv.resize(incoming.iter().sum::<u64>() as usize, 0u8);
        // SAFETY: counts and displacements describe `send` and `recv` exactly.
        check("MPI_Alltoallv", unsafe {
            p2mpi_alltoallv(
                send.as_ptr().cast(),
                sc.as_ptr(),
                sd.as_ptr(),
                recv.as_mut_ptr().cast(),
                rc.as_ptr(),
                rd.as_ptr(),
            )
        })?;
        Ok(rc
            .iter()
            .zip(&rd)
            .map(|(n, d)| recv[*d as usize..(*d + *n) as usize].to_vec())
            .collect())
    }

    /// Combines `v` element by element over all ranks, in place. A collective.
    pub fn all_reduce(&self, v: &mut [u64], op: Reduce) -> Result<(), MpiError> {
        let op = match op {
            Reduce::Sum => 0,
            Reduce::Max => 1,
        };
        // SAFETY: `v` holds `v.len()` u64s.
        check("MPI_Allreduce", unsafe {
            p2mpi_allreduce_u64(v.as_mut_ptr(), v.len() as c_int, op)
        })
    }
}

/// Ends every process of the job with exit status `code`, when MPI was initialised in
/// this one (a failed process must not leave the others waiting in a collective);
/// otherwise ends this process.
pub fn abort(code: i32) -> ! {
    if INITIALISED.load(Ordering::SeqCst) {
        // SAFETY: MPI was initialised; MPI_Abort does not return.
        unsafe { p2mpi_abort(code) };
    }
    std::process::exit(code)
}

impl Drop for World {
    fn drop(&mut self) {
        // Nothing to report to at exit; a failed finalize leaves the job to mpirun.
        // SAFETY: initialised by `init`, finalised once.
        let _ = unsafe { p2mpi_finalize() };
    }
}
