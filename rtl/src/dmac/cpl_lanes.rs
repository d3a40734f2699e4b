//! The lanes of a completion beat into place: which of the beat's four DW lanes carry
//! payload, at which ring position, and so into which reorder-buffer bank and row (data),
//! or which DW of a fetched descriptor (descriptor fetches). Combinational; the
//! reassembly stage around it says which completion the beat belongs to.
//!
//! Lane l of a beat is DW `bidx + l` of the packet, header DWs included; payload DW i
//! (`bidx + l - 3`) goes to ring position `base + i` (`lane0_pos + l`), bank `position mod 4`, row
//! of the channel (`ring_rows`). The four lanes land in four different banks whatever
//! the rotation.

use super::ring_rows::RingRows;
use rust_hdl::prelude::*;

/// Where a completion beat's lanes go, for `C` channels (`CB` bits of channel number).
#[derive(LogicBlock)]
pub struct CplLanes<const C: usize, const CB: usize> {
    /// The beat is taken this cycle.
    pub take: Signal<In, Bit>,
    /// Its completion passed the checks (its payload is written).
    pub ok: Signal<In, Bit>,
    /// Its completion answers a descriptor fetch (not data).
    pub desc: Signal<In, Bit>,
    /// Ring position of the beat's lane 0: the completion's first payload DW's, plus
    /// `bidx - 3` (a register before this stage, so the placement waits for no adder
    /// of the header's checks).
    pub lane0_pos: Signal<In, Bits<16>>,
    /// Per lane: it carries a payload DW (`3 <= bidx + l < 3 + payload DWs`; a register
    /// before this stage too).
    pub payload: Signal<In, Bits<4>>,
    /// Channel of the completion.
    pub chan: Signal<In, Bits<CB>>,
    /// The beat's lanes (wire order).
    pub data: Signal<In, Bits<128>>,
    /// Per bank: write the reorder buffer.
    pub bank_we: Signal<Out, Bits<4>>,
    /// Per bank: row.
    pub bank_addr: [Signal<Out, Bits<10>>; 4],
    /// Per bank: data.
    pub bank_data: [Signal<Out, Bits<32>>; 4],
    /// Per DW k of a fetched descriptor: the beat carries it.
    pub desc_dw_we: Signal<Out, Bits<8>>,
    /// Per DW k of a fetched descriptor: the lane that carries it (the lane whose ring
    /// position is k mod 8), in bits 2k+1..2k, so the channel's register for DW k chooses
    /// among the lanes by two bits and does not search them for its index.
    pub desc_dw_lanes: Signal<Out, Bits<16>>,
    /// Per lane: its ring position.
    lane_pos: [Signal<Local, Bits<16>>; 4],
    /// Per lane: its row in the bank.
    rows: RingRows<C, CB>,
    /// Per lane: it carries a payload DW to write.
    lane_we: Signal<Local, Bits<4>>,
    /// Per bank b, bit l: lane l lands in bank b. Exactly one lane lands in each bank,
    /// whatever the rotation, so the banks' inputs are ORs of the lanes under these
    /// selects, not chains of choices.
    to_bank: [Signal<Local, Bits<4>>; 4],
    /// Lane l's number.
    lane_index: [Constant<Bits<2>>; 4],
}

impl<const C: usize, const CB: usize> CplLanes<C, CB> {
    /// The stage; panics on a channel count without a ring layout.
    pub fn new() -> Self {
        Self {
            take: Default::default(),
            ok: Default::default(),
            desc: Default::default(),
            lane0_pos: Default::default(),
            payload: Default::default(),
            chan: Default::default(),
            data: Default::default(),
            bank_we: Default::default(),
            bank_addr: Default::default(),
            bank_data: Default::default(),
            desc_dw_we: Default::default(),
            desc_dw_lanes: Default::default(),
            lane_pos: Default::default(),
            rows: RingRows::new(),
            lane_we: Default::default(),
            to_bank: Default::default(),
            lane_index: array_init::array_init(|l| Constant::new((l as u64).into())),
        }
    }
}

