//! Which of a completion beat's four DW lanes carry payload: lane l is DW `bidx + l` of
//! the packet, header DWs included, and payload when `3 <= bidx + l < 3 + payload DWs`
//! (a completion's header is 3 DWs). Combinational; the intake registers the answer with
//! the beat, so the lanes' placement a cycle later waits for no compare.

use rust_hdl::prelude::*;

/// The payload lanes of one beat.
#[derive(LogicBlock, Default)]
pub struct PayloadLanes {
    /// Index of the beat's lane 0 in the packet, in DWs (header DWs included).
    pub bidx: Signal<In, Bits<11>>,
    /// Payload DWs of the completion.
    pub plen: Signal<In, Bits<11>>,
    /// Per lane: it carries a payload DW.
    pub payload: Signal<Out, Bits<4>>,
    /// Per lane: its DW index in the packet.
    lane_idx: [Signal<Local, Bits<11>>; 4],
    /// The packet's DW index one past its payload.
    past_end: Signal<Local, Bits<11>>,
    /// `payload`, built lane by lane.
    lanes: Signal<Local, Bits<4>>,
}

impl Logic for PayloadLanes {
    #[hdl_gen]
    fn update(&mut self) {
        self.lane_idx[0].next = self.bidx.val();
        self.lane_idx[1].next = self.bidx.val() + 1;
        self.lane_idx[2].next = self.bidx.val() + 2;
        self.lane_idx[3].next = self.bidx.val() + 3;
        self.past_end.next = self.plen.val() + 3;
        self.lanes.next = 0.into();
        for l in 0..4 {
            if (self.lane_idx[l].val() >= 3) && (self.lane_idx[l].val() < self.past_end.val()) {
                self.lanes.next = self.lanes.val().replace_bit(l, true);
            }
        }
        self.payload.next = self.lanes.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::Lcg;
    use crate::verilog::checks::lint_verilog;
    use crate::verilog::export::block_verilog;

    /// Beats of completions of lengths up to 1024 DWs, against the rule.
    #[test]
    fn lanes_past_the_header_and_before_the_end_carry_payload() {
        let mut uut = PayloadLanes::default();
        uut.connect_all();
        let mut rng = Lcg(0x9A7);
        let mut seen = [0usize; 16];
        for _ in 0..3_000 {
            // Short completions half the time, so that last beats come up often.
            let most = if rng.chance(0.5) { 16 } else { 1024 };
            let plen = 1 + rng.below(most);
            let bidx = 4 * rng.below(plen.div_ceil(4) + 1);
            uut.bidx.next = bidx.into();
            uut.plen.next = plen.into();
            assert!(simulate(&mut uut, 100), "settles");
            let want: u64 = (0..4)
                .filter(|l| (3..plen + 3).contains(&(bidx + l)))
                .map(|l| 1 << l)
                .sum();
            assert_eq!(uut.payload.val().to_u64(), want, "bidx {bidx}, {plen} DWs");
            seen[want as usize] += 1;
        }
        // The header beat (lane 3 only), whole payload beats, last beats of each length
        // and beats past the end all come up.
        for lanes in [0b1000, 0b1111, 0b0001, 0b0011, 0b0111, 0] {
            assert!(seen[lanes] > 20, "{lanes:#06b}: {seen:?}");
        }
    }

    #[test]
    fn payload_lanes_lint_clean() {
        let mut uut = PayloadLanes::default();
        lint_verilog(
            &block_verilog(&mut uut, "dma_payload_lanes"),
            "dma_payload_lanes",
        )
        .unwrap();
    }
}
