//! The internal port's inbound side: what the crossbar delivers, and the DMA's writes to
//! the internal port itself (the loop, from [`super::loop_split::LoopSplit`]), to the
//! completer or the DMA.
//!
//! A completion (Cpl/CplD) from the crossbar whose tag is in the DMA's range (tag bits
//! 7:6 = 0: `peach2_regmap::dma::tags::DMA_RANGE_END`) goes to the DMA; everything else
//! (CSR requests, UR cases, completions for nobody) goes to the completer. The choice is
//! made on the `sop` beat and held for the packet. The completer's two inputs, the
//! crossbar and the loop, take turns between packets when both wait; a packet is never
//! interleaved, and a beat on offer stays on offer until taken: the completer latches a
//! write's header before taking it, so the choice is held from a beat's first offer.

use crate::stream::{TlpSink, TlpSource};
use peach2_regmap::dma::tags::DMA_RANGE_END;
use rust_hdl::prelude::*;

// The decode below: tag bits 7:6 clear.
const _: () = assert!(DMA_RANGE_END == 64);

/// The inbound multiplexer.
#[derive(LogicBlock, Default)]
pub struct InboundMux {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: between packets, the crossbar first.
    pub reset: Signal<In, Bit>,
    /// Upstream: what the crossbar delivers to the internal port.
    pub from_xbar: TlpSink,
    /// Upstream: the DMA's writes to the internal port.
    pub from_loop: TlpSink,
    /// Downstream: to the completer.
    pub to_completer: TlpSource,
    /// Downstream: completions for the DMA.
    pub to_dma: TlpSource,
    /// Inside a packet.
    in_pkt: DFF<Bit>,
    /// The packet goes to the DMA.
    in_dma: DFF<Bit>,
    /// The packet is the loop's.
    in_loop: DFF<Bit>,
    /// A first beat was on offer and not taken: the choice made for it holds.
    offered: DFF<Bit>,
    /// The loop goes first when both wait (they alternate).
    prefer_loop: DFF<Bit>,
    /// The packet from the crossbar is a completion with one of the DMA's tags, decided
    /// at its first beat and held in `in_dma` after (never while the loop's write goes to
    /// the completer).
    sel_dma: Signal<Local, Bit>,
    /// This packet comes in through the loop.
    use_loop: Signal<Local, Bit>,
    /// The choice is held: inside a packet, or its first beat on offer.
    held: Signal<Local, Bit>,
    /// The beat on offer (the crossbar's, or the loop's).
    in_valid: Signal<Local, Bit>,
    /// ... is taken this cycle by its reader.
    in_ready: Signal<Local, Bit>,
    /// ... is its packet's last.
    in_eop: Signal<Local, Bit>,
}