impl<const C: usize, const CB: usize> Default for CplLanes<C, CB> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const C: usize, const CB: usize> Logic for CplLanes<C, CB> {
    #[hdl_gen]
    fn update(&mut self) {
        // Lane l of this beat is payload DW (bidx + l - 3), at ring position lane0_pos + l.
        self.lane_pos[0].next = self.lane0_pos.val();
        self.lane_pos[1].next = self.lane0_pos.val() + 1;
        self.lane_pos[2].next = self.lane0_pos.val() + 2;
        self.lane_pos[3].next = self.lane0_pos.val() + 3;
        self.rows.chan.next = self.chan.val();
        for l in 0..4 {
            self.rows.pos[l].next = self.lane_pos[l].val();
        }
        self.lane_we.next = 0.into();
        if self.take.val() && self.ok.val() {
            self.lane_we.next = self.payload.val();
        }

        // Descriptor DWs go to the channel by lane; data goes to the banks.
        self.desc_dw_we.next = 0.into();
        self.desc_dw_lanes.next = 0.into();
        for k in 0..8 {
            for l in 0..4 {
                if self.lane_pos[l].val().get_bits::<3>(0).index() == k {
                    self.desc_dw_lanes.next = self
                        .desc_dw_lanes
                        .val()
                        .replace_bit(2 * k, self.lane_index[l].val().get_bit(0))
                        .replace_bit(2 * k + 1, self.lane_index[l].val().get_bit(1));
                    if self.desc.val() && self.lane_we.val().get_bit(l) {
                        self.desc_dw_we.next = self.desc_dw_we.val().replace_bit(k, true);
                    }
                }
            }
        }
        self.bank_we.next = 0.into();
        for b in 0..4 {
            self.to_bank[b].next = 0.into();
            for l in 0..4 {
                if self.lane_pos[l].val().get_bits::<2>(0).index() == b {
                    self.to_bank[b].next = self.to_bank[b].val().replace_bit(l, true);
                }
            }
            self.bank_addr[b].next = 0.into();
            self.bank_data[b].next = 0.into();
            for l in 0..4 {
                if self.to_bank[b].val().get_bit(l) {
                    self.bank_addr[b].next = self.bank_addr[b].val() | self.rows.row[l].val();
                    self.bank_data[b].next =
                        self.bank_data[b].val() | self.data.val().get_bits::<32>(32 * l);
                }
            }
            if !self.desc.val() && (self.to_bank[b].val() & self.lane_we.val()).any() {
                self.bank_we.next = self.bank_we.val().replace_bit(b, true);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dmac::RingLayout;
    use crate::harness::{bits128, Lcg};

    /// Random completions' beats against the placement rule written plainly.
    fn follows_the_rule<const C: usize, const CB: usize>(seed: u64) {
        let ring = RingLayout::new(C, CB);
        let mut uut = CplLanes::<C, CB>::new();
        uut.connect_all();
        let mut rng = Lcg(seed);
        for _ in 0..2000 {
            let (base, plen, chan) = (rng.below(1 << 16), 1 + rng.below(128), rng.below(C as u64));
            let bidx = 4 * rng.below(plen / 4 + 2);
            let (take, ok, desc) = (rng.chance(0.9), rng.chance(0.9), rng.chance(0.2));
            let data = u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64());
            uut.take.next = take;
            uut.ok.next = ok;
            uut.desc.next = desc;
            uut.lane0_pos.next = ((base + bidx).wrapping_sub(3) & 0xFFFF).into();
            let payload: u64 = (0..4)
                .filter(|l| (3..plen + 3).contains(&(bidx + l)))
                .map(|l| 1 << l)
                .sum();
            uut.payload.next = payload.into();
            uut.chan.next = chan.into();
            uut.data.next = bits128(data);
            assert!(simulate(&mut uut, 100), "settles");
            let (mut we, mut dwe) = (0u64, 0u64);
            // Every DW's lane, written or not: the lane at its position mod 8, if any.
            for k in 0..8u64 {
                let l = (k + 8 - ((base + bidx + 5) & 7)) & 7;
                if l < 4 {
                    assert_eq!(uut.desc_dw_lanes.val().to_u64() >> (2 * k) & 3, l, "DW {k}");
                }
            }
            for l in 0..4u64 {
                let t = bidx + l;
                if !(take && ok && t >= 3 && t < plen + 3) {
                    continue;
                }
                let q = (base + t - 3) & 0xFFFF;
                let lane = (data >> (32 * l)) as u32;
                if desc {
                    dwe |= 1 << (q & 7);
                    assert_eq!(uut.desc_dw_lanes.val().to_u64() >> (2 * (q & 7)) & 3, l);
                } else {
                    let (b, row) = ring.place(chan, q);
                    we |= 1 << b;
                    assert_eq!(uut.bank_addr[b].val().to_u64(), row, "lane {l}");
                    assert_eq!(uut.bank_data[b].val().to_u64() as u32, lane, "lane {l}");
                }
            }
            assert_eq!(uut.bank_we.val().to_u64(), we);
            assert_eq!(uut.desc_dw_we.val().to_u64(), dwe);
        }
    }

    #[test]
    fn lanes_land_where_the_rule_puts_them() {
        follows_the_rule::<2, 1>(3);
        follows_the_rule::<4, 2>(4);
        follows_the_rule::<8, 3>(5);
    }
}
