//! One port's traffic counters (32-bit, wrapping): TLPs and bytes in each direction,
//! drops, malformed TLPs, and UR completions sent for its requests.
//!
//! The events are registered before they are added, so the data path's decisions (the
//! egress translation's window check, the TX merge's handshake) and the 32-bit adders
//! are in different cycles (they made one path of 16 LUT levels, the core's worst). A
//! count thus shows an event two cycles after it; `DROPS` three, as its five sources are
//! registered apart before they are summed (the internal completer's drop decision and
//! the sum were 12 levels together).

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
    /// See `tlps_in_count`.
    tlps_in: DFF<Bits<32>>,
    /// See `bytes_in_count`.
    bytes_in_acc: DFF<Bits<32>>,
    /// See `tlps_out_count`.
    tlps_out: DFF<Bits<32>>,
    /// See `bytes_out_count`.
    bytes_out_acc: DFF<Bits<32>>,
    /// See `drops_count`.
    drops: DFF<Bits<32>>,
    /// See `errors_count`.
    errors: DFF<Bits<32>>,
    /// See `ur_sent_count`.
    urs: DFF<Bits<32>>,
    /// The events of the cycle before, in the order of the inputs.
    ev_tlp_in: DFF<Bit>,
    /// `bytes_in` of the cycle before.
    ev_bytes_in: DFF<Bits<5>>,
    /// `tlp_out` of the cycle before.
    ev_tlp_out: DFF<Bit>,
    /// `bytes_out` of the cycle before.
    ev_bytes_out: DFF<Bits<5>>,
    /// Drop pulses of the cycle before, one bit per place (they may coincide).
    ev_drop_at: DFF<Bits<5>>,
    /// How many of those there were.
    ev_drops: DFF<Bits<3>>,
    /// `malformed` of the cycle before.
    ev_malformed: DFF<Bit>,
    /// `ur_sent` of the cycle before.
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
            ev_drop_at,
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
        self.ev_drop_at.d.next = bit_cast::<5, 1>(self.drop_rx.val().into())
            | (bit_cast::<5, 1>(self.drop_xbar.val().into()) << 1)
            | (bit_cast::<5, 1>(self.drop_internal.val().into()) << 2)
            | (bit_cast::<5, 1>(self.drop_egress.val().into()) << 3)
            | (bit_cast::<5, 1>(self.drop_link.val().into()) << 4);
        self.ev_drops.d.next = bit_cast::<3, 1>(self.ev_drop_at.q.val().get_bits::<1>(0))
            + bit_cast::<3, 1>(self.ev_drop_at.q.val().get_bits::<1>(1))
            + bit_cast::<3, 1>(self.ev_drop_at.q.val().get_bits::<1>(2))
            + bit_cast::<3, 1>(self.ev_drop_at.q.val().get_bits::<1>(3))
            + bit_cast::<3, 1>(self.ev_drop_at.q.val().get_bits::<1>(4));
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
            self.ev_drop_at.d.next = 0.into();
            self.ev_drops.d.next = 0.into();
            self.ev_malformed.d.next = false;
            self.ev_ur_sent.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Lcg, Stepper};
    use crate::verilog::checks::lint_verilog;
    use crate::verilog::export::block_verilog;

    /// Random events every cycle, a reset now and then: each count equals the events of
    /// all but its last two cycles (`DROPS`: three) since the reset, wrapping at 32 bits.
    #[test]
    fn counts_follow_random_events_after_their_latency() {
        let mut s = Stepper::new(PortCounters::default(), |c| &mut c.clock);
        let mut rng = Lcg(0xC0_0A7);
        // Per cycle: [tlp_in, bytes_in, tlp_out, bytes_out, drops, malformed, ur_sent].
        let mut history: Vec<[u64; 7]> = Vec::new();
        s.uut.reset.next = true;
        s.tick();
        s.uut.reset.next = false;
        for cycle in 0..20_000u64 {
            // The counts are registers: check them before this cycle's inputs.
            s.settle();
            let u = &s.uut;
            let seen = |k: usize, lag: usize| -> u64 {
                let n = history.len().saturating_sub(lag);
                history[..n].iter().map(|e| e[k]).sum::<u64>() & 0xFFFF_FFFF
            };
            let got = [
                u.tlps_in_count.val().to_u64(),
                u.bytes_in_count.val().to_u64(),
                u.tlps_out_count.val().to_u64(),
                u.bytes_out_count.val().to_u64(),
                u.drops_count.val().to_u64(),
                u.errors_count.val().to_u64(),
                u.ur_sent_count.val().to_u64(),
            ];
            for (k, &g) in got.iter().enumerate() {
                let lag = if k == 4 { 2 } else { 1 };
                assert_eq!(g, seen(k, lag), "cycle {cycle}: counter {k}");
            }
            let reset = rng.chance(0.001);
            let drops: Vec<bool> = (0..5).map(|_| rng.chance(0.2)).collect();
            let ev = [
                rng.chance(0.3) as u64,
                rng.below(17),
                rng.chance(0.3) as u64,
                rng.below(17),
                drops.iter().filter(|&&d| d).count() as u64,
                rng.chance(0.1) as u64,
                rng.chance(0.1) as u64,
            ];
            let u = &mut s.uut;
            u.reset.next = reset;
            u.tlp_in.next = ev[0] == 1;
            u.bytes_in.next = ev[1].into();
            u.tlp_out.next = ev[2] == 1;
            u.bytes_out.next = ev[3].into();
            u.drop_rx.next = drops[0];
            u.drop_xbar.next = drops[1];
            u.drop_internal.next = drops[2];
            u.drop_egress.next = drops[3];
            u.drop_link.next = drops[4];
            u.malformed.next = ev[5] == 1;
            u.ur_sent.next = ev[6] == 1;
            if reset {
                history.clear();
            } else {
                history.push(ev);
            }
            s.tick();
        }
    }

    #[test]
    fn counters_lint_clean() {
        let v = block_verilog(&mut PortCounters::default(), "port_counters");
        lint_verilog(&v, "port_counters").unwrap();
    }
}
