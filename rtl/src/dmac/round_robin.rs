//! The round-robin choice among `C` channels that the read requester and the write
//! generator both make: the first requesting channel after the one granted last,
//! wrapping around. Combinational.
//!
//! Beside the pick, `wins` says for each channel whether it would be picked if it
//! requested, from the other channels' requests and `last` only: a requester's grant is
//! its own request and its `wins` bit, which does not wait for the pick's encoding (the
//! crossbar's arbiters answer `ready` the same way).

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
    /// Requests of the channels after `last`.
    after: Signal<Local, Bits<C>>,
    /// The requests the pick is made from: `after`, or all when none is after `last`.
    cand: Signal<Local, Bits<C>>,
    /// A lower channel of `cand` has been picked already.
    found: Signal<Local, Bit>,
    /// Channel numbers, as values.
    number: [Constant<Bits<CB>>; C],
    /// Per channel c: the channels below it (bits 0..c).
    below: [Constant<Bits<C>>; C],
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
            after: Default::default(),
            cand: Default::default(),
            found: Default::default(),
            number: array_init::array_init(|c| Constant::new((c as u64).into())),
            below: array_init::array_init(|c| Constant::new(((1u64 << c) - 1).into())),
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
        // Channels after the last one granted come first (channel 0 never is).
        self.after.next = 0.into();
        for c in 1..C {
            if self.last.val() < self.number[c].val() {
                self.after.next = self
                    .after
                    .val()
                    .replace_bit(c, self.request.val().get_bit(c));
            }
        }
        self.cand.next = self.after.val();
        if self.after.val() == 0 {
            self.cand.next = self.request.val();
        }
        self.pick.next = 0.into();
        self.found.next = false;
        for c in 0..C {
            if self.cand.val().get_bit(c) && !self.found.val() {
                self.pick.next = self.number[c].val();
                self.found.next = true;
            }
        }
        // A channel after `last` wins unless a lower one after `last` requests; one at or
        // before `last` (never in `after`) unless any after `last` or any lower one does.
        // Channel 0 is never after `last`, and none is lower.
        self.wins.next = 0.into();
        if self.after.val() == 0 {
            self.wins.next = 1.into();
        }
        for c in 1..C {
            if self.last.val() < self.number[c].val() {
                if !(self.after.val() & self.below[c].val()).any() {
                    self.wins.next = self.wins.val().replace_bit(c, true);
                }
            } else if (self.after.val() == 0) && !(self.request.val() & self.below[c].val()).any() {
                self.wins.next = self.wins.val().replace_bit(c, true);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule, written plainly.
    fn golden(n: u64, request: u64, last: u64) -> u64 {
        (1..=n)
            .map(|k| (last + k) % n)
            .find(|c| request >> c & 1 == 1)
            .unwrap_or(0)
    }

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
                    Bits::<CB>::from(golden(C as u64, request, last)),
                    "{C} channels: request {request:b}, last {last}"
                );
                // `wins`: the pick if the channel requested too.
                let wins = (0..C as u64)
                    .filter(|&c| golden(C as u64, request | 1 << c, last) == c)
                    .fold(0, |w, c| w | 1 << c);
                assert_eq!(
                    uut.wins.val().to_u64(),
                    wins,
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
