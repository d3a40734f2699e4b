//! A channel's count of the descriptors its chain has run (`COUNT`, and the notification
//! value's offset) and whether it has reached `DMA_CHAIN_LIMIT`.
//!
//! The limit check comes from registers: `count >= limit` and `count + 1 >= limit`, both
//! as of the cycle before, and whether the count stepped in that cycle, so the channel's
//! choice at `Next` waits on no 32-bit compare. It answers for the count of this cycle
//! and the limit of the cycle before, except in the cycle right after a restart, which
//! still answers for the count before it (the channel asks only at `Next`, after at least
//! a descriptor's fetch and check).

use rust_hdl::prelude::*;

/// The descriptor count of one channel and its limit check.
#[derive(LogicBlock, Default)]
pub struct ChainCount {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Pulse: a chain starts; the count goes to 0.
    pub restart: Signal<In, Bit>,
    /// Pulse: a descriptor is done; the count steps.
    pub step: Signal<In, Bit>,
    /// `DMA_CHAIN_LIMIT`.
    pub limit: Signal<In, Bits<32>>,
    /// Descriptors done since the start.
    pub count: Signal<Out, Bits<32>>,
    /// `count >= limit` (see the module's documentation for the cycle after a restart).
    pub limit_reached: Signal<Out, Bit>,
    /// The count.
    count_q: DFF<Bits<32>>,
    /// The count stepped in the cycle before.
    counted: DFF<Bit>,
    /// `count >= limit`, as of the cycle before.
    at_limit: DFF<Bit>,
    /// `count + 1 >= limit`, as of the cycle before.
    at_limit_after_one: DFF<Bit>,
    /// `count + 1`, kept beside the count so that the compare above waits on no adder.
    count_after_one: DFF<Bits<32>>,
    /// `count + 2`, what `count_after_one` steps to (a sum in its own width; see
    /// `verilog::widths`).
    count_after_two: Signal<Local, Bits<32>>,
}

impl Logic for ChainCount {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            count_q,
            counted,
            at_limit,
            at_limit_after_one,
            count_after_one
        );
        self.count.next = self.count_q.q.val();
        self.count_after_two.next = self.count_after_one.q.val() + 1;
        if self.restart.val() {
            self.count_q.d.next = 0.into();
            self.count_after_one.d.next = 1.into();
        }
        if self.step.val() {
            self.count_q.d.next = self.count_after_one.q.val();
            self.count_after_one.d.next = self.count_after_two.val();
        }
        self.counted.d.next = self.step.val();
        self.at_limit.d.next = self.count_q.q.val() >= self.limit.val();
        self.at_limit_after_one.d.next = self.count_after_one.q.val() >= self.limit.val();
        self.limit_reached.next = self.at_limit.q.val();
        if self.counted.q.val() {
            self.limit_reached.next = self.at_limit_after_one.q.val();
        }
        if self.reset.val() {
            self.count_q.d.next = 0.into();
            self.count_after_one.d.next = 1.into();
            self.counted.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Lcg, Stepper};
    use crate::verilog::checks::lint_verilog;
    use crate::verilog::export::block_verilog;

    /// Random restarts, steps, limits and resets against the rule: the count steps and
    /// restarts, and `limit_reached` is `count >= limit` with the limit of the cycle
    /// before (but in the cycle after a restart).
    #[test]
    fn counts_and_reaches_the_limit_as_the_rule_says() {
        let mut s = Stepper::new(ChainCount::default(), |b| &mut b.clock);
        let mut rng = Lcg(0xC4A1);
        let (mut count, mut last_limit, mut fresh) = (0u64, 0u64, true);
        let mut limit = 3u64;
        let (mut reached, mut not_reached) = (0, 0);
        for cycle in 0..20_000 {
            let reset = cycle == 0 || rng.chance(0.002);
            let restart = rng.chance(0.01);
            // Steps and restarts never come together: a channel that starts is stopped.
            let step = !restart && rng.chance(0.3);
            if rng.chance(0.01) {
                limit = if rng.chance(0.1) {
                    0xFFFF_FFF0 + rng.below(16)
                } else {
                    rng.below(12)
                };
            }
            let u = &mut s.uut;
            u.reset.next = reset;
            u.restart.next = restart;
            u.step.next = step;
            u.limit.next = limit.into();
            s.settle();
            let u = &s.uut;
            if cycle > 0 {
                assert_eq!(u.count.val().to_u64(), count, "cycle {cycle}: count");
            }
            if !fresh {
                let want = count >= last_limit;
                assert_eq!(u.limit_reached.val(), want, "cycle {cycle}: limit");
                reached += usize::from(want);
                not_reached += usize::from(!want);
            }
            fresh = reset || restart;
            count = if reset || restart {
                0
            } else {
                (count + u64::from(step)) & 0xFFFF_FFFF
            };
            last_limit = limit;
            s.tick();
        }
        assert!(
            reached > 2_000 && not_reached > 2_000,
            "{reached} / {not_reached}"
        );
    }

    #[test]
    fn chain_count_lint_clean() {
        let mut uut = ChainCount::default();
        lint_verilog(
            &block_verilog(&mut uut, "dma_chain_count"),
            "dma_chain_count",
        )
        .unwrap();
    }
}
