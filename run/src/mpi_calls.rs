//! The MPI calls TCA programs make (`mpi.h`): messages and collectives of the
//! [`crate::mpi`] model, timed by the [`crate::scheduler`]. Rank, size and processor name
//! need no call: the C runtime knows them from its environment.

use crate::abi::*;
use crate::ops::{Collective, Done, Op};
use crate::server::{Answer, Call, RankCtx};
use crate::wire::{Reader, Short, Writer};
use pcie_model::time::{Clock, Cycles};

/// Cycles one `MPI_Wtime` costs.
const CLOCK_READ_CYCLES: u64 = 10;

fn bytes_or_error(d: Done) -> Answer {
    match d {
        Done::Bytes(b) => {
            let mut w = Writer::new();
            w.bytes(&b);
            Answer::with(MPI_SUCCESS, w)
        }
        _ => Answer::status(MPI_ERR_ARG),
    }
}

fn rank_ok(ctx: &RankCtx, r: i32) -> Option<usize> {
    usize::try_from(r).ok().filter(|&r| r < ctx.ranks)
}

fn collective(kind: Collective, data: Vec<u8>) -> impl FnOnce(&mut RankCtx) -> Answer {
    move |c| bytes_or_error(c.line.call(Op::Collective(kind, data)))
}

/// Decodes MPI call `code`.
pub fn decode(code: i64, r: &mut Reader) -> Result<Call, Short> {
    Ok(match code {
        CALL_MPI_INIT => Call::new("MPI_Init".into(), |_| Answer::status(MPI_SUCCESS)),
        CALL_MPI_FINALIZE => Call::waiting(
            "MPI_Finalize".into(),
            collective(Collective::Barrier, Vec::new()),
        ),
        CALL_MPI_BARRIER => Call::waiting(
            "MPI_Barrier".into(),
            collective(Collective::Barrier, Vec::new()),
        ),
        CALL_MPI_WTIME => Call::new("MPI_Wtime".into(), |c| {
            // Reading the clock takes time too (a vDSO clock_gettime, ~40 ns), so a
            // loop on MPI_Wtime moves forward.
            c.line.call(Op::Cpu(CLOCK_READ_CYCLES));
            match c.line.call(Op::Now) {
                Done::Time(t) => {
                    let mut w = Writer::new();
                    w.u64(Clock::CORE_250MHZ.seconds(Cycles(t)).to_bits());
                    Answer::with(MPI_SUCCESS, w)
                }
                _ => Answer::status(MPI_ERR_OTHER),
            }
        }),
        CALL_MPI_SEND => {
            let (dst, tag, data) = (r.i32()?, r.i32()?, r.bytes()?);
            let text = format!("MPI_Send({} bytes to rank {dst}, tag {tag})", data.len());
            Call::new(text, move |c| match rank_ok(c, dst) {
                Some(dst) if tag >= 0 => match c.line.call(Op::Send { dst, tag, data }) {
                    Done::Unit => Answer::status(MPI_SUCCESS),
                    _ => Answer::status(MPI_ERR_OTHER),
                },
                Some(_) => Answer::status(MPI_ERR_ARG),
                None => Answer::status(MPI_ERR_RANK),
            })
        }
        CALL_MPI_RECV => {
            let (src, tag, max) = (r.i32()?, r.i32()?, r.u64()?);
            let text = format!("MPI_Recv(from rank {src}, tag {tag}, up to {max} bytes)");
            Call::waiting(text, move |c| {
                let src_sel = if src == MPI_ANY_SOURCE as i32 {
                    None
                } else {
                    match rank_ok(c, src) {
                        Some(s) => Some(s),
                        None => return Answer::status(MPI_ERR_RANK),
                    }
                };
                let tag_sel = (tag != MPI_ANY_TAG as i32).then_some(tag);
                match c.line.call(Op::Recv {
                    src: src_sel,
                    tag: tag_sel,
                }) {
                    Done::Message { src, tag, data } => {
                        let status = if data.len() as u64 > max {
                            MPI_ERR_TRUNCATE
                        } else {
                            MPI_SUCCESS
                        };
                        let mut w = Writer::new();
                        w.i32(src as i32).i32(tag).bytes(&data);
                        Answer::with(status, w)
                    }
                    _ => Answer::status(MPI_ERR_OTHER),
                }
            })
        }
        CALL_MPI_BCAST => {
            let (root, data) = (r.i32()?, r.bytes()?);
            Call::waiting(format!("MPI_Bcast(root {root})"), move |c| {
                match rank_ok(c, root) {
                    Some(root) => collective(Collective::Bcast { root }, data)(c),
                    None => Answer::status(MPI_ERR_RANK),
                }
            })
        }
        CALL_MPI_ALLGATHER => {
            let data = r.bytes()?;
            let text = format!("MPI_Allgather({} bytes each)", data.len());
            Call::waiting(text, collective(Collective::Allgather, data))
        }
        CALL_MPI_ALLREDUCE | CALL_MPI_REDUCE => {
            let (datatype, op, root) = (i64::from(r.i32()?), i64::from(r.i32()?), r.i32()?);
            let data = r.bytes()?;
            let all = code == CALL_MPI_ALLREDUCE;
            let name = if all { "MPI_Allreduce" } else { "MPI_Reduce" };
            let text = format!("{name}({} bytes, op {op})", data.len());
            Call::waiting(text, move |c| {
                if mpi_type_size(datatype).is_none() || datatype == MPI_BYTE {
                    return Answer::status(MPI_ERR_TYPE);
                }
                if !(MPI_SUM..=MPI_MIN).contains(&op) {
                    return Answer::status(MPI_ERR_OP);
                }
                let kind = if all {
                    Collective::Allreduce { datatype, op }
                } else {
                    match rank_ok(c, root) {
                        Some(root) => Collective::Reduce { datatype, op, root },
                        None => return Answer::status(MPI_ERR_RANK),
                    }
                };
                collective(kind, data)(c)
            })
        }
        CALL_MPI_ABORT => {
            let code = r.i32()?;
            Call::new(format!("MPI_Abort({code})"), move |c| {
                c.line.call(Op::Abort(code));
                Answer::status(MPI_ERR_OTHER)
            })
        }
        _ => Call::new(format!("unknown MPI call {code}"), |_| {
            Answer::status(MPI_ERR_OTHER)
        }),
    })
}
