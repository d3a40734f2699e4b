//! The one-DW writes a descriptor ends with, once its data is written: the receiver's
//! notification slot (`NOTIFY_RX`), the channel's own slot (`NOTIFY_SELF`) and the MSI,
//! each only if the descriptor's flags ask for it, in that order. A write is offered
//! until the write generator takes it; the last one taken ends the descriptor.
//!
//! They start the cycle after the data is written (`data_done`), or, with
//! `DMA_CONFIG.NOTIFY_AT_LAST_READ`, the cycle after the data's last read is taken
//! (`early`), and then go out between the data's remaining writes; the channel then
//! still waits for both before it follows `next` (`remaining`).
//!
//! A notification writes `NOTIFY_VALUE` plus the descriptors done, this one included, as
//! they are in the cycle the writes start: a `NOTIFY_VALUE` written while they go out
//! counts from the next descriptor on.

use super::offers::EndOffer;
use peach2_regmap::dma::flags;
use rust_hdl::prelude::*;

// The flag tests below name the flags' bits.
const _: () = assert!(
    flags::NOTIFY_RX == 1 << 2 && flags::NOTIFY_SELF == 1 << 3 && flags::INTERRUPT == 1 << 4
);

/// The write on offer.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum EndWrite {
    /// None: no descriptor is ending.
    Idle,
    /// The receiver's notification slot.
    NotifyRx,
    /// The channel's own notification slot.
    NotifySelf,
    /// The MSI.
    Msi,
}

/// A descriptor's ending writes.
#[derive(LogicBlock, Default)]
pub struct EndWrites {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: offer nothing (the channel stopped).
    pub reset: Signal<In, Bit>,
    /// Pulse: the descriptor's data is written (or its immediate value taken); its
    /// flagged writes follow from the next cycle, unless they started early.
    pub data_done: Signal<In, Bit>,
    /// The channel is moving the descriptor's data.
    pub run: Signal<In, Bit>,
    /// `DMA_CONFIG`'s `NOTIFY_AT_LAST_READ`: start once the data's last read is taken.
    pub at_last_read: Signal<In, Bit>,
    /// The data has reads left to take.
    pub reads_left: Signal<In, Bit>,
    /// The descriptor's flags (bit 2 `NOTIFY_RX`, 3 `NOTIFY_SELF`, 4 MSI), held while
    /// the writes last.
    pub flags: Signal<In, Bits<5>>,
    /// Downstream: the write on offer, and its grant.
    pub wr: EndOffer,
    /// `NOTIFY_RX`.
    pub notify_rx_addr: Signal<In, Bits<64>>,
    /// Crossbar destination of `NOTIFY_RX` (the channel routed it at the check).
    pub rx_dest: Signal<In, Bits<3>>,
    /// `NOTIFY_SELF` (the own chip: destination 0, the internal port).
    pub notify_self_addr: Signal<In, Bits<64>>,
    /// `NOTIFY_VALUE`.
    pub notify_value: Signal<In, Bits<32>>,
    /// The descriptors the chain has finished (`COUNT`), not counting this one.
    pub count: Signal<In, Bits<32>>,
    /// `DMA_MSI_ADDR`.
    pub msi_addr: Signal<In, Bits<64>>,
    /// `DMA_MSI_DATA`.
    pub msi_data: Signal<In, Bits<32>>,
    /// Pulse: the last flagged write was taken; the descriptor is done.
    pub done: Signal<Out, Bit>,
    /// Once the data is written, writes remain (the channel ends the descriptor in
    /// `EndWrites`; else it follows `next` at once): the flagged ones, or, when they
    /// started early, those not yet taken.
    pub remaining: Signal<Out, Bit>,
    /// The write on offer (`Idle`: none).
    state: DFF<EndWrite>,
    /// The writes started before the data was written (cleared when it is).
    early: DFF<Bit>,
    /// The flags ask for at least one write (else the descriptor ends with its data).
    any: Signal<Local, Bit>,
    /// The writes start this cycle.
    start: Signal<Local, Bit>,
    /// What a notification writes: `NOTIFY_VALUE` plus the descriptors done, this one
    /// included.
    value: Signal<Local, Bits<32>>,
    /// `value` as it was when the writes started: taken every cycle while none is on
    /// offer, so the writes offer a register, not a sum.
    value_q: DFF<Bits<32>>,
    /// The write after the one on offer (none when it is the last).
    after: Signal<Local, EndWrite>,
    /// The first flagged write.
    first: Signal<Local, EndWrite>,
}

