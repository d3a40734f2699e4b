//! A port's RX framing check: the DWs the packet in progress still owes (from its
//! header's length field) and whether each beat breaks its packet's framing. A `sop`
//! beat is bad when its own checks failed (a malformed header, a misframed beat, a
//! payload over Max_Payload_Size); any other beat when no packet is in progress, when it
//! carries more DWs than the packet still owes, or when it ends the packet owing some.
//! [`super::rx_route::RxRoute`] steers and drops by it.

use rust_hdl::prelude::*;

/// The DWs owed and the framing verdict of one port's RX stage.
#[derive(LogicBlock, Default)]
pub struct RxFraming {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: nothing owed.
    pub reset: Signal<In, Bit>,
    /// The beat moves on this cycle: it counts.
    pub take: Signal<In, Bit>,
    /// The beat is its packet's first.
    pub sop: Signal<In, Bit>,
    /// The beat is its packet's last.
    pub eop: Signal<In, Bit>,
    /// DWs in the beat (1..=4).
    pub beat_dws: Signal<In, Bits<3>>,
    /// On a `sop` beat: the packet's DWs, header and payload, from its header.
    pub total_dws: Signal<In, Bits<12>>,
    /// On a `sop` beat: the header's own checks failed.
    pub header_bad: Signal<In, Bit>,
    /// No packet is in progress.
    pub idle: Signal<In, Bit>,
    /// The packet in progress was cut short (link down): nothing is owed after it.
    pub cut: Signal<In, Bit>,
    /// The beat breaks its packet's framing.
    pub bad: Signal<Out, Bit>,
    /// DWs the packet in progress still owes.
    dws_left: DFF<Bits<12>>,
    /// `dws_left` up to 7 (7 for more): all a beat of at most 4 DWs is compared with, so
    /// the check waits on no 12-bit compare.
    left_small: DFF<Bits<3>>,
    /// `beat_dws` in `dws_left`'s width.
    beat_wide: Signal<Local, Bits<12>>,
}

impl Logic for RxFraming {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, dws_left, left_small);
        self.beat_wide.next = bit_cast::<12, 3>(self.beat_dws.val());
        self.bad.next = self.header_bad.val();
        if !self.sop.val() {
            self.bad.next = self.idle.val()
                || (bit_cast::<12, 3>(self.left_small.q.val()) < self.beat_wide.val())
                || (self.eop.val()
                    && (bit_cast::<12, 3>(self.left_small.q.val()) != self.beat_wide.val()));
        }
        if self.take.val() {
            if self.sop.val() {
                self.dws_left.d.next = self.total_dws.val() - self.beat_wide.val();
            } else {
                self.dws_left.d.next = self.dws_left.q.val() - self.beat_wide.val();
            }
        }
        if self.cut.val() {
            self.dws_left.d.next = 0.into();
        }
        self.left_small.d.next = 7.into();
        if self.dws_left.d.val() < 7 {
            self.left_small.d.next = self.dws_left.d.val().get_bits::<3>(0);
        }
        if self.reset.val() {
            self.dws_left.d.next = 0.into();
            self.left_small.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Lcg, Stepper};

    /// Random beats (well framed, short, long, stray), cuts and resets against the rule
    /// written plainly: a `sop` beat is as bad as its header says and starts owing its
    /// total less itself; any other is bad with nothing in progress, with more DWs than
    /// owed, or ending the packet owing some; a cut or a reset owes nothing.
    #[test]
    fn every_beat_is_judged_against_what_its_packet_owes() {
        let mut s = Stepper::new(RxFraming::default(), |u| &mut u.clock);
        let mut rng = Lcg(0xF4A);
        let mut owed: u64 = 0;
        let (mut bads, mut goods, mut ends) = (0, 0, 0);
        for cycle in 0..40_000 {
            let reset = cycle == 0 || rng.chance(0.002);
            let sop = rng.chance(0.15);
            let beat = 1 + rng.below(4);
            // Mostly the right ends, sometimes early or late ones.
            let eop = if rng.chance(0.9) {
                !sop && owed == beat
            } else {
                rng.chance(0.5)
            };
            let total = if rng.chance(0.5) {
                3 + rng.below(8)
            } else {
                rng.below(1 << 12)
            };
            let (header_bad, idle, take, cut) = (
                rng.chance(0.1),
                owed == 0 && rng.chance(0.9),
                rng.chance(0.8),
                rng.chance(0.01),
            );
            let u = &mut s.uut;
            u.reset.next = reset;
            u.sop.next = sop;
            u.eop.next = eop;
            u.beat_dws.next = beat.into();
            u.total_dws.next = total.into();
            u.header_bad.next = header_bad;
            u.idle.next = idle;
            u.take.next = take;
            u.cut.next = cut;
            s.settle();
            let bad = if sop {
                header_bad
            } else {
                idle || owed.min(7) < beat || (eop && owed.min(7) != beat)
            };
            assert_eq!(
                s.uut.bad.val(),
                bad,
                "cycle {cycle}: owed {owed}, beat {beat}"
            );
            bads += usize::from(bad && !sop);
            goods += usize::from(!bad && !sop);
            ends += usize::from(!bad && !sop && eop);
            if take {
                owed = if sop {
                    total.wrapping_sub(beat)
                } else {
                    owed.wrapping_sub(beat)
                } & 0xFFF;
            }
            if cut || reset {
                owed = 0;
            }
            s.tick();
        }
        assert!(
            bads > 1_000 && goods > 1_000 && ends > 300,
            "{bads} bad, {goods} good, {ends} good ends"
        );
    }

    #[test]
    fn rx_framing_verilog_lints_clean() {
        let mut uut = RxFraming::default();
        let v = crate::verilog::export::block_verilog(&mut uut, "rx_framing");
        crate::verilog::checks::lint_verilog(&v, "rx_framing").unwrap();
    }
}
