//! A port's RX stage: decides where each TLP goes, rewrites BAR2 addresses at N into
//! global ones, checks framing, and hands the TLP on.
//!
//! Two register stages. The first ([`RxDecode`]) registers each beat with the router's
//! decision on it and the TLP's size from its header; between them, here, the beats of a
//! packet are steered as its `sop` beat's decision says and their framing is checked;
//! the second ([`RxOutput`]) holds the steered beat (and makes a BAR2 write's address
//! global). Beats go to the crossbar (through the port's ingress FIFO), to the port's
//! link controller, or nowhere (dropped; counted).
//!
//! The header's length field is checked against the beats that arrive. A TLP for the
//! crossbar whose beats disagree with it (more or fewer DWs), whose payload exceeds the
//! chip's Max_Payload_Size, or that is cut short by the next `sop` is malformed (PCIe
//! 2.0, 2.2.2): its beats stop at the first bad one and `discard` tells the ingress FIFO,
//! which holds every packet until its `eop` (store-and-forward), to drop what it has of
//! it, so a malformed TLP is never written nor forwarded. A beat outside a packet is
//! dropped. Each malformed TLP pulses `malformed` once. The link controller checks the
//! one-beat TLPs it takes itself, so its packets pass whole. Link down (DL_Down) cuts the
//! packet in progress short: it is dropped the same way (and counted malformed once),
//! and the next packet after the link is back starts afresh. A packet whose last beat is
//! already in the first register came in whole and is not cut: what the hard IP handed
//! over is never lost.

use super::rx_decode::RxDecode;
use super::rx_framing::RxFraming;
use super::rx_malformed::RxMalformed;
use super::rx_output::RxOutput;
use crate::router::{PortConfig, RouteAction, RouteConfig};
use crate::stream::{PortSink, TlpSource};
use rust_hdl::prelude::*;

/// What happens to the beats of the packet in progress.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum Steer {
    /// Between packets.
    Idle,
    /// To the crossbar.
    Xbar,
    /// To the link controller.
    Link,
    /// Consumed and dropped.
    Drop,
}

/// The RX stage of one port.
#[derive(LogicBlock, Default)]
pub struct RxRoute {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Upstream: TLPs from the port's hard IP.
    pub rx: PortSink,
    /// Downstream: TLPs for the crossbar, with `dest`, `src`, `unsupported` set.
    pub to_xbar: TlpSource,
    /// Downstream, with `to_xbar`: the TLP passed to the crossbar so far is malformed;
    /// drop its beats (a one-cycle pulse, before this cycle's beat, if any).
    pub discard: Signal<Out, Bit>,
    /// Downstream: TLPs for the port's link controller.
    pub to_link: TlpSource,
    /// Data link layer up (from the hard IP).
    pub link_up: Signal<In, Bit>,
    /// What the port is.
    pub port: PortConfig,
    /// Where global writes go.
    pub routes: RouteConfig,
    /// Pulse: a TLP started (its `sop` beat was taken).
    pub tlp_in: Signal<Out, Bit>,
    /// Bytes taken this cycle (0..16).
    pub bytes_in: Signal<Out, Bits<5>>,
    /// Pulse: a TLP was dropped.
    pub dropped: Signal<Out, Bit>,
    /// Pulse: a malformed TLP was seen.
    pub malformed: Signal<Out, Bit>,
    /// The first register: the beat and the router's decision on it.
    decode: RxDecode,
    /// Where the beats of the packet in progress go.
    steer: DFF<Steer>,
    /// The second register: the beat, steered.
    out: RxOutput,
    /// The DWs the packet in progress owes, and each beat's framing against them.
    framing: RxFraming,
    /// See `discard`.
    out_discard: DFF<Bit>,
    /// One `malformed` pulse per malformed TLP.
    count: RxMalformed,
    /// Link down cuts the packet in progress short (its last beat is not in the first
    /// register).
    cut: Signal<Local, Bit>,
    /// The first register's beat moves on this cycle.
    take: Signal<Local, Bit>,
    /// Where this beat goes.
    cur: Signal<Local, Steer>,
}

