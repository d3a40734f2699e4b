//! The reference host of the project's benches and simulator: where its firmware puts the
//! chip's BARs, and the ids on its PCIe bus. Not a fact of the chip (a real host's
//! firmware chooses its own, and the driver reads the BARs from sysfs), but one fact of
//! every simulated host, kept here so the RTL's tests, the co-simulation and its stimulus
//! agree.

/// Where firmware puts the N port's BAR0 (32-bit window).
pub const BAR0_BASE: u64 = 0xF7A0_0000;
/// Where firmware puts the N port's BAR2 (64-bit window, aligned to its 4 TiB).
pub const BAR2_BASE: u64 = 0x3800_0000_0000;
/// The chip's N port in its host's hierarchy: bus 5, device 0, function 0.
pub const CHIP_BDF: u16 = 0x0500;
/// The host root port's requester id: bus 0, device 1, function 0.
pub const HOST_RID: u16 = 0x0008;

const _: () = assert!(
    BAR0_BASE.is_multiple_of(crate::csr::BAR0_SIZE)
        && BAR2_BASE.is_multiple_of(crate::address::GLOBAL_SIZE)
);
