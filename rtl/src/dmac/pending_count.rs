//! A count written a cycle after it is known. The reorder stage learns what a completion
//! leaves of its read's count (the DWs still to come, or 0 when it failed) from its
//! header's checks, the DMA's deepest logic; the write into the tag table or a channel's
//! descriptor count would not fit the same cycle. This register holds it for a cycle and
//! says what is being written, so every reader of the count can take it from here
//! meanwhile and see it as if written at once.

use rust_hdl::prelude::*;

/// What a completion's beat leaves of its read's count, from the reorder stage's intake
/// to the [`PendingCount`]s that write it a cycle later (the data reads' by tag, the
/// descriptor fetches' by channel).
#[derive(LogicInterface, Default)]
#[join = "CountWriteSink"]
pub struct CountWrite {
    /// The completion failed: the count becomes 0, whatever follows.
    pub clear: Signal<Out, Bit>,
    /// The read's DWs still to come before the beat: the count a header writes when
    /// payload beats follow.
    pub rem: Signal<Out, Bits<8>>,
    /// ... and after the beat: the count a last beat writes.
    pub less: Signal<Out, Bits<8>>,
    /// The beat is the completion's last: the count is `less`, not `rem`.
    pub last: Signal<Out, Bit>,
}

/// The writers' side of [`CountWrite`].
#[derive(LogicInterface, Default)]
#[join = "CountWrite"]
pub struct CountWriteSink {
    /// See [`CountWrite::clear`].
    pub clear: Signal<In, Bit>,
    /// See [`CountWrite::rem`].
    pub rem: Signal<In, Bits<8>>,
    /// See [`CountWrite::less`].
    pub less: Signal<In, Bits<8>>,
    /// See [`CountWrite::last`].
    pub last: Signal<In, Bit>,
}

/// The pending write of one count, keyed by `KB` bits (a tag or a channel).
#[derive(LogicBlock, Default)]
pub struct PendingCount<const KB: usize> {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Write `key`'s count next cycle.
    pub we: Signal<In, Bit>,
    /// Whose count.
    pub key: Signal<In, Bits<KB>>,
    /// The count to write.
    pub write: CountWriteSink,
    /// The write lands this cycle.
    pub pending: Signal<Out, Bit>,
    /// Its key.
    pub pending_key: Signal<Out, Bits<KB>>,
    /// Its count, as readers see it this cycle.
    pub value: Signal<Out, Bits<8>>,
    /// `we` of the cycle before: see `pending`.
    we_q: DFF<Bit>,
    /// The clear stays beside the count (not folded into it before the register): the
    /// failure it comes from is the header's checks, the deepest path.
    clear_q: DFF<Bit>,
    /// `key` of the cycle before: see `pending_key`.
    key_q: DFF<Bits<KB>>,
    /// `rem` of the cycle before.
    rem_q: DFF<Bits<8>>,
    /// Both counts stay beside the choice (not chosen before the registers): the choice
    /// would come after the tag's lookup and the subtraction, the count's deepest path.
    less_q: DFF<Bits<8>>,
    /// `last` of the cycle before.
    last_q: DFF<Bit>,
}

impl<const KB: usize> Logic for PendingCount<KB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, we_q, clear_q, key_q, rem_q, less_q, last_q);
        self.we_q.d.next = self.we.val();
        self.clear_q.d.next = self.write.clear.val();
        self.key_q.d.next = self.key.val();
        self.rem_q.d.next = self.write.rem.val();
        self.less_q.d.next = self.write.less.val();
        self.last_q.d.next = self.write.last.val();
        self.pending.next = self.we_q.q.val();
        self.pending_key.next = self.key_q.q.val();
        self.value.next = self.rem_q.q.val();
        if self.last_q.q.val() {
            self.value.next = self.less_q.q.val();
        }
        if self.clear_q.q.val() {
            self.value.next = 0.into();
        }
        if self.reset.val() {
            self.we_q.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Lcg, Stepper};

    /// Random writes, clears and resets: each comes out the next cycle, with its key and
    /// its count (0 when cleared, the count after the beat on a last beat); a reset drops
    /// the write on its way.
    #[test]
    fn a_write_lands_a_cycle_later_with_its_count() {
        let mut s = Stepper::new(PendingCount::<3>::default(), |b| &mut b.clock);
        let mut rng = Lcg(0xC0);
        let mut written: Option<(u64, u64)> = None;
        let (mut writes, mut clears) = (0, 0);
        for cycle in 0..5_000 {
            let (we, clear, reset) = (rng.chance(0.5), rng.chance(0.3), rng.chance(0.02));
            let (key, rem, less, last) = (
                rng.below(8),
                rng.below(256),
                rng.below(256),
                rng.chance(0.5),
            );
            let u = &mut s.uut;
            u.we.next = we;
            u.write.clear.next = clear;
            u.key.next = key.into();
            u.write.rem.next = rem.into();
            u.write.less.next = less.into();
            u.write.last.next = last;
            u.reset.next = reset || cycle == 0;
            s.settle();
            let u = &s.uut;
            assert_eq!(u.pending.val(), written.is_some(), "cycle {cycle}");
            if let Some((k, v)) = written {
                assert_eq!(u.pending_key.val().to_u64(), k, "cycle {cycle}: key");
                assert_eq!(u.value.val().to_u64(), v, "cycle {cycle}: count");
            }
            let count = match (clear, last) {
                (true, _) => 0,
                (false, true) => less,
                (false, false) => rem,
            };
            written = (we && !reset && cycle > 0).then_some((key, count));
            writes += usize::from(written.is_some());
            clears += usize::from(written.is_some() && clear);
            s.tick();
        }
        assert!(
            writes > 1_000 && clears > 300,
            "{writes} writes, {clears} cleared"
        );
    }
}
