//! The internal port's outbound side: the DMA's reads and its writes for the crossbar
//! (not the loop's: [`super::loop_split::LoopSplit`]) share the crossbar's input, round
//! robin between packets. A packet is never interleaved, and each stream keeps its order,
//! so a read never passes an earlier write. The completer's completions do not come
//! through here but enter the crossbar by an input of their own
//! (`crate::xbar::INPUT_COMPLETIONS`), so a register read is answered while a DMA packet
//! waits for its output.

use crate::stream::pick::TlpPick;
use crate::stream::{TlpSink, TlpSource};
use rust_hdl::prelude::*;

/// The outbound multiplexer.
#[derive(LogicBlock, Default)]
pub struct OutboundMux {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: between packets, reads first.
    pub reset: Signal<In, Bit>,
    /// Upstream: the DMA's reads.
    pub from_rd: TlpSink,
    /// Upstream: the DMA's writes for the crossbar.
    pub from_wr: TlpSink,
    /// Downstream: into the crossbar.
    pub to_xbar: TlpSource,
    /// Inside a packet of source `cur`.
    locked: DFF<Bit>,
    /// The packet in progress is a write (else a read).
    cur: DFF<Bit>,
    /// The last packet sent was a write (reads go next when both wait).
    last: DFF<Bit>,
    /// The write stream goes next, between packets.
    pick_wr: Signal<Local, Bit>,
    /// The write stream drives the crossbar input this cycle.
    src_wr: Signal<Local, Bit>,
    /// A beat went into the crossbar this cycle.
    moved: Signal<Local, Bit>,
    /// The stream shown.
    pick: TlpPick,
}

impl Logic for OutboundMux {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, locked, cur, last);
        self.pick_wr.next = self.from_wr.valid.val();
        if self.last.q.val() {
            self.pick_wr.next = !self.from_rd.valid.val();
        }
        self.src_wr.next = self.pick_wr.val();
        if self.locked.q.val() {
            self.src_wr.next = self.cur.q.val();
        }
        self.pick.pick_b.next = self.src_wr.val();
        TlpSink::link(&mut self.from_rd, &mut self.pick.a);
        TlpSink::link(&mut self.from_wr, &mut self.pick.b);
        TlpSource::link(&mut self.to_xbar, &mut self.pick.out);
        self.moved.next = self.to_xbar.valid.val() && self.to_xbar.ready.val();
        if self.moved.val() {
            self.cur.d.next = self.src_wr.val();
            self.locked.d.next = !self.to_xbar.eop.val();
            if self.to_xbar.eop.val() {
                self.last.d.next = self.src_wr.val();
            }
        }
        if self.reset.val() {
            self.locked.d.next = false;
            self.cur.d.next = false;
            self.last.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Lcg, Stepper, StreamDriver, StreamMonitor};
    use crate::internal::mux_tests::{assert_alternate, dma_packet, id_of};
    use std::collections::VecDeque;

    /// Random reads and writes under random idle and backpressure: every packet reaches
    /// the crossbar whole, each stream's in order; with both streams always offering,
    /// reads and writes alternate.
    #[test]
    fn reads_and_writes_take_turns_by_packet() {
        for (seed, p_valid, p_ready) in [(1, 0.8, 0.7), (2, 1.0, 1.0), (3, 0.4, 0.3), (4, 1.0, 0.5)]
        {
            let mut rng = Lcg(seed);
            let mut s = Stepper::new(OutboundMux::default(), |u| &mut u.clock);
            s.uut.reset.next = true;
            s.tick();
            s.uut.reset.next = false;
            let mut rd = StreamDriver::new(p_valid, seed + 10);
            let mut wr = StreamDriver::new(p_valid, seed + 20);
            let mut xbar = StreamMonitor::new(p_ready, seed + 30);
            let (mut want_rd, mut want_wr) = (VecDeque::new(), VecDeque::new());
            for id in 0..300u32 {
                let p = dma_packet(
                    2 * id,
                    rng.below(4) as u8,
                    3 + rng.below(2) as usize,
                    &mut rng,
                );
                rd.push(p.iter().copied());
                want_rd.push_back(p);
                let p = dma_packet(
                    2 * id + 1,
                    rng.below(4) as u8,
                    3 + rng.below(68) as usize,
                    &mut rng,
                );
                wr.push(p.iter().copied());
                want_wr.push_back(p);
            }
            // Per packet taken: a write, and whether the other stream still had one.
            let mut ends: Vec<(bool, bool)> = Vec::new();
            let total = want_rd.len() + want_wr.len();
            let mut got = 0;
            while got < total {
                assert!(s.cycle < 60_000, "seed {seed}: stalled at {got} of {total}");
                let u = &mut s.uut;
                rd.drive(&mut u.from_rd);
                wr.drive(&mut u.from_wr);
                xbar.drive(&mut u.to_xbar);
                s.settle();
                let u = &s.uut;
                if rd.sample(&u.from_rd).is_some_and(|b| b.eop) {
                    ends.push((false, wr.pending() > 0));
                }
                if wr.sample(&u.from_wr).is_some_and(|b| b.eop) {
                    ends.push((true, rd.pending() > 0));
                }
                xbar.sample(&u.to_xbar);
                s.tick();
                while let Some(p) = xbar.packets.pop_front() {
                    let q = if want_rd.front().is_some_and(|w| id_of(w) == id_of(&p)) {
                        &mut want_rd
                    } else {
                        &mut want_wr
                    };
                    assert_eq!(Some(p), q.pop_front(), "seed {seed}: packet out of order");
                    got += 1;
                }
            }
            if p_valid == 1.0 {
                assert_alternate(&ends, seed);
            }
        }
    }

    #[test]
    fn outbound_mux_verilog_lints_clean() {
        let mut uut = OutboundMux::default();
        let v = crate::verilog::export::block_verilog(&mut uut, "outbound_mux");
        crate::verilog::checks::lint_verilog(&v, "outbound_mux").unwrap();
    }
}
