//! The link controller's TX: the config space's answers go before the bring-up engine's
//! requests (completions may pass requests), and a beat that was presented and not taken
//! stays selected until it is taken, so `tx` never withdraws or changes a beat on offer.
//! A reset (the port's, or link down) unlocks the choice; the halves behind it withdraw
//! their beats themselves.

use crate::stream::pick::TlpPick;
use crate::stream::{TlpSink, TlpSource};
use rust_hdl::prelude::*;

/// The choice between the answers and the requests.
#[derive(LogicBlock, Default)]
pub struct LinkTx {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high (the port's reset, or link down).
    pub reset: Signal<In, Bit>,
    /// Upstream: the config space's answers.
    pub answers: TlpSink,
    /// Upstream: the bring-up engine's requests.
    pub requests: TlpSink,
    /// Downstream: the port's TX.
    pub tx: TlpSource,
    /// A beat was shown and not taken; its source stays selected...
    locked: DFF<Bit>,
    /// ...and it was a request.
    locked_rc: DFF<Bit>,
    /// The request is shown (else the answer).
    sel_rc: Signal<Local, Bit>,
    /// The stream shown.
    pick: TlpPick,
}

impl Logic for LinkTx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, locked, locked_rc);
        self.sel_rc.next = !self.answers.valid.val();
        if self.locked.q.val() {
            self.sel_rc.next = self.locked_rc.q.val();
        }
        self.pick.pick_b.next = self.sel_rc.val();
        TlpSink::link(&mut self.answers, &mut self.pick.a);
        TlpSink::link(&mut self.requests, &mut self.pick.b);
        TlpSource::link(&mut self.tx, &mut self.pick.out);
        self.locked.d.next = self.tx.valid.val() && !self.tx.ready.val();
        self.locked_rc.d.next = self.sel_rc.val();
        if self.reset.val() {
            self.locked.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{packet_beats, Lcg, Stepper, StreamDriver, StreamMonitor, TestBeat};
    use std::collections::VecDeque;

    /// One-beat answers and requests at random under random backpressure: each stream's
    /// beats leave once and in order; a beat shown and not taken is shown again the next
    /// cycle; with both waiting at a free choice, the answer goes first.
    #[test]
    fn answers_first_and_a_shown_beat_stays() {
        for (seed, p_valid, p_ready) in [(1, 0.6, 0.5), (2, 1.0, 0.3), (3, 0.3, 0.9)] {
            let mut rng = Lcg(seed);
            let mut s = Stepper::new(LinkTx::default(), |u| &mut u.clock);
            let mut answers = StreamDriver::new(p_valid, seed + 10);
            let mut requests = StreamDriver::new(p_valid, seed + 20);
            let mut tx = StreamMonitor::new(p_ready, seed + 30);
            let (mut want_a, mut want_r): (VecDeque<Vec<TestBeat>>, VecDeque<Vec<TestBeat>>) =
                (VecDeque::new(), VecDeque::new());
            for id in 0..500u32 {
                let a = packet_beats(
                    &[0x4A00_0001, 2 * id, 0, rng.next_u64() as u32],
                    0,
                    0,
                    false,
                );
                answers.push(a.iter().copied());
                want_a.push_back(a);
                let r = packet_beats(
                    &[0x0400_0001, 2 * id + 1, rng.next_u64() as u32],
                    0,
                    0,
                    false,
                );
                requests.push(r.iter().copied());
                want_r.push_back(r);
            }
            let mut shown: Option<u128> = None;
            let (mut held, mut firsts) = (0, 0);
            while !(want_a.is_empty() && want_r.is_empty()) {
                assert!(s.cycle < 20_000, "seed {seed}: stalled");
                let u = &mut s.uut;
                u.reset.next = s.cycle == 0;
                answers.drive(&mut u.answers);
                requests.drive(&mut u.requests);
                tx.drive(&mut u.tx);
                s.settle();
                let u = &s.uut;
                let locked = shown.is_some();
                if let Some(data) = shown.take() {
                    assert!(u.tx.valid.val(), "seed {seed}: a shown beat was withdrawn");
                    assert_eq!(u.tx.data.val().to_u128(), data, "seed {seed}: it changed");
                    held += 1;
                }
                if !locked && u.answers.valid.val() && u.requests.valid.val() {
                    assert_eq!(
                        u.tx.data.val(),
                        u.answers.data.val(),
                        "seed {seed}: the answer goes first"
                    );
                    firsts += 1;
                }
                answers.sample(&u.answers);
                requests.sample(&u.requests);
                if u.tx.valid.val() && !u.tx.ready.val() {
                    shown = Some(u.tx.data.val().to_u128());
                }
                tx.sample(&u.tx);
                s.tick();
                while let Some(p) = tx.packets.pop_front() {
                    let q = if p[0].data as u32 >> 24 == 0x4A {
                        &mut want_a
                    } else {
                        &mut want_r
                    };
                    assert_eq!(Some(p), q.pop_front(), "seed {seed}: out of order");
                }
            }
            assert!(
                held > 100 && firsts > 20,
                "seed {seed}: {held} held, {firsts} firsts"
            );
        }
    }

    #[test]
    fn link_tx_verilog_lints_clean() {
        let mut uut = LinkTx::default();
        let v = crate::verilog::export::block_verilog(&mut uut, "link_tx");
        crate::verilog::checks::lint_verilog(&v, "link_tx").unwrap();
    }
}
