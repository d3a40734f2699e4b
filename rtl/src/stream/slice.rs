//! A register slice for a TLP stream: a 2-entry skid buffer that registers both
//! directions of the handshake.
//!
//! `source` (valid, beat) comes straight from flip-flops, and so does `sink.ready`
//! (`!skid_valid`), so no combinational path crosses the slice in either direction. That
//! is what lets a block with a wide combinational mux (the crossbar) meet timing at the
//! 250 MHz core clock without losing throughput: the second entry catches the beat that
//! was already on its way when the downstream dropped `ready`, so the slice still passes
//! one beat per cycle. Latency: a beat accepted at `sink` in cycle t is offered at
//! `source` in cycle t+1.

use super::{TlpSink, TlpSource, DATA_BITS};
use rust_hdl::prelude::*;

/// Bits of per-beat metadata held beside the data: sop, eop, empty(2), dest(3), src(3),
/// unsupported.
const META_BITS: usize = 11;

/// The 2-entry skid buffer; see the module documentation.
#[derive(LogicBlock, Default)]
pub struct TlpSlice {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: empties both entries.
    pub reset: Signal<In, Bit>,
    /// Upstream: beats into the slice.
    pub sink: TlpSink,
    /// Downstream: beats out of the slice, one cycle later.
    pub source: TlpSource,
    main_valid: DFF<Bit>,
    main_data: DFF<Bits<DATA_BITS>>,
    main_meta: DFF<Bits<META_BITS>>,
    skid_valid: DFF<Bit>,
    skid_data: DFF<Bits<DATA_BITS>>,
    skid_meta: DFF<Bits<META_BITS>>,
    push: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    sink_meta: Signal<Local, Bits<META_BITS>>,
}

impl TlpSlice {
    /// An empty slice.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Logic for TlpSlice {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, main_valid, main_data, main_meta, skid_valid, skid_data, skid_meta);

        self.sink.ready.next = !self.skid_valid.q.val() && !self.reset.val();
        self.source.valid.next = self.main_valid.q.val() && !self.reset.val();
        self.push.next = self.sink.valid.val() && self.sink.ready.val();
        self.pop.next = self.source.valid.val() && self.source.ready.val();

        self.sink_meta.next = bit_cast::<META_BITS, 1>(self.sink.sop.val().into())
            | (bit_cast::<META_BITS, 1>(self.sink.eop.val().into()) << 1)
            | (bit_cast::<META_BITS, 2>(self.sink.empty.val()) << 2)
            | (bit_cast::<META_BITS, 3>(self.sink.dest.val()) << 4)
            | (bit_cast::<META_BITS, 3>(self.sink.src.val()) << 7)
            | (bit_cast::<META_BITS, 1>(self.sink.unsupported.val().into()) << 10);

        self.source.data.next = self.main_data.q.val();
        self.source.sop.next = self.main_meta.q.val().get_bit(0);
        self.source.eop.next = self.main_meta.q.val().get_bit(1);
        self.source.empty.next = self.main_meta.q.val().get_bits::<2>(2);
        self.source.dest.next = self.main_meta.q.val().get_bits::<3>(4);
        self.source.src.next = self.main_meta.q.val().get_bits::<3>(7);
        self.source.unsupported.next = self.main_meta.q.val().get_bit(10);

        if !self.main_valid.q.val() || self.pop.val() {
            // The main entry is free this cycle: refill it, from the skid entry first
            // (that beat is older than anything now at the sink, which is not ready).
            if self.skid_valid.q.val() {
                self.main_data.d.next = self.skid_data.q.val();
                self.main_meta.d.next = self.skid_meta.q.val();
                self.main_valid.d.next = true;
                self.skid_valid.d.next = false;
            } else {
                self.main_valid.d.next = self.push.val();
                if self.push.val() {
                    self.main_data.d.next = self.sink.data.val();
                    self.main_meta.d.next = self.sink_meta.val();
                }
            }
        } else if self.push.val() {
            self.skid_data.d.next = self.sink.data.val();
            self.skid_meta.d.next = self.sink_meta.val();
            self.skid_valid.d.next = true;
        }

