//! One rank's server: reads the C calls of the rank's process from its socket, carries
//! them out (TCA through the driver, MPI and CUDA through their models) as primitives of
//! the [`crate::scheduler`], and answers.

use crate::abi::*;
use crate::device::{Heaps, Line};
use crate::ops::{Done, Op};
use crate::wire::{read_frame, write_frame, Reader, Short, Writer};
use crate::{cuda_calls, mpi_calls, tca_calls};
use peach2_testbench::profile::{CpuCosts, HostSoftware};
use std::cell::RefCell;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::process::Child;
use std::rc::Rc;
use std::sync::{Arc, Mutex};

/// What one rank's server knows.
pub struct RankCtx {
    /// The rank (and node) number.
    pub rank: usize,
    /// Ranks in the run.
    pub ranks: usize,
    /// Its line to the scheduler.
    pub line: Line,
    /// CPU costs.
    pub cpu: CpuCosts,
    /// MPI and CUDA costs.
    pub software: HostSoftware,
    /// Its node's memory pools.
    pub heaps: Rc<RefCell<Heaps>>,
    /// TCA state.
    pub tca: tca_calls::TcaState,
    /// CUDA state.
    pub cuda: cuda_calls::CudaState,
}

/// A call's answer: a status and result fields.
pub struct Answer {
    /// `tcaresult`, MPI or CUDA error code.
    pub status: i32,
    /// The results.
    pub body: Writer,
}

impl Answer {
    /// Just a status.
    pub fn status(status: i64) -> Answer {
        Answer {
            status: status as i32,
            body: Writer::new(),
        }
    }

    /// A status with results.
    pub fn with(status: i64, body: Writer) -> Answer {
        Answer {
            status: status as i32,
            body,
        }
    }
}

/// A decoded call: its description, whether it waits on another party, and how to
/// carry it out.
pub struct Call {
    /// As a C programmer reads it, for stall reports.
    pub text: String,
    /// It waits on another rank or on a transfer.
    pub waiting: bool,
    /// Carries it out.
    pub run: Box<dyn FnOnce(&mut RankCtx) -> Answer>,
}

impl Call {
    /// A call that does not wait.
    pub fn new(text: String, run: impl FnOnce(&mut RankCtx) -> Answer + 'static) -> Call {
        Call {
            text,
            waiting: false,
            run: Box::new(run),
        }
    }

    /// A call that waits on another party.
    pub fn waiting(text: String, run: impl FnOnce(&mut RankCtx) -> Answer + 'static) -> Call {
        Call {
            text,
            waiting: true,
            run: Box::new(run),
        }
    }
}

fn decode(code: i64, r: &mut Reader) -> Result<Call, Short> {
    Ok(match code {
        CALL_EXIT => Call::new("exit".into(), |_| Answer::status(TCA_SUCCESS)),
        c if (CALL_TCA_INIT..CALL_MPI_INIT).contains(&c) => tca_calls::decode(c, r)?,
        c if (CALL_MPI_INIT..CALL_CUDA_SET_DEVICE).contains(&c) => mpi_calls::decode(c, r)?,
        c => cuda_calls::decode(c, r)?,
    })
}

/// Waits for the rank's process to end (polling, so that the launcher can kill it
/// meanwhile).
fn wait(child: &Mutex<Child>) -> std::io::Result<std::process::ExitStatus> {
    loop {
        let status = child
            .lock()
            .map_err(|_| std::io::Error::other("the launcher failed"))?
            .try_wait()?;
        if let Some(s) = status {
            return Ok(s);
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// The rank's output files, as they were at the end.
fn file_len(p: &PathBuf) -> u64 {
    std::fs::metadata(p).map_or(0, |m| m.len())
}

/// Serves rank `ctx.rank` until its process ends; then reports its exit to the
/// scheduler. `files` are its stdout and stderr files.
pub fn serve(
    mut ctx: RankCtx,
    mut sock: UnixStream,
    child: Arc<Mutex<Child>>,
    files: (PathBuf, PathBuf),
) {
    while let Ok(Some(frame)) = read_frame(&mut sock) {
        let mut r = Reader::new(frame);
        let head = (|| Ok::<_, Short>((r.u32()?, r.u64()?, r.u64()?)))();
        let Ok((code, out, err)) = head else {
            break;
        };
        let answer = match decode(i64::from(code), &mut r) {
            Ok(call) => {
                let enter = Op::Enter {
                    call: call.text,
                    waiting: call.waiting,
                    out,
                    err,
                };
                if let Done::Failed(_) = ctx.line.call(enter) {
                    break;
                }
                (call.run)(&mut ctx)
            }
            Err(e) => {
                let _ = ctx.line.call(Op::Enter {
                    call: format!("a call the platform cannot read (code {code}: {e})"),
                    waiting: false,
                    out,
                    err,
                });
                Answer::status(TCA_ERROR_INVALID_VALUE)
            }
        };
        let mut w = Writer::new();
        w.i32(answer.status);
        let mut reply = w.into_inner();
        reply.extend_from_slice(&answer.body.into_inner());
        if write_frame(&mut sock, &reply).is_err() {
            break;
        }
    }
    let (failure, code) = match wait(&child) {
        Ok(s) if s.success() => (None, 0),
        Ok(s) => match s.code() {
            Some(c) => (Some(format!("exited with status {c}")), c),
            None => {
                use std::os::unix::process::ExitStatusExt;
                let sig = s.signal().unwrap_or(0);
                (Some(format!("was killed by signal {sig}")), 128 + sig)
            }
        },
        Err(e) => (Some(format!("could not be waited for: {e}")), 1),
    };
    let (out, err) = (file_len(&files.0), file_len(&files.1));
    let _ = ctx.line.call(Op::Exit {
        failure,
        code,
        out,
        err,
    });
}
