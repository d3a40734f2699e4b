//! The channels' descriptor fetches, for the reorder stage: per channel, whether a fetch
//! (one read of a host descriptor, tag `8C + c`) is outstanding and how many of its DWs
//! are still to come. A completion's count is written a cycle after it (`pending_count`)
//! and read through that write meanwhile. A fetch finishes when its count reaches 0 (all
//! its DWs delivered, or a failed completion) and `done` says so a cycle later, when the
//! channel has the whole descriptor.

use super::pending_count::{CountWriteSink, PendingCount};
use rust_hdl::prelude::*;

/// The descriptor fetches of `C` channels (`CB` bits of channel number).
#[derive(LogicBlock)]
pub struct DescFetches<const C: usize, const CB: usize> {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Pulse: channel `issue_chan`'s fetch was issued.
    pub issue: Signal<In, Bit>,
    /// Its channel.
    pub issue_chan: Signal<In, Bits<CB>>,
    /// Its length in DWs.
    pub issue_len_dw: Signal<In, Bits<8>>,
    /// Write `count_chan`'s count next cycle (a completion of its fetch).
    pub count_we: Signal<In, Bit>,
    /// The channel.
    pub count_chan: Signal<In, Bits<CB>>,
    /// The count to write.
    pub count_write: CountWriteSink,
    /// Per channel pulse: forget its fetch (after an error).
    pub chan_reset: Signal<In, Bits<C>>,
    /// Per channel: its fetch's DWs still to come, with last cycle's count written.
    pub rem: [Signal<Out, Bits<8>>; C],
    /// Per channel: its fetch's DWs still to come as its register holds them.
    pub stored: [Signal<Out, Bits<8>>; C],
    /// Per channel: last cycle's count is written this cycle (`rem` is `pending_rem`).
    pub pending: Signal<Out, Bits<C>>,
    /// That count.
    pub pending_rem: Signal<Out, Bits<8>>,
    /// Per channel: a fetch is outstanding.
    pub busy: Signal<Out, Bits<C>>,
    /// Per channel pulse: its fetch finished (a cycle after its count reached 0).
    pub done: Signal<Out, Bits<C>>,
    /// The completion's count, written a cycle late.
    count: PendingCount<CB>,
    /// Per channel: DWs still to come (but for `count`'s write).
    rem_q: [DFF<Bits<8>>; C],
    /// See `busy`.
    busy_q: DFF<Bits<C>>,
    /// See `done`.
    done_q: DFF<Bits<C>>,
    /// `busy` for the next cycle.
    busy_n: Signal<Local, Bits<C>>,
    /// Per channel: the fetch finishes this cycle.
    done_now: Signal<Local, Bits<C>>,
}

impl<const C: usize, const CB: usize> DescFetches<C, CB> {
    /// No fetch outstanding.
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            issue: Default::default(),
            issue_chan: Default::default(),
            issue_len_dw: Default::default(),
            count_we: Default::default(),
            count_chan: Default::default(),
            count_write: Default::default(),
            chan_reset: Default::default(),
            rem: array_init::array_init(|_| Default::default()),
            stored: array_init::array_init(|_| Default::default()),
            pending: Default::default(),
            pending_rem: Default::default(),
            busy: Default::default(),
            done: Default::default(),
            count: Default::default(),
            rem_q: array_init::array_init(|_| Default::default()),
            busy_q: Default::default(),
            done_q: Default::default(),
            busy_n: Default::default(),
            done_now: Default::default(),
        }
    }
}