        if self.reset.val() {
            self.main_valid.d.next = false;
            self.skid_valid.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::TlpSlice;
    use crate::harness::{packet_beats, Lcg, Stepper, StreamDriver, StreamMonitor};
    use rust_hdl::prelude::*;

    fn run(p_valid: f64, p_ready: f64, seed: u64) {
        let mut s = Stepper::new(TlpSlice::new(), |u| &mut u.clock);
        let mut drv = StreamDriver::new(p_valid, seed);
        let mut mon = StreamMonitor::new(p_ready, seed ^ 0x77);
        let mut rng = Lcg(seed);
        let mut expect = Vec::new();
        for p in 0..50u32 {
            let len = 1 + rng.below(30) as usize;
            let dws: Vec<u32> = (0..len).map(|_| rng.next_u64() as u32).collect();
            let beats = packet_beats(&dws, (p % 8) as u8, ((p + 3) % 8) as u8, p % 2 == 0);
            expect.push(beats.clone());
            drv.push(beats);
        }
        s.uut.reset.next = true;
        s.tick();
        s.uut.reset.next = false;
        while mon.packets.len() < expect.len() {
            assert!(
                s.cycle < 20_000,
                "slice stalled: {} packets",
                mon.packets.len()
            );
            drv.drive(&mut s.uut.sink);
            mon.drive(&mut s.uut.source);
            s.settle();
            drv.sample(&s.uut.sink);
            mon.sample(&s.uut.source);
            s.tick();
        }
        assert_eq!(drv.pending(), 0);
        for (got, want) in mon.packets.iter().zip(&expect) {
            assert_eq!(got, want);
        }
    }

    #[test]
    fn slice_passes_beats_in_order_under_random_flow_control() {
        run(0.5, 0.5, 11);
        run(1.0, 0.4, 12);
        run(0.4, 1.0, 13);
        run(1.0, 0.9, 14);
    }

    #[test]
    fn slice_keeps_one_beat_per_cycle_with_one_cycle_latency() {
        let mut s = Stepper::new(TlpSlice::new(), |u| &mut u.clock);
        let mut drv = StreamDriver::new(1.0, 5);
        let mut mon = StreamMonitor::new(1.0, 5);
        let dws: Vec<u32> = (0..400).collect();
        drv.push(packet_beats(&dws, 1, 2, false));
        let mut first_out = None;
        let mut moved = 0;
        for _ in 0..101 {
            drv.drive(&mut s.uut.sink);
            mon.drive(&mut s.uut.source);
            s.settle();
            drv.sample(&s.uut.sink);
            if mon.sample(&s.uut.source).is_some() {
                moved += 1;
                first_out.get_or_insert(s.cycle);
            }
            s.tick();
        }
        assert_eq!(
            first_out,
            Some(1),
            "a beat taken in cycle 0 leaves in cycle 1"
        );
        assert_eq!(moved, 100);
        assert_eq!(mon.packets.len(), 1);
    }

    #[test]
    fn slice_ready_and_valid_come_from_registers() {
        let mut s = Stepper::new(TlpSlice::new(), |u| &mut u.clock);
        // Fill both entries with the downstream stalled.
        s.uut.source.ready.next = false;
        for _ in 0..2 {
            s.uut.sink.valid.next = true;
            s.settle();
            assert!(s.uut.sink.ready.val());
            s.tick();
        }
        s.settle();
        assert!(!s.uut.sink.ready.val(), "two beats held: not ready");
        assert!(s.uut.source.valid.val());
        // Changing the downstream ready does not change the upstream ready in the same cycle.
        s.uut.source.ready.next = true;
        s.settle();
        assert!(!s.uut.sink.ready.val());
        s.tick();
        s.uut.sink.valid.next = false;
        s.settle();
        assert!(s.uut.sink.ready.val());
        s.uut.reset.next = true;
        s.tick();
        s.uut.reset.next = false;
        s.settle();
        assert!(!s.uut.source.valid.val(), "reset empties the slice");
    }

    #[test]
    fn slice_verilog_is_generated() {
        let mut uut = TlpSlice::new();
        uut.connect_all();
        assert!(generate_verilog(&uut).contains("module top"));
    }
}
