//! The round-robin choice among `C` channels that the read requester and the write
//! generator both make: the first requesting channel after the one granted last,
//! wrapping around (the chip's one rule, [`RoundRobinChoice`], with the last grant and
//! the pick as channel numbers). Combinational.
//!
//! Beside the pick, `wins` says for each channel whether it would be picked if it
//! requested, from the other channels' requests and `last` only: a requester's grant is
//! its own request and its `wins` bit, which does not wait for the pick's encoding (the
//! crossbar's arbiters answer `ready` the same way).

use crate::round_robin::RoundRobinChoice;
use rust_hdl::prelude::*;

/// Picks the next channel to grant among `C` (`CB` bits of channel number).
#[derive(LogicBlock)]
pub struct RoundRobin<const C: usize, const CB: usize> {
    /// Requests, bit c for channel c.
    pub request: Signal<In, Bits<C>>,
    /// The channel granted last.
    pub last: Signal<In, Bits<CB>>,
    /// The first requesting channel after `last` (wrapping); 0 when nothing requests.
    pub pick: Signal<Out, Bits<CB>>,
    /// Bit c: channel c would be the pick if it requested (whatever its own request).
    pub wins: Signal<Out, Bits<C>>,
    /// The rule.
    choice: RoundRobinChoice<C>,
    /// The channels after `last` (channel 0 never is).
    after: Signal<Local, Bits<C>>,
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
            request: Default::default(),
            last: Default::default(),
            pick: Default::default(),
            wins: Default::default(),
            choice: RoundRobinChoice::new(),
            after: Default::default(),
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
        // From channel 1: `last < 0` is never true, and Verilator's lint says so.
        self.after.next = 0.into();
        for c in 1..C {
            if self.last.val() < self.number[c].val() {
                self.after.next = self.after.val().replace_bit(c, true);
            }
        }
        self.choice.request.next = self.request.val();
        self.choice.after.next = self.after.val();
        self.wins.next = self.choice.wins.val();
        // The grant is one-hot: its channel's number.
        self.pick.next = 0.into();
        for c in 1..C {
            if self.choice.grant.val().get_bit(c) {
                self.pick.next = self.number[c].val();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::round_robin::{granted, winners};

    /// Every request vector from every last channel, against the rule written plainly.
    fn exhaustive<const C: usize, const CB: usize>() {
        let mut uut = RoundRobin::<C, CB>::new();
        uut.connect_all();
        for request in 0..1u64 << C {
            for last in 0..C as u64 {
                uut.request.next = request.into();
                uut.last.next = last.into();
                assert!(simulate(&mut uut, 100), "settles");
                assert_eq!(
                    uut.pick.val(),
                    Bits::<CB>::from(granted(C, request, Some(last as usize)).unwrap_or(0) as u64),
                    "{C} channels: request {request:b}, last {last}"
                );
                assert_eq!(
                    uut.wins.val().to_u64(),
                    winners(C, request, Some(last as usize)),
                    "{C} channels: request {request:b}, last {last}"
                );
            }
        }
    }

    #[test]
    fn picks_the_next_requester_after_the_last_grant() {
        exhaustive::<2, 1>();
        exhaustive::<4, 2>();
        exhaustive::<8, 3>();
    }
}
