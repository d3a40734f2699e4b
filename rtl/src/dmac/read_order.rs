//! One channel's data reads in issue order, for the reorder stage: which of its eight
//! tags are outstanding, the oldest read (the next to retire), and the ring position up
//! to which data has arrived in order (`avail`). A read retires, oldest first, once the
//! tag table says none of its DWs is still to come; `avail` then moves to its end. The
//! table says so per tag (`done`), and the oldest tag picks its bit: a count picked by
//! the oldest tag and then compared with 0 was the reorder stage's deepest path.

use rust_hdl::prelude::*;

/// The issue order of one channel's data reads.
#[derive(LogicBlock, Default)]
pub struct ReadOrder {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Pulse: a data read of this channel was issued, with tag index `issue_index`.
    pub issue: Signal<In, Bit>,
    /// The issued read's tag index (tag `8c + index`).
    pub issue_index: Signal<In, Bits<3>>,
    /// Per tag index k: the read on tag k expects no more DWs (the tag table's count is
    /// 0, with this cycle's pending write forwarded); looked at for busy tags only.
    pub done: Signal<In, Bits<8>>,
    /// The oldest read's end in the ring.
    pub retire_end: Signal<In, Bits<16>>,
    /// Pulse: forget the outstanding reads (after an error).
    pub chan_reset: Signal<In, Bit>,
    /// Per tag index k: a read is outstanding.
    pub busy: Signal<Out, Bits<8>>,
    /// The oldest outstanding read's tag index.
    pub oldest: Signal<Out, Bits<3>>,
    /// The tag index of the next read issued.
    pub next_index: Signal<Out, Bits<3>>,
    /// Ring position up to which data has arrived in order.
    pub avail: Signal<Out, Bits<16>>,
    /// A tag is free (fewer than eight reads outstanding).
    pub can_issue: Signal<Out, Bit>,
    /// No data read outstanding.
    pub none_outstanding: Signal<Out, Bit>,
    /// Reads issued, mod 16 (its low bits are the next tag index).
    issued: DFF<Bits<4>>,
    /// Reads retired, mod 16 (its low bits are the oldest read's tag index).
    retired: DFF<Bits<4>>,
    /// See `busy`.
    busy_q: DFF<Bits<8>>,
    /// See `avail`.
    avail_q: DFF<Bits<16>>,
    /// `busy` for the next cycle.
    busy_n: Signal<Local, Bits<8>>,
    /// Reads outstanding: issued minus retired, mod 16.
    outstanding: Signal<Local, Bits<4>>,
}

