//! A round-robin arbiter: one-hot grant among `N` requesters, priority rotating past the
//! last requester whose grant was taken.
//!
//! The grant is combinational in `request` (the crossbar forwards a packet's first beat
//! in the cycle its grant is decided, so no cycle is lost between packets). The priority
//! only moves when the owner of the block says the grant was used (`take`): a grant that
//! the downstream could not accept yet is offered again, to the same requester, next
//! cycle, unless a requester with higher priority has appeared meanwhile.

use rust_hdl::prelude::*;

/// Round-robin arbiter over `N` requesters (`N` in 2..=16).
#[derive(LogicBlock)]
pub struct RoundRobinArbiter<const N: usize> {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: requester 0 gets the highest priority.
    pub reset: Signal<In, Bit>,
    /// One bit per requester.
    pub request: Signal<In, Bits<N>>,
    /// The current grant was used this cycle: the requester after it gets the highest
    /// priority from the next cycle on.
    pub take: Signal<In, Bit>,
    /// One-hot grant to the requester with the highest priority, zero without requests.
    pub grant: Signal<Out, Bits<N>>,
    /// One-hot last taken grant; zero after reset.
    last: DFF<Bits<N>>,
    /// Requests from requesters after `last` (they come first).
    after_last: Signal<Local, Bits<N>>,
}

impl<const N: usize> RoundRobinArbiter<N> {
    /// An arbiter over `N` requesters. Panics unless `N` is in 2..=16 (a construction-time
    /// design error).
    pub fn new() -> Self {
        assert!((2..=16).contains(&N), "RoundRobinArbiter: N in 2..=16");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            request: Default::default(),
            take: Default::default(),
            grant: Default::default(),
            last: Default::default(),
            after_last: Default::default(),
        }
    }
}

impl<const N: usize> Default for RoundRobinArbiter<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> Logic for RoundRobinArbiter<N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, last);
        // Bits strictly above the one-hot `last` (none when `last` is zero).
        self.after_last.next =
            self.request.val() & !((self.last.q.val() - 1) | self.last.q.val());
        // `x & (!x + 1)` isolates the lowest set bit: the first requester in rotation
        // order, searching above `last` first and wrapping to bit 0 otherwise.
        if self.after_last.val().any() {
            self.grant.next = self.after_last.val() & (!self.after_last.val() + 1);
        } else {
            self.grant.next = self.request.val() & (!self.request.val() + 1);
        }
        if self.take.val() && self.grant.val().any() {
            self.last.d.next = self.grant.val();
        }
        if self.reset.val() {
            self.last.d.next = 0.into();
        }
    }
}
