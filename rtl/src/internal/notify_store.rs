//! The notification store (`peach2_regmap::notify`): one DW per (sender node, slot) in a
//! block RAM, on the CSR bus at BAR0 `NOTIFY`.
//!
//! Notifications reach it as writes to the chip's `Internal` global window, which the
//! internal completer turns into CSR-bus writes; the host reads and clears entries through
//! BAR0. Whole-DW writes only (block RAM without byte enables, as the descriptor memory).
//! The read is registered: the completer holds `rd_addr` for two cycles per DW (see
//! `crate::csr::bus`), and the data of the address held during the previous cycle is on
//! `rd_data`.

use crate::csr::bus::CsrTarget;
use peach2_regmap::notify;
use rust_hdl::prelude::*;

/// Address bits of an entry.
const INDEX_BITS: usize = 12;
// The decode below: the store is 2^12 DWs at BAR0 DW index 1 << 12 (0x4000).
const _: () = assert!(notify::DWS == 1 << INDEX_BITS);
const _: () = assert!(notify::BAR0_BASE == 1 << (INDEX_BITS + 2));

/// The notification store.
#[derive(LogicBlock, Default)]
pub struct NotifyStore {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// BAR0 accesses (the read is registered: see the module doc).
    pub csr: CsrTarget,
    /// The entries, one DW per (sender node, slot).
    ram: RAM<Bits<32>, INDEX_BITS>,
}

impl Logic for NotifyStore {
    #[hdl_gen]
    fn update(&mut self) {
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        self.ram.read_address.next = self.csr.rd_addr.val().get_bits::<12>(0);
        self.ram.write_address.next = self.csr.wr_addr.val().get_bits::<12>(0);
        self.ram.write_data.next = self.csr.wr_data.val();
        self.ram.write_enable.next = self.csr.wr_en.val()
            && (self.csr.wr_addr.val().get_bits::<2>(12) == 1)
            && (self.csr.wr_be.val() == 0xF);
        self.csr.rd_data.next = 0.into();
        if self.csr.rd_addr.val().get_bits::<2>(12) == 1 {
            self.csr.rd_data.next = self.ram.read_data.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Lcg, Stepper};
    use std::collections::HashMap;

    /// Random whole and partial writes inside and outside the store, and reads held two
    /// cycles as the completer holds them, against a map.
    #[test]
    fn entries_hold_whole_dw_writes_and_read_back_a_cycle_later() {
        let mut s = Stepper::new(NotifyStore::default(), |n| &mut n.clock);
        let mut rng = Lcg(5);
        let mut model: HashMap<u64, u64> = HashMap::new();
        let base = u64::from(notify::BAR0_BASE / 4);
        for _ in 0..3000 {
            let addr = match rng.below(4) {
                0 => rng.below(1 << 14),
                _ => base + rng.below(u64::from(notify::DWS)),
            };
            if rng.below(2) == 0 {
                let (v, be) = (
                    rng.next_u64() & 0xFFFF_FFFF,
                    [0xF, 0xF, 0x3][rng.below(3) as usize],
                );
                s.uut.csr.wr_en.next = true;
                s.uut.csr.wr_addr.next = addr.into();
                s.uut.csr.wr_data.next = v.into();
                s.uut.csr.wr_be.next = be.into();
                s.settle();
                s.tick();
                s.uut.csr.wr_en.next = false;
                let inside = (base..base + u64::from(notify::DWS)).contains(&addr);
                if inside && be == 0xF {
                    model.insert(addr, v);
                }
            } else {
                s.uut.csr.rd_addr.next = addr.into();
                s.settle();
                s.tick();
                s.settle();
                let inside = (base..base + u64::from(notify::DWS)).contains(&addr);
                let want = if inside {
                    *model.get(&addr).unwrap_or(&0)
                } else {
                    0
                };
                assert_eq!(s.uut.csr.rd_data.val().to_u64(), want, "DW {addr:#x}");
            }
        }
    }
}
