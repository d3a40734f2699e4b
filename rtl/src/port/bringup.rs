//! The bring-up engine of a port in the root-complex role: it configures the partner
//! endpoint in the five steps of `peach2_regmap::config` (`bringup_step` says what each
//! sends, `bringup_request` builds and holds its beat, `bringup_verdict` says what each
//! completion means) and reports the outcome.
//!
//! Each step sends one config request (CfgRd0/CfgWr0, requester id 0, `first_be` 0xF, to
//! bus [`PARTNER_BUS`] device 0 function 0) and waits for its completion: requester id 0
//! and the request's tag. Every request gets a fresh tag (a counter), so a completion of
//! an earlier request never matches a later one; completions that do not match are
//! dropped and reported (`unexpected`). The request beat is held on `tx` until taken; the completion timeout
//! (`cfg_timeout` cycles) runs from the cycle after it was taken, per step.
//!
//! A completion's status decides: SC goes on (a read must carry data); UR means the
//! partner is a root complex too ([`LinkError::PartnerNotEndpoint`]); CRS (the partner is
//! not ready for config yet) resends the request with a new tag, the step's timeout still
//! running; any other status (CA, reserved) cannot come from a PEACH2 endpoint
//! ([`LinkError::PartnerNotPeach2`]). The partner's `PORT_INFO` is shown as partner info as
//! soon as it is read, also when the port is the wrong one (it tells the operator which
//! cable went where). A config request arriving in this role while the bring-up runs
//! fails it with [`LinkError::ConfigInRcRole`] unless it has failed already (the first
//! error stays): the partner is a root complex too. After the bring-up is done it is
//! only answered with UR (by the config space) and the link stays ready.
//!
//! The link controller holds this block in reset while the link is down or the port is an
//! endpoint, which restarts the sequence on the next link up.

use super::bringup_request::BringupRequest;
use super::bringup_step::{BringupStep, Step};
use super::bringup_verdict::BringupVerdict;
use super::status_code;
use crate::stream::TlpSource;
use peach2_regmap::address::NODE_BITS;
use peach2_regmap::config::{LinkError, INFO_PORT_SHIFT};
use rust_hdl::prelude::*;

// `PORT_INFO` and `PARTNER_INFO`: the node id in bits 5:0, the port in bits 9:8.
const _: () = assert!(NODE_BITS == 6 && INFO_PORT_SHIFT == 8);

/// Where the current step's request is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum Phase {
    /// To be built.
    Send,
    /// Presented on `tx`, not taken yet.
    Post,
    /// Sent; waiting for its completion.
    Wait,
}

/// The root-complex bring-up engine of one port.
#[derive(LogicBlock)]
pub struct BringUp {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: back to step 1, nothing sent, no error.
    pub reset: Signal<In, Bit>,
    /// Upstream: a one-beat completion that arrived on the port.
    pub cpl: Signal<In, Bits<128>>,
    /// `cpl` holds a completion this cycle.
    pub cpl_valid: Signal<In, Bit>,
    /// A config request arrived on the port this cycle.
    pub cfg_in_rc: Signal<In, Bit>,
    /// Downstream: the config requests, one beat each.
    pub tx: TlpSource,
    /// This node's id (written to the partner's `PARTNER_INFO`).
    pub node_id: Signal<In, Bits<6>>,
    /// This port's index (written to the partner's `PARTNER_INFO`).
    pub port_index: Signal<In, Bits<2>>,
    /// The port the partner must be.
    pub expected_partner: Signal<In, Bits<2>>,
    /// Cycles to wait for each completion.
    pub cfg_timeout: Signal<In, Bits<32>>,
    /// `LinkState` code (Identify, Configure, Ready or Failed).
    pub state: Signal<Out, Bits<4>>,
    /// `LinkError` code.
    pub error: Signal<Out, Bits<4>>,
    /// The partner is configured.
    pub ready: Signal<Out, Bit>,
    /// Pulse: a completion arrived that answers no request in flight (an unexpected
    /// completion, PCIe 2.0 §2.3.2); it is dropped and counted in `DROPS`.
    pub unexpected: Signal<Out, Bit>,
    /// Partner's node id, from its `PORT_INFO`.
    pub partner_node: Signal<Out, Bits<6>>,
    /// Partner's port, from its `PORT_INFO`.
    pub partner_port: Signal<Out, Bits<2>>,
    /// The partner's `PORT_INFO` was read.
    pub partner_valid: Signal<Out, Bit>,
    /// The current step of the bring-up.
    step: DFF<Step>,
    /// Where the current step's request is.
    phase: DFF<Phase>,
    /// Cycles the current step has waited for its completion.
    timer: DFF<Bits<32>>,
    /// See `error`.
    err: DFF<Bits<4>>,
    /// See `partner_node`.
    p_node: DFF<Bits<6>>,
    /// See `partner_port`.
    p_port: DFF<Bits<2>>,
    /// See `partner_valid`.
    p_valid: DFF<Bit>,
    /// `cpl` a cycle late: the completion's checks and the registers behind them (the
    /// partner, the error, the step) are not in one cycle with the link's receive
    /// decode. Bring-up is not timed to the cycle, and the config request's arrival
    /// (`cfg_in_q`) is delayed with it, so the two keep their order.
    cpl_q: DFF<Bits<128>>,
    /// `cpl_valid` a cycle late.
    cpl_valid_q: DFF<Bit>,
    /// `cfg_in_rc` a cycle late.
    cfg_in_q: DFF<Bit>,
    /// The current step's request (`bringup_step`).
    request: BringupStep,
    /// The request's beat, held on `tx` until taken, and its tag.
    beat: BringupRequest,
    /// What a completion means for it.
    verdict: BringupVerdict,
    /// The LinkError code for no error, set by reset.
    e_none: Constant<Bits<4>>,
    /// The LinkError code for a step whose completion did not come within `cfg_timeout`.
    e_no_response: Constant<Bits<4>>,
    /// The LinkError code for a config request arriving in this (root-complex) role.
    e_cfg_in_rc: Constant<Bits<4>>,
}

