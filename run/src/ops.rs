//! What a rank asks of the simulated platform, one primitive at a time: the
//! [`crate::scheduler`] carries each out at the rank's simulated time.

use peach2_driver::MemKind;
use peach2_testbench::profile::CpuCosts;
use std::sync::mpsc::Sender;

/// A collective operation of all ranks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Collective {
    /// `MPI_Barrier`.
    Barrier,
    /// `MPI_Bcast` from `root` (the root's bytes, empty elsewhere).
    Bcast {
        /// The root rank.
        root: usize,
    },
    /// `MPI_Allgather` (each rank's contribution).
    Allgather,
    /// `MPI_Allreduce` of elements of `datatype` with `op`.
    Allreduce {
        /// MPI datatype code.
        datatype: i64,
        /// MPI operation code.
        op: i64,
    },
    /// `MPI_Reduce` to `root`.
    Reduce {
        /// MPI datatype code.
        datatype: i64,
        /// MPI operation code.
        op: i64,
        /// The root rank.
        root: usize,
    },
}

/// One primitive.
#[derive(Debug)]
pub enum Op {
    /// A C call begins: it prints the rank's output up to `out`/`err` (offsets in its
    /// output files) in simulated-time order, and names the call for stall reports.
    Enter {
        /// The call and its arguments, as a C programmer reads them.
        call: String,
        /// The call waits on something another party does (a notification, a message).
        waiting: bool,
        /// Bytes of stdout written so far.
        out: u64,
        /// Bytes of stderr written so far.
        err: u64,
    },
    /// The CPU is busy for this many cycles.
    Cpu(u64),
    /// A posted write of `data` at MMIO `addr`: it reaches the root port one uncached
    /// leg after the store, while the core goes on after the store's own cost.
    MmioWrite {
        /// MMIO address.
        addr: u64,
        /// Bytes.
        data: Vec<u8>,
    },
    /// A 4-byte MMIO read at `addr`: the request leaves `leg` cycles after the load, and
    /// the data reaches the core `leg` cycles after its completion is back.
    MmioRead {
        /// MMIO address.
        addr: u64,
        /// CPU cycles between the core and the root port, each way.
        leg: u64,
    },
    /// `polls` polls at most of the host memory word at `addr` until it holds `want` (a
    /// wait loop carried out in one primitive), each costing what `costs` says of a
    /// cache hit or miss.
    PollUntil {
        /// What a poll costs.
        costs: CpuCosts,
        /// Bus address.
        addr: u64,
        /// The value awaited.
        want: u32,
        /// Polls left.
        polls: u64,
        /// The word the previous poll saw (in the core's cache), if any.
        last: Option<u32>,
    },
    /// A CPU read of memory (no time).
    MemRead {
        /// Which memory.
        kind: MemKind,
        /// Bus address.
        addr: u64,
        /// Bytes.
        len: usize,
    },
    /// A CPU write of memory (no time).
    MemWrite {
        /// Which memory.
        kind: MemKind,
        /// Bus address.
        addr: u64,
        /// Bytes.
        data: Vec<u8>,
    },
    /// `MPI_Send`: eager, returns once the bytes are out.
    Send {
        /// Destination rank.
        dst: usize,
        /// Tag.
        tag: i32,
        /// The message.
        data: Vec<u8>,
    },
    /// `MPI_Recv`: the oldest matching message (`None`: any).
    Recv {
        /// Source rank.
        src: Option<usize>,
        /// Tag.
        tag: Option<i32>,
    },
    /// A collective with this rank's contribution.
    Collective(Collective, Vec<u8>),
    /// The rank's simulated time.
    Now,
    /// `MPI_Abort(code)`: the run ends.
    Abort(i32),
    /// The rank's process ended (its status as the launcher reports it, with its
    /// output files' final sizes).
    Exit {
        /// `None`: exit status 0.
        failure: Option<String>,
        /// Exit code to end the run with when it failed.
        code: i32,
        /// Bytes of stdout written.
        out: u64,
        /// Bytes of stderr written.
        err: u64,
    },
}

/// What a primitive gives back.
#[derive(Debug, PartialEq, Eq)]
pub enum Done {
    /// Nothing.
    Unit,
    /// A 32-bit value (MMIO read).
    Word(u32),
    /// Whether a [`Op::PollUntil`] saw its value.
    Polled(bool),
    /// Bytes (memory read, collective result).
    Bytes(Vec<u8>),
    /// A received message.
    Message {
        /// Its source.
        src: usize,
        /// Its tag.
        tag: i32,
        /// Its bytes.
        data: Vec<u8>,
    },
    /// Simulated time in cycles since the ranks started.
    Time(u64),
    /// The primitive failed (a device error); the text says why.
    Failed(String),
}

/// A primitive from rank `rank`, and where its result goes.
#[derive(Debug)]
pub struct Request {
    /// The rank.
    pub rank: usize,
    /// The primitive.
    pub op: Op,
    /// The result.
    pub reply: Sender<Done>,
}
