//! One crossbar output's round-robin arbiter over the inputs, one-hot. It keeps `above`,
//! the inputs above the one whose grant the output took last: their requests come first,
//! lowest index first; without any, the search wraps to input 0. `above` moves only when
//! the output takes a fresh grant's first beat (`taken`), so a grant the output cannot
//! accept yet is offered again, and with every input asking the grants go 0, 1, 2, ...
//! The choice itself is the chip's one round-robin rule ([`RoundRobinChoice`]).

use super::crossbar::INPUTS;
use crate::round_robin::RoundRobinChoice;
use rust_hdl::prelude::*;

/// The arbiter of one output.
#[derive(LogicBlock, Default)]
pub struct OutputArbiter {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: `above` is cleared (input 0 comes first).
    pub reset: Signal<In, Bit>,
    /// One-hot inputs asking for the output.
    pub request: Signal<In, Bits<INPUTS>>,
    /// The output takes `grant`'s first beat this cycle.
    pub taken: Signal<In, Bit>,
    /// One-hot winner (zero without a request).
    pub grant: Signal<Out, Bits<INPUTS>>,
    /// Per input: it would win if it asked, whatever it asks now (from the other
    /// inputs' requests and `above`); `grant` is `request & wins`. The crossbar answers an
    /// input's head beat from this and the input's own destination, so that its `ready`
    /// does not wait for that destination's way through the whole choice.
    pub wins: Signal<Out, Bits<INPUTS>>,
    /// The rule.
    choice: RoundRobinChoice<INPUTS>,
    /// The inputs above the one whose grant was taken last; zero after reset. A register
    /// itself rather than made from the one-hot grant taken last, so that the choice does
    /// not wait for the ORs below.
    above: DFF<Bits<INPUTS>>,
    /// The inputs above this cycle's grant: bit i is the OR of the grant's bits below i.
    above_grant: Signal<Local, Bits<INPUTS>>,
    /// Running OR of the loop below: a lower bit of the grant was set.
    seen: Signal<Local, Bit>,
}

impl Logic for OutputArbiter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, above);
        self.choice.request.next = self.request.val();
        self.choice.after.next = self.above.q.val();
        self.grant.next = self.choice.grant.val();
        self.wins.next = self.choice.wins.val();
        // Prefix ORs rather than `grant - 1`: no carry chain.
        self.above_grant.next = 0.into();
        self.seen.next = false;
        for i in 0..INPUTS {
            self.above_grant.next = self.above_grant.val().replace_bit(i, self.seen.val());
            self.seen.next = self.seen.val() || self.choice.grant.val().get_bit(i);
        }
        if self.taken.val() {
            self.above.d.next = self.above_grant.val();
        }
        if self.reset.val() {
            self.above.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Lcg, Stepper};
    use crate::round_robin::{granted, winners};

    /// Random requests, taken at random, against the rule written plainly: the lowest
    /// requesting input above the last taken, else the lowest; `last` moves only when
    /// taken, and a reset clears it; each input's `wins` is whether it would be granted,
    /// asking too.
    #[test]
    fn grants_rotate_above_the_last_taken() {
        let mut s = Stepper::new(OutputArbiter::default(), |u| &mut u.clock);
        let mut rng = Lcg(0xA4B);
        let mut last: Option<usize> = None;
        let mut wrapped = 0;
        for cycle in 0..20_000 {
            let request = rng.below(1 << INPUTS);
            let (taken, reset) = (rng.chance(0.5), rng.chance(0.01) || cycle == 0);
            let u = &mut s.uut;
            u.request.next = request.into();
            u.taken.next = taken;
            u.reset.next = reset;
            s.settle();
            let from = last.map_or(0, |l| l + 1);
            let above = (from..INPUTS).find(|&i| request >> i & 1 == 1);
            let winner = granted(INPUTS, request, last);
            wrapped += usize::from(above.is_none() && winner.is_some() && from > 0);
            assert_eq!(
                s.uut.grant.val().to_u64(),
                winner.map_or(0, |w| 1 << w),
                "cycle {cycle}: requests {request:#b}, last {last:?}"
            );
            assert_eq!(
                s.uut.wins.val().to_u64(),
                winners(INPUTS, request, last),
                "cycle {cycle}: wins"
            );
            if taken {
                last = winner;
            }
            if reset {
                last = None;
            }
            s.tick();
        }
        assert!(wrapped > 1_000, "{wrapped} wraps");
    }

    #[test]
    fn arbiter_verilog_lints_clean() {
        let mut uut = OutputArbiter::default();
        let v = crate::verilog::export::block_verilog(&mut uut, "xbar_arbiter");
        crate::verilog::checks::lint_verilog(&v, "xbar_arbiter").unwrap();
    }
}
