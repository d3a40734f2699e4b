//! The round-robin choice among the four channels that the read requester and the write
//! generator both make: the first requesting channel after the one granted last,
//! wrapping around. Combinational.

use rust_hdl::prelude::*;

/// Picks the next channel to grant.
#[derive(LogicBlock, Default)]
pub struct RoundRobin4 {
    /// Requests, bit c for channel c.
    pub request: Signal<In, Bits<4>>,
    /// The channel granted last.
    pub last: Signal<In, Bits<2>>,
    /// The first requesting channel after `last` (wrapping); 0 when nothing requests.
    pub pick: Signal<Out, Bits<2>>,
    above: Signal<Local, Bits<4>>,
    cand: Signal<Local, Bits<4>>,
}

impl Logic for RoundRobin4 {
    #[hdl_gen]
    fn update(&mut self) {
        // Channels after the last one granted come first.
        self.above.next = 0.into();
        if self.last.val() == 0 {
            self.above.next = 0xE.into();
        }
        if self.last.val() == 1 {
            self.above.next = 0xC.into();
        }
        if self.last.val() == 2 {
            self.above.next = 0x8.into();
        }
        self.cand.next = self.request.val() & self.above.val();
        if self.cand.val() == 0 {
            self.cand.next = self.request.val();
        }
        self.pick.next = 0.into();
        if self.cand.val().get_bit(3) {
            self.pick.next = 3.into();
        }
        if self.cand.val().get_bit(2) {
            self.pick.next = 2.into();
        }
        if self.cand.val().get_bit(1) {
            self.pick.next = 1.into();
        }
        if self.cand.val().get_bit(0) {
            self.pick.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule, written plainly.
    fn golden(request: u64, last: u64) -> u64 {
        (1..=4)
            .map(|k| (last + k) % 4)
            .find(|c| request >> c & 1 == 1)
            .unwrap_or(0)
    }

    #[test]
    fn picks_the_next_requester_after_the_last_grant() {
        let mut uut = RoundRobin4::default();
        uut.connect_all();
        for request in 0..16u64 {
            for last in 0..4u64 {
                uut.request.next = request.into();
                uut.last.next = last.into();
                assert!(simulate(&mut uut, 100), "settles");
                assert_eq!(
                    uut.pick.val(),
                    Bits::<2>::from(golden(request, last)),
                    "request {request:04b}, last {last}"
                );
            }
        }
    }
}