impl Logic for RxRoute {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, steer, out_discard);
        self.decode.clock.next = self.clock.val();
        self.decode.reset.next = self.reset.val();
        self.decode.link_up.next = self.link_up.val();
        PortSink::link(&mut self.rx, &mut self.decode.rx);
        PortConfig::link(&mut self.port, &mut self.decode.port);
        RouteConfig::link(&mut self.routes, &mut self.decode.routes);
        self.tlp_in.next = self.decode.tlp_in.val();
        self.bytes_in.next = self.decode.bytes_in.val();

        // The second register.
        self.out.clock.next = self.clock.val();
        self.out.reset.next = self.reset.val();
        self.out.src.next = bit_cast::<3, 2>(self.port.port_index.val());
        TlpSource::link(&mut self.to_xbar, &mut self.out.to_xbar);
        TlpSource::link(&mut self.to_link, &mut self.out.to_link);
        self.out.data.next = self.decode.data.val();
        self.out.sop.next = self.decode.sop.val();
        self.out.eop.next = self.decode.eop.val();
        self.out.empty.next = self.decode.empty.val();
        self.out.dest.next = self.decode.dest.val();
        self.out.unsupported.next = self.decode.unsupported.val();
        self.out.rewrite_global.next = self.decode.rewrite_global.val();
        self.discard.next = self.out_discard.q.val();
        self.out_discard.d.next = false;

        self.take.next = self.decode.valid.val() && self.out.free.val() && !self.reset.val();
        self.decode.take.next = self.take.val();

        // Steering for this beat: a new decision on sop, else the packet's.
        self.cur.next = self.steer.q.val();
        if self.decode.sop.val() {
            self.cur.next = Steer::Drop;
            if self.decode.action.val() == RouteAction::Forward {
                self.cur.next = Steer::Xbar;
            }
            if self.decode.action.val() == RouteAction::Link {
                self.cur.next = Steer::Link;
            }
        }

        // Framing of this beat against its packet's header.
        self.cut.next = !self.link_up.val()
            && (self.steer.q.val() != Steer::Idle)
            && !(self.decode.valid.val() && self.decode.eop.val());
        self.framing.clock.next = self.clock.val();
        self.framing.reset.next = self.reset.val();
        self.framing.take.next = self.take.val();
        self.framing.sop.next = self.decode.sop.val();
        self.framing.eop.next = self.decode.eop.val();
        self.framing.beat_dws.next = self.decode.beat_dws.val();
        self.framing.total_dws.next = self.decode.total_dws.val();
        self.framing.header_bad.next = (self.decode.action.val() == RouteAction::Malformed)
            || self.decode.misframed.val()
            || self.decode.too_big.val();
        self.framing.idle.next = self.steer.q.val() == Steer::Idle;
        self.framing.cut.next = self.cut.val();

        self.count.clock.next = self.clock.val();
        self.count.reset.next = self.reset.val();
        self.count.take.next = self.take.val();
        self.count.sop.next = self.decode.sop.val();
        self.count.eop.next = self.decode.eop.val();
        self.count.bad.next = self.framing.bad.val();
        self.count.in_packet.next = self.steer.q.val() != Steer::Idle;
        self.count.cut.next = self.cut.val();
        // The first register drops the beat waiting in it: a packet cut before it
        // started here.
        self.count.lost.next = !self.link_up.val()
            && self.decode.valid.val()
            && !self.decode.eop.val()
            && !self.take.val();
        self.malformed.next = self.count.malformed.val();

        self.dropped.next = false;
        if self.take.val() {
            if self.framing.bad.val() && (self.cur.val() == Steer::Xbar) {
                self.cur.next = Steer::Drop;
            }
            self.steer.d.next = self.cur.val();
            // The crossbar's packet in progress ends here, short or bad: drop it.
            self.out_discard.d.next = (self.steer.q.val() == Steer::Xbar)
                && (self.decode.sop.val() || self.framing.bad.val());
            if self.decode.sop.val() {
                self.dropped.next = self.decode.action.val() == RouteAction::Drop;
            }
            if self.decode.eop.val() {
                self.steer.d.next = Steer::Idle;
            }
        }
        self.out.load.next =
            self.take.val() && ((self.cur.val() == Steer::Xbar) || (self.cur.val() == Steer::Link));
        self.out.to_link_ctrl.next = self.cur.val() == Steer::Link;
        self.out.cancel.next = false;
        // Link down: the packet in progress was cut short, unless its last beat is in the
        // first register; what of it is not yet past the output register goes, and the
        // ingress FIFO drops the rest.
        if self.cut.val() {
            self.steer.d.next = Steer::Idle;
            self.out.cancel.next = true;
            self.out_discard.d.next = self.steer.q.val() == Steer::Xbar;
        }
        if self.reset.val() {
            self.steer.d.next = Steer::Idle;
            self.out_discard.d.next = false;
        }
    }
}
