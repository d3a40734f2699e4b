//! A port's RX stage, first register: each beat from the hard IP, registered with what
//! the [`Router`] decides from it (on a `sop` beat), the TLP's size from its header, the
//! DWs the beat carries and whether, as a first beat, it already breaks its header's
//! framing, so the second register (`super::rx_route`) steers the beat and checks its
//! framing from registers: the router's logic, the header's arithmetic and the framing
//! checks are not in one clock cycle.
//!
//! One beat deep ([`BeatSlot`]): the beat waits here until the second register takes it
//! (`take`), and the next comes in the same cycle. A beat waiting when the data link goes
//! down is dropped (the hard IP drops the rest of its TLP), unless it ends its TLP: then
//! the whole TLP came in before the link went down, and it goes on. The counts of what came in (`tlp_in`,
//! `bytes_in`) are made here, as the beats leave the hard IP.

use crate::router::{PortConfig, RouteAction, RouteConfig, Router};
use crate::stream::beat_slot::BeatSlot;
use crate::stream::PortSink;
use peach2_regmap::config::MAX_PAYLOAD_BYTES;
use rust_hdl::prelude::*;

/// The RX stage's first register.
#[derive(LogicBlock)]
pub struct RxDecode {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Upstream: TLPs from the port's hard IP.
    pub rx: PortSink,
    /// Downstream: a beat is registered.
    pub valid: Signal<Out, Bit>,
    /// Downstream: the second register takes the beat this cycle.
    pub take: Signal<In, Bit>,
    /// The beat's data.
    pub data: Signal<Out, Bits<128>>,
    /// First beat of a TLP.
    pub sop: Signal<Out, Bit>,
    /// Last beat of a TLP.
    pub eop: Signal<Out, Bit>,
    /// Unused DW lanes in the `eop` beat.
    pub empty: Signal<Out, Bits<2>>,
    /// On a `sop` beat: what to do with the TLP.
    pub action: Signal<Out, RouteAction>,
    /// On a `sop` beat: the crossbar destination when forwarding.
    pub dest: Signal<Out, Bits<3>>,
    /// On a `sop` beat: forwarded to internal to be answered with UR.
    pub unsupported: Signal<Out, Bit>,
    /// On a `sop` beat: replace address bits 63:42 with the global base.
    pub rewrite_global: Signal<Out, Bit>,
    /// On a `sop` beat: the DWs its header says the TLP has (header, payload, digest).
    pub total_dws: Signal<Out, Bits<12>>,
    /// On a `sop` beat: the payload exceeds the chip's Max_Payload_Size.
    pub too_big: Signal<Out, Bit>,
    /// DWs the beat carries (1..=4).
    pub beat_dws: Signal<Out, Bits<3>>,
    /// As the first beat of a TLP, the beat breaks its header's framing: the header says
    /// fewer DWs than the beat carries, or the beat ends the TLP with another count.
    pub misframed: Signal<Out, Bit>,
    /// Data link layer up (from the hard IP).
    pub link_up: Signal<In, Bit>,
    /// What the port is.
    pub port: PortConfig,
    /// Where global writes go.
    pub routes: RouteConfig,
    /// Pulse: a TLP started (its `sop` beat was taken from the hard IP).
    pub tlp_in: Signal<Out, Bit>,
    /// Bytes taken from the hard IP this cycle (0..16).
    pub bytes_in: Signal<Out, Bits<5>>,
    /// The routing decision, from the header lanes of the beat on the input.
    router: Router,
    /// The beat.
    slot: BeatSlot,
    /// See `action`.
    q_action: DFF<RouteAction>,
    /// See `dest`.
    q_dest: DFF<Bits<3>>,
    /// See `unsupported`.
    q_unsupported: DFF<Bit>,
    /// See `rewrite_global`.
    q_rewrite: DFF<Bit>,
    /// See `total_dws`.
    q_total: DFF<Bits<12>>,
    /// See `too_big`.
    q_too_big: DFF<Bit>,
    /// See `beat_dws`.
    q_beat_dws: DFF<Bits<3>>,
    /// See `misframed`.
    q_misframed: DFF<Bit>,
    /// Header DWs of the TLP starting on the input (fmt bit 0: 4-DW header).
    hdr_dws: Signal<Local, Bits<12>>,
    /// Its payload DWs (fmt bit 1: with data; length 0 means 1024).
    payload_dws: Signal<Local, Bits<12>>,
    /// DWs of the beat on the input.
    in_dws: Signal<Local, Bits<5>>,
    /// DWs of the TLP starting on the input, from its header.
    in_total: Signal<Local, Bits<12>>,
    /// `in_total` up to 5 (5 for more): all a first beat of at most 4 DWs is compared
    /// with, from a few header bits, without the length's sum.
    small_total: Signal<Local, Bits<3>>,
    /// The chip's Max_Payload_Size Supported, 256 bytes, in DWs: a longer payload is `too_big`.
    max_payload_dws: Constant<Bits<12>>,
}

