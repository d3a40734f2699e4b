//! Handles: what one node tells another about a buffer so that the other can DMA into it
//! (`tcaCreateHandle`). A handle is plain data, exchanged as bytes (over MPI, a socket...).

use crate::error::TcaError;
use peach2_regmap::address::{GlobalAddr, Target};
use serde::{Deserialize, Serialize};

/// Where a buffer lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MemKind {
    /// Host memory (`tcaMalloc(.., CPU)`).
    Host,
    /// Memory of GPU `n` of the node, behind its BAR (`cudaMalloc` + GPUDirect).
    Gpu(u8),
}

impl MemKind {
    /// The chip's target for this memory.
    pub fn target(self) -> Target {
        match self {
            MemKind::Host => Target::Host,
            MemKind::Gpu(g) => Target::Gpu(g),
        }
    }

    fn code(self) -> u8 {
        match self {
            MemKind::Host => 0,
            MemKind::Gpu(g) => 1 + g,
        }
    }

    fn from_code(c: u8) -> Option<MemKind> {
        match c {
            0 => Some(MemKind::Host),
            1..=4 => Some(MemKind::Gpu(c - 1)),
            _ => None,
        }
    }
}

/// A buffer of some node as every node can name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Handle {
    /// Node that owns the memory.
    pub node: u8,
    /// Kind of memory.
    pub kind: MemKind,
    /// The buffer's first byte in the TCA global space.
    pub global: u64,
    /// Bytes.
    pub size: u64,
    /// The owner's allocation id (lets the owner refuse freed or foreign handles).
    pub id: u64,
    /// Global address of the owner's notification slots (4 bytes each).
    pub slots: u64,
    /// Number of notification slots the owner has.
    pub slot_count: u16,
}

/// Bytes of [`Handle::to_bytes`].
pub const HANDLE_BYTES: usize = 40;

impl Handle {
    /// The decoded global address of byte `offset`.
    pub fn global_at(&self, offset: u64) -> u64 {
        self.global + offset
    }

    /// Checks that `[offset, offset + len)` lies inside the buffer.
    pub fn check_range(&self, offset: u64, len: u64) -> Result<(), TcaError> {
        match offset.checked_add(len) {
            Some(end) if end <= self.size => Ok(()),
            _ => Err(TcaError::OutOfRange {
                offset,
                len,
                size: self.size,
            }),
        }
    }

    /// A fixed 40-byte encoding for exchanging handles between processes.
    pub fn to_bytes(&self) -> [u8; HANDLE_BYTES] {
        let mut b = [0u8; HANDLE_BYTES];
        b[0] = self.node;
        b[1] = self.kind.code();
        b[2..4].copy_from_slice(&self.slot_count.to_le_bytes());
        b[8..16].copy_from_slice(&self.global.to_le_bytes());
        b[16..24].copy_from_slice(&self.size.to_le_bytes());
        b[24..32].copy_from_slice(&self.id.to_le_bytes());
        b[32..40].copy_from_slice(&self.slots.to_le_bytes());
        b
    }

    /// Decodes [`Handle::to_bytes`], checking that the addresses are global addresses of
    /// the named node.
    pub fn from_bytes(b: &[u8]) -> Result<Handle, TcaError> {
        let bad = |why: &str| TcaError::Invalid(format!("handle bytes: {why}"));
        if b.len() != HANDLE_BYTES {
            return Err(bad("wrong length"));
        }
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        let h = Handle {
            node: b[0],
            kind: MemKind::from_code(b[1]).ok_or_else(|| bad("unknown memory kind"))?,
            slot_count: u16::from_le_bytes([b[2], b[3]]),
            global: u64_at(8),
            size: u64_at(16),
            id: u64_at(24),
            slots: u64_at(32),
        };
        let g = GlobalAddr::from_u64(h.global).ok_or_else(|| bad("not a global address"))?;
        let s = GlobalAddr::from_u64(h.slots).ok_or_else(|| bad("slots not global"))?;
        if g.node != h.node || s.node != h.node || g.target != h.kind.target() {
            return Err(bad("addresses do not match node and kind"));
        }
        if h.size == 0 {
            return Err(bad("empty buffer"));
        }
        Ok(h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_round_trip_and_refuse_garbage() {
        let h = Handle {
            node: 3,
            kind: MemKind::Gpu(1),
            global: GlobalAddr::new(3, Target::Gpu(1), 0x1000).unwrap().to_u64(),
            size: 4096,
            id: 77,
            slots: GlobalAddr::new(3, Target::Host, 0).unwrap().to_u64(),
            slot_count: 64,
        };
        assert_eq!(Handle::from_bytes(&h.to_bytes()), Ok(h));
        let mut b = h.to_bytes();
        b[0] = 4;
        assert!(Handle::from_bytes(&b).is_err());
        assert!(Handle::from_bytes(&b[..10]).is_err());
        let mut b = h.to_bytes();
        b[1] = 9;
        assert!(Handle::from_bytes(&b).is_err());
        assert!(h.check_range(4000, 96).is_ok());
        assert!(h.check_range(4000, 97).is_err());
        assert!(h.check_range(u64::MAX, 2).is_err());
    }
}
