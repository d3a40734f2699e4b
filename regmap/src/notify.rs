//! The notification store: where notifications land in the receiving chip
//! (`tcaDMAUseNotifyInternal`) instead of the receiving host's memory.
//!
//! Each chip keeps one DW per (sender node, slot), [`DWS`] DWs in one block RAM:
//!
//! | reached by                  | at                                             | access |
//! |-----------------------------|------------------------------------------------|--------|
//! | any node's DMA (its own too) | global address of this node, target `Internal`, offset [`internal_offset`] | write (whole DWs) |
//! | this node's host            | BAR0 [`bar0_offset`] (`NOTIFY[sender][slot]`)  | read; write (whole DWs, 0 to clear) |
//!
//! A sender writes the tag into the receiver's entry for (itself, slot), after its data
//! and on the same path, so the data is there when the entry shows the tag. The waiting
//! CPU polls the entry over PCIe (a BAR0 read: a round trip through the chip, no host
//! memory traffic) and clears it. The store keeps its contents across a reset; software
//! clears what it uses.

use crate::address::MAX_NODES;

/// Slots each sender has in a receiver's store (`wait_slot` 0..SLOTS).
pub const SLOTS: u32 = 64;
/// DWs of the store.
pub const DWS: u32 = MAX_NODES as u32 * SLOTS;
/// BAR0 offset of the store's first DW.
pub const BAR0_BASE: u32 = 0x4000;
/// Offset of the store's first DW in the node's `Internal` global window (the descriptor
/// memory is below it).
pub const INTERNAL_BASE: u64 = 0x8000;

/// The entry of (`sender`, `slot`).
pub const fn index(sender: u32, slot: u32) -> u32 {
    sender * SLOTS + slot
}

/// BAR0 offset of the entry of (`sender`, `slot`).
pub const fn bar0_offset(sender: u32, slot: u32) -> u32 {
    BAR0_BASE + 4 * index(sender, slot)
}

/// Offset in the `Internal` global window of the entry of (`sender`, `slot`).
pub const fn internal_offset(sender: u32, slot: u32) -> u64 {
    INTERNAL_BASE + 4 * index(sender, slot) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dma::{channel_reg, CHANNELS, CH_NOTIFY_VALUE, DESC_BASE, DESC_BYTES, DESC_COUNT};

    #[test]
    fn store_fits_between_the_dma_registers_and_the_descriptors() {
        assert!(channel_reg(CHANNELS - 1, CH_NOTIFY_VALUE) < BAR0_BASE);
        assert!(bar0_offset(MAX_NODES as u32 - 1, SLOTS - 1) < DESC_BASE);
        assert_eq!(INTERNAL_BASE, u64::from(DESC_COUNT * DESC_BYTES));
        assert!(DWS.is_power_of_two());
    }
}