impl<const C: usize, const CB: usize> Default for DescFetches<C, CB> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const C: usize, const CB: usize> Logic for DescFetches<C, CB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, busy_q, done_q);
        self.count.clock.next = self.clock.val();
        self.count.reset.next = self.reset.val();
        self.count.we.next = self.count_we.val();
        self.count.key.next = self.count_chan.val();
        CountWriteSink::link(&mut self.count_write, &mut self.count.write);
        self.busy.next = self.busy_q.q.val();
        self.done.next = self.done_q.q.val();
        self.busy_n.next = self.busy_q.q.val();
        self.done_now.next = 0.into();
        self.pending.next = 0.into();
        self.pending_rem.next = self.count.value.val();
        for c in 0..C {
            self.rem_q[c].clock.next = self.clock.val();
            self.rem_q[c].d.next = self.rem_q[c].q.val();
            self.rem[c].next = self.rem_q[c].q.val();
            self.stored[c].next = self.rem_q[c].q.val();
            if self.count.pending.val() && (self.count.pending_key.val().index() == c) {
                self.pending.next = self.pending.val().replace_bit(c, true);
                self.rem[c].next = self.count.value.val();
                self.rem_q[c].d.next = self.count.value.val();
            }
            if self.issue.val() && (self.issue_chan.val().index() == c) {
                self.busy_n.next = self.busy_n.val().replace_bit(c, true);
                self.rem_q[c].d.next = self.issue_len_dw.val();
            }
            if self.busy_q.q.val().get_bit(c) && (self.rem[c].val() == 0) {
                self.done_now.next = self.done_now.val().replace_bit(c, true);
                self.busy_n.next = self.busy_n.val().replace_bit(c, false);
            }
            if self.chan_reset.val().get_bit(c) {
                self.busy_n.next = self.busy_n.val().replace_bit(c, false);
            }
        }
        self.busy_q.d.next = self.busy_n.val();
        self.done_q.d.next = self.done_now.val();
        if self.reset.val() {
            self.busy_q.d.next = 0.into();
            self.done_q.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Lcg, Stepper};

    /// Fetches issued at random on idle channels, completions counting their DWs down
    /// (some failing), channel resets now and then; checked every cycle against a plain
    /// model: `busy`, `rem` (the count seen through the pending write) and `done` a cycle
    /// after a fetch's count reached 0.
    #[test]
    fn fetches_finish_a_cycle_after_their_last_dw() {
        const C: usize = 4;
        let mut s = Stepper::new(DescFetches::<C, 2>::new(), |b| &mut b.clock);
        let mut rng = Lcg(0xDE5C);
        // Per channel: DWs still to come if a fetch is outstanding.
        let mut fetch: [Option<u64>; C] = [None; C];
        // The count written last cycle (channel, value); the fetches finished last cycle.
        let mut pending: Option<(usize, u64)> = None;
        let mut done_last = 0u64;
        let (mut done, mut failed) = (0, 0);
        for cycle in 0..20_000 {
            let landing = pending.take();
            if let Some((c, v)) = landing {
                if let Some(rem) = fetch[c].as_mut() {
                    *rem = v;
                }
            }
            let u = &mut s.uut;
            u.reset.next = cycle == 0;
            // A completion for a random busy channel.
            let busy: Vec<usize> = (0..C)
                .filter(|&c| fetch[c].is_some_and(|r| r > 0))
                .collect();
            let cpl = (!busy.is_empty() && rng.chance(0.5) && cycle > 0)
                .then(|| busy[rng.below(busy.len() as u64) as usize]);
            let fail = rng.chance(0.05);
            let n = 1 + rng.below(4);
            u.count_we.next = cpl.is_some();
            u.count_write.clear.next = fail;
            u.count_chan.next = (cpl.unwrap_or(0) as u64).into();
            let rem_after = cpl.map_or(0, |c| fetch[c].unwrap().saturating_sub(n));
            // The count after the beat comes on `less` at a last beat, else on `rem`; the other carries anything.
            let last = rng.chance(0.5);
            let (rem, less) = if last {
                (rng.below(256), rem_after)
            } else {
                (rem_after, rng.below(256))
            };
            u.count_write.rem.next = rem.into();
            u.count_write.less.next = less.into();
            u.count_write.last.next = last;
            // An issue on an idle channel, never the one a completion counts.
            let idle: Vec<usize> = (0..C)
                .filter(|&c| fetch[c].is_none() && Some(c) != cpl)
                .collect();
            let issue = (!idle.is_empty() && rng.chance(0.2) && cycle > 0).then(|| {
                (
                    idle[rng.below(idle.len() as u64) as usize],
                    1 + rng.below(8),
                )
            });
            u.issue.next = issue.is_some();
            u.issue_chan.next = (issue.map_or(0, |i| i.0) as u64).into();
            u.issue_len_dw.next = issue.map_or(0, |i| i.1).into();
            let reset_chan = (rng.chance(0.01) && cycle > 0).then(|| rng.below(C as u64) as usize);
            u.chan_reset.next = reset_chan.map_or(0, |c| 1u64 << c).into();
            s.settle();
            let u = &s.uut;
            let want_busy: u64 = (0..C).filter(|&c| fetch[c].is_some()).map(|c| 1 << c).sum();
            assert_eq!(u.busy.val().to_u64(), want_busy, "cycle {cycle}: busy");
            assert_eq!(u.done.val().to_u64(), done_last, "cycle {cycle}: done");
            for (c, f) in fetch.iter().enumerate() {
                if let Some(r) = *f {
                    assert_eq!(u.rem[c].val().to_u64(), r, "cycle {cycle}: rem {c}");
                }
                // The count's two halves, as the header's checks take them (a write the
                // model forgot with its channel's reset still lands).
                let write = u.pending.val().get_bit(c);
                assert!(
                    write || landing.is_none_or(|p| p.0 != c),
                    "cycle {cycle}: pending {c}"
                );
                let seen = if write {
                    u.pending_rem.val()
                } else {
                    u.stored[c].val()
                };
                assert_eq!(seen, u.rem[c].val(), "cycle {cycle}: stored {c}");
            }
            done_last = 0;
            for (c, f) in fetch.iter_mut().enumerate() {
                if *f == Some(0) {
                    *f = None;
                    done_last |= 1 << c;
                    done += 1;
                }
            }
            if let Some(c) = cpl {
                pending = Some((c, if fail { 0 } else { rem_after }));
                failed += usize::from(fail);
            }
            if let Some((c, len)) = issue {
                fetch[c] = Some(len);
            }
            if let Some(c) = reset_chan {
                fetch[c] = None;
                if pending.is_some_and(|p| p.0 == c) {
                    pending = None;
                }
            }
            s.tick();
        }
        assert!(done > 1_000 && failed > 50, "{done} done, {failed} failed");
    }
}
