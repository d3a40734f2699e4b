//! The endpoint role's bring-up status. The port is ready when the link is up and the
//! host (or the partner's bring-up) enabled memory space and bus master; state Identify
//! until then, Ready after. If nobody configured it within `ep_timeout` cycles of link up
//! the error is `NotConfigured` (the state stays Identify; the error clears when it gets
//! configured, and is not raised again for that link-up if software later disables the
//! port). The link controller shows this in the endpoint role, and Down while the link
//! is down.

use super::status_code;
use peach2_regmap::config::{LinkError, LinkState};
use rust_hdl::prelude::*;

/// The endpoint role's status.
#[derive(LogicBlock)]
pub struct EpStatus {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high (the port's reset, link down, or the root-complex
    /// role): the timeout starts over.
    pub reset: Signal<In, Bit>,
    /// Data link layer up.
    pub link_up: Signal<In, Bit>,
    /// The port plays the root-complex role (never ready as an endpoint).
    pub role_rc: Signal<In, Bit>,
    /// Command register: memory space enable.
    pub mem_enable: Signal<In, Bit>,
    /// Command register: bus master enable.
    pub bus_master: Signal<In, Bit>,
    /// Cycles from link up to `NotConfigured`.
    pub ep_timeout: Signal<In, Bits<32>>,
    /// Memory traffic may flow.
    pub ready: Signal<Out, Bit>,
    /// `LinkState` code: Identify or Ready.
    pub state: Signal<Out, Bits<4>>,
    /// `LinkError` code: None or NotConfigured.
    pub error: Signal<Out, Bits<4>>,
    /// Cycles since link up while never ready, up to `ep_timeout`.
    ep_timer: DFF<Bits<32>>,
    /// `ep_timer` had reached `ep_timeout` in the cycle before: the not-configured error
    /// shows a cycle after the timeout, from a register, so the CSR read answer that
    /// reports it waits on no 32-bit compare.
    ep_late: DFF<Bit>,
    /// The endpoint was ready once since link up (the timeout error is not raised again).
    ep_was_ready: DFF<Bit>,
    /// The LinkState code Identify: an endpoint waiting to be configured.
    st_identify: Constant<Bits<4>>,
    /// The LinkState code Ready: an endpoint configured.
    st_ready: Constant<Bits<4>>,
    /// The LinkError code for no error.
    e_none: Constant<Bits<4>>,
    /// The LinkError code for an endpoint not configured within `ep_timeout`.
    e_not_configured: Constant<Bits<4>>,
}

impl Default for EpStatus {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            link_up: Default::default(),
            role_rc: Default::default(),
            mem_enable: Default::default(),
            bus_master: Default::default(),
            ep_timeout: Default::default(),
            ready: Default::default(),
            state: Default::default(),
            error: Default::default(),
            ep_timer: Default::default(),
            ep_late: Default::default(),
            ep_was_ready: Default::default(),
            st_identify: status_code(LinkState::Identify as u64),
            st_ready: status_code(LinkState::Ready as u64),
            e_none: status_code(LinkError::None as u64),
            e_not_configured: status_code(LinkError::NotConfigured as u64),
        }
    }
}

impl Logic for EpStatus {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, ep_timer, ep_late, ep_was_ready);
        self.ready.next = self.link_up.val()
            && !self.role_rc.val()
            && self.mem_enable.val()
            && self.bus_master.val();
        if self.ready.val() {
            self.ep_was_ready.d.next = true;
        }
        if !self.ep_was_ready.q.val() && (self.ep_timer.q.val() < self.ep_timeout.val()) {
            self.ep_timer.d.next = self.ep_timer.q.val() + 1;
        }
        self.ep_late.d.next = self.ep_timer.q.val() >= self.ep_timeout.val();
        self.state.next = self.st_identify.val();
        if self.ready.val() {
            self.state.next = self.st_ready.val();
        }
        self.error.next = self.e_none.val();
        if !self.ready.val() && !self.ep_was_ready.q.val() && self.ep_late.q.val() {
            self.error.next = self.e_not_configured.val();
        }
        if self.reset.val() {
            self.ep_timer.d.next = 0.into();
            self.ep_late.d.next = false;
            self.ep_was_ready.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Lcg, Stepper};

    /// Random link, role, enables, resets and timeouts against the rule written plainly:
    /// ready with the link up, the endpoint role and both enables; NotConfigured from the
    /// cycle after `ep_timeout` cycles without ever being ready, until ready or a reset.
    #[test]
    fn status_follows_the_documented_rule() {
        let mut s = Stepper::new(EpStatus::default(), |u| &mut u.clock);
        let mut rng = Lcg(0xE957);
        // The model: cycles counted, ready once, the count at the timeout a cycle ago.
        let (mut timer, mut was_ready, mut late) = (0u64, false, false);
        let (mut errors, mut readies) = (0, 0);
        let mut timeout = 20;
        let mut enabled = false;
        for cycle in 0..30_000 {
            let reset = cycle == 0 || rng.chance(0.003);
            if rng.chance(0.001) {
                timeout = rng.below(60);
            }
            let (link_up, role_rc) = (rng.chance(0.99), rng.chance(0.05));
            // The host enables the port for long stretches and leaves it for long ones,
            // so timeouts happen.
            if rng.chance(0.005) {
                enabled = !enabled;
            }
            let u = &mut s.uut;
            u.reset.next = reset;
            u.link_up.next = link_up;
            u.role_rc.next = role_rc;
            u.mem_enable.next = enabled || rng.chance(0.1);
            u.bus_master.next = enabled;
            u.ep_timeout.next = timeout.into();
            s.settle();
            let u = &s.uut;
            let ready = link_up && !role_rc && u.mem_enable.val() && u.bus_master.val();
            assert_eq!(u.ready.val(), ready, "cycle {cycle}: ready");
            let state = if ready {
                LinkState::Ready
            } else {
                LinkState::Identify
            };
            assert_eq!(u.state.val().to_u64(), state as u64, "cycle {cycle}: state");
            let error = !ready && !was_ready && late;
            let code = if error {
                LinkError::NotConfigured
            } else {
                LinkError::None
            };
            assert_eq!(u.error.val().to_u64(), code as u64, "cycle {cycle}: error");
            errors += usize::from(error);
            readies += usize::from(ready);
            late = timer >= timeout;
            if !was_ready && timer < timeout {
                timer += 1;
            }
            was_ready |= ready;
            if reset {
                (timer, was_ready, late) = (0, false, false);
            }
            s.tick();
        }
        assert!(
            errors > 500 && readies > 1_000,
            "{errors} errors, {readies} ready"
        );
    }

    #[test]
    fn ep_status_verilog_lints_clean() {
        let mut uut = EpStatus::default();
        let v = crate::verilog::export::block_verilog(&mut uut, "ep_status");
        crate::verilog::checks::lint_verilog(&v, "ep_status").unwrap();
    }
}
