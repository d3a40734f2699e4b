//! One port's traffic counters (32-bit, wrapping): TLPs and bytes in each direction,
//! drops, malformed TLPs, and UR completions sent for its requests.
//!
//! The events are registered before they are added, so the data path's decisions (the
//! egress translation's window check, the TX merge's handshake) and the 32-bit adders
//! are in different cycles (they made one path of 16 LUT levels, the core's worst). A
//! count thus shows an event two cycles after it.

use rust_hdl::prelude::*;

/// Counters per port, in register order `TLPS_IN` .. `UR_SENT`.
pub const PORT_COUNTERS: usize = 7;

/// Traffic counters of one port.
#[derive(LogicBlock, Default)]
pub struct PortCounters {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: zeroes every counter.
    pub reset: Signal<In, Bit>,
    /// Pulse: a TLP arrived.
    pub tlp_in: Signal<In, Bit>,
    /// Bytes that arrived this cycle.
    pub bytes_in: Signal<In, Bits<5>>,
    /// Pulse: a TLP left.
    pub tlp_out: Signal<In, Bit>,
    /// Bytes that left this cycle.
    pub bytes_out: Signal<In, Bits<5>>,
    /// Pulse: the RX stage dropped a TLP.
    pub drop_rx: Signal<In, Bit>,
    /// Pulse: the crossbar dropped a TLP from this port (bad destination).
    pub drop_xbar: Signal<In, Bit>,
    /// Pulse: the internal completer dropped a TLP from this port.
    pub drop_internal: Signal<In, Bit>,
    /// Pulse: egress translation dropped a TLP (a disabled target; N only).
    pub drop_egress: Signal<In, Bit>,
    /// Pulse: the link controller dropped a TLP (unexpected completion, malformed
    /// config request).
    pub drop_link: Signal<In, Bit>,
    /// Pulse: a malformed TLP arrived.
    pub malformed: Signal<In, Bit>,
    /// Pulse: a UR completion was sent for a request from this port.
    pub ur_sent: Signal<In, Bit>,
    /// `TLPS_IN`.
    pub tlps_in_count: Signal<Out, Bits<32>>,
    /// `BYTES_IN`.
    pub bytes_in_count: Signal<Out, Bits<32>>,
    /// `TLPS_OUT`.
    pub tlps_out_count: Signal<Out, Bits<32>>,
    /// `BYTES_OUT`.
    pub bytes_out_count: Signal<Out, Bits<32>>,
    /// `DROPS`.
    pub drops_count: Signal<Out, Bits<32>>,
    /// `ERRORS`.
    pub errors_count: Signal<Out, Bits<32>>,
    /// `UR_SENT`.
    pub ur_sent_count: Signal<Out, Bits<32>>,
    tlps_in: DFF<Bits<32>>,
    bytes_in_acc: DFF<Bits<32>>,
    tlps_out: DFF<Bits<32>>,
    bytes_out_acc: DFF<Bits<32>>,
    drops: DFF<Bits<32>>,
    errors: DFF<Bits<32>>,
    urs: DFF<Bits<32>>,
    /// The events of the cycle before, in the order of the inputs.
    ev_tlp_in: DFF<Bit>,
    ev_bytes_in: DFF<Bits<5>>,
    ev_tlp_out: DFF<Bit>,
    ev_bytes_out: DFF<Bits<5>>,
    /// Drops of the cycle before, from the five places (they may coincide).
    ev_drops: DFF<Bits<3>>,
    ev_malformed: DFF<Bit>,
    ev_ur_sent: DFF<Bit>,
}

impl Logic for PortCounters {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            tlps_in,
            bytes_in_acc,
            tlps_out,
            bytes_out_acc,
            drops,
            errors,
            urs,
            ev_tlp_in,
            ev_bytes_in,
            ev_tlp_out,
            ev_bytes_out,
            ev_drops,
            ev_malformed,
            ev_ur_sent
        );
        self.tlps_in_count.next = self.tlps_in.q.val();
        self.bytes_in_count.next = self.bytes_in_acc.q.val();
        self.tlps_out_count.next = self.tlps_out.q.val();
        self.bytes_out_count.next = self.bytes_out_acc.q.val();
        self.drops_count.next = self.drops.q.val();
        self.errors_count.next = self.errors.q.val();
        self.ur_sent_count.next = self.urs.q.val();
        self.ev_tlp_in.d.next = self.tlp_in.val();
        self.ev_bytes_in.d.next = self.bytes_in.val();
        self.ev_tlp_out.d.next = self.tlp_out.val();
        self.ev_bytes_out.d.next = self.bytes_out.val();
        // Drops from five places may coincide; each counts.
        self.ev_drops.d.next = bit_cast::<3, 1>(self.drop_rx.val().into())
            + bit_cast::<3, 1>(self.drop_xbar.val().into())
            + bit_cast::<3, 1>(self.drop_internal.val().into())
            + bit_cast::<3, 1>(self.drop_egress.val().into())
            + bit_cast::<3, 1>(self.drop_link.val().into());
        self.ev_malformed.d.next = self.malformed.val();
        self.ev_ur_sent.d.next = self.ur_sent.val();

        if self.ev_tlp_in.q.val() {
            self.tlps_in.d.next = self.tlps_in.q.val() + 1;
        }
        self.bytes_in_acc.d.next =
            self.bytes_in_acc.q.val() + bit_cast::<32, 5>(self.ev_bytes_in.q.val());
        if self.ev_tlp_out.q.val() {
            self.tlps_out.d.next = self.tlps_out.q.val() + 1;
        }
        self.bytes_out_acc.d.next =
            self.bytes_out_acc.q.val() + bit_cast::<32, 5>(self.ev_bytes_out.q.val());
        self.drops.d.next = self.drops.q.val() + bit_cast::<32, 3>(self.ev_drops.q.val());
        if self.ev_malformed.q.val() {
            self.errors.d.next = self.errors.q.val() + 1;
        }
        if self.ev_ur_sent.q.val() {
            self.urs.d.next = self.urs.q.val() + 1;
        }
        if self.reset.val() {
            self.tlps_in.d.next = 0.into();
            self.bytes_in_acc.d.next = 0.into();
            self.tlps_out.d.next = 0.into();
            self.bytes_out_acc.d.next = 0.into();
            self.drops.d.next = 0.into();
            self.errors.d.next = 0.into();
            self.urs.d.next = 0.into();
            self.ev_tlp_in.d.next = false;
            self.ev_bytes_in.d.next = 0.into();
            self.ev_tlp_out.d.next = false;
            self.ev_bytes_out.d.next = 0.into();
            self.ev_drops.d.next = 0.into();
            self.ev_malformed.d.next = false;
            self.ev_ur_sent.d.next = false;
        }
    }
}
