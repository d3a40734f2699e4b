//! One port's traffic counters (32-bit, wrapping): TLPs and bytes in each direction,
//! drops, malformed TLPs, and UR completions sent for its requests.

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
            urs
        );
        self.tlps_in_count.next = self.tlps_in.q.val();
        self.bytes_in_count.next = self.bytes_in_acc.q.val();
        self.tlps_out_count.next = self.tlps_out.q.val();
        self.bytes_out_count.next = self.bytes_out_acc.q.val();
        self.drops_count.next = self.drops.q.val();
        self.errors_count.next = self.errors.q.val();
        self.ur_sent_count.next = self.urs.q.val();
        if self.tlp_in.val() {
            self.tlps_in.d.next = self.tlps_in.q.val() + 1;
        }
        self.bytes_in_acc.d.next =
            self.bytes_in_acc.q.val() + bit_cast::<32, 5>(self.bytes_in.val());
        if self.tlp_out.val() {
            self.tlps_out.d.next = self.tlps_out.q.val() + 1;
        }
        self.bytes_out_acc.d.next =
            self.bytes_out_acc.q.val() + bit_cast::<32, 5>(self.bytes_out.val());
        // Drops from five places may coincide; each counts.
        self.drops.d.next = self.drops.q.val()
            + bit_cast::<32, 1>(self.drop_rx.val().into())
            + bit_cast::<32, 1>(self.drop_xbar.val().into())
            + bit_cast::<32, 1>(self.drop_internal.val().into())
            + bit_cast::<32, 1>(self.drop_egress.val().into())
            + bit_cast::<32, 1>(self.drop_link.val().into());
        if self.malformed.val() {
            self.errors.d.next = self.errors.q.val() + 1;
        }
        if self.ur_sent.val() {
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
        }
    }
}
