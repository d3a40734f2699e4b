//! One crossbar output's round-robin arbiter over the inputs, one-hot: who owns the
//! output next. The inputs above the output's owner come first, lowest index first;
//! without any asking, the search wraps to input 0 (the owner itself last). With every
//! input asking, ownership goes 0, 1, 2, ... The choice is the chip's one round-robin rule
//! ([`RoundRobinChoice`]), with the owner as the last grant: the owner is a register, so
//! the order waits on no logic. Combinational.

use super::crossbar::INPUTS;
use crate::round_robin::RoundRobinChoice;
use rust_hdl::prelude::*;

/// The arbiter of one output.
#[derive(LogicBlock, Default)]
pub struct OutputArbiter {
    /// One-hot inputs asking for the output.
    pub request: Signal<In, Bits<INPUTS>>,
    /// One-hot input that owns the output (zero after reset: input 0 comes first).
    pub owner: Signal<In, Bits<INPUTS>>,
    /// One-hot winner (zero without a request).
    pub grant: Signal<Out, Bits<INPUTS>>,
    /// The rule.
    choice: RoundRobinChoice<INPUTS>,
    /// The inputs above the owner: bit i is the OR of the owner's bits below i.
    above: Signal<Local, Bits<INPUTS>>,
    /// Running OR of the loop below: a lower bit of the owner was set.
    seen: Signal<Local, Bit>,
}

impl Logic for OutputArbiter {
    #[hdl_gen]
    fn update(&mut self) {
        // Prefix ORs rather than `owner - 1`: no carry chain.
        self.above.next = 0.into();
        self.seen.next = false;
        for i in 0..INPUTS {
            self.above.next = self.above.val().replace_bit(i, self.seen.val());
            self.seen.next = self.seen.val() || self.owner.val().get_bit(i);
        }
        self.choice.request.next = self.request.val();
        self.choice.after.next = self.above.val();
        self.grant.next = self.choice.grant.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::round_robin::granted;

    /// Every request vector from every owner (and none), against the rule written
    /// plainly: the lowest asking input above the owner, else the lowest asking.
    #[test]
    fn grants_the_next_asking_input_above_the_owner() {
        let mut uut = OutputArbiter::default();
        uut.connect_all();
        for owner in std::iter::once(None).chain((0..INPUTS).map(Some)) {
            for request in 0..1u64 << INPUTS {
                uut.request.next = request.into();
                uut.owner.next = owner.map_or(0, |o| 1u64 << o).into();
                assert!(simulate(&mut uut, 100), "settles");
                assert_eq!(
                    uut.grant.val().to_u64(),
                    granted(INPUTS, request, owner).map_or(0, |w| 1 << w),
                    "requests {request:#b}, owner {owner:?}"
                );
            }
        }
    }

    #[test]
    fn arbiter_verilog_lints_clean() {
        let mut uut = OutputArbiter::default();
        let v = crate::verilog::export::block_verilog(&mut uut, "xbar_arbiter");
        crate::verilog::checks::lint_verilog(&v, "xbar_arbiter").unwrap();
    }
}
