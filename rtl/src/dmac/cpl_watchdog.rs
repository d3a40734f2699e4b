//! A channel's completion timeout (`DMA_CPL_TIMEOUT`): while the channel waits on its
//! reads, the cycles since a completion last arrived. It expires when that reaches the
//! limit; a completion, or no read outstanding, starts the count again.
//!
//! The comparison with the limit comes from registers, made a cycle ahead for both
//! values the count can take (0 or one more), so the channel's state waits on no
//! 32-bit compare: `expired` answers for the count of this cycle and the limit of the
//! cycle before (as `ChainCount` does); before the first clock edge it does not expire.
//!
//! A completion's arrival is registered (`seen`) before it clears anything: it comes from
//! the completion's tag decode, and the timer's 32 clears wait on no decode. The cycle
//! after it, the count is 0 whatever the timer holds, so the count is exact per cycle.

use rust_hdl::prelude::*;

/// The completion timeout of one channel.
#[derive(LogicBlock, Default)]
pub struct CplWatchdog {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// The channel waits on reads (fetching a host descriptor, moving data, draining).
    pub running: Signal<In, Bit>,
    /// Pulse: a completion arrived.
    pub cpl_seen: Signal<In, Bit>,
    /// No read outstanding.
    pub reads_idle: Signal<In, Bit>,
    /// `DMA_CPL_TIMEOUT`, in cycles.
    pub cpl_timeout: Signal<In, Bits<32>>,
    /// The channel is running and has waited `cpl_timeout` cycles or more.
    pub expired: Signal<Out, Bit>,
    /// `expired`, a cycle late (a register: the channel is in `Error` since, and its
    /// write request cancelled).
    pub expired_before: Signal<Out, Bit>,
    /// See `expired_before`.
    fired: DFF<Bit>,
    /// Cycles waited.
    timer: DFF<Bits<32>>,
    /// The count went to 0 in the cycle before.
    cleared: DFF<Bit>,
    /// `0 >= limit`, as of the cycle before.
    zero_reaches: DFF<Bit>,
    /// `count + 1 >= limit` for the count and limit of the cycle before.
    stepped_reaches: DFF<Bit>,
    /// A completion arrived in the cycle before: the count is 0 now.
    seen: DFF<Bit>,
    /// `timer + 1` (a sum in its own width; see `verilog::widths`).
    timer_after_one: Signal<Local, Bits<32>>,
    /// The count of this cycle plus one: 1 after a completion, else `timer + 1`.
    count_after_one: Signal<Local, Bits<32>>,
}

impl Logic for CplWatchdog {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            timer,
            cleared,
            zero_reaches,
            stepped_reaches,
            seen,
            fired
        );
        self.timer_after_one.next = self.timer.q.val() + 1;
        self.count_after_one.next = self.timer_after_one.val();
        self.zero_reaches.d.next = self.cpl_timeout.val() == 0;
        self.stepped_reaches.d.next = self.timer_after_one.val() >= self.cpl_timeout.val();
        if self.seen.q.val() {
            self.count_after_one.next = 1.into();
            self.stepped_reaches.d.next = self.cpl_timeout.val() <= 1;
        }
        self.seen.d.next = self.cpl_seen.val() && !self.reset.val();
        self.expired.next = self.running.val() && self.stepped_reaches.q.val();
        if self.cleared.q.val() || self.seen.q.val() {
            self.expired.next = self.running.val() && self.zero_reaches.q.val();
        }
        self.fired.d.next = self.expired.val() && !self.reset.val();
        self.expired_before.next = self.fired.q.val();
        self.timer.d.next = self.count_after_one.val();
        self.cleared.d.next = false;
        if !self.running.val() || self.reads_idle.val() || self.reset.val() {
            self.timer.d.next = 0.into();
            self.cleared.d.next = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Lcg, Stepper};
    use crate::verilog::checks::lint_verilog;
    use crate::verilog::export::block_verilog;

    /// Random running/completion/idle inputs and limits against the rule kept as a plain
    /// counter, compared with the limit of the cycle before.
    #[test]
    fn expires_after_the_limit_without_completions() {
        let mut s = Stepper::new(CplWatchdog::default(), |b| &mut b.clock);
        let mut rng = Lcg(0xD06);
        let (mut waited, mut last_limit) = (0u64, 0u64);
        let (mut expiries, mut expired_before) = (0, false);
        for cycle in 0..20_000u64 {
            let mut limit = [0, 1, 5, 40][(cycle / 5_000) as usize];
            if rng.chance(0.01) {
                limit = rng.below(8);
            }
            let running = rng.below(50) != 0;
            let seen = rng.below(if cycle % 2_000 < 1_000 { 8 } else { 200 }) == 0;
            let idle = rng.below(300) == 0;
            s.uut.cpl_timeout.next = limit.into();
            s.uut.running.next = running;
            s.uut.cpl_seen.next = seen;
            s.uut.reads_idle.next = idle;
            s.settle();
            let want = running && waited >= last_limit && cycle > 0;
            assert_eq!(s.uut.expired.val(), want, "cycle {cycle}");
            assert_eq!(s.uut.expired_before.val(), expired_before, "cycle {cycle}");
            expired_before = want;
            expiries += u32::from(want);
            last_limit = limit;
            waited = if !running || seen || idle {
                0
            } else {
                waited + 1
            };
            s.tick();
        }
        assert!(expiries > 100, "{expiries} expiries: the test saw too few");
        s.uut.running.next = true;
        s.uut.cpl_seen.next = false;
        s.uut.reads_idle.next = false;
        s.uut.cpl_timeout.next = 3.into();
        for _ in 0..5 {
            s.tick();
        }
        s.settle();
        assert!(s.uut.expired.val());
        s.uut.reset.next = true;
        s.tick();
        s.uut.reset.next = false;
        s.settle();
        assert!(!s.uut.expired.val(), "reset clears the count");
    }

    #[test]
    fn cpl_watchdog_lint_clean() {
        let v = block_verilog(&mut CplWatchdog::default(), "dma_cpl_watchdog");
        lint_verilog(&v, "dma_cpl_watchdog").unwrap();
    }
}
