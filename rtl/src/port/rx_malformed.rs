//! The RX stage's count of malformed TLPs: one pulse per malformed TLP, however many of
//! its beats are bad, and one for a packet cut short (by the next `sop` or by link down)
//! that was not counted already.
//!
//! The pulse comes a cycle after the beat that causes it: the beat's verdicts are
//! registered first, so the count's logic starts at registers, not at the end of the
//! framing checks and the stage's handshake (a statistic; nothing steers by it).

use rust_hdl::prelude::*;

/// One `malformed` pulse per malformed TLP of a port's RX stage.
#[derive(LogicBlock, Default)]
pub struct RxMalformed {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: nothing counted.
    pub reset: Signal<In, Bit>,
    /// The first register's beat moves on this cycle.
    pub take: Signal<In, Bit>,
    /// The beat is a packet's first.
    pub sop: Signal<In, Bit>,
    /// The beat is a packet's last.
    pub eop: Signal<In, Bit>,
    /// The beat breaks its packet's framing (or its header is malformed).
    pub bad: Signal<In, Bit>,
    /// A packet is in progress (its `sop` was taken, not yet its `eop`).
    pub in_packet: Signal<In, Bit>,
    /// Link down cuts the packet in progress short.
    pub cut: Signal<In, Bit>,
    /// Link down drops the beat waiting in the first register, a packet cut before it
    /// started here (not with `cut`).
    pub lost: Signal<In, Bit>,
    /// Pulse: a malformed TLP (a cycle after its beat).
    pub malformed: Signal<Out, Bit>,
    /// The packet in progress was counted malformed already.
    flagged: DFF<Bit>,
    /// `take`, registered.
    take_q: DFF<Bit>,
    /// `sop`, registered.
    sop_q: DFF<Bit>,
    /// `eop`, registered.
    eop_q: DFF<Bit>,
    /// `bad`, registered.
    bad_q: DFF<Bit>,
    /// `in_packet`, registered.
    in_packet_q: DFF<Bit>,
    /// `cut`, registered.
    cut_q: DFF<Bit>,
    /// `lost`, registered.
    lost_q: DFF<Bit>,
}

impl Logic for RxMalformed {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            flagged,
            take_q,
            sop_q,
            eop_q,
            bad_q,
            in_packet_q,
            cut_q,
            lost_q
        );
        self.take_q.d.next = self.take.val();
        self.sop_q.d.next = self.sop.val();
        self.eop_q.d.next = self.eop.val();
        self.bad_q.d.next = self.bad.val();
        self.in_packet_q.d.next = self.in_packet.val();
        self.cut_q.d.next = self.cut.val();
        self.lost_q.d.next = self.lost.val();
        self.malformed.next = false;
        if self.take_q.q.val() {
            if self.sop_q.q.val() {
                // A packet cut short by this sop counts too, unless it was counted.
                self.malformed.next =
                    self.bad_q.q.val() || (self.in_packet_q.q.val() && !self.flagged.q.val());
                self.flagged.d.next = self.bad_q.q.val();
            } else {
                self.malformed.next = self.bad_q.q.val() && !self.flagged.q.val();
                self.flagged.d.next = self.flagged.q.val() || self.bad_q.q.val();
            }
            if self.eop_q.q.val() {
                self.flagged.d.next = false;
            }
        }
        if self.cut_q.q.val() {
            self.malformed.next = !self.flagged.q.val();
            self.flagged.d.next = false;
        } else if self.lost_q.q.val() {
            self.malformed.next = true;
        }
        if self.reset.val() {
            self.flagged.d.next = false;
            self.take_q.d.next = false;
            self.cut_q.d.next = false;
            self.lost_q.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Lcg, Stepper};
    use crate::verilog::checks::lint_verilog;
    use crate::verilog::export::block_verilog;

    /// Random packets of 1 to 6 beats, any beat bad (several in some packets), some
    /// packets cut by the next `sop` or by link down, with random idle cycles: exactly
    /// one pulse per packet with a bad beat or cut short, none for a clean one, and one
    /// per lost beat, each by the cycle after the packet.
    #[test]
    fn counts_each_malformed_packet_once() {
        let mut s = Stepper::new(RxMalformed::default(), |b| &mut b.clock);
        let mut rng = Lcg(0x3A1F);
        let (mut pulses, mut want) = (0usize, 0usize);
        let mut kinds = [0usize; 4];
        s.uut.reset.next = true;
        s.settle();
        s.tick();
        s.uut.reset.next = false;
        for packet in 0..5_000 {
            let beats = 1 + rng.below(6) as usize;
            // Any beat may be bad, several in one packet.
            let bad: Vec<bool> = (0..beats).map(|_| rng.chance(0.25)).collect();
            // How the packet ends: whole, cut by the next sop, or cut by link down.
            let end = rng.below(4);
            let sent = if end == 0 || beats == 1 {
                beats
            } else {
                1 + rng.below(beats as u64 - 1) as usize
            };
            let short = sent < beats;
            let bad_sent = bad[..sent].iter().filter(|&&b| b).count();
            want += usize::from(bad_sent > 0 || short);
            kinds[usize::from(bad_sent > 1) * 2 + usize::from(short)] += 1;
            let mut k = 0;
            while k < sent {
                let take = rng.chance(0.7);
                let u = &mut s.uut;
                u.take.next = take;
                u.sop.next = k == 0;
                u.eop.next = k + 1 == beats;
                u.bad.next = bad[k];
                u.in_packet.next = k > 0;
                u.cut.next = false;
                u.lost.next = false;
                s.settle();
                pulses += usize::from(s.uut.malformed.val());
                s.tick();
                k += usize::from(take);
            }
            if short && end == 1 {
                // Link down with the packet in progress.
                let u = &mut s.uut;
                (u.take.next, u.cut.next, u.in_packet.next) = (false, true, true);
                s.settle();
                pulses += usize::from(s.uut.malformed.val());
                s.tick();
            } else if short {
                // The next packet's sop (a clean one-beat packet) cuts it.
                let u = &mut s.uut;
                (u.take.next, u.sop.next, u.eop.next, u.bad.next) = (true, true, true, false);
                (u.in_packet.next, u.cut.next) = (true, false);
                s.settle();
                pulses += usize::from(s.uut.malformed.val());
                s.tick();
            }
            if rng.chance(0.05) {
                // A beat lost on link down, between packets.
                let u = &mut s.uut;
                (u.take.next, u.cut.next, u.lost.next) = (false, false, true);
                s.settle();
                pulses += usize::from(s.uut.malformed.val());
                want += 1;
                s.tick();
                s.uut.lost.next = false;
            }
            // An idle cycle: the last beat's pulse, a cycle late.
            let u = &mut s.uut;
            (u.take.next, u.cut.next, u.lost.next) = (false, false, false);
            s.settle();
            pulses += usize::from(s.uut.malformed.val());
            s.tick();
            assert_eq!(
                pulses, want,
                "packet {packet}: {beats} beats, {sent} sent, bad {bad:?}"
            );
        }
        assert!(kinds.iter().all(|&n| n > 200), "{kinds:?}");
    }

    #[test]
    fn rx_malformed_lint_clean() {
        let mut uut = RxMalformed::default();
        lint_verilog(&block_verilog(&mut uut, "rx_malformed"), "rx_malformed").unwrap();
    }
}
