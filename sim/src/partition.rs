//! One cluster spread over several processes (`mpirun -np K peach2 sim ...`): which nodes
//! this process runs, and the collective operations the windows need.
//!
//! Every process builds the whole cluster and brings it up the same way (a deterministic
//! simulation gives every process the same state); from [`Cluster::set_partition`] on,
//! each runs only its own nodes. At the end of every window the processes swap the
//! messages of the cables between them, all in one exchange, so every message is handed
//! over at the same point as in one process. Whatever decides for the whole cluster
//! (all flows delivered, a stall, the counters read at the end) is combined over the
//! processes first, so each process takes the same decision at the same cycle.
//!
//! [`Cluster::set_partition`]: crate::cluster::Cluster::set_partition

use crate::error::SimError;

/// The collective operations between the processes of one cluster. Each is called by
/// every process, in the same order.
pub trait Transport {
    /// This process's rank.
    fn rank(&self) -> usize;
    /// Processes.
    fn size(&self) -> usize;
    /// Sends `out[r]` to rank `r`; returns what each rank sent this one.
    fn exchange(&self, out: &[Vec<u8>]) -> Result<Vec<Vec<u8>>, SimError>;
    /// Element-wise sum (or, with `max`, maximum) over the processes, in place.
    fn all_reduce(&self, v: &mut [u64], max: bool) -> Result<(), SimError>;
}

/// Shared with whoever must still reach the other processes when the cluster is gone
/// (to end the job after a failure).
impl<T: Transport + ?Sized> Transport for std::rc::Rc<T> {
    fn rank(&self) -> usize {
        (**self).rank()
    }
    fn size(&self) -> usize {
        (**self).size()
    }
    fn exchange(&self, out: &[Vec<u8>]) -> Result<Vec<Vec<u8>>, SimError> {
        (**self).exchange(out)
    }
    fn all_reduce(&self, v: &mut [u64], max: bool) -> Result<(), SimError> {
        (**self).all_reduce(v, max)
    }
}

#[cfg(feature = "mpi")]
impl Transport for peach2_mpi::World {
    fn rank(&self) -> usize {
        peach2_mpi::World::rank(self)
    }
    fn size(&self) -> usize {
        peach2_mpi::World::size(self)
    }
    fn exchange(&self, out: &[Vec<u8>]) -> Result<Vec<Vec<u8>>, SimError> {
        peach2_mpi::World::exchange(self, out).map_err(|e| SimError::Transport(e.to_string()))
    }
    fn all_reduce(&self, v: &mut [u64], max: bool) -> Result<(), SimError> {
        let op = if max {
            peach2_mpi::Reduce::Max
        } else {
            peach2_mpi::Reduce::Sum
        };
        peach2_mpi::World::all_reduce(self, v, op).map_err(|e| SimError::Transport(e.to_string()))
    }
}

/// This process's share of a cluster.
pub struct Partition {
    transport: Box<dyn Transport>,
    /// The rank running each node.
    owner: Vec<usize>,
}

impl Partition {
    /// Nodes in contiguous blocks, one block per process (ring neighbours stay together,
    /// so most cables stay inside a process).
    pub fn blocks(nodes: usize, transport: Box<dyn Transport>) -> Result<Self, SimError> {
        let size = transport.size();
        if size == 0 || size > nodes {
            return Err(SimError::Scenario(format!(
                "{size} processes for {nodes} nodes: at most one process per node"
            )));
        }
        let owner = (0..nodes).map(|n| n * size / nodes).collect();
        Ok(Self { transport, owner })
    }

    /// This process runs node `n`.
    pub fn is_local(&self, n: usize) -> bool {
        self.owner.get(n) == Some(&self.transport.rank())
    }

    /// The rank that runs node `n`.
    pub fn owner(&self, n: usize) -> usize {
        self.owner[n]
    }

    /// The collective operations.
    pub fn transport(&self) -> &dyn Transport {
        self.transport.as_ref()
    }
}
