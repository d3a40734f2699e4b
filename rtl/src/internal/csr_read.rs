//! The internal completer's read stage: 1 to 4 DWs from the CSR bus into the completion's
//! data. Two cycles a DW: the address is held for a cycle because the slowest target, the
//! notification store's block RAM, answers a cycle after it. The DWs are kept in wire
//! byte order, as the completion carries them.

use crate::csr::wire_order::WireOrder;
use rust_hdl::prelude::*;

/// Reads one request's DWs.
#[derive(LogicBlock, Default)]
pub struct CsrRead {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Downstream, the CSR bus: the BAR0 DW address read.
    pub rd_addr: Signal<Out, Bits<14>>,
    /// Upstream, the CSR bus: the value at the address of the cycle before.
    pub rd_data: Signal<In, Bits<32>>,
    /// Pulse: a request arrives (reading starts from DW 0).
    pub load: Signal<In, Bit>,
    /// The request's first BAR0 DW address (taken with `load`).
    pub dw_addr: Signal<In, Bits<14>>,
    /// DWs to read, 1..=4 (held for the request).
    pub len: Signal<In, Bits<3>>,
    /// The completer is reading.
    pub active: Signal<In, Bit>,
    /// Pulse: the last DW is read (in `data` from the next cycle).
    pub done: Signal<Out, Bit>,
    /// The DWs read, wire byte order; DW k in `data[k]`, held until the next read.
    pub data: [Signal<Out, Bits<32>>; 4],
    /// The DW being read (0..3).
    index: DFF<Bits<3>>,
    /// Its BAR0 DW address: a register, so that no adder sits before every target's
    /// address decode.
    addr: DFF<Bits<14>>,
    /// The address has been held a cycle: the DW is on `rd_data`.
    held: DFF<Bit>,
    /// The DWs read.
    dws: [DFF<Bits<32>>; 4],
    /// DWs read once the current one is taken.
    count: Signal<Local, Bits<3>>,
    /// The DW on `rd_data` in wire order.
    lane: WireOrder,
}

impl Logic for CsrRead {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, index, held, addr);
        for k in 0..4 {
            self.dws[k].clock.next = self.clock.val();
            self.dws[k].d.next = self.dws[k].q.val();
            self.data[k].next = self.dws[k].q.val();
        }
        self.lane.dw.next = self.rd_data.val();
        self.count.next = self.index.q.val() + 1;
        self.rd_addr.next = self.addr.q.val();
        self.done.next = false;

        if self.load.val() {
            self.index.d.next = 0.into();
            self.addr.d.next = self.dw_addr.val();
            self.held.d.next = false;
        }
        if self.active.val() {
            self.held.d.next = !self.held.q.val();
            if self.held.q.val() {
                for k in 0..4 {
                    if self.index.q.val().index() == k {
                        self.dws[k].d.next = self.lane.swapped.val();
                    }
                }
                self.index.d.next = self.index.q.val() + 1;
                self.addr.d.next = self.addr.q.val() + 1;
                self.done.next = self.count.val() == self.len.val();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Lcg, Stepper};
    use crate::verilog::checks::lint_verilog;
    use crate::verilog::export::block_verilog;

    /// A register file one cycle late, as the notification store answers.
    fn value_at(addr: u64) -> u32 {
        (addr as u32).wrapping_mul(0x9E37_79B9) ^ 0x0BAD_F00D
    }

    /// Random reads of 1 to 4 DWs from random addresses, with random idle cycles between
    /// (and before a read starts): each takes two cycles a DW from the address given with
    /// its `load` (the input changes at random afterwards), ends with `done`, and holds
    /// the DWs it read, byte-swapped, until the next.
    #[test]
    fn reads_each_dw_two_cycles_after_its_address() {
        let mut s = Stepper::new(CsrRead::default(), |b| &mut b.clock);
        let mut rng = Lcg(0xC5_4EAD);
        let mut last_addr = 0u64;
        for req in 0..500 {
            let len = 1 + rng.below(4);
            let addr = rng.below(1 << 14);
            let u = &mut s.uut;
            u.load.next = true;
            u.active.next = false;
            u.dw_addr.next = addr.into();
            u.len.next = len.into();
            u.rd_data.next = u64::from(value_at(last_addr)).into();
            s.settle();
            last_addr = s.uut.rd_addr.val().to_u64();
            s.tick();
            s.uut.load.next = false;
            for _ in 0..rng.below(3) {
                s.uut.dw_addr.next = rng.below(1 << 14).into();
                s.uut.rd_data.next = u64::from(value_at(last_addr)).into();
                s.settle();
                last_addr = s.uut.rd_addr.val().to_u64();
                s.tick();
            }
            let start = s.cycle;
            loop {
                assert!(s.cycle - start <= 2 * len, "req {req}: no end");
                let u = &mut s.uut;
                u.active.next = true;
                u.dw_addr.next = rng.below(1 << 14).into();
                u.rd_data.next = u64::from(value_at(last_addr)).into();
                s.settle();
                last_addr = s.uut.rd_addr.val().to_u64();
                let done = s.uut.done.val();
                s.tick();
                if done {
                    break;
                }
            }
            assert_eq!(s.cycle - start, 2 * len, "req {req}: two cycles a DW");
            s.uut.active.next = false;
            for _ in 0..rng.below(3) {
                s.tick();
            }
            s.settle();
            for k in 0..len {
                let want = value_at((addr + k) % (1 << 14)).swap_bytes();
                let got = s.uut.data[k as usize].val().to_u64() as u32;
                assert_eq!(got, want, "req {req}: DW {k} of {len} at {addr:#x}");
            }
        }
    }

    #[test]
    fn csr_read_lints_clean() {
        let mut uut = CsrRead::default();
        lint_verilog(
            &block_verilog(&mut uut, "internal_csr_read"),
            "internal_csr_read",
        )
        .unwrap();
    }
}
