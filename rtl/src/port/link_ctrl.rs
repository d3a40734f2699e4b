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
//! TX ([`LinkTx`]): answers go before the engine's requests (completions may pass
//! requests); a beat that was presented and not taken stays selected until it is taken.
//! Link down resets both halves: a beat not taken yet is withdrawn, as DL_Down discards a
//! port's pending TLPs.
//!
//! Status: in the endpoint role, [`EpStatus`]'s (ready once memory space and bus master
//! are enabled; Identify, Ready, and `NotConfigured` after `ep_timeout`). In the
//! root-complex role state, error and readiness are the engine's. Link down: state Down,
//! not ready, no error, registers and engine reset.

use super::bringup::BringUp;
use super::cfg_space::CfgSpace;
use super::ep_status::EpStatus;
use super::link_rx::LinkRx;
use super::link_tx::LinkTx;
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
    /// TX: the answers before the requests.
    link_tx: LinkTx,
    /// The endpoint role's status.
    ep: EpStatus,
    /// The LinkState code Down.
    st_down: Constant<Bits<4>>,
    /// The LinkError code for no error.
    e_none: Constant<Bits<4>>,
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
            link_tx: Default::default(),
            ep: Default::default(),
            st_down: status_code(LinkState::Down as u64),
            e_none: status_code(LinkError::None as u64),
        }
    }
}

impl Logic for LinkCtrl {
    #[hdl_gen]
    fn update(&mut self) {
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

        // TX: answers first.
        self.link_tx.clock.next = self.clock.val();
        self.link_tx.reset.next = self.reset.val() || !self.link_up.val();
        TlpSource::join(&mut self.cfg.tx, &mut self.link_tx.answers);
        TlpSource::join(&mut self.rc.tx, &mut self.link_tx.requests);
        TlpSource::link(&mut self.tx, &mut self.link_tx.tx);

        // Endpoint status.
        self.ep.clock.next = self.clock.val();
        self.ep.reset.next = self.reset.val() || !self.link_up.val() || self.role_rc.val();
        self.ep.link_up.next = self.link_up.val();
        self.ep.role_rc.next = self.role_rc.val();
        self.ep.mem_enable.next = self.cfg.mem_enable.val();
        self.ep.bus_master.next = self.cfg.bus_master.val();
        self.ep.ep_timeout.next = self.ep_timeout.val();

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
            self.ready.next = self.ep.ready.val();
            self.state.next = self.ep.state.val();
            self.error.next = self.ep.error.val();
            self.device_id.next = self.cfg.device_id.val();
            self.partner_node.next = self.cfg.partner_node.val();
            self.partner_port.next = self.cfg.partner_port.val();
            self.partner_valid.next = self.link_up.val() && self.cfg.partner_valid.val();
        }
        if !self.link_up.val() {
            self.state.next = self.st_down.val();
            self.error.next = self.e_none.val();
        }
    }
}