impl Logic for InboundMux {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, in_pkt, in_dma, in_loop, offered, prefer_loop);
        // The crossbar or the loop, chosen between packets.
        self.held.next = self.in_pkt.q.val() || self.offered.q.val();
        self.use_loop.next = self.in_loop.q.val();
        if !self.held.val() {
            self.use_loop.next = self.from_loop.valid.val()
                && (!self.from_xbar.valid.val() || self.prefer_loop.q.val());
        }
        self.sel_dma.next = self.in_dma.q.val();
        if !self.held.val() {
            self.sel_dma.next = (self.from_xbar.data.val().get_bits::<5>(24) == 0x0A)
                && !self.from_xbar.data.val().get_bit(29)
                && !self.from_xbar.data.val().get_bit(31)
                && (self.from_xbar.data.val().get_bits::<2>(78) == 0);
        }
        if self.use_loop.val() {
            self.sel_dma.next = false;
        }

        self.to_completer.data.next = self.from_xbar.data.val();
        self.to_completer.sop.next = self.from_xbar.sop.val();
        self.to_completer.eop.next = self.from_xbar.eop.val();
        self.to_completer.empty.next = self.from_xbar.empty.val();
        self.to_completer.dest.next = self.from_xbar.dest.val();
        self.to_completer.src.next = self.from_xbar.src.val();
        self.to_completer.unsupported.next = self.from_xbar.unsupported.val();
        self.in_valid.next = self.from_xbar.valid.val();
        self.in_eop.next = self.from_xbar.eop.val();
        if self.use_loop.val() {
            self.to_completer.data.next = self.from_loop.data.val();
            self.to_completer.sop.next = self.from_loop.sop.val();
            self.to_completer.eop.next = self.from_loop.eop.val();
            self.to_completer.empty.next = self.from_loop.empty.val();
            self.to_completer.dest.next = self.from_loop.dest.val();
            self.to_completer.src.next = self.from_loop.src.val();
            self.to_completer.unsupported.next = self.from_loop.unsupported.val();
            self.in_valid.next = self.from_loop.valid.val();
            self.in_eop.next = self.from_loop.eop.val();
        }
        self.to_completer.valid.next = self.in_valid.val() && !self.sel_dma.val();
        self.to_dma.data.next = self.from_xbar.data.val();
        self.to_dma.sop.next = self.from_xbar.sop.val();
        self.to_dma.eop.next = self.from_xbar.eop.val();
        self.to_dma.empty.next = self.from_xbar.empty.val();
        self.to_dma.dest.next = self.from_xbar.dest.val();
        self.to_dma.src.next = self.from_xbar.src.val();
        self.to_dma.unsupported.next = self.from_xbar.unsupported.val();
        self.to_dma.valid.next = self.from_xbar.valid.val() && self.sel_dma.val();

        self.from_xbar.ready.next = self.to_completer.ready.val();
        if self.sel_dma.val() {
            self.from_xbar.ready.next = self.to_dma.ready.val();
        }
        self.from_loop.ready.next = false;
        self.in_ready.next = self.from_xbar.ready.val();
        if self.use_loop.val() {
            self.from_xbar.ready.next = false;
            self.from_loop.ready.next = self.to_completer.ready.val();
            self.in_ready.next = self.to_completer.ready.val();
        }
        self.offered.d.next = false;
        if self.in_valid.val() {
            self.in_dma.d.next = self.sel_dma.val();
            self.in_loop.d.next = self.use_loop.val();
            self.offered.d.next = !self.in_ready.val() && !self.in_pkt.q.val();
        }
        if self.in_valid.val() && self.in_ready.val() {
            self.in_pkt.d.next = !self.in_eop.val();
            if self.in_eop.val() {
                self.prefer_loop.d.next = !self.use_loop.val();
            }
        }
        if self.reset.val() {
            self.in_pkt.d.next = false;
            self.in_dma.d.next = false;
            self.in_loop.d.next = false;
            self.offered.d.next = false;
            self.prefer_loop.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Lcg, Stepper, StreamDriver, StreamMonitor};
    use crate::internal::mux_tests::{assert_alternate, dma_packet, id_of, inbound, INTERNAL};
    use std::collections::VecDeque;

    /// Random deliveries from the crossbar and looped writes under random idle and
    /// backpressure: the DMA gets the completions with its tags, the completer the rest
    /// and the loop's writes, each packet whole and each input's in order, a beat on
    /// offer to the completer held until taken; with both inputs always offering, their
    /// packets alternate.
    #[test]
    fn packets_reach_their_reader_whole_and_inputs_alternate() {
        for (seed, p_valid, p_ready) in [(1, 0.8, 0.7), (2, 1.0, 1.0), (3, 0.4, 0.3), (4, 1.0, 0.5)]
        {
            let mut rng = Lcg(seed);
            let mut s = Stepper::new(InboundMux::default(), |u| &mut u.clock);
            s.uut.reset.next = true;
            s.tick();
            s.uut.reset.next = false;
            let mut xbar = StreamDriver::new(p_valid, seed + 10);
            let mut looped = StreamDriver::new(p_valid, seed + 20);
            let mut completer = StreamMonitor::new(p_ready, seed + 30);
            completer.holds = true;
            let mut dma = StreamMonitor::new(p_ready, seed + 40);
            dma.holds = true;
            let (mut want_dma, mut want_xbar, mut want_loop) =
                (VecDeque::new(), VecDeque::new(), VecDeque::new());
            for id in 0..300u32 {
                let (p, to_dma) = inbound(2 * id, &mut rng);
                xbar.push(p.iter().copied());
                if to_dma {
                    want_dma.push_back(p);
                } else {
                    want_xbar.push_back(p);
                }
                let p = dma_packet(2 * id + 1, INTERNAL, 3 + rng.below(40) as usize, &mut rng);
                looped.push(p.iter().copied());
                want_loop.push_back(p);
            }
            // Per packet taken: from the loop, and whether the other input still had one.
            let mut ends: Vec<(bool, bool)> = Vec::new();
            let total = want_dma.len() + want_xbar.len() + want_loop.len();
            let mut got = 0;
            while got < total {
                assert!(s.cycle < 60_000, "seed {seed}: stalled at {got} of {total}");
                let u = &mut s.uut;
                xbar.drive(&mut u.from_xbar);
                looped.drive(&mut u.from_loop);
                completer.drive(&mut u.to_completer);
                dma.drive(&mut u.to_dma);
                s.settle();
                let u = &s.uut;
                if xbar.sample(&u.from_xbar).is_some_and(|b| b.eop) {
                    ends.push((false, looped.pending() > 0));
                }
                if looped.sample(&u.from_loop).is_some_and(|b| b.eop) {
                    ends.push((true, xbar.pending() > 0));
                }
                completer.sample(&u.to_completer);
                dma.sample(&u.to_dma);
                s.tick();
                while let Some(p) = dma.packets.pop_front() {
                    assert_eq!(Some(p), want_dma.pop_front(), "seed {seed}: to the DMA");
                    got += 1;
                }
                while let Some(p) = completer.packets.pop_front() {
                    let q = if want_loop.front().is_some_and(|w| id_of(w) == id_of(&p)) {
                        &mut want_loop
                    } else {
                        &mut want_xbar
                    };
                    assert_eq!(Some(p), q.pop_front(), "seed {seed}: to the completer");
                    got += 1;
                }
            }
            if p_valid == 1.0 {
                assert_alternate(&ends, seed);
            }
        }
    }

    #[test]
    fn inbound_mux_verilog_lints_clean() {
        let mut uut = InboundMux::default();
        let v = crate::verilog::export::block_verilog(&mut uut, "inbound_mux");
        crate::verilog::checks::lint_verilog(&v, "inbound_mux").unwrap();
    }
}
