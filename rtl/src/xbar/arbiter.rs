//! One crossbar output's round-robin arbiter over the inputs, one-hot. It keeps `last`,
//! the input whose grant the output took last: requests from inputs above it come first,
//! lowest index first; without any, the search wraps to input 0. `last` moves only when
//! the output takes a fresh grant's first beat (`taken`), so a grant the output cannot
//! accept yet is offered again, and with every input asking the grants go 0, 1, 2, ...

use super::crossbar::INPUTS;
use rust_hdl::prelude::*;

/// The arbiter of one output.
#[derive(LogicBlock)]
pub struct OutputArbiter {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: `last` is cleared (input 0 comes first).
    pub reset: Signal<In, Bit>,
    /// One-hot inputs asking for the output.
    pub request: Signal<In, Bits<INPUTS>>,
    /// The output takes `grant`'s first beat this cycle.
    pub taken: Signal<In, Bit>,
    /// One-hot winner (zero without a request).
    pub grant: Signal<Out, Bits<INPUTS>>,
    /// Per input: it would win if it asked, whatever it asks now (from the other
    /// inputs' requests and `last`); `grant` is `request & wins`. The crossbar answers an
    /// input's head beat from this and the input's own destination, so that its `ready`
    /// does not wait for that destination's way through the whole choice.
    pub wins: Signal<Out, Bits<INPUTS>>,
    /// One-hot input whose grant was taken last; zero after reset.
    last: DFF<Bits<INPUTS>>,
    /// Inputs above `last`: bit i is the OR of `last`'s bits below i.
    above: Signal<Local, Bits<INPUTS>>,
    /// Requests from inputs above `last`.
    after_last: Signal<Local, Bits<INPUTS>>,
    /// The requests the grant is made from: `after_last`, or all when it is empty.
    cand: Signal<Local, Bits<INPUTS>>,
    /// Running ORs of the loops below: a lower bit of `last` / of `cand` was set.
    seen: Signal<Local, Bit>,
    found: Signal<Local, Bit>,
    /// Per input i: the inputs below it.
    below: [Constant<Bits<INPUTS>>; INPUTS],
}

impl Default for OutputArbiter {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            request: Default::default(),
            taken: Default::default(),
            grant: Default::default(),
            wins: Default::default(),
            last: Default::default(),
            above: Default::default(),
            after_last: Default::default(),
            cand: Default::default(),
            seen: Default::default(),
            found: Default::default(),
            below: array_init::array_init(|i| Constant::new(((1u64 << i) - 1).into())),
        }
    }
}

impl Logic for OutputArbiter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, last);
        // Prefix ORs rather than `x & (!x + 1)` and `last - 1`: no carry chain between
        // the requests and the grant, so the LUT mapping merges the whole choice with the
        // requests' decode in front of it.
        self.above.next = 0.into();
        self.seen.next = false;
        for i in 0..INPUTS {
            self.above.next = self.above.val().replace_bit(i, self.seen.val());
            self.seen.next = self.seen.val() || self.last.q.val().get_bit(i);
        }
        self.after_last.next = self.request.val() & self.above.val();
        self.cand.next = self.request.val();
        if self.after_last.val().any() {
            self.cand.next = self.after_last.val();
        }
        // The lowest set bit of `cand`. It equals `request & wins`, but written so the
        // core's timing estimate measured worst 9 levels, and 10 as `request & wins`.
        self.grant.next = 0.into();
        self.found.next = false;
        for i in 0..INPUTS {
            if self.cand.val().get_bit(i) && !self.found.val() {
                self.grant.next = self.grant.val().replace_bit(i, true);
            }
            self.found.next = self.found.val() || self.cand.val().get_bit(i);
        }
        // Input i above `last` wins unless a lower input above `last` asks; below or at
        // `last` (never in `after_last`), unless any input above `last` or any lower
        // input asks.
        self.wins.next = 0.into();
        for i in 0..INPUTS {
            if self.above.val().get_bit(i) {
                if !(self.after_last.val() & self.below[i].val()).any() {
                    self.wins.next = self.wins.val().replace_bit(i, true);
                }
            } else if !self.after_last.val().any()
                && !(self.request.val() & self.below[i].val()).any()
            {
                self.wins.next = self.wins.val().replace_bit(i, true);
            }
        }
        if self.taken.val() {
            self.last.d.next = self.grant.val();
        }
        if self.reset.val() {
            self.last.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Lcg, Stepper};

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
            let winner = above.or_else(|| (0..INPUTS).find(|&i| request >> i & 1 == 1));
            wrapped += usize::from(above.is_none() && winner.is_some() && from > 0);
            assert_eq!(
                s.uut.grant.val().to_u64(),
                winner.map_or(0, |w| 1 << w),
                "cycle {cycle}: requests {request:#b}, last {last:?}"
            );
            // Would input i win, asking too?
            let wins: u64 = (0..INPUTS)
                .filter(|&i| {
                    let r = request | 1 << i;
                    let above = (from..INPUTS).find(|&k| r >> k & 1 == 1);
                    above.or_else(|| (0..INPUTS).find(|&k| r >> k & 1 == 1)) == Some(i)
                })
                .map(|i| 1 << i)
                .sum();
            assert_eq!(s.uut.wins.val().to_u64(), wins, "cycle {cycle}: wins");
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
