//! Why a channel stopped: its `ErrorCause`, 0 while it has not failed.
//!
//! A start clears it. The descriptor's check sets it (0 when the descriptor passes), and
//! the chain limit, a failed completion and the completion timeout set their own causes;
//! a timeout after a failed completion (while the channel drains) keeps the completion
//! error's cause, the first thing that went wrong.

use super::desc_check::CauseCode;
use peach2_regmap::dma::ErrorCause;
use rust_hdl::prelude::*;

/// A channel's stop cause.
#[derive(LogicBlock, Default)]
pub struct StopCause {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: no cause.
    pub reset: Signal<In, Bit>,
    /// Pulse: a start is taken.
    pub start: Signal<In, Bit>,
    /// Pulse: the descriptor was checked; its cause is `check_cause`.
    pub check: Signal<In, Bit>,
    /// The descriptor's error cause, 0 if it passes its checks.
    pub check_cause: Signal<In, Bits<4>>,
    /// Pulse: the chain ran `DMA_CHAIN_LIMIT` descriptors without its `LAST`.
    pub limit: Signal<In, Bit>,
    /// Pulse: a failed completion stops the channel.
    pub cpl_error: Signal<In, Bit>,
    /// Pulse: the completion timeout expired.
    pub expired: Signal<In, Bit>,
    /// The channel drains after a failed completion: a timeout keeps that cause.
    pub draining: Signal<In, Bit>,
    /// Why the channel stopped (`ErrorCause`), 0 while it has not failed.
    pub cause: Signal<Out, Bits<4>>,
    /// See `cause`.
    cause_q: DFF<Bits<4>>,
    /// The ErrorCause code for a chain that reached `DMA_CHAIN_LIMIT`.
    chain_limit_code: CauseCode<{ ErrorCause::ChainLimit as u64 }>,
    /// The ErrorCause code for a read completion that came back failed.
    cpl_error_code: CauseCode<{ ErrorCause::CplError as u64 }>,
    /// The ErrorCause code for a read that got no completion within `DMA_CPL_TIMEOUT`.
    cpl_timeout_code: CauseCode<{ ErrorCause::CplTimeout as u64 }>,
}

impl Logic for StopCause {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, cause_q);
        self.cause.next = self.cause_q.q.val();
        if self.start.val() {
            self.cause_q.d.next = 0.into();
        }
        if self.check.val() {
            self.cause_q.d.next = self.check_cause.val();
        }
        if self.limit.val() {
            self.cause_q.d.next = self.chain_limit_code.val();
        }
        if self.cpl_error.val() {
            self.cause_q.d.next = self.cpl_error_code.val();
        }
        if self.expired.val() && !self.draining.val() {
            self.cause_q.d.next = self.cpl_timeout_code.val();
        }
        if self.reset.val() {
            self.cause_q.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Lcg, Stepper};
    use crate::verilog::checks::lint_verilog;
    use crate::verilog::export::block_verilog;

    /// Random events (at most one of start, check and limit a cycle, as the walk's states
    /// give them; errors and timeouts at any time) against the rule written plainly; every
    /// cause is held, and a timeout while draining keeps the completion error.
    #[test]
    fn holds_the_first_cause_as_the_rule_says() {
        let mut s = Stepper::new(StopCause::default(), |b| &mut b.clock);
        let mut rng = Lcg(0x5709_CA05);
        let mut cause = 0u64;
        let mut held = [0usize; 16];
        let mut kept_in_drain = 0;
        for cycle in 0..30_000 {
            let reset = cycle == 0 || rng.chance(0.005);
            let event = rng.below(6);
            let (start, check, limit) = (event == 0, event == 1, event == 2);
            let check_cause = if rng.chance(0.6) { 0 } else { rng.below(16) };
            let cpl_error = rng.chance(0.03);
            let expired = rng.chance(0.02);
            let draining = rng.chance(0.3);
            let u = &mut s.uut;
            u.reset.next = reset;
            u.start.next = start;
            u.check.next = check;
            u.check_cause.next = check_cause.into();
            u.limit.next = limit;
            u.cpl_error.next = cpl_error;
            u.expired.next = expired;
            u.draining.next = draining;
            s.settle();
            if cycle > 0 {
                assert_eq!(s.uut.cause.val().to_u64(), cause, "cycle {cycle}");
            }
            held[cause as usize] += 1;
            if start {
                cause = 0;
            }
            if check {
                cause = check_cause;
            }
            if limit {
                cause = ErrorCause::ChainLimit as u64;
            }
            if cpl_error {
                cause = ErrorCause::CplError as u64;
            }
            if expired && draining {
                kept_in_drain += 1;
            } else if expired {
                cause = ErrorCause::CplTimeout as u64;
            }
            if reset {
                cause = 0;
            }
            s.tick();
        }
        assert!(held.iter().all(|&n| n > 100), "{held:?}");
        assert!(kept_in_drain > 50, "{kept_in_drain} timeouts kept a cause");
    }

    #[test]
    fn stop_cause_lint_clean() {
        let mut uut = StopCause::default();
        lint_verilog(&block_verilog(&mut uut, "dma_stop_cause"), "dma_stop_cause").unwrap();
    }
}