impl Logic for EndWrites {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, early, value_q);
        self.value.next = self.notify_value.val() + self.count.val() + 1;
        if self.state.q.val() == EndWrite::Idle {
            self.value_q.d.next = self.value.val();
        }
        self.wr.valid.next = false;
        self.wr.addr.next = self.notify_rx_addr.val();
        self.wr.dest.next = self.rx_dest.val();
        self.wr.value.next = self.value_q.q.val();
        self.done.next = false;

        self.first.next = EndWrite::Idle;
        if self.flags.val().get_bit(2) {
            self.first.next = EndWrite::NotifyRx;
        } else if self.flags.val().get_bit(3) {
            self.first.next = EndWrite::NotifySelf;
        } else if self.flags.val().get_bit(4) {
            self.first.next = EndWrite::Msi;
        }
        self.any.next = self.first.val() != EndWrite::Idle;
        self.after.next = EndWrite::Idle;
        match self.state.q.val() {
            EndWrite::Idle => {}
            EndWrite::NotifyRx => {
                self.wr.valid.next = true;
                if self.flags.val().get_bit(3) {
                    self.after.next = EndWrite::NotifySelf;
                } else if self.flags.val().get_bit(4) {
                    self.after.next = EndWrite::Msi;
                }
            }
            EndWrite::NotifySelf => {
                self.wr.valid.next = true;
                self.wr.addr.next = self.notify_self_addr.val();
                self.wr.dest.next = 0.into();
                if self.flags.val().get_bit(4) {
                    self.after.next = EndWrite::Msi;
                }
            }
            EndWrite::Msi => {
                self.wr.valid.next = true;
                self.wr.addr.next = self.msi_addr.val();
                self.wr.dest.next = 0.into();
                self.wr.value.next = self.msi_data.val();
            }
        }
        if self.wr.valid.val() && self.wr.grant.val() {
            self.state.d.next = self.after.val();
            self.done.next = self.after.val() == EndWrite::Idle;
        }
        self.remaining.next = self.any.val();
        if self.early.q.val() {
            self.remaining.next = self.wr.valid.val() && !self.done.val();
        }

        self.start.next = self.data_done.val() && self.any.val() && !self.early.q.val();
        if self.run.val()
            && self.at_last_read.val()
            && self.any.val()
            && !self.reads_left.val()
            && !self.early.q.val()
        {
            self.start.next = true;
            self.early.d.next = true;
        }
        if self.data_done.val() {
            self.early.d.next = false;
        }
        if self.start.val() {
            self.state.d.next = self.first.val();
        }
        if self.reset.val() {
            self.state.d.next = EndWrite::Idle;
            self.early.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Lcg, Stepper};
    use crate::verilog::checks::lint_verilog;
    use crate::verilog::export::block_verilog;

    const RX: u64 = 0x10_0000_0040;
    const SELF: u64 = 0x20_0000_0080;
    const MSI: u64 = 0xFEE0_0000;

    /// The rule, written plainly: (address, destination, value) of each flagged write.
    fn rule(flags: u64, value: u32) -> Vec<(u64, u64, u32)> {
        let mut w = Vec::new();
        if flags >> 2 & 1 == 1 {
            w.push((RX, 5, value));
        }
        if flags >> 3 & 1 == 1 {
            w.push((SELF, 0, value));
        }
        if flags >> 4 & 1 == 1 {
            w.push((MSI, 0, 0x4321));
        }
        w
    }

    /// The block with the rule's addresses, destination and MSI data.
    fn with_addresses() -> Stepper<EndWrites> {
        let mut s = Stepper::new(EndWrites::default(), |b| &mut b.clock);
        s.uut.notify_rx_addr.next = RX.into();
        s.uut.rx_dest.next = 5.into();
        s.uut.notify_self_addr.next = SELF.into();
        s.uut.msi_addr.next = MSI.into();
        s.uut.msi_data.next = 0x4321.into();
        s
    }

    /// The write on offer, as the rule writes it.
    fn on_offer(u: &EndWrites) -> (u64, u64, u32) {
        (
            u.wr.addr.val().to_u64(),
            u.wr.dest.val().to_u64(),
            u.wr.value.val().to_u64() as u32,
        )
    }

    /// Every flag combination many times, grants at random cycles: the writes come in
    /// the rule's order, `done` comes with the last grant and never otherwise.
    #[test]
    fn flagged_writes_come_in_order_under_random_grants() {
        let mut s = with_addresses();
        let mut rng = Lcg(0x5EED);
        for round in 0..400u64 {
            let flags = (round % 8) << 2 | rng.below(4);
            let (nv, count) = (rng.next_u64() as u32, rng.next_u64() as u32);
            let value = nv.wrapping_add(count).wrapping_add(1);
            s.uut.flags.next = flags.into();
            s.uut.notify_value.next = u64::from(nv).into();
            s.uut.count.next = u64::from(count).into();
            s.uut.data_done.next = true;
            s.uut.wr.grant.next = false;
            s.settle();
            let want = rule(flags, value);
            assert!(!s.uut.wr.valid.val(), "round {round}");
            assert_eq!(s.uut.remaining.val(), !want.is_empty(), "round {round}");
            s.tick();
            s.uut.data_done.next = false;
            let mut got = Vec::new();
            let mut done = false;
            // Taken at the start: what changes later does not count.
            s.uut.notify_value.next = u64::from(rng.next_u64() as u32).into();
            s.uut.count.next = u64::from(rng.next_u64() as u32).into();
            let limit = s.cycle + 200;
            while !done {
                assert!(
                    s.cycle < limit,
                    "round {round}: flags {flags:b} never ended"
                );
                s.uut.wr.grant.next = false;
                s.settle();
                if want.is_empty() {
                    assert!(!s.uut.wr.valid.val());
                    break;
                }
                assert!(s.uut.wr.valid.val(), "round {round}");
                if rng.below(3) == 0 {
                    s.uut.wr.grant.next = true;
                    s.settle();
                    got.push(on_offer(&s.uut));
                    done = s.uut.done.val();
                    assert_eq!(done, got.len() == want.len(), "round {round}");
                } else {
                    assert!(!s.uut.done.val(), "done without a grant");
                }
                s.tick();
            }
            assert_eq!(got, want, "round {round}: flags {flags:b}");
            s.settle();
            assert!(!s.uut.wr.valid.val(), "round {round}");
        }
    }

    /// With `at_last_read`, the writes start the cycle after the data's reads are all
    /// taken while it runs (not before, and never without `at_last_read`), in the rule's
    /// order under random grants, and the data's end at a random cycle says whether any
    /// remain: those on offer and not taken in that cycle. The next descriptor starts
    /// afresh, at its `data_done`. The notifications carry the value of the start cycle,
    /// whatever `NOTIFY_VALUE` and the count do later.
    #[test]
    fn early_writes_start_at_the_last_read_and_remain_until_taken() {
        let mut s = with_addresses();
        let mut rng = Lcg(0xEA21);
        let (mut remained, mut finished_first) = (0, 0);
        for round in 0..600u64 {
            let flags = (round % 8) << 2 | rng.below(4);
            let (nv, count) = (rng.next_u64() as u32, rng.next_u64() as u32);
            let want = rule(flags, nv.wrapping_add(count).wrapping_add(1));
            let early = rng.chance(0.8);
            let u = &mut s.uut;
            u.flags.next = flags.into();
            u.notify_value.next = u64::from(nv).into();
            u.count.next = u64::from(count).into();
            u.at_last_read.next = early;
            u.run.next = true;
            u.reads_left.next = true;
            u.wr.grant.next = false;
            // The reads: nothing starts while some are left.
            for _ in 0..rng.below(4) {
                s.settle();
                assert!(!s.uut.wr.valid.val(), "round {round}: before the last read");
                s.tick();
            }
            s.uut.reads_left.next = false;
            // The data's writes go on for a while; the ending writes go out meanwhile.
            let mut got = Vec::new();
            let first = s.cycle;
            let data_end = s.cycle + rng.below(8);
            let start = if early { first } else { data_end };
            loop {
                if s.cycle > start {
                    s.uut.notify_value.next = u64::from(rng.next_u64() as u32).into();
                    s.uut.count.next = u64::from(rng.next_u64() as u32).into();
                }
                let last_cycle = s.cycle == data_end;
                s.uut.data_done.next = last_cycle;
                s.uut.wr.grant.next = false;
                s.settle();
                let offered = s.uut.wr.valid.val();
                // Offered from the cycle after the last read, while any are left; without
                // `at_last_read`, nothing before the data ends.
                let expected = early && s.cycle > first && got.len() < want.len();
                assert_eq!(offered, expected, "round {round}: early {early}");
                let grant = offered && rng.chance(0.5);
                if grant {
                    s.uut.wr.grant.next = true;
                    s.settle();
                    got.push(on_offer(&s.uut));
                }
                if last_cycle {
                    let left = if early {
                        want.len() > got.len()
                    } else {
                        !want.is_empty()
                    };
                    assert_eq!(s.uut.remaining.val(), left, "round {round}: {got:?}");
                    remained += usize::from(early && left);
                    finished_first += usize::from(early && !left && !want.is_empty());
                    s.tick();
                    break;
                }
                s.tick();
            }
            s.uut.data_done.next = false;
            s.uut.run.next = false;
            // What remains goes out in `EndWrites`.
            let limit = s.cycle + 100;
            s.uut.notify_value.next = u64::from(rng.next_u64() as u32).into();
            s.uut.count.next = u64::from(rng.next_u64() as u32).into();
            while got.len() < want.len() {
                assert!(s.cycle < limit, "round {round}: the writes never ended");
                s.uut.wr.grant.next = false;
                s.settle();
                assert!(s.uut.wr.valid.val(), "round {round}");
                if rng.chance(0.5) {
                    s.uut.wr.grant.next = true;
                    s.settle();
                    got.push(on_offer(&s.uut));
                }
                s.tick();
            }
            assert_eq!(got, want, "round {round}: flags {flags:b}");
            s.uut.wr.grant.next = false;
            s.settle();
            assert!(
                !s.uut.wr.valid.val(),
                "round {round}: a write after the last"
            );
        }
        assert!(
            remained > 50 && finished_first > 50,
            "{remained} {finished_first}"
        );
    }

    #[test]
    fn reset_drops_the_writes_on_offer() {
        let mut s = Stepper::new(EndWrites::default(), |b| &mut b.clock);
        s.uut.flags.next = 0b11100.into();
        s.uut.data_done.next = true;
        s.settle();
        s.tick();
        s.uut.data_done.next = false;
        s.settle();
        assert!(s.uut.wr.valid.val());
        s.uut.reset.next = true;
        s.tick();
        s.uut.reset.next = false;
        s.settle();
        assert!(!s.uut.wr.valid.val());
    }

    #[test]
    fn end_writes_lint_clean() {
        let v = block_verilog(&mut EndWrites::default(), "dma_end_writes");
        lint_verilog(&v, "dma_end_writes").unwrap();
    }
}
