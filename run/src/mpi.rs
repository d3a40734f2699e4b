//! MPI's data side: messages waiting to be received (in the order they were sent, as MPI
//! requires between a pair of ranks), and what each collective computes. When they
//! happen is the [`crate::scheduler`]'s business.

use crate::abi::{
    mpi_type_size, MPI_CHAR, MPI_DOUBLE, MPI_FLOAT, MPI_INT, MPI_LONG, MPI_MAX, MPI_MIN, MPI_PROD,
    MPI_SUM, MPI_UNSIGNED, MPI_UNSIGNED_LONG,
};
use crate::ops::{Collective, Done};
use std::collections::VecDeque;

/// A message on its way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// Sender.
    pub src: usize,
    /// Tag.
    pub tag: i32,
    /// Bytes.
    pub data: Vec<u8>,
    /// Cycle it is there.
    pub arrival: u64,
}

/// Messages per destination rank, and results held for ranks until their time comes.
pub struct Mailbox {
    queues: Vec<VecDeque<Message>>,
    held: Vec<Option<Done>>,
}

impl Mailbox {
    /// Empty boxes for `ranks` ranks.
    pub fn new(ranks: usize) -> Mailbox {
        Mailbox {
            queues: (0..ranks).map(|_| VecDeque::new()).collect(),
            held: (0..ranks).map(|_| None).collect(),
        }
    }

    /// A message from `src` to `dst`, there at `arrival`.
    pub fn post(&mut self, src: usize, dst: usize, tag: i32, data: Vec<u8>, arrival: u64) {
        self.queues[dst].push_back(Message {
            src,
            tag,
            data,
            arrival,
        });
    }

    /// The oldest message for `dst` matching `src` and `tag` (`None`: any).
    pub fn take(&mut self, dst: usize, src: Option<usize>, tag: Option<i32>) -> Option<Message> {
        let q = &mut self.queues[dst];
        let i = q
            .iter()
            .position(|m| src.is_none_or(|s| s == m.src) && tag.is_none_or(|t| t == m.tag))?;
        q.remove(i)
    }

    /// Keeps `done` for `rank` until its time comes.
    pub fn hold(&mut self, rank: usize, done: Done) {
        self.held[rank] = Some(done);
    }

    /// What was held for `rank`.
    pub fn held(&mut self, rank: usize) -> Option<Done> {
        self.held[rank].take()
    }
}

/// Applies `op` elementwise to two buffers of `datatype` elements (`acc` = `acc` op `x`).
fn reduce_into(acc: &mut [u8], x: &[u8], datatype: i64, op: i64) -> Result<(), String> {
    macro_rules! fold {
        ($t:ty) => {{
            let n = std::mem::size_of::<$t>();
            for (a, b) in acc.chunks_exact_mut(n).zip(x.chunks_exact(n)) {
                let u = <$t>::from_le_bytes(a.try_into().expect("chunk size"));
                let v = <$t>::from_le_bytes(b.try_into().expect("chunk size"));
                let r = match op {
                    MPI_SUM => u + v,
                    MPI_PROD => u * v,
                    MPI_MAX => {
                        if v > u {
                            v
                        } else {
                            u
                        }
                    }
                    MPI_MIN => {
                        if v < u {
                            v
                        } else {
                            u
                        }
                    }
                    _ => return Err(format!("unknown MPI_Op {op}")),
                };
                a.copy_from_slice(&r.to_le_bytes());
            }
            Ok(())
        }};
    }
    match datatype {
        MPI_CHAR => fold!(i8),
        MPI_INT => fold!(i32),
        MPI_UNSIGNED => fold!(u32),
        MPI_LONG => fold!(i64),
        MPI_UNSIGNED_LONG => fold!(u64),
        MPI_FLOAT => fold!(f32),
        MPI_DOUBLE => fold!(f64),
        _ => Err(format!("MPI_Datatype {datatype} cannot be reduced")),
    }
}

fn reduce(parts: &[Vec<u8>], datatype: i64, op: i64) -> Result<Vec<u8>, String> {
    let size = mpi_type_size(datatype).ok_or(format!("unknown MPI_Datatype {datatype}"))?;
    let mut acc = parts.first().cloned().unwrap_or_default();
    if parts
        .iter()
        .any(|p| p.len() != acc.len() || p.len() % size != 0)
    {
        return Err("ranks passed different counts to a reduction".into());
    }
    for p in &parts[1..] {
        reduce_into(&mut acc, p, datatype, op)?;
    }
    Ok(acc)
}

/// Each rank's result of collective `kind` over `parts` (rank order), for `n` ranks.
pub fn collective(kind: &Collective, parts: &[Vec<u8>], n: usize) -> Vec<Result<Vec<u8>, String>> {
    let all = |r: Result<Vec<u8>, String>| vec![r; n];
    match kind {
        Collective::Barrier => all(Ok(Vec::new())),
        Collective::Bcast { root } => all(parts
            .get(*root)
            .cloned()
            .ok_or_else(|| format!("root {root} is not a rank"))),
        Collective::Allgather => {
            if parts.iter().any(|p| p.len() != parts[0].len()) {
                return all(Err("ranks passed different counts to MPI_Allgather".into()));
            }
            all(Ok(parts.concat()))
        }
        Collective::Allreduce { datatype, op } => all(reduce(parts, *datatype, *op)),
        Collective::Reduce { datatype, op, root } => {
            let r = reduce(parts, *datatype, *op);
            (0..n)
                .map(|i| match &r {
                    Ok(v) if i == *root => Ok(v.clone()),
                    Ok(_) => Ok(Vec::new()),
                    Err(e) => Err(e.clone()),
                })
                .collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(v: &[i32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn messages_match_in_order_by_source_and_tag() {
        let mut m = Mailbox::new(3);
        m.post(1, 0, 5, vec![1], 10);
        m.post(2, 0, 5, vec![2], 5);
        m.post(1, 0, 6, vec![3], 7);
        assert_eq!(m.take(0, Some(1), Some(6)).unwrap().data, [3]);
        assert_eq!(m.take(0, None, Some(5)).unwrap().data, [1]);
        assert_eq!(m.take(0, None, None).unwrap().src, 2);
        assert!(m.take(0, None, None).is_none());
    }

    #[test]
    fn collectives_compute_what_mpi_says() {
        let parts = vec![ints(&[1, 5]), ints(&[2, -3]), ints(&[3, 4])];
        let sum = Collective::Allreduce {
            datatype: MPI_INT,
            op: MPI_SUM,
        };
        assert_eq!(collective(&sum, &parts, 3)[2], Ok(ints(&[6, 6])));
        let max = Collective::Reduce {
            datatype: MPI_INT,
            op: MPI_MAX,
            root: 1,
        };
        let r = collective(&max, &parts, 3);
        assert_eq!(
            (r[0].clone(), r[1].clone()),
            (Ok(vec![]), Ok(ints(&[3, 5])))
        );
        assert_eq!(
            collective(&Collective::Allgather, &parts, 3)[0],
            Ok(parts.concat())
        );
        let d: Vec<Vec<u8>> = [1.5f64, 2.0]
            .iter()
            .map(|x| x.to_le_bytes().to_vec())
            .collect();
        let prod = Collective::Allreduce {
            datatype: MPI_DOUBLE,
            op: MPI_PROD,
        };
        assert_eq!(
            collective(&prod, &d, 2)[0],
            Ok(3.0f64.to_le_bytes().to_vec())
        );
        let bad = vec![ints(&[1]), ints(&[1, 2])];
        assert!(collective(&sum, &bad, 2)[0].is_err());
    }
}
