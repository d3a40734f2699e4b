//! A choice between two TLP streams, beat by beat: `out` shows `b` while `pick_b`, else
//! `a`, and only the stream shown sees `out`'s `ready`. Combinational; the block that
//! drives `pick_b` keeps packets whole and a shown beat shown (the internal port's
//! outbound mux, the link controller's TX).

use super::{TlpSink, TlpSource};
use rust_hdl::prelude::*;

/// Two TLP streams into one.
#[derive(LogicBlock, Default)]
pub struct TlpPick {
    /// Upstream: the stream shown while `pick_b` is low.
    pub a: TlpSink,
    /// Upstream: the stream shown while `pick_b` is high.
    pub b: TlpSink,
    /// Downstream: the stream shown.
    pub out: TlpSource,
    /// Show `b`.
    pub pick_b: Signal<In, Bit>,
}

impl Logic for TlpPick {
    #[hdl_gen]
    fn update(&mut self) {
        self.out.valid.next = self.a.valid.val();
        self.out.data.next = self.a.data.val();
        self.out.sop.next = self.a.sop.val();
        self.out.eop.next = self.a.eop.val();
        self.out.empty.next = self.a.empty.val();
        self.out.dest.next = self.a.dest.val();
        self.out.src.next = self.a.src.val();
        self.out.unsupported.next = self.a.unsupported.val();
        if self.pick_b.val() {
            self.out.valid.next = self.b.valid.val();
            self.out.data.next = self.b.data.val();
            self.out.sop.next = self.b.sop.val();
            self.out.eop.next = self.b.eop.val();
            self.out.empty.next = self.b.empty.val();
            self.out.dest.next = self.b.dest.val();
            self.out.src.next = self.b.src.val();
            self.out.unsupported.next = self.b.unsupported.val();
        }
        self.a.ready.next = self.out.ready.val() && !self.pick_b.val();
        self.b.ready.next = self.out.ready.val() && self.pick_b.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{packet_beats, Lcg, StreamDriver, StreamMonitor, TestBeat};
    use std::collections::VecDeque;

    /// Two streams of packets under random idle and backpressure, the choice switched at
    /// random between packets: each packet leaves whole and each stream's in order, and
    /// the stream not shown is never taken from.
    #[test]
    fn the_stream_shown_moves_and_the_other_waits() {
        for (seed, p_valid, p_ready) in [(1, 0.7, 0.6), (2, 1.0, 1.0), (3, 0.4, 0.3)] {
            let mut rng = Lcg(seed);
            let mut u = TlpPick::default();
            u.connect_all();
            let mut a = StreamDriver::new(p_valid, seed + 10);
            let mut b = StreamDriver::new(p_valid, seed + 20);
            let mut out = StreamMonitor::new(p_ready, seed + 30);
            let (mut want_a, mut want_b): (VecDeque<Vec<TestBeat>>, VecDeque<Vec<TestBeat>>) =
                (VecDeque::new(), VecDeque::new());
            for id in 0..300u32 {
                for (drv, want, k) in [(&mut a, &mut want_a, 0), (&mut b, &mut want_b, 1)] {
                    let len = 3 + rng.below(20) as usize;
                    let mut dws = vec![0x4000_0000 | len as u32, 2 * id + k];
                    dws.extend((2..len).map(|_| rng.next_u64() as u32));
                    let p = packet_beats(&dws, rng.below(5) as u8, 4, false);
                    drv.push(p.iter().copied());
                    want.push_back(p);
                }
            }
            let (mut pick_b, mut inside, mut switches) = (false, false, 0);
            for cycle in 0.. {
                if want_a.is_empty() && want_b.is_empty() {
                    break;
                }
                assert!(cycle < 40_000, "seed {seed}: stalled");
                // Switch only between packets, to a stream that has some left.
                if !inside && rng.chance(0.5) {
                    let next = if want_a.is_empty() {
                        true
                    } else if want_b.is_empty() {
                        false
                    } else {
                        rng.chance(0.5)
                    };
                    switches += usize::from(next != pick_b);
                    pick_b = next;
                }
                u.pick_b.next = pick_b;
                a.drive(&mut u.a);
                b.drive(&mut u.b);
                out.drive(&mut u.out);
                assert!(simulate(&mut u, 100), "settles");
                let (moved_a, moved_b) = (a.sample(&u.a), b.sample(&u.b));
                assert!(
                    moved_a.is_none() || !pick_b,
                    "seed {seed}: a moved while b shown"
                );
                assert!(
                    moved_b.is_none() || pick_b,
                    "seed {seed}: b moved while a shown"
                );
                if let Some(beat) = out.sample(&u.out) {
                    inside = !beat.eop;
                }
                while let Some(p) = out.packets.pop_front() {
                    let q = if p[0].data >> 32 & 1 == 1 {
                        &mut want_b
                    } else {
                        &mut want_a
                    };
                    assert_eq!(Some(p), q.pop_front(), "seed {seed}: packet out of order");
                }
            }
            assert!(switches > 100, "seed {seed}: {switches} switches");
        }
    }

    #[test]
    fn tlp_pick_verilog_lints_clean() {
        let mut uut = TlpPick::default();
        let v = crate::verilog::export::block_verilog(&mut uut, "tlp_pick");
        crate::verilog::checks::lint_verilog(&v, "tlp_pick").unwrap();
    }
}
