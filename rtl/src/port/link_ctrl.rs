//! The link controller of one port: the endpoint config space ([`CfgSpace`]) and the
//! root-complex bring-up engine ([`BringUp`]) behind one `rx`/`tx` pair, selected by the
//! port's role, and the port's bring-up status.
//!
//! RX ([`LinkRx`]): the port's RX stage hands over config requests and (root-complex
//! role) completions. A one-beat config request with length 1, `last_be` 0 and the beat's
//! `empty` matching its fmt goes to the config space, which answers it (UR in the
//! root-complex role, where it also fails a bring-up still running with `ConfigInRcRole`;
//! each UR answer pulses `ur_sent`, the port's `UR_SENT`). A one-beat
//! completion goes to the bring-up engine in the root-complex role. Everything else is
//! consumed to its `eop` and dropped without an answer: a malformed request (several
//! beats, wrong length) is discarded as PCIe §2.3 asks of a receiver, so it gets no
//! completion either. Each TLP dropped so, and each completion the engine expected
//! none of, pulses `dropped` (the port's `DROPS`). `rx` is taken only while the answer slot is free, and always while
//! the link is down (beats from a dead link are dropped).
//!
//! TX: answers go before the engine's requests (completions may pass requests); a beat
//! that was presented and not taken stays selected until it is taken. Link down resets
//! both halves: a beat not taken yet is withdrawn, as DL_Down discards a port's pending
//! TLPs.
//!
//! Status: in the endpoint role the port is ready when the link is up and the host (or the
//! partner's bring-up) enabled memory space and bus master; state Down, Identify or
//! Ready. If nobody configured it within `ep_timeout` cycles of link up the error is
//! `NotConfigured` (the state stays Identify; the error clears when it gets configured,
//! and is not raised again for that link-up if software later disables the port). In the
//! root-complex role state, error and readiness are the engine's. Link down: state Down,
//! not ready, no error, registers and engine reset.

use super::bringup::BringUp;
use super::cfg_space::CfgSpace;
use super::link_rx::LinkRx;
use super::status_code;
use crate::stream::{TlpSink, TlpSource};
use peach2_regmap::config::{LinkError, LinkState};
use rust_hdl::prelude::*;

/// The link controller of one port.
#[derive(LogicBlock)]
pub struct LinkCtrl {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Upstream: config requests and completions that arrived on the port.
    pub rx: TlpSink,
    /// Downstream: completions (endpoint role, UR) and config requests (root-complex role),
    /// one beat each, `dest`/`src`/`unsupported` 0.
    pub tx: TlpSource,
    /// Data link layer up (from the hard IP).
    pub link_up: Signal<In, Bit>,
    /// The port plays the root-complex role.
    pub role_rc: Signal<In, Bit>,
    /// This port's index (0..3 = N, E, W, S).
    pub port_index: Signal<In, Bits<2>>,
    /// This node's id.
    pub node_id: Signal<In, Bits<6>>,
    /// Root-complex role: the port index the partner must report.
    pub expected_partner: Signal<In, Bits<2>>,
    /// Endpoint role: cycles from link up to `NotConfigured`.
    pub ep_timeout: Signal<In, Bits<32>>,
    /// Root-complex role: cycles to wait for each config completion.
    pub cfg_timeout: Signal<In, Bits<32>>,
    /// Memory traffic may flow.
    pub ready: Signal<Out, Bit>,
    /// `LinkState` code.
    pub state: Signal<Out, Bits<4>>,
    /// `LinkError` code.
    pub error: Signal<Out, Bits<4>>,
    /// Endpoint role: captured bus/dev/fn (completer and requester id); 0 in the
    /// root-complex role.
    pub device_id: Signal<Out, Bits<16>>,
    /// Command register: memory space enable.
    pub mem_enable: Signal<Out, Bit>,
    /// Command register: bus master enable.
    pub bus_master: Signal<Out, Bit>,
    /// BAR0 base (bits 31:16 meaningful).
    pub bar0_base: Signal<Out, Bits<32>>,
    /// BAR2 base bits 63:40.
    pub bar2_base_hi: Signal<Out, Bits<22>>,
    /// Partner's node id.
    pub partner_node: Signal<Out, Bits<6>>,
    /// Partner's port index.
    pub partner_port: Signal<Out, Bits<2>>,
    /// The partner identified itself (endpoint: `PARTNER_INFO` valid bit; root complex:
    /// its `PORT_INFO` was read).
    pub partner_valid: Signal<Out, Bit>,
    /// Device control: max payload size code.
    pub max_payload: Signal<Out, Bits<3>>,
    /// Device control: max read request size code.
    pub max_read_req: Signal<Out, Bits<3>>,
    /// Pulse: a TLP was taken and dropped without an answer (several beats, a one-beat
    /// TLP neither config space nor engine takes, a completion no request awaits).
    pub dropped: Signal<Out, Bit>,
    /// Pulse: a config request was answered with UR (in the root-complex role, every
    /// one).
    pub ur_sent: Signal<Out, Bit>,
    /// What each received TLP is.
    intake: LinkRx,
    /// The endpoint's config space.
    cfg: CfgSpace,
    /// The root complex's bring-up engine.
    rc: BringUp,
    /// Endpoint role: cycles since link up while never ready, up to `ep_timeout`.
    ep_timer: DFF<Bits<32>>,
    /// `ep_timer` had reached `ep_timeout` in the cycle before: the not-configured error
    /// shows a cycle after the timeout, from a register, so the CSR read answer that
    /// reports it waits on no 32-bit compare.
    ep_late: DFF<Bit>,
    /// The endpoint was ready once since link up (the timeout error is not raised again).
    ep_was_ready: DFF<Bit>,
    /// TX: a beat was shown and not taken; its source stays selected...
    locked: DFF<Bit>,
    /// ...and it was the bring-up engine's.
    locked_rc: DFF<Bit>,
    /// Endpoint role: link up, memory space and bus master enabled.
    ep_ready: Signal<Local, Bit>,
    /// TX: the bring-up engine's beat is shown (else the config space's answer).
    sel_rc: Signal<Local, Bit>,
    /// `LinkState` and `LinkError` codes.
    st_down: Constant<Bits<4>>,
    /// The LinkState code Identify: an endpoint waiting to be configured.
    st_identify: Constant<Bits<4>>,
    /// The LinkState code Ready: an endpoint configured.
    st_ready: Constant<Bits<4>>,
    /// The LinkError code for no error.
    e_none: Constant<Bits<4>>,
    /// The LinkError code for an endpoint not configured within `ep_timeout`.
    e_not_configured: Constant<Bits<4>>,
}

