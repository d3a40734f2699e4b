//! The round-robin arbiter among `C` channels that the read requester and the write
//! generator each keep: the first requesting channel after the one granted last,
//! wrapping around (the chip's one rule, [`RoundRobinChoice`], with the channels after
//! the last grant kept as a register and the pick as a channel number).
//!
//! A channel's grant is its own request and its `wins` bit from the rule (whether it
//! would be picked if it asked, from the other channels' requests and the last grant),
//! so that it does not wait for the pick's encoding (the crossbar's arbiters answer
//! `ready` the same way).

use crate::round_robin::{RoundRobinChoice, RoundRobinWins};
use rust_hdl::prelude::*;

/// Grants one of `C` channels (`CB` bits of channel number) per cycle.
#[derive(LogicBlock)]
pub struct RoundRobin<const C: usize, const CB: usize> {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: the last grant counts as channel 0's (channel 1
    /// comes first).
    pub reset: Signal<In, Bit>,
    /// Requests, bit c for channel c.
    pub request: Signal<In, Bits<C>>,
    /// The requester can take a channel's request this cycle.
    pub enable: Signal<In, Bit>,
    /// Bit c: channel c is granted (one-hot; zero unless `take`).
    pub grant: Signal<Out, Bits<C>>,
    /// A channel is granted this cycle: `enable` and any request.
    pub take: Signal<Out, Bit>,
    /// The first requesting channel after the one granted last (wrapping): the granted
    /// channel when `take`.
    pub pick: Signal<Out, Bits<CB>>,
    /// The rule's grant.
    choice: RoundRobinChoice<C>,
    /// The rule's `wins` (not `wins`: Verilator's VARHIDDEN takes an instance of that
    /// name for a second declaration of the output inside it).
    winners: RoundRobinWins<C>,
    /// The channels after the one granted last (channel 0 never is); after reset, those
    /// after channel 0. A register itself rather than made from the last grant's
    /// number, so that the rule does not wait for the compares.
    after: DFF<Bits<C>>,
    /// `after`'s reset value: every channel but 0.
    after_reset: Constant<Bits<C>>,
    /// The channels after this cycle's winner: bit c is the OR of its grant's bits below c.
    after_grant: Signal<Local, Bits<C>>,
    /// Running OR of the loop below: a lower bit of the winner was set.
    seen: Signal<Local, Bit>,
    /// Channel numbers, as values.
    number: [Constant<Bits<CB>>; C],
}

impl<const C: usize, const CB: usize> RoundRobin<C, CB> {
    /// The arbiter; panics unless `C == 1 << CB` (a size error is a design error).
    pub fn new() -> Self {
        assert!(
            C == 1 << CB && C >= 2,
            "RoundRobin<{C}, {CB}>: C must be 1 << CB"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            request: Default::default(),
            enable: Default::default(),
            grant: Default::default(),
            take: Default::default(),
            pick: Default::default(),
            choice: RoundRobinChoice::new(),
            winners: RoundRobinWins::new(),
            after: Default::default(),
            after_reset: Constant::new((((1u64 << C) - 1) & !1).into()),
            after_grant: Default::default(),
            seen: Default::default(),
            number: array_init::array_init(|c| Constant::new((c as u64).into())),
        }
    }
}

impl<const C: usize, const CB: usize> Default for RoundRobin<C, CB> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const C: usize, const CB: usize> Logic for RoundRobin<C, CB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, after);
        self.choice.request.next = self.request.val();
        self.choice.after.next = self.after.q.val();
        self.winners.request.next = self.request.val();
        self.winners.after.next = self.after.q.val();
        // Bit by bit: written `request & wins` under `enable`, the same grants measured 9
        // levels on the channels' write grant (the mapping's choice), 8 this way.
        self.grant.next = 0.into();
        for c in 0..C {
            self.grant.next = self.grant.val().replace_bit(
                c,
                self.enable.val()
                    && self.request.val().get_bit(c)
                    && self.winners.wins.val().get_bit(c),
            );
        }
        self.take.next = self.enable.val() && self.request.val().any();
        // The rule's grant is one-hot: its channel's number.
        self.pick.next = 0.into();
        for c in 1..C {
            if self.choice.grant.val().get_bit(c) {
                self.pick.next = self.number[c].val();
            }
        }
        // Prefix ORs rather than `grant - 1`: no carry chain.
        self.after_grant.next = 0.into();
        self.seen.next = false;
        for c in 0..C {
            self.after_grant.next = self.after_grant.val().replace_bit(c, self.seen.val());
            self.seen.next = self.seen.val() || self.choice.grant.val().get_bit(c);
        }
        if self.take.val() {
            self.after.d.next = self.after_grant.val();
        }
        if self.reset.val() {
            self.after.d.next = self.after_reset.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Lcg, Stepper};
    use crate::round_robin::{granted, winners};

    /// Random requests and enables, with resets now and then, against the rule written
    /// plainly: the grant, its channel and `take` every cycle, and the last grant moving
    /// only on `take`.
    fn random<const C: usize, const CB: usize>(seed: u64) {
        let mut s = Stepper::new(RoundRobin::<C, CB>::new(), |u| &mut u.clock);
        let mut rng = Lcg(seed);
        // The last grant as the register holds it: 0 after reset (channel 1 comes first).
        let mut last = 0usize;
        let (mut takes, mut wraps) = (0, 0);
        for cycle in 0..20_000 {
            let request = rng.below(1 << C);
            let (enable, reset) = (rng.chance(0.7), rng.chance(0.01) || cycle == 0);
            let u = &mut s.uut;
            u.request.next = request.into();
            u.enable.next = enable;
            u.reset.next = reset;
            s.settle();
            let winner = granted(C, request, Some(last));
            let u = &s.uut;
            assert_eq!(
                u.take.val(),
                enable && request != 0,
                "{C}: cycle {cycle}: take"
            );
            assert_eq!(
                u.grant.val().to_u64(),
                if enable {
                    request & winners(C, request, Some(last))
                } else {
                    0
                },
                "{C}: cycle {cycle}: grant, request {request:b}, last {last}"
            );
            if let Some(w) = winner {
                assert_eq!(u.pick.val().to_u64(), w as u64, "{C}: cycle {cycle}: pick");
                if enable {
                    assert_eq!(
                        u.grant.val().to_u64(),
                        1 << w,
                        "{C}: cycle {cycle}: one-hot"
                    );
                    wraps += usize::from(w <= last);
                    takes += 1;
                    last = w;
                }
            }
            if reset {
                last = 0;
            }
            s.tick();
        }
        assert!(
            takes > 10_000 && wraps > 1_000,
            "{C}: {takes} takes, {wraps} wraps"
        );
    }

    #[test]
    fn grants_the_next_requester_after_the_last_grant() {
        random::<2, 1>(0x2);
        random::<4, 2>(0x4);
        random::<8, 3>(0x8);
    }
}
