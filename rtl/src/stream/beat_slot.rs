//! A one-beat register stage of a stream: it holds a beat until the next stage takes it
//! and takes the next one in the same cycle (`ready = !full || take`), so the stream
//! keeps one beat per cycle. The block around it registers what it decodes of the
//! incoming beat in the cycle `load` says, so its decisions come from registers a cycle
//! later (the ports' `rx_decode` and N's `egress_decode`).

use super::{PortSink, DATA_BITS};
use rust_hdl::prelude::*;

/// One beat of a stream, registered.
#[derive(LogicBlock, Default)]
pub struct BeatSlot {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: the slot empties.
    pub reset: Signal<In, Bit>,
    /// Upstream: the beats.
    pub sink: PortSink,
    /// Pulse: a beat comes in this cycle.
    pub load: Signal<Out, Bit>,
    /// Drop the beat held (it is not offered again), and any coming in this cycle.
    pub flush: Signal<In, Bit>,
    /// Downstream: a beat is held.
    pub valid: Signal<Out, Bit>,
    /// Downstream: the next stage takes the beat this cycle.
    pub take: Signal<In, Bit>,
    /// The beat's data.
    pub data: Signal<Out, Bits<DATA_BITS>>,
    /// First beat of a TLP.
    pub sop: Signal<Out, Bit>,
    /// Last beat of a TLP.
    pub eop: Signal<Out, Bit>,
    /// Unused DW lanes in the `eop` beat.
    pub empty: Signal<Out, Bits<2>>,
    /// See `valid`.
    q_valid: DFF<Bit>,
    /// See `data`.
    q_data: DFF<Bits<DATA_BITS>>,
    /// See `sop`.
    q_sop: DFF<Bit>,
    /// See `eop`.
    q_eop: DFF<Bit>,
    /// See `empty`.
    q_empty: DFF<Bits<2>>,
}

impl Logic for BeatSlot {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, q_valid, q_data, q_sop, q_eop, q_empty);
        self.valid.next = self.q_valid.q.val();
        self.data.next = self.q_data.q.val();
        self.sop.next = self.q_sop.q.val();
        self.eop.next = self.q_eop.q.val();
        self.empty.next = self.q_empty.q.val();
        self.sink.ready.next = (!self.q_valid.q.val() || self.take.val()) && !self.reset.val();
        self.load.next = self.sink.valid.val() && self.sink.ready.val();
        if self.take.val() {
            self.q_valid.d.next = false;
        }
        if self.load.val() {
            self.q_valid.d.next = true;
            self.q_data.d.next = self.sink.data.val();
            self.q_sop.d.next = self.sink.sop.val();
            self.q_eop.d.next = self.sink.eop.val();
            self.q_empty.d.next = self.sink.empty.val();
        }
        if self.flush.val() || self.reset.val() {
            self.q_valid.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Lcg, Stepper};

    /// Numbered beats through the slot with a random source, random takes and random
    /// flushes, against the rule written plainly: the slot shows the beat it holds, is
    /// ready when empty or taken, takes one beat a cycle, and a flush drops what it holds
    /// and what comes in. Every beat comes out once, in order, unless a flush dropped it.
    #[test]
    fn beats_pass_in_order_under_random_flow_and_flushes() {
        let mut s = Stepper::new(BeatSlot::default(), |u| &mut u.clock);
        s.uut.reset.next = true;
        s.tick();
        s.uut.reset.next = false;
        let mut rng = Lcg(3);
        let (mut next_in, mut held, mut offered) = (0u64, None::<u64>, None::<u64>);
        let (mut delivered, mut dropped) = (Vec::new(), 0u64);
        while next_in < 3000 || offered.is_some() || held.is_some() {
            assert!(s.cycle < 30_000, "the slot stalled");
            if offered.is_none() && next_in < 3000 && rng.chance(0.7) {
                offered = Some(next_in);
                next_in += 1;
            }
            let flush = rng.chance(0.02);
            let u = &mut s.uut;
            u.sink.valid.next = offered.is_some();
            u.sink.data.next = offered.unwrap_or(0).into();
            u.sink.sop.next = offered.is_some_and(|n| n % 3 == 0);
            u.sink.eop.next = offered.is_some_and(|n| n % 3 == 2);
            u.sink.empty.next = offered.map_or(0, |n| n % 4).into();
            u.flush.next = flush;
            let take = held.is_some() && rng.chance(0.6);
            u.take.next = take;
            s.settle();
            let u = &s.uut;
            assert_eq!(u.valid.val(), held.is_some());
            if let Some(h) = held {
                assert_eq!(u.data.val().get_bits::<64>(0).to_u64(), h);
                assert_eq!((u.sop.val(), u.eop.val()), (h % 3 == 0, h % 3 == 2));
                assert_eq!(u.empty.val().to_u64(), h % 4);
            }
            assert_eq!(u.sink.ready.val(), held.is_none() || take, "ready");
            let load = offered.is_some() && u.sink.ready.val();
            assert_eq!(u.load.val(), load);
            if take {
                delivered.push(held.take().expect("held"));
            }
            if load {
                held = offered.take();
            }
            if flush {
                dropped += u64::from(held.take().is_some());
            }
            s.tick();
        }
        assert!(
            delivered.windows(2).all(|w| w[0] < w[1]),
            "in order, once each"
        );
        assert_eq!(delivered.len() as u64 + dropped, 3000);
        assert!(dropped > 10 && dropped < 150, "{dropped} flushed");
    }

    #[test]
    fn beat_slot_verilog_lints_clean() {
        let mut uut = BeatSlot::default();
        let v = crate::verilog::export::block_verilog(&mut uut, "beat_slot");
        crate::verilog::checks::lint_verilog(&v, "beat_slot").unwrap();
    }
}