impl Default for LinkCtrl {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            rx: Default::default(),
            tx: Default::default(),
            link_up: Default::default(),
            role_rc: Default::default(),
            port_index: Default::default(),
            node_id: Default::default(),
            expected_partner: Default::default(),
            ep_timeout: Default::default(),
            cfg_timeout: Default::default(),
            ready: Default::default(),
            state: Default::default(),
            error: Default::default(),
            device_id: Default::default(),
            mem_enable: Default::default(),
            bus_master: Default::default(),
            bar0_base: Default::default(),
            bar2_base_hi: Default::default(),
            partner_node: Default::default(),
            partner_port: Default::default(),
            partner_valid: Default::default(),
            max_payload: Default::default(),
            max_read_req: Default::default(),
            dropped: Default::default(),
            ur_sent: Default::default(),
            intake: Default::default(),
            cfg: Default::default(),
            rc: Default::default(),
            ep_timer: Default::default(),
            ep_late: Default::default(),
            ep_was_ready: Default::default(),
            locked: Default::default(),
            locked_rc: Default::default(),
            ep_ready: Default::default(),
            sel_rc: Default::default(),
            st_down: status_code(LinkState::Down as u64),
            st_identify: status_code(LinkState::Identify as u64),
            st_ready: status_code(LinkState::Ready as u64),
            e_none: status_code(LinkError::None as u64),
            e_not_configured: status_code(LinkError::NotConfigured as u64),
        }
    }
}

