//! The round-robin rule of the chip, once: among `N` requesters, the lowest requester
//! after the one granted last, else (none after it) the lowest requester. The crossbar's
//! output arbiters (`crate::xbar::arbiter`, after the output's owner) and the DMA's
//! channel choice (`crate::dmac::round_robin`, a channel number) both make it; each says
//! which requesters are after its last grant. Combinational.
//!
//! [`RoundRobinChoice`] gives the grant. [`RoundRobinWins`] says for each requester
//! whether it would be granted if it asked, from the other requests and `after` only, so
//! that a requester's handshake can be its own request and its `wins` bit: it does not
//! wait for its own request's way through the whole choice (the DMA's channels).

use rust_hdl::prelude::*;

/// The round-robin choice among `N` requesters.
#[derive(LogicBlock)]
pub struct RoundRobinChoice<const N: usize> {
    /// Bit i: requester i asks.
    pub request: Signal<In, Bits<N>>,
    /// Bit i: requester i comes after the one granted last (zero when every requester
    /// does not, e.g. after a reset or with the last requester granted last).
    pub after: Signal<In, Bits<N>>,
    /// One-hot: the lowest requester in `after` that asks, else the lowest that asks;
    /// zero when none asks.
    pub grant: Signal<Out, Bits<N>>,
    /// Requests from requesters after the last grant.
    after_req: Signal<Local, Bits<N>>,
    /// The requests the grant is made from: `after_req`, or all when it is empty.
    cand: Signal<Local, Bits<N>>,
    /// A lower bit of `cand` is granted already.
    found: Signal<Local, Bit>,
}

impl<const N: usize> RoundRobinChoice<N> {
    /// The choice; panics unless `2 <= N <= 64` (a size error is a design error).
    pub fn new() -> Self {
        assert!(
            (2..=64).contains(&N),
            "RoundRobinChoice<{N}>: 2 to 64 requesters"
        );
        Self {
            request: Default::default(),
            after: Default::default(),
            grant: Default::default(),
            after_req: Default::default(),
            cand: Default::default(),
            found: Default::default(),
        }
    }
}

impl<const N: usize> Default for RoundRobinChoice<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> Logic for RoundRobinChoice<N> {
    #[hdl_gen]
    fn update(&mut self) {
        self.after_req.next = self.request.val() & self.after.val();
        self.cand.next = self.request.val();
        if self.after_req.val().any() {
            self.cand.next = self.after_req.val();
        }
        // The lowest set bit of `cand` as a running OR, not `x & (!x + 1)`: no carry
        // chain between the requests and the grant. It equals `request & wins`, but the
        // core's timing estimate measured it a level shallower written this way.
        self.grant.next = 0.into();
        self.found.next = false;
        for i in 0..N {
            if self.cand.val().get_bit(i) && !self.found.val() {
                self.grant.next = self.grant.val().replace_bit(i, true);
            }
            self.found.next = self.found.val() || self.cand.val().get_bit(i);
        }
    }
}

/// Per requester among `N`, whether the rule would grant it if it asked.
#[derive(LogicBlock)]
pub struct RoundRobinWins<const N: usize> {
    /// Bit i: requester i asks.
    pub request: Signal<In, Bits<N>>,
    /// Bit i: requester i comes after the one granted last (as [`RoundRobinChoice`]).
    pub after: Signal<In, Bits<N>>,
    /// Bit i: requester i would be granted if it asked (whatever it asks now).
    pub wins: Signal<Out, Bits<N>>,
    /// Requests from requesters after the last grant.
    after_req: Signal<Local, Bits<N>>,
    /// Per requester i: the requesters below it (bits 0..i).
    below: [Constant<Bits<N>>; N],
}

