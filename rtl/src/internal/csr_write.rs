//! The internal completer's write stage: a CSR write request's payload, DW by DW as its
//! lanes arrive, onto the CSR bus. The payload of a 3-DW header starts in the header
//! beat's lane 3, of a 4-DW header in the next beat; one DW is written a cycle. The first
//! DW takes the header's first byte enables, the last DW its last ones, the others all
//! four. A packet with more payload than its length field is written up to the length
//! (`overlong`: the completer drains the rest); one with less stops at its `eop`. The
//! RX stage forwards neither (`port::rx_route`), so these are the completer's own guard.

use crate::csr::wire_order::WireOrder;
use rust_hdl::prelude::*;

/// Writes one request's payload.
#[derive(LogicBlock, Default)]
pub struct CsrWrite {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Upstream: the input beat's lanes.
    pub data: Signal<In, Bits<128>>,
    /// The input beat is valid.
    pub valid: Signal<In, Bit>,
    /// The input beat ends its packet.
    pub eop: Signal<In, Bit>,
    /// The input beat is consumed.
    pub ready: Signal<Out, Bit>,
    /// Downstream, the CSR bus: a DW is written.
    pub wr_en: Signal<Out, Bit>,
    /// Its BAR0 DW address.
    pub wr_addr: Signal<Out, Bits<14>>,
    /// Its value (register byte order).
    pub wr_data: Signal<Out, Bits<32>>,
    /// Its byte enables.
    pub wr_be: Signal<Out, Bits<4>>,
    /// Pulse: a request's header beat is on the input (its fields below are valid).
    pub load: Signal<In, Bit>,
    /// The request's first BAR0 DW address (at `load`).
    pub dw_addr: Signal<In, Bits<14>>,
    /// Its length in DWs, 1..=1024 (at `load`).
    pub len: Signal<In, Bits<11>>,
    /// Its header has four DWs (at `load`).
    pub four_dw: Signal<In, Bit>,
    /// Byte enables of its first DW (held for the request).
    pub first_be: Signal<In, Bits<4>>,
    /// Byte enables of its last DW (held for the request).
    pub last_be: Signal<In, Bits<4>>,
    /// The completer is applying the write: consume and write.
    pub active: Signal<In, Bit>,
    /// Pulse: the write and its packet are over (the beat consumed was the `eop`).
    pub done: Signal<Out, Bit>,
    /// Pulse: the write is over and its packet goes on.
    pub overlong: Signal<Out, Bit>,
    /// The input lane of the next payload DW (4: the next beat).
    lane: DFF<Bits<3>>,
    /// BAR0 DW address of the next DW.
    addr: DFF<Bits<14>>,
    /// DWs still to write.
    left: DFF<Bits<11>>,
    /// The next DW is the first.
    first: DFF<Bit>,
    /// The payload DW in lane `lane`, wire order.
    lane_data: Signal<Local, Bits<32>>,
    /// That DW as a register value.
    value: WireOrder,
}

