//! One beat of the write generator's current MWr, in two stages. Stage A (the cycle the
//! beat is issued): each of its four lanes is a header DW, the one-DW write's value, a
//! payload DW of the reorder buffer or nothing, and the payload lanes' bank rows go out
//! on `bank_raddr` (bank = ring position mod 4, so the four lanes are in four banks
//! whatever the rotation the header causes). Stage B, a cycle later: the bank data has
//! come back and the beat leaves on `out_*`, lanes in wire order.
//!
//! Lane index i of the TLP (header DWs included) is ring position `cur + i`; a beat's
//! lane l is index `tidx + l`.

use super::ring_rows::RingRows;
use crate::csr::wire_order::WireOrder;
use rust_hdl::prelude::*;

/// A beat of an MWr of `C` channels' reorder buffer (`CB` bits of channel number).
#[derive(LogicBlock)]
pub struct WriteBeat<const C: usize, const CB: usize> {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Issue the beat now (its bank addresses go out; it leaves next cycle).
    pub issue: Signal<In, Bit>,
    /// The TLP's channel (its rows of the reorder buffer).
    pub chan: Signal<In, Bits<CB>>,
    /// The TLP's header DWs (wire order).
    pub hdr: [Signal<In, Bits<32>>; 4],
    /// Its header DWs: 3 or 4.
    pub hdr_dws: Signal<In, Bits<9>>,
    /// Its DWs, header and payload.
    pub total: Signal<In, Bits<9>>,
    /// Lane index of the beat's lane 0 (0 for the first beat, then 4, 8, ...).
    pub tidx: Signal<In, Bits<9>>,
    /// The beat is the TLP's last (`tidx + 4 >= total`). The generator keeps it in a
    /// register, a beat ahead, so its pick of the next TLP waits on no comparison.
    pub last: Signal<In, Bit>,
    /// Ring position of lane index 0 (the first payload DW's, less the header DWs).
    pub cur: Signal<In, Bits<16>>,
    /// The payload is `value` (a one-DW write), not reorder-buffer data.
    pub imm: Signal<In, Bit>,
    /// The one-DW write's value (register order: byte 0 in bits 7:0).
    pub value: Signal<In, Bits<32>>,
    /// The TLP's crossbar destination.
    pub dest: Signal<In, Bits<3>>,
    /// Per bank: the reorder buffer's data for last cycle's `bank_raddr`.
    pub bank_rdata: [Signal<In, Bits<32>>; 4],
    /// Per bank: the reorder buffer row to read.
    pub bank_raddr: [Signal<Out, Bits<10>>; 4],
    /// Stage B: a beat leaves.
    pub out_valid: Signal<Out, Bit>,
    /// Its lanes, lane 0 in bits 31:0.
    pub out_data: Signal<Out, Bits<128>>,
    /// It starts the TLP.
    pub out_sop: Signal<Out, Bit>,
    /// It ends the TLP.
    pub out_eop: Signal<Out, Bit>,
    /// Lanes after the TLP's end, on its last beat.
    pub out_empty: Signal<Out, Bits<2>>,
    /// The TLP's crossbar destination.
    pub out_dest: Signal<Out, Bits<3>>,
    /// Per lane, its ring position.
    lane_pos: [Signal<Local, Bits<16>>; 4],
    /// Per lane, its lane index in the TLP.
    lane_idx: [Signal<Local, Bits<9>>; 4],
    /// Per lane: its bank row.
    rows: RingRows<C, CB>,
    /// Per lane: it carries reorder-buffer data.
    from_ring: Signal<Local, Bits<4>>,
    /// The value in wire byte order.
    swap: WireOrder,
    /// Stage B's registers: a beat is in it.
    b_valid: DFF<Bit>,
    /// Per lane: the bank its data comes from.
    b_bank: [DFF<Bits<2>>; 4],
    /// Per lane: it carries `b_const`, not bank data.
    b_const_lane: DFF<Bits<4>>,
    /// Per lane: its header DW, value or 0.
    b_const: [DFF<Bits<32>>; 4],
    /// The beat starts the TLP.
    b_sop: DFF<Bit>,
    /// It ends the TLP.
    b_eop: DFF<Bit>,
    /// Lanes after the TLP's end.
    b_empty: DFF<Bits<2>>,
    /// The TLP's destination.
    b_dest: DFF<Bits<3>>,
    /// Stage B: per lane, its DW.
    lane: [Signal<Local, Bits<32>>; 4],
}

