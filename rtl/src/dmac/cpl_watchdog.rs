//! A channel's completion timeout (`DMA_CPL_TIMEOUT`): while the channel waits on its
//! reads, the cycles since a completion last arrived. It expires when that reaches the
//! limit; a completion, or no read outstanding, starts the count again.

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
    /// Cycles waited.
    timer: DFF<Bits<32>>,
}

impl Logic for CplWatchdog {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, timer);
        self.expired.next = self.running.val() && (self.timer.q.val() >= self.cpl_timeout.val());
        if self.running.val() {
            self.timer.d.next = self.timer.q.val() + 1;
        }
        if !self.running.val() || self.cpl_seen.val() || self.reads_idle.val() || self.reset.val() {
            self.timer.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Lcg, Stepper};
    use crate::verilog::checks::lint_verilog;
    use crate::verilog::export::block_verilog;

    /// Random running/completion/idle inputs against the rule kept as a plain counter.
    #[test]
    fn expires_after_the_limit_without_completions() {
        let mut s = Stepper::new(CplWatchdog::default(), |b| &mut b.clock);
        let mut rng = Lcg(0xD06);
        let mut waited = 0u64;
        let mut expiries = 0;
        for cycle in 0..20_000u64 {
            let limit = [0, 1, 5, 40][(cycle / 5_000) as usize];
            let running = rng.below(50) != 0;
            let seen = rng.below(if cycle % 2_000 < 1_000 { 8 } else { 200 }) == 0;
            let idle = rng.below(300) == 0;
            s.uut.cpl_timeout.next = limit.into();
            s.uut.running.next = running;
            s.uut.cpl_seen.next = seen;
            s.uut.reads_idle.next = idle;
            s.settle();
            let want = running && waited >= limit;
            assert_eq!(s.uut.expired.val(), want, "cycle {cycle}");
            expiries += u32::from(want);
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