impl Logic for ReadOrder {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, issued, retired, busy_q, avail_q);
        self.busy.next = self.busy_q.q.val();
        self.oldest.next = self.retired.q.val().get_bits::<3>(0);
        self.next_index.next = self.issued.q.val().get_bits::<3>(0);
        self.avail.next = self.avail_q.q.val();
        self.none_outstanding.next = self.issued.q.val() == self.retired.q.val();
        // The difference is taken in 4 bits first: inside the comparison, Verilog would
        // widen the counters to the literal's 32 bits and never see 8 after a wrap.
        self.outstanding.next = self.issued.q.val() - self.retired.q.val();
        self.can_issue.next = self.outstanding.val() != 8;

        self.busy_n.next = self.busy_q.q.val();
        if self.issue.val() {
            self.issued.d.next = self.issued.q.val() + 1;
            for k in 0..8 {
                if self.issue_index.val().index() == k {
                    self.busy_n.next = self.busy_n.val().replace_bit(k, true);
                }
            }
        }
        for k in 0..8 {
            if (self.retired.q.val().get_bits::<3>(0).index() == k)
                && !self.none_outstanding.val()
                && self.busy_q.q.val().get_bit(k)
                && self.done.val().get_bit(k)
            {
                self.avail_q.d.next = self.retire_end.val();
                self.retired.d.next = self.retired.q.val() + 1;
                self.busy_n.next = self.busy_n.val().replace_bit(k, false);
            }
        }
        if self.chan_reset.val() {
            self.retired.d.next = self.issued.q.val();
            self.busy_n.next = 0.into();
        }
        self.busy_q.d.next = self.busy_n.val();
        if self.reset.val() {
            self.issued.d.next = 0.into();
            self.retired.d.next = 0.into();
            self.busy_q.d.next = 0.into();
            self.avail_q.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Lcg, Stepper};
    use crate::verilog::checks::lint_verilog;
    use crate::verilog::export::block_verilog;
    use std::collections::VecDeque;

    /// Reads issued at random (tag index = issue order, as the channels issue), their
    /// data arriving in random order, channel resets now and then; checked every cycle
    /// against a queue: busy tags, the oldest, `avail`, `can_issue`, and retirement in
    /// issue order only once the oldest read's data is all in.
    #[test]
    fn reads_retire_in_issue_order_once_their_data_is_in() {
        let mut s = Stepper::new(ReadOrder::default(), |b| &mut b.clock);
        let mut rng = Lcg(0x0DE5);
        // Outstanding reads, oldest first: (tag index, end, DWs still to come).
        let mut q: VecDeque<(u64, u64, u64)> = VecDeque::new();
        let (mut next, mut avail, mut retired, mut resets) = (0u64, 0u64, 0u32, 0u32);
        for cycle in 0..30_000u64 {
            // Data arrives for a random outstanding read.
            if !q.is_empty() && rng.below(2) == 0 {
                let i = rng.below(q.len() as u64) as usize;
                q[i].2 = q[i].2.saturating_sub(1 + rng.below(3));
            }
            let reset = rng.below(2_000) == 0;
            // The channels never issue in a reset's cycle (the block keeps that read).
            let issue = q.len() < 8 && !reset && rng.below(3) == 0;
            let u = &mut s.uut;
            u.issue.next = issue;
            u.issue_index.next = (next % 8).into();
            // Done bits of the reads whose data is in, and of idle tags at random.
            let done: u64 = q.iter().filter(|r| r.2 == 0).map(|r| 1 << r.0).sum();
            u.done.next = (done | rng.below(256) & !busy_tags(&q)).into();
            u.retire_end.next = q.front().map_or(0xFFFF, |r| r.1).into();
            u.chan_reset.next = reset;
            s.settle();
            let u = &s.uut;
            assert_eq!(u.busy.val().to_u64(), busy_tags(&q), "cycle {cycle}");
            assert_eq!(u.avail.val().to_u64(), avail, "cycle {cycle}");
            assert_eq!(u.next_index.val().to_u64(), next % 8, "cycle {cycle}");
            assert_eq!(u.can_issue.val(), q.len() < 8, "cycle {cycle}");
            assert_eq!(u.none_outstanding.val(), q.is_empty(), "cycle {cycle}");
            if let Some(r) = q.front() {
                assert_eq!(u.oldest.val().to_u64(), r.0, "cycle {cycle}");
            }
            let retire = q.front().is_some_and(|r| r.2 == 0);
            if retire {
                avail = q.pop_front().unwrap().1;
                retired += 1;
            }
            if issue {
                q.push_back((next % 8, rng.below(1 << 16), 1 + rng.below(40)));
                next += 1;
            }
            if reset {
                q.clear();
                resets += 1;
            }
            s.tick();
        }
        assert!(
            retired > 500 && resets > 5,
            "{retired} retired, {resets} resets"
        );
    }

    /// The tag indices of the outstanding reads.
    fn busy_tags(q: &VecDeque<(u64, u64, u64)>) -> u64 {
        q.iter().map(|r| 1 << r.0).sum()
    }

    #[test]
    fn read_order_lint_clean() {
        let v = block_verilog(&mut ReadOrder::default(), "dma_read_order");
        lint_verilog(&v, "dma_read_order").unwrap();
    }
}