impl<const C: usize, const CB: usize> WriteBeat<C, CB> {
    /// The stage, empty; panics on a channel count without a ring layout.
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            issue: Default::default(),
            chan: Default::default(),
            hdr: Default::default(),
            hdr_dws: Default::default(),
            total: Default::default(),
            tidx: Default::default(),
            last: Default::default(),
            cur: Default::default(),
            imm: Default::default(),
            value: Default::default(),
            dest: Default::default(),
            bank_rdata: Default::default(),
            bank_raddr: Default::default(),
            out_valid: Default::default(),
            out_data: Default::default(),
            out_sop: Default::default(),
            out_eop: Default::default(),
            out_empty: Default::default(),
            out_dest: Default::default(),
            lane_pos: Default::default(),
            lane_idx: Default::default(),
            rows: RingRows::new(),
            from_ring: Default::default(),
            swap: Default::default(),
            b_valid: Default::default(),
            b_bank: Default::default(),
            b_const_lane: Default::default(),
            b_const: Default::default(),
            b_sop: Default::default(),
            b_eop: Default::default(),
            b_empty: Default::default(),
            b_dest: Default::default(),
            lane: Default::default(),
        }
    }
}

impl<const C: usize, const CB: usize> Default for WriteBeat<C, CB> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const C: usize, const CB: usize> Logic for WriteBeat<C, CB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            b_valid,
            b_const_lane,
            b_sop,
            b_eop,
            b_empty,
            b_dest
        );
        for l in 0..4 {
            self.b_bank[l].clock.next = self.clock.val();
            self.b_bank[l].d.next = self.b_bank[l].q.val();
            self.b_const[l].clock.next = self.clock.val();
            self.b_const[l].d.next = self.b_const[l].q.val();
        }

        // Stage A: what each lane carries; the payload lanes' rows to the banks.
        self.lane_pos[0].next = self.cur.val() + bit_cast::<16, 9>(self.tidx.val());
        self.lane_pos[1].next = self.lane_pos[0].val() + 1;
        self.lane_pos[2].next = self.lane_pos[0].val() + 2;
        self.lane_pos[3].next = self.lane_pos[0].val() + 3;
        self.lane_idx[0].next = self.tidx.val();
        self.lane_idx[1].next = self.tidx.val() + 1;
        self.lane_idx[2].next = self.tidx.val() + 2;
        self.lane_idx[3].next = self.tidx.val() + 3;
        self.rows.chan.next = self.chan.val();
        for l in 0..4 {
            self.rows.pos[l].next = self.lane_pos[l].val();
        }
        // Register byte k is wire byte k: the value goes into the lane byte-swapped.
        self.swap.dw.next = self.value.val();
        self.from_ring.next = 0.into();
        for l in 0..4 {
            self.bank_raddr[l].next = self.rows.row[l].val();
            if self.issue.val() {
                self.b_const[l].d.next = 0.into();
                if self.lane_idx[l].val() < self.hdr_dws.val() {
                    self.b_const[l].d.next = self.hdr[l].val();
                } else if self.lane_idx[l].val() < self.total.val() {
                    if self.imm.val() {
                        self.b_const[l].d.next = self.swap.swapped.val();
                    } else {
                        self.b_bank[l].d.next = self.lane_pos[l].val().get_bits::<2>(0);
                        self.from_ring.next = self.from_ring.val().replace_bit(l, true);
                    }
                }
            }
        }
        for b in 0..4 {
            for l in 0..4 {
                if self.from_ring.val().get_bit(l)
                    && (self.lane_pos[l].val().get_bits::<2>(0).index() == b)
                {
                    self.bank_raddr[b].next = self.rows.row[l].val();
                }
            }
        }
        self.b_valid.d.next = self.issue.val();
        if self.issue.val() {
            self.b_const_lane.d.next = !self.from_ring.val();
            self.b_sop.d.next = self.tidx.val() == 0;
            self.b_eop.d.next = self.last.val();
            self.b_empty.d.next = 0.into();
            if self.last.val() {
                // 4 - (total mod 4) lanes are left over, none when it is a multiple of 4.
                if self.total.val().get_bits::<2>(0) == 1 {
                    self.b_empty.d.next = 3.into();
                }
                if self.total.val().get_bits::<2>(0) == 2 {
                    self.b_empty.d.next = 2.into();
                }
                if self.total.val().get_bits::<2>(0) == 3 {
                    self.b_empty.d.next = 1.into();
                }
            }
            self.b_dest.d.next = self.dest.val();
        }

        // Stage B: the lanes of the beat whose bank data is on `bank_rdata` now.
        for l in 0..4 {
            self.lane[l].next = self.b_const[l].q.val();
            for b in 0..4 {
                if !self.b_const_lane.q.val().get_bit(l) && (self.b_bank[l].q.val().index() == b) {
                    self.lane[l].next = self.bank_rdata[b].val();
                }
            }
        }
        self.out_valid.next = self.b_valid.q.val();
        self.out_data.next = bit_cast::<128, 32>(self.lane[0].val())
            | (bit_cast::<128, 32>(self.lane[1].val()) << 32)
            | (bit_cast::<128, 32>(self.lane[2].val()) << 64)
            | (bit_cast::<128, 32>(self.lane[3].val()) << 96);
        self.out_sop.next = self.b_sop.q.val();
        self.out_eop.next = self.b_eop.q.val();
        self.out_empty.next = self.b_empty.q.val();
        self.out_dest.next = self.b_dest.q.val();
        if self.reset.val() {
            self.b_valid.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dmac::RingLayout;
    use crate::harness::{Lcg, Stepper};

    /// A TLP as the generator holds it.
    struct Tlp {
        chan: u64,
        hdr: [u64; 4],
        hdr_dws: u64,
        total: u64,
        cur: u64,
        imm: bool,
        value: u32,
        dest: u64,
    }

    /// What the reorder buffer holds at bank `b`, row `row`.
    fn bank_word(b: usize, row: u64) -> u64 {
        (row * 0x9E37_79B1 + b as u64 * 0x85EB_CA6B) & 0xFFFF_FFFF
    }

    /// Random TLPs (both header forms, one-DW values, data of every length and ring
    /// rotation, every channel), beats issued with random idle cycles, against a
    /// reorder buffer whose reads take a cycle: every beat leaves a cycle after its
    /// issue with the lanes, framing and destination the TLP gives it.
    fn beats_carry_their_lanes<const C: usize, const CB: usize>(seed: u64) {
        let ring = RingLayout::new(C, CB);
        let mut s = Stepper::new(WriteBeat::<C, CB>::new(), |b| &mut b.clock);
        let mut rng = Lcg(seed);
        let mut rdata = [0u64; 4];
        // The beat issued last cycle: (data, sop, eop, empty, dest).
        let mut expect: Option<(u128, bool, bool, u64, u64)> = None;
        let mut tlp: Option<(Tlp, u64)> = None;
        let (mut beats, mut tlps) = (0u32, 0u32);
        for cycle in 0..20_000 {
            if tlp.is_none() {
                let imm = rng.chance(0.2);
                let hdr_dws = 3 + rng.below(2);
                let len = if imm { 1 } else { 1 + rng.below(64) };
                let t = Tlp {
                    chan: rng.below(C as u64),
                    hdr: std::array::from_fn(|_| rng.below(1 << 32)),
                    hdr_dws,
                    total: hdr_dws + len,
                    cur: rng.below(1 << 16),
                    imm,
                    value: rng.below(1 << 32) as u32,
                    dest: rng.below(8),
                };
                tlp = Some((t, 0));
            }
            let (t, tidx) = tlp.as_ref().unwrap();
            let issue = rng.chance(0.7);
            let u = &mut s.uut;
            u.reset.next = cycle == 0;
            u.issue.next = issue && cycle > 0;
            u.chan.next = t.chan.into();
            for (p, &h) in u.hdr.iter_mut().zip(&t.hdr) {
                p.next = h.into();
            }
            u.hdr_dws.next = t.hdr_dws.into();
            u.total.next = t.total.into();
            u.tidx.next = (*tidx).into();
            let last = tidx + 4 >= t.total;
            u.last.next = last;
            u.cur.next = t.cur.into();
            u.imm.next = t.imm;
            u.value.next = u64::from(t.value).into();
            u.dest.next = t.dest.into();
            for (p, &d) in u.bank_rdata.iter_mut().zip(&rdata) {
                p.next = d.into();
            }
            s.settle();
            let u = &s.uut;
            match expect.take() {
                Some((data, sop, eop, empty, dest)) => {
                    assert!(u.out_valid.val(), "cycle {cycle}: the beat leaves");
                    assert_eq!(u.out_data.val().to_u128(), data, "cycle {cycle}: lanes");
                    assert_eq!(
                        (u.out_sop.val(), u.out_eop.val()),
                        (sop, eop),
                        "cycle {cycle}: framing"
                    );
                    assert_eq!(u.out_empty.val().to_u64(), empty, "cycle {cycle}");
                    assert_eq!(u.out_dest.val().to_u64(), dest, "cycle {cycle}");
                }
                None => assert!(!u.out_valid.val() || cycle == 0, "cycle {cycle}: no beat"),
            }
            let raddr: [u64; 4] = std::array::from_fn(|b| u.bank_raddr[b].val().to_u64());
            if issue && cycle > 0 {
                let mut data = 0u128;
                for l in 0..4u64 {
                    let i = tidx + l;
                    let pos = (t.cur + i) & 0xFFFF;
                    let word = if i < t.hdr_dws {
                        t.hdr[l as usize]
                    } else if i >= t.total {
                        0
                    } else if t.imm {
                        u64::from(t.value.swap_bytes())
                    } else {
                        let (b, row) = (
                            (pos % 4) as usize,
                            t.chan * (ring.ring_dws / 4) + (pos % ring.ring_dws) / 4,
                        );
                        assert_eq!(raddr[b], row, "cycle {cycle}: bank {b}'s row");
                        bank_word(b, row)
                    };
                    data |= u128::from(word) << (32 * l);
                }
                let empty = if last { (4 - t.total % 4) % 4 } else { 0 };
                expect = Some((data, *tidx == 0, last, empty, t.dest));
                beats += 1;
                if last {
                    tlps += 1;
                    tlp = None;
                } else {
                    tlp.as_mut().unwrap().1 += 4;
                }
            }
            rdata = std::array::from_fn(|b| bank_word(b, raddr[b]));
            s.tick();
        }
        assert!(
            tlps > 500 && beats > 3 * tlps,
            "{tlps} TLPs in {beats} beats"
        );
    }

    #[test]
    fn beats_carry_header_value_and_ring_lanes() {
        beats_carry_their_lanes::<4, 2>(0xB1);
        beats_carry_their_lanes::<2, 1>(0xB2);
        beats_carry_their_lanes::<8, 3>(0xB3);
    }
}