impl Default for BringUp {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cpl: Default::default(),
            cpl_valid: Default::default(),
            cfg_in_rc: Default::default(),
            tx: Default::default(),
            node_id: Default::default(),
            port_index: Default::default(),
            expected_partner: Default::default(),
            cfg_timeout: Default::default(),
            state: Default::default(),
            error: Default::default(),
            unexpected: Default::default(),
            ready: Default::default(),
            partner_node: Default::default(),
            partner_port: Default::default(),
            partner_valid: Default::default(),
            step: Default::default(),
            phase: Default::default(),
            timer: Default::default(),
            err: Default::default(),
            p_node: Default::default(),
            p_port: Default::default(),
            p_valid: Default::default(),
            cpl_q: Default::default(),
            cpl_valid_q: Default::default(),
            cfg_in_q: Default::default(),
            request: Default::default(),
            beat: Default::default(),
            verdict: Default::default(),
            e_none: status_code(LinkError::None as u64),
            e_no_response: status_code(LinkError::NoResponse as u64),
            e_cfg_in_rc: status_code(LinkError::ConfigInRcRole as u64),
        }
    }
}

impl Logic for BringUp {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            step,
            phase,
            timer,
            err,
            p_node,
            p_port,
            p_valid,
            cpl_q,
            cpl_valid_q,
            cfg_in_q
        );
        self.cpl_q.d.next = self.cpl.val();
        self.cpl_valid_q.d.next = self.cpl_valid.val();
        self.cfg_in_q.d.next = self.cfg_in_rc.val();
        // The request of the current step, and the step after it.
        self.request.step.next = self.step.q.val();
        self.request.node_id.next = self.node_id.val();
        self.request.port_index.next = self.port_index.val();
        self.state.next = self.request.state.val();

        // The request beat, built when the step has one to send and none is held.
        self.beat.clock.next = self.clock.val();
        self.beat.reset.next = self.reset.val();
        self.beat.send.next = self.request.active.val()
            && (self.phase.q.val() == Phase::Send)
            && !self.beat.busy.val();
        self.beat.is_read.next = self.request.is_read.val();
        self.beat.dw2.next = self.request.req_dw2.val();
        self.beat.wvalue.next = self.request.wvalue.val();
        TlpSource::link(&mut self.tx, &mut self.beat.tx);
        if self.beat.send.val() {
            self.phase.d.next = Phase::Post;
        }
        if self.beat.taken.val() && (self.phase.q.val() == Phase::Post) {
            self.phase.d.next = Phase::Wait;
        }

        // The completion's verdict on the request in flight.
        self.verdict.cpl.next = self.cpl_q.q.val();
        self.verdict.cpl_valid.next = self.cpl_valid_q.q.val();
        self.verdict.waiting.next =
            self.request.active.val() && (self.phase.q.val() == Phase::Wait);
        self.verdict.tag.next = self.beat.tag.val();
        self.verdict.step.next = self.step.q.val();
        self.verdict.is_read.next = self.request.is_read.val();
        self.verdict.expected_partner.next = self.expected_partner.val();
        self.unexpected.next = self.verdict.unexpected.val();

        if self.verdict.waiting.val() {
            self.timer.d.next = self.timer.q.val() + 1;
            if self.timer.q.val() >= self.cfg_timeout.val() {
                self.step.d.next = Step::Failed;
                self.err.d.next = self.e_no_response.val();
            }
        }
        if self.verdict.success.val() {
            self.step.d.next = self.request.next_step.val();
            self.phase.d.next = Phase::Send;
            self.timer.d.next = 0.into();
        }
        if self.verdict.resend.val() {
            self.phase.d.next = Phase::Send;
        }
        if self.verdict.partner.val() {
            self.p_node.d.next = self.verdict.partner_node.val();
            self.p_port.d.next = self.verdict.partner_port.val();
            self.p_valid.d.next = true;
        }
        if self.verdict.fail.val() {
            self.step.d.next = Step::Failed;
            self.err.d.next = self.verdict.err.val();
        }
        // Two root complexes cabled together: the partner's bring-up reached us. Once
        // ours is done, a config request is only a bad packet: answered UR, not fatal.
        if self.cfg_in_q.q.val()
            && (self.step.q.val() != Step::Failed)
            && (self.step.q.val() != Step::Done)
        {
            self.step.d.next = Step::Failed;
            self.err.d.next = self.e_cfg_in_rc.val();
        }

        self.error.next = self.err.q.val();
        self.ready.next = self.step.q.val() == Step::Done;
        self.partner_node.next = self.p_node.q.val();
        self.partner_port.next = self.p_port.q.val();
        self.partner_valid.next = self.p_valid.q.val();

        if self.reset.val() {
            self.step.d.next = Step::ReadId;
            self.phase.d.next = Phase::Send;
            self.timer.d.next = 0.into();
            self.err.d.next = self.e_none.val();
            self.p_node.d.next = 0.into();
            self.p_port.d.next = 0.into();
            self.p_valid.d.next = false;
            self.cpl_valid_q.d.next = false;
            self.cfg_in_q.d.next = false;
        }
    }
}