impl Logic for LinkCtrl {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            ep_timer,
            ep_late,
            ep_was_ready,
            locked,
            locked_rc
        );
        self.cfg.clock.next = self.clock.val();
        self.rc.clock.next = self.clock.val();
        self.cfg.reset.next = self.reset.val() || !self.link_up.val();
        self.rc.reset.next = self.reset.val() || !self.link_up.val() || !self.role_rc.val();
        self.cfg.role_rc.next = self.role_rc.val();
        self.cfg.node_id.next = self.node_id.val();
        self.cfg.port_index.next = self.port_index.val();
        self.rc.node_id.next = self.node_id.val();
        self.rc.port_index.next = self.port_index.val();
        self.rc.expected_partner.next = self.expected_partner.val();
        self.rc.cfg_timeout.next = self.cfg_timeout.val();

        // RX: what each TLP is.
        self.intake.clock.next = self.clock.val();
        self.intake.reset.next = self.reset.val();
        TlpSink::link(&mut self.rx, &mut self.intake.rx);
        self.intake.cfg_ready.next = self.cfg.req_ready.val();
        self.intake.link_up.next = self.link_up.val();
        self.intake.role_rc.next = self.role_rc.val();
        self.cfg.req.next = self.rx.data.val();
        self.cfg.req_unsupported.next = self.rx.unsupported.val();
        self.cfg.req_valid.next = self.intake.cfg_req.val();
        self.ur_sent.next = self.cfg.ur_sent.val();
        self.rc.cpl.next = self.rx.data.val();
        self.rc.cpl_valid.next = self.intake.cpl.val();
        self.rc.cfg_in_rc.next = self.intake.cfg_req.val() && self.role_rc.val();
        self.dropped.next = self.intake.dropped.val() || self.rc.unexpected.val();

        // TX: answers first; a presented beat keeps its source until taken.
        self.sel_rc.next = !self.cfg.tx.valid.val();
        if self.locked.q.val() {
            self.sel_rc.next = self.locked_rc.q.val();
        }
        self.tx.valid.next = self.cfg.tx.valid.val();
        self.tx.data.next = self.cfg.tx.data.val();
        self.tx.sop.next = self.cfg.tx.sop.val();
        self.tx.eop.next = self.cfg.tx.eop.val();
        self.tx.empty.next = self.cfg.tx.empty.val();
        self.tx.dest.next = self.cfg.tx.dest.val();
        self.tx.src.next = self.cfg.tx.src.val();
        self.tx.unsupported.next = self.cfg.tx.unsupported.val();
        if self.sel_rc.val() {
            self.tx.valid.next = self.rc.tx.valid.val();
            self.tx.data.next = self.rc.tx.data.val();
            self.tx.sop.next = self.rc.tx.sop.val();
            self.tx.eop.next = self.rc.tx.eop.val();
            self.tx.empty.next = self.rc.tx.empty.val();
            self.tx.dest.next = self.rc.tx.dest.val();
            self.tx.src.next = self.rc.tx.src.val();
            self.tx.unsupported.next = self.rc.tx.unsupported.val();
        }
        self.cfg.tx.ready.next = self.tx.ready.val() && !self.sel_rc.val();
        self.rc.tx.ready.next = self.tx.ready.val() && self.sel_rc.val();
        self.locked.d.next = self.tx.valid.val() && !self.tx.ready.val();
        self.locked_rc.d.next = self.sel_rc.val();

        // Endpoint status.
        self.ep_ready.next = self.link_up.val()
            && !self.role_rc.val()
            && self.cfg.mem_enable.val()
            && self.cfg.bus_master.val();
        if self.ep_ready.val() {
            self.ep_was_ready.d.next = true;
        }
        if !self.ep_was_ready.q.val() && (self.ep_timer.q.val() < self.ep_timeout.val()) {
            self.ep_timer.d.next = self.ep_timer.q.val() + 1;
        }
        self.ep_late.d.next = self.ep_timer.q.val() >= self.ep_timeout.val();

        // Status by role.
        self.mem_enable.next = self.cfg.mem_enable.val();
        self.bus_master.next = self.cfg.bus_master.val();
        self.bar0_base.next = self.cfg.bar0_base.val();
        self.bar2_base_hi.next = self.cfg.bar2_base_hi.val();
        self.max_payload.next = self.cfg.max_payload.val();
        self.max_read_req.next = self.cfg.max_read_req.val();
        if self.role_rc.val() {
            self.ready.next = self.link_up.val() && self.rc.ready.val();
            self.state.next = self.rc.state.val();
            self.error.next = self.rc.error.val();
            self.device_id.next = 0.into();
            self.partner_node.next = self.rc.partner_node.val();
            self.partner_port.next = self.rc.partner_port.val();
            self.partner_valid.next = self.link_up.val() && self.rc.partner_valid.val();
        } else {
            self.ready.next = self.ep_ready.val();
            self.state.next = self.st_identify.val();
            if self.ep_ready.val() {
                self.state.next = self.st_ready.val();
            }
            self.error.next = self.e_none.val();
            if !self.ep_ready.val() && !self.ep_was_ready.q.val() && self.ep_late.q.val() {
                self.error.next = self.e_not_configured.val();
            }
            self.device_id.next = self.cfg.device_id.val();
            self.partner_node.next = self.cfg.partner_node.val();
            self.partner_port.next = self.cfg.partner_port.val();
            self.partner_valid.next = self.link_up.val() && self.cfg.partner_valid.val();
        }
        if !self.link_up.val() {
            self.state.next = self.st_down.val();
            self.error.next = self.e_none.val();
        }

        if self.reset.val() || !self.link_up.val() || self.role_rc.val() {
            self.ep_timer.d.next = 0.into();
            self.ep_late.d.next = false;
            self.ep_was_ready.d.next = false;
        }
        if self.reset.val() || !self.link_up.val() {
            self.locked.d.next = false;
        }
    }
}