impl<const N: usize> RoundRobinWins<N> {
    /// The rule's `wins`; panics unless `2 <= N <= 64` (a size error is a design error).
    pub fn new() -> Self {
        assert!(
            (2..=64).contains(&N),
            "RoundRobinWins<{N}>: 2 to 64 requesters"
        );
        Self {
            request: Default::default(),
            after: Default::default(),
            wins: Default::default(),
            after_req: Default::default(),
            below: array_init::array_init(|i| Constant::new(((1u64 << i) - 1).into())),
        }
    }
}

impl<const N: usize> Default for RoundRobinWins<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> Logic for RoundRobinWins<N> {
    #[hdl_gen]
    fn update(&mut self) {
        self.after_req.next = self.request.val() & self.after.val();
        // A requester after the last grant wins unless a lower one after it asks; one at
        // or before the last grant (never in `after_req`) unless any after it asks or
        // any lower one does.
        self.wins.next = 0.into();
        for i in 0..N {
            if self.after.val().get_bit(i) {
                if !(self.after_req.val() & self.below[i].val()).any() {
                    self.wins.next = self.wins.val().replace_bit(i, true);
                }
            } else if !self.after_req.val().any()
                && !(self.request.val() & self.below[i].val()).any()
            {
                self.wins.next = self.wins.val().replace_bit(i, true);
            }
        }
    }
}

/// The rule written plainly, for the tests of the blocks that make the choice: the
/// requester granted among `n` when `request` asks and `last` was granted last (`None`:
/// none since reset, requester 0 comes first).
#[cfg(test)]
pub fn granted(n: usize, request: u64, last: Option<usize>) -> Option<usize> {
    let from = last.map_or(0, |l| l + 1);
    (from..n)
        .find(|&i| request >> i & 1 == 1)
        .or_else(|| (0..n).find(|&i| request >> i & 1 == 1))
}

/// Bit i: requester i would be granted, asking too ([`granted`] for each).
#[cfg(test)]
pub fn winners(n: usize, request: u64, last: Option<usize>) -> u64 {
    (0..n)
        .filter(|&i| granted(n, request | 1 << i, last) == Some(i))
        .fold(0, |w, i| w | 1 << i)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every request vector from every last grant, against the rule written plainly.
    fn exhaustive<const N: usize>() {
        let mut uut = RoundRobinChoice::<N>::new();
        uut.connect_all();
        let mut wins = RoundRobinWins::<N>::new();
        wins.connect_all();
        for last in std::iter::once(None).chain((0..N).map(Some)) {
            let after = last.map_or(0, |l| !((2u64 << l) - 1) & ((1u64 << N) - 1));
            for request in 0..1u64 << N {
                uut.request.next = request.into();
                uut.after.next = after.into();
                wins.request.next = request.into();
                wins.after.next = after.into();
                assert!(simulate(&mut uut, 100), "settles");
                assert!(simulate(&mut wins, 100), "settles");
                let want = granted(N, request, last).map_or(0, |g| 1u64 << g);
                assert_eq!(
                    uut.grant.val().to_u64(),
                    want,
                    "{N}: request {request:b}, last {last:?}"
                );
                assert_eq!(
                    wins.wins.val().to_u64(),
                    winners(N, request, last),
                    "{N}: request {request:b}, last {last:?}: wins"
                );
            }
        }
    }

    #[test]
    fn grants_the_next_requester_after_the_last() {
        exhaustive::<2>();
        exhaustive::<4>();
        exhaustive::<6>();
        exhaustive::<8>();
    }

    #[test]
    fn round_robin_choice_verilog_lints_clean() {
        let mut uut = RoundRobinChoice::<6>::new();
        let v = crate::verilog::export::block_verilog(&mut uut, "round_robin_choice");
        crate::verilog::checks::lint_verilog(&v, "round_robin_choice").unwrap();
        let mut uut = RoundRobinWins::<6>::new();
        let v = crate::verilog::export::block_verilog(&mut uut, "round_robin_wins");
        crate::verilog::checks::lint_verilog(&v, "round_robin_wins").unwrap();
    }
}
