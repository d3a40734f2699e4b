//! The DMA's write stream, split by destination: a write to the internal port itself (a
//! notification into this chip's store) goes to the loop back to the completer
//! ([`super::inbound_mux::InboundMux`]); every other write goes on to the crossbar
//! ([`super::outbound_mux::OutboundMux`]). Every beat of the stream carries its packet's
//! `dest`, one of the endpoints 0..=4, so bit 2 alone names the internal port: one
//! register bit, where a compare on `sop` beats would cost the outbound choice a LUT
//! level. Combinational; the beat is offered on one side only, and `ready` is that side's.

use crate::stream::{TlpSink, TlpSource, NUM_ENDPOINTS, PORT_INTERNAL};
use rust_hdl::prelude::*;

// Bit 2 of an endpoint number names the internal port: it is the only endpoint with it.
const _: () = assert!(PORT_INTERNAL == 4 && NUM_ENDPOINTS == 5);

/// The split of the DMA's write stream.
#[derive(LogicBlock, Default)]
pub struct LoopSplit {
    /// Upstream: the DMA's writes, every beat with its packet's `dest` (0..=4).
    pub sink: TlpSink,
    /// Downstream: the writes to the internal port.
    pub looped: TlpSource,
    /// Downstream: every other write, for the crossbar.
    pub onward: TlpSource,
    /// The beat on offer is for the internal port.
    to_loop: Signal<Local, Bit>,
}

impl Logic for LoopSplit {
    #[hdl_gen]
    fn update(&mut self) {
        self.to_loop.next = self.sink.dest.val().get_bit(2);
        self.looped.data.next = self.sink.data.val();
        self.looped.sop.next = self.sink.sop.val();
        self.looped.eop.next = self.sink.eop.val();
        self.looped.empty.next = self.sink.empty.val();
        self.looped.dest.next = self.sink.dest.val();
        self.looped.src.next = self.sink.src.val();
        self.looped.unsupported.next = self.sink.unsupported.val();
        self.looped.valid.next = self.sink.valid.val() && self.to_loop.val();
        self.onward.data.next = self.sink.data.val();
        self.onward.sop.next = self.sink.sop.val();
        self.onward.eop.next = self.sink.eop.val();
        self.onward.empty.next = self.sink.empty.val();
        self.onward.dest.next = self.sink.dest.val();
        self.onward.src.next = self.sink.src.val();
        self.onward.unsupported.next = self.sink.unsupported.val();
        self.onward.valid.next = self.sink.valid.val() && !self.to_loop.val();
        self.sink.ready.next = self.onward.ready.val();
        if self.to_loop.val() {
            self.sink.ready.next = self.looped.ready.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{packet_beats, Lcg, StreamDriver, StreamMonitor, TestBeat};
    use std::collections::VecDeque;

    /// Random writes to every endpoint under random idle and backpressure on both sides:
    /// those to the internal port come out of `looped`, the others out of `onward`, each
    /// whole and in order.
    #[test]
    fn writes_to_the_internal_port_take_the_loop() {
        for (seed, p_valid, p_ready) in [(1, 0.8, 0.6), (2, 1.0, 1.0), (3, 0.5, 0.3)] {
            let mut rng = Lcg(seed);
            let mut u = LoopSplit::default();
            u.connect_all();
            let mut wr = StreamDriver::new(p_valid, seed + 10);
            let mut looped = StreamMonitor::new(p_ready, seed + 20);
            let mut onward = StreamMonitor::new(p_ready, seed + 30);
            let (mut want_loop, mut want_on) = (VecDeque::new(), VecDeque::new());
            for id in 0..400u32 {
                let dest = rng.below(5) as u8;
                let len = 3 + rng.below(40) as usize;
                let mut dws = vec![0x4000_0000 | len as u32, id, 0];
                dws.extend((3..len).map(|_| rng.next_u64() as u32));
                let p: Vec<TestBeat> = packet_beats(&dws, dest, 4, false);
                wr.push(p.iter().copied());
                if u64::from(dest) == PORT_INTERNAL {
                    want_loop.push_back(p);
                } else {
                    want_on.push_back(p);
                }
            }
            let (n_loop, n_on) = (want_loop.len(), want_on.len());
            for cycle in 0.. {
                if want_loop.is_empty() && want_on.is_empty() {
                    break;
                }
                assert!(cycle < 40_000, "seed {seed}: stalled");
                wr.drive(&mut u.sink);
                looped.drive(&mut u.looped);
                onward.drive(&mut u.onward);
                assert!(simulate(&mut u, 100), "settles");
                wr.sample(&u.sink);
                looped.sample(&u.looped);
                onward.sample(&u.onward);
                for (mon, want) in [(&mut looped, &mut want_loop), (&mut onward, &mut want_on)] {
                    while let Some(p) = mon.packets.pop_front() {
                        assert_eq!(Some(p), want.pop_front(), "seed {seed}");
                    }
                }
            }
            assert!(n_loop > 50 && n_on > 200, "{n_loop} looped, {n_on} onward");
        }
    }

    #[test]
    fn loop_split_verilog_lints_clean() {
        let mut uut = LoopSplit::default();
        let v = crate::verilog::export::block_verilog(&mut uut, "loop_split");
        crate::verilog::checks::lint_verilog(&v, "loop_split").unwrap();
    }
}