impl Default for RxDecode {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            rx: Default::default(),
            valid: Default::default(),
            take: Default::default(),
            data: Default::default(),
            sop: Default::default(),
            eop: Default::default(),
            empty: Default::default(),
            action: Default::default(),
            dest: Default::default(),
            unsupported: Default::default(),
            rewrite_global: Default::default(),
            total_dws: Default::default(),
            too_big: Default::default(),
            link_up: Default::default(),
            port: Default::default(),
            routes: Default::default(),
            tlp_in: Default::default(),
            bytes_in: Default::default(),
            router: Default::default(),
            slot: Default::default(),
            q_action: Default::default(),
            q_dest: Default::default(),
            q_unsupported: Default::default(),
            q_rewrite: Default::default(),
            q_total: Default::default(),
            q_too_big: Default::default(),
            q_beat_dws: Default::default(),
            q_misframed: Default::default(),
            hdr_dws: Default::default(),
            payload_dws: Default::default(),
            in_dws: Default::default(),
            in_total: Default::default(),
            small_total: Default::default(),
            beat_dws: Default::default(),
            misframed: Default::default(),
            max_payload_dws: Constant::new(u64::from(MAX_PAYLOAD_BYTES / 4).into()),
        }
    }
}

impl Logic for RxDecode {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            q_action,
            q_dest,
            q_unsupported,
            q_rewrite,
            q_total,
            q_too_big,
            q_beat_dws,
            q_misframed
        );
        // The router sees the lanes of the beat on the input.
        self.router.dw0.next = self.rx.data.val().get_bits::<32>(0);
        self.router.dw1.next = self.rx.data.val().get_bits::<32>(32);
        self.router.dw2.next = self.rx.data.val().get_bits::<32>(64);
        self.router.dw3.next = self.rx.data.val().get_bits::<32>(96);
        PortConfig::link(&mut self.port, &mut self.router.port);
        RouteConfig::link(&mut self.routes, &mut self.router.routes);

        self.slot.clock.next = self.clock.val();
        self.slot.reset.next = self.reset.val();
        PortSink::link(&mut self.rx, &mut self.slot.sink);
        // Link down: drop the beat held, unless it ends its TLP (the TLP came in whole).
        self.slot.flush.next =
            !(self.link_up.val() || (self.slot.valid.val() && self.slot.eop.val()));
        self.slot.take.next = self.take.val();
        self.valid.next = self.slot.valid.val();
        self.data.next = self.slot.data.val();
        self.sop.next = self.slot.sop.val();
        self.eop.next = self.slot.eop.val();
        self.empty.next = self.slot.empty.val();
        self.action.next = self.q_action.q.val();
        self.dest.next = self.q_dest.q.val();
        self.unsupported.next = self.q_unsupported.q.val();
        self.rewrite_global.next = self.q_rewrite.q.val();
        self.total_dws.next = self.q_total.q.val();
        self.too_big.next = self.q_too_big.q.val();
        self.beat_dws.next = self.q_beat_dws.q.val();
        self.misframed.next = self.q_misframed.q.val();

        // The TLP's size from its header: fmt bit 0 = 4-DW header, fmt bit 1 = with data,
        // TD adds the digest.
        self.hdr_dws.next = 3.into();
        if self.rx.data.val().get_bit(29) {
            self.hdr_dws.next = 4.into();
        }
        self.payload_dws.next = 0.into();
        if self.rx.data.val().get_bit(30) {
            self.payload_dws.next = bit_cast::<12, 10>(self.rx.data.val().get_bits::<10>(0));
            if self.rx.data.val().get_bits::<10>(0) == 0 {
                self.payload_dws.next = 1024.into();
            }
        }
        self.in_total.next = self.hdr_dws.val() + self.payload_dws.val();
        if self.rx.data.val().get_bit(15) {
            self.in_total.next = self.hdr_dws.val() + self.payload_dws.val() + 1;
        }
        // 3 or 4 header DWs, the digest, and a payload of 0, 1 or more DWs.
        self.small_total.next = 3.into();
        if self.rx.data.val().get_bit(29) {
            self.small_total.next = 4.into();
        }
        if self.rx.data.val().get_bit(15) {
            self.small_total.next = self.small_total.val() + 1;
        }
        if self.rx.data.val().get_bit(30) {
            self.small_total.next = 5.into();
            if !self.rx.data.val().get_bit(29)
                && !self.rx.data.val().get_bit(15)
                && (self.rx.data.val().get_bits::<10>(0) == 1)
            {
                self.small_total.next = 4.into();
            }
        }
        self.in_dws.next = 4.into();
        if self.rx.eop.val() {
            self.in_dws.next = 4 - bit_cast::<5, 2>(self.rx.empty.val());
        }

        self.tlp_in.next = false;
        self.bytes_in.next = 0.into();
        if self.slot.load.val() {
            self.tlp_in.next = self.rx.sop.val();
            self.bytes_in.next = self.in_dws.val() << 2;
            self.q_beat_dws.d.next = self.in_dws.val().get_bits::<3>(0);
            // As a first beat: its header says fewer DWs than it carries, or it ends
            // the TLP with another count.
            self.q_misframed.d.next = (bit_cast::<5, 3>(self.small_total.val())
                < self.in_dws.val())
                || (self.rx.eop.val()
                    && (bit_cast::<5, 3>(self.small_total.val()) != self.in_dws.val()));
            self.q_action.d.next = self.router.action.val();
            self.q_dest.d.next = self.router.dest.val();
            self.q_unsupported.d.next = self.router.unsupported.val();
            self.q_rewrite.d.next = self.router.rewrite_global.val();
            self.q_total.d.next = self.in_total.val();
            self.q_too_big.d.next = self.payload_dws.val() > self.max_payload_dws.val();
        }
    }
}
