//! The TCA global address space.
//!
//! Every node of a TCA cluster owns a window of the global space. A global address is a
//! 64-bit PCIe memory address:
//!
//! | bits  | field   | meaning                                                        |
//! |-------|---------|----------------------------------------------------------------|
//! | 63:42 | base    | always [`GLOBAL_BASE_HI`] (1): the space starts at 4 TiB         |
//! | 41:36 | node    | destination node id, 0..63                                     |
//! | 35:33 | target  | [`Target`]: host memory, GPU 0..3, the chip's internal memory  |
//! | 32:0  | offset  | byte offset inside the target's window (8 GiB per target)      |
//!
//! Ring links (E/W/S) carry global addresses unchanged. The host reaches the space through
//! BAR2 of the N port (4 TiB, 64-bit, prefetchable): the chip replaces bits 63:42 of an
//! address that hits BAR2 with [`GLOBAL_BASE_HI`]. At the destination node the chip
//! translates `offset` to a local PCIe address: `target_base[target] + offset`, where the
//! per-target bases are CSRs ([`crate::csr`]), and sends the TLP out of N.
//!
//! The node field names 64 nodes, four times the 16-node group HA-PACS/TCA built: room for
//! design studies of larger clusters (rings of up to 64, two rings of 32).

/// Lowest bit of the base field: the global space's size is `1 << BASE_SHIFT`.
pub const BASE_SHIFT: u32 = NODE_SHIFT + NODE_BITS;
/// Bits 63:[`BASE_SHIFT`] of every global address.
pub const GLOBAL_BASE_HI: u64 = 1;
/// First global address.
pub const GLOBAL_BASE: u64 = GLOBAL_BASE_HI << BASE_SHIFT;
/// Size of the global space (and of BAR2): 4 TiB.
pub const GLOBAL_SIZE: u64 = 1 << BASE_SHIFT;
/// Lowest bit of the node field.
pub const NODE_SHIFT: u32 = 36;
/// Width of the node field.
pub const NODE_BITS: u32 = 6;
/// Lowest bit of the target field.
pub const TARGET_SHIFT: u32 = 33;
/// Width of the target field.
pub const TARGET_BITS: u32 = 3;
/// Width of the offset field: each target window is 8 GiB.
pub const OFFSET_BITS: u32 = 33;
/// Number of nodes a global address can name.
pub const MAX_NODES: usize = 1 << NODE_BITS;

/// What a global address points at inside its node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// Host memory, reached through the N port.
    Host,
    /// GPU memory behind BAR 1 of GPU `n` (0..=3), reached through the N port (GPUDirect RDMA).
    Gpu(u8),
    /// The chip's internal memory (descriptor RAM), served by the chip itself.
    Internal,
}

impl Target {
    /// The 3-bit target code.
    pub fn code(self) -> u64 {
        match self {
            Target::Host => 0,
            Target::Gpu(n) => 1 + u64::from(n.min(3)),
            Target::Internal => 5,
        }
    }

    /// The target of a 3-bit code; codes 6 and 7 are reserved.
    pub fn from_code(code: u64) -> Option<Self> {
        match code {
            0 => Some(Target::Host),
            1..=4 => Some(Target::Gpu((code - 1) as u8)),
            5 => Some(Target::Internal),
            _ => None,
        }
    }
}

/// Number of target codes that the chip translates through CSR bases (host, GPU 0..3).
pub const TRANSLATED_TARGETS: usize = 5;

/// Errors building a global address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressError {
    /// Node id does not fit the node field (0..[`MAX_NODES`]).
    NodeOutOfRange(u8),
    /// Offset does not fit the 33-bit field.
    OffsetOutOfRange(u64),
    /// GPU index above 3.
    GpuOutOfRange(u8),
}

impl std::fmt::Display for AddressError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AddressError::NodeOutOfRange(n) => {
                write!(f, "node id {n} is outside 0..={}", MAX_NODES - 1)
            }
            AddressError::OffsetOutOfRange(o) => {
                write!(f, "offset {o:#x} is outside the 8 GiB target window")
            }
            AddressError::GpuOutOfRange(g) => write!(f, "GPU index {g} is outside 0..=3"),
        }
    }
}

impl std::error::Error for AddressError {}

/// A decoded global address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GlobalAddr {
    /// Destination node.
    pub node: u8,
    /// Target inside the node.
    pub target: Target,
    /// Byte offset inside the target window.
    pub offset: u64,
}

impl GlobalAddr {
    /// Builds a global address, checking every field.
    pub fn new(node: u8, target: Target, offset: u64) -> Result<Self, AddressError> {
        if usize::from(node) >= MAX_NODES {
            return Err(AddressError::NodeOutOfRange(node));
        }
        if let Target::Gpu(g) = target {
            if g > 3 {
                return Err(AddressError::GpuOutOfRange(g));
            }
        }
        if offset >> OFFSET_BITS != 0 {
            return Err(AddressError::OffsetOutOfRange(offset));
        }
        Ok(Self {
            node,
            target,
            offset,
        })
    }

    /// The 64-bit PCIe address.
    pub fn to_u64(self) -> u64 {
        GLOBAL_BASE
            | (u64::from(self.node) << NODE_SHIFT)
            | (self.target.code() << TARGET_SHIFT)
            | self.offset
    }

    /// Decodes a PCIe address; `None` if it is not in the global space or names a
    /// reserved target.
    pub fn from_u64(addr: u64) -> Option<Self> {
        if addr >> BASE_SHIFT != GLOBAL_BASE_HI {
            return None;
        }
        let node = ((addr >> NODE_SHIFT) & ((1 << NODE_BITS) - 1)) as u8;
        let target = Target::from_code((addr >> TARGET_SHIFT) & ((1 << TARGET_BITS) - 1))?;
        Some(Self {
            node,
            target,
            offset: addr & ((1 << OFFSET_BITS) - 1),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn global_addresses_round_trip() {
        for node in 0..MAX_NODES as u8 {
            for target in [
                Target::Host,
                Target::Gpu(0),
                Target::Gpu(3),
                Target::Internal,
            ] {
                let g = GlobalAddr::new(node, target, 0x1_2345_6780).unwrap();
                assert_eq!(GlobalAddr::from_u64(g.to_u64()), Some(g));
            }
        }
        assert_eq!(
            GlobalAddr::new(0, Target::Host, 0).unwrap().to_u64(),
            4 << 40
        );
    }

    #[test]
    fn bad_fields_are_typed_errors() {
        assert_eq!(
            GlobalAddr::new(64, Target::Host, 0),
            Err(AddressError::NodeOutOfRange(64))
        );
        assert_eq!(
            GlobalAddr::new(0, Target::Host, 1 << 33),
            Err(AddressError::OffsetOutOfRange(1 << 33))
        );
        assert_eq!(GlobalAddr::from_u64(0x1000), None);
        assert_eq!(GlobalAddr::from_u64(1 << 40), None, "the old 1 TiB base");
        let last = GlobalAddr::new(63, Target::Internal, 0).unwrap().to_u64();
        assert_eq!(last >> 36, (4 << 4) | 63);
        assert_eq!(
            GlobalAddr::from_u64(GLOBAL_BASE | (6 << TARGET_SHIFT)),
            None
        );
    }
}