impl Logic for CsrWrite {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, lane, addr, left, first);
        self.lane_data.next = 0.into();
        for k in 0..4 {
            if self.lane.q.val().index() == k {
                self.lane_data.next = self.data.val().get_bits::<32>(32 * k);
            }
        }
        self.value.dw.next = self.lane_data.val();

        self.ready.next = false;
        self.wr_en.next = false;
        self.wr_addr.next = self.addr.q.val();
        self.wr_data.next = self.value.swapped.val();
        self.wr_be.next = 0xF.into();
        self.done.next = false;
        self.overlong.next = false;

        if self.load.val() {
            self.addr.d.next = self.dw_addr.val();
            self.left.d.next = self.len.val();
            self.first.d.next = true;
            self.lane.d.next = 3.into();
            if self.four_dw.val() {
                self.lane.d.next = 4.into();
            }
        }
        if self.active.val() && self.valid.val() {
            if self.lane.q.val() == 4 {
                // The 4-DW header's beat.
                self.ready.next = true;
                self.lane.d.next = 0.into();
                self.done.next = self.eop.val();
            } else {
                self.wr_en.next = true;
                if self.first.q.val() {
                    self.wr_be.next = self.first_be.val();
                } else if self.left.q.val() == 1 {
                    self.wr_be.next = self.last_be.val();
                }
                self.first.d.next = false;
                self.addr.d.next = self.addr.q.val() + 1;
                self.left.d.next = self.left.q.val() - 1;
                self.lane.d.next = self.lane.q.val() + 1;
                if self.left.q.val() == 1 {
                    self.ready.next = true;
                    self.done.next = self.eop.val();
                    self.overlong.next = !self.eop.val();
                } else if self.lane.q.val() == 3 {
                    self.ready.next = true;
                    self.lane.d.next = 0.into();
                    // Fewer DWs than the header said: stop at the packet's end.
                    self.done.next = self.eop.val();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{bits128, Lcg, Stepper};
    use crate::verilog::checks::lint_verilog;
    use crate::verilog::export::block_verilog;

    /// How a request ends: `done` after consuming beat `n`, or `overlong` there.
    #[derive(Debug, PartialEq)]
    enum End {
        Done(usize),
        Overlong(usize),
    }

    /// Random requests (3- and 4-DW headers, lengths 1..=12, random byte enables and
    /// addresses) whose packets carry their length, or a beat more or a beat fewer, under
    /// random idle cycles, against the lane rule: every DW written with its address, value
    /// and byte enables, and each packet left where the rule says.
    #[test]
    fn writes_each_payload_dw_as_the_lane_rule_says() {
        let mut s = Stepper::new(CsrWrite::default(), |b| &mut b.clock);
        let mut rng = Lcg(0xC5_3717);
        let (mut overlong, mut short) = (0, 0);
        for req in 0..600 {
            let hdr = if rng.chance(0.5) { 4 } else { 3 };
            let len = 1 + rng.below(12) as usize;
            let exact = (hdr + len).div_ceil(4);
            let beats = match rng.below(8) {
                0 => exact + 1,
                1 if exact > 1 => exact - 1,
                _ => exact,
            };
            let lanes: Vec<u32> = (0..4 * beats).map(|_| rng.next_u64() as u32).collect();
            let addr = rng.below(1 << 14) as usize;
            let (first_be, last_be) = (rng.below(16), rng.below(16));

            // The rule: slot i is lane hdr + i; the first `len` slots there are are written.
            let slots = 4 * beats - hdr;
            let want_writes: Vec<(usize, u32, u64)> = (0..slots.min(len))
                .map(|i| {
                    let be = if i == 0 {
                        first_be
                    } else if i == len - 1 {
                        last_be
                    } else {
                        0xF
                    };
                    ((addr + i) % (1 << 14), lanes[hdr + i].swap_bytes(), be)
                })
                .collect();
            let last_beat = (hdr + len - 1) / 4;
            let want_end = if slots >= len && last_beat + 1 < beats {
                End::Overlong(last_beat)
            } else {
                End::Done(beats - 1)
            };
            overlong += usize::from(matches!(want_end, End::Overlong(_)));
            short += usize::from(slots < len);

            let beat_data = |b: usize| -> Bits<128> {
                bits128((0..4).fold(0u128, |acc, k| {
                    acc | u128::from(lanes[4 * b + k]) << (32 * k)
                }))
            };
            // The header beat loads the request, as the completer's idle state does.
            let u = &mut s.uut;
            u.load.next = true;
            u.active.next = false;
            u.dw_addr.next = (addr as u64).into();
            u.len.next = (len as u64).into();
            u.four_dw.next = hdr == 4;
            u.first_be.next = first_be.into();
            u.last_be.next = last_be.into();
            u.data.next = beat_data(0);
            u.valid.next = true;
            u.eop.next = beats == 1;
            s.settle();
            assert!(
                !s.uut.wr_en.val() && !s.uut.ready.val(),
                "req {req}: idle while loading"
            );
            s.tick();

            let (mut beat, mut writes, mut end) = (0, Vec::new(), None);
            let start = s.cycle;
            while end.is_none() {
                assert!(s.cycle - start < 200, "req {req}: no end");
                let valid = rng.chance(0.6);
                let u = &mut s.uut;
                u.load.next = false;
                u.active.next = true;
                u.valid.next = valid;
                u.data.next = if valid { beat_data(beat) } else { 0.into() };
                u.eop.next = valid && beat + 1 == beats;
                s.settle();
                let u = &s.uut;
                if u.wr_en.val() {
                    assert!(valid, "req {req}: a write without a beat");
                    writes.push((
                        u.wr_addr.val().index(),
                        u.wr_data.val().to_u64() as u32,
                        u.wr_be.val().to_u64(),
                    ));
                }
                if u.done.val() {
                    end = Some(End::Done(beat));
                } else if u.overlong.val() {
                    end = Some(End::Overlong(beat));
                }
                if valid && u.ready.val() {
                    beat += 1;
                } else {
                    assert!(end.is_none(), "req {req}: ended without consuming");
                }
                s.tick();
            }
            assert_eq!(
                writes, want_writes,
                "req {req}: writes (len {len}, hdr {hdr})"
            );
            assert_eq!(end.unwrap(), want_end, "req {req}: end");
            for _ in 0..rng.below(3) {
                s.uut.active.next = false;
                s.uut.valid.next = false;
                s.tick();
            }
        }
        assert!(
            overlong > 30 && short > 30,
            "{overlong} overlong, {short} short"
        );
    }

    #[test]
    fn csr_write_lints_clean() {
        let mut uut = CsrWrite::default();
        lint_verilog(
            &block_verilog(&mut uut, "internal_csr_write"),
            "internal_csr_write",
        )
        .unwrap();
    }
}
