//! Every way a driver call can fail, as one typed error.

use crate::handle::MemKind;
use peach2_regmap::dma::{ErrorCause, CHANNELS};

/// An error of the TCA driver.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TcaError {
    /// The hardware (or the simulated hardware) failed to answer an access.
    #[error("device access failed: {0}")]
    Device(String),
    /// BAR0 does not hold a PEACH2 (ID register).
    #[error("not a PEACH2: ID register reads {0:#010x}")]
    NotPeach2(u32),
    /// The backend cannot provide memory of this kind.
    #[error("{0:?} memory is not available on this backend")]
    NoMemory(MemKind),
    /// No free range of the requested size in the memory of this kind.
    #[error("out of {kind:?} memory: {size} bytes requested")]
    OutOfMemory {
        /// Kind of memory.
        kind: MemKind,
        /// Bytes requested.
        size: u64,
    },
    /// A zero-sized allocation or transfer.
    #[error("size must be non-zero")]
    ZeroSize,
    /// An allocation the chip cannot reach through its target window.
    #[error("{kind:?} memory at {addr:#x} is outside the chip's target window")]
    OutsideWindow {
        /// Kind of memory.
        kind: MemKind,
        /// Local bus address.
        addr: u64,
    },
    /// A buffer or handle that this device did not allocate, or already freed.
    #[error("handle {id} is not a live allocation of node {node}")]
    ForeignHandle {
        /// Allocation id.
        id: u64,
        /// Node that created it.
        node: u8,
    },
    /// `offset + len` runs past the end of a buffer or handle.
    #[error("offset {offset} + length {len} exceeds the {size}-byte region")]
    OutOfRange {
        /// Offset asked for.
        offset: u64,
        /// Length asked for.
        len: u64,
        /// Size of the region.
        size: u64,
    },
    /// A destination node with no route from this node.
    #[error("node {0} is not reachable from this node (no route)")]
    UnknownNode(u8),
    /// A channel number at or above [`CHANNELS`].
    #[error("channel {0} does not exist (0..={})", CHANNELS - 1)]
    NoChannel(u8),
    /// A start on a channel that is still running.
    #[error("channel {0} is busy")]
    ChannelBusy(u8),
    /// A start on a channel without a chain.
    #[error("channel {0} has no chain set")]
    NoChain(u8),
    /// A descriptor list with nothing in it.
    #[error("the descriptor list is empty")]
    EmptyList,
    /// Notifications in one chain must go to one receiver slot with consecutive tags.
    #[error("chain notifications: {0}")]
    Notification(String),
    /// The internal descriptor memory has no room for the chain.
    #[error("the chain needs {needed} internal descriptors, {free} are free")]
    DescriptorMemoryFull {
        /// Descriptors needed.
        needed: usize,
        /// Descriptors free.
        free: usize,
    },
    /// A 2-D request with zero height or width, or pitches smaller than the width.
    #[error("bad 2-D shape: {0}")]
    BadShape(String),
    /// A slot number outside the notification area.
    #[error("notification slot {0} does not exist (0..{1})")]
    NoSlot(u16, u16),
    /// The chip stopped a channel with an error.
    #[error("channel {channel} stopped: {cause:?} at descriptor {descriptor:#x}")]
    Dma {
        /// Channel.
        channel: u8,
        /// Cause from STATUS.
        cause: ErrorCause,
        /// The failing descriptor (CURRENT).
        descriptor: u64,
    },
    /// A wait that did not end in time.
    #[error("timed out waiting for {0}")]
    Timeout(String),
    /// A wrong argument that none of the above names.
    #[error("invalid argument: {0}")]
    Invalid(String),
}
