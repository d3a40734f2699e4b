//! The write generator's choice of the next TLP: every channel's write is prepared
//! before the pick (its header form, its total DWs and the ring position of its lane
//! index 0, both forms' sums chosen after the form), so those sums wait on no round
//! robin and no address compare; the picked channel's are then chosen, with its MWr
//! header ([`MwrHeader`]). Combinational; the write generator registers the result with
//! the TLP it starts.

use super::header_forms::HeaderForms;
use super::mwr_header::MwrHeader;
use rust_hdl::prelude::*;

/// The picked write of `C` channels (`CB` bits of channel number), ready to register.
#[derive(LogicBlock)]
pub struct WritePick<const C: usize, const CB: usize> {
    /// Per channel: its write's DW-aligned address.
    pub addr: [Signal<In, Bits<64>>; C],
    /// Per channel: its payload DWs (1..=64).
    pub len_dw: [Signal<In, Bits<7>>; C],
    /// Per channel: the ring position of its first payload DW.
    pub pos: [Signal<In, Bits<16>>; C],
    /// Per channel: its crossbar destination.
    pub dest: [Signal<In, Bits<3>>; C],
    /// Per channel: a one-DW write's value.
    pub value: [Signal<In, Bits<32>>; C],
    /// Per channel: it is a one-DW value write (not reorder-buffer data).
    pub imm: [Signal<In, Bit>; C],
    /// The channel picked.
    pub pick: Signal<In, Bits<CB>>,
    /// Requester id (the N port's bus/device/function).
    pub requester_id: Signal<In, Bits<16>>,
    /// The picked write's header DWs (`hdr[3]` is 0 in the 3-DW form).
    pub hdr: [Signal<Out, Bits<32>>; 4],
    /// Its header DWs: 3 or 4.
    pub hdr_dws: Signal<Out, Bits<9>>,
    /// Its DWs, header and payload.
    pub total: Signal<Out, Bits<9>>,
    /// The ring position of its lane index 0 (before its payload by the header's DWs).
    pub cur: Signal<Out, Bits<16>>,
    /// It is one beat (a 3-DW header and at most one DW, or a 4-DW header alone).
    pub one_beat: Signal<Out, Bit>,
    /// Its crossbar destination.
    pub w_dest: Signal<Out, Bits<3>>,
    /// Its one-DW value.
    pub w_value: Signal<Out, Bits<32>>,
    /// It is a one-DW value write.
    pub w_imm: Signal<Out, Bit>,
    /// Per channel: its address needs the 4-DW header.
    forms: HeaderForms<C>,
    /// The picked channel's header.
    header: MwrHeader,
    /// Per channel: its write's DWs, header and payload.
    total_each: [Signal<Local, Bits<9>>; C],
    /// Per channel: the ring position of its write's lane index 0.
    cur_each: [Signal<Local, Bits<16>>; C],
    /// Bit c: channel c's write is one beat.
    one_each: Signal<Local, Bits<C>>,
    /// Channel c's payload DWs, inside the loop over channels.
    len_c: Signal<Local, Bits<7>>,
}

impl<const C: usize, const CB: usize> WritePick<C, CB> {
    /// The choice among `C` channels.
    pub fn new() -> Self {
        Self {
            addr: array_init::array_init(|_| Default::default()),
            len_dw: array_init::array_init(|_| Default::default()),
            pos: array_init::array_init(|_| Default::default()),
            dest: array_init::array_init(|_| Default::default()),
            value: array_init::array_init(|_| Default::default()),
            imm: array_init::array_init(|_| Default::default()),
            pick: Default::default(),
            requester_id: Default::default(),
            hdr: Default::default(),
            hdr_dws: Default::default(),
            total: Default::default(),
            cur: Default::default(),
            one_beat: Default::default(),
            w_dest: Default::default(),
            w_value: Default::default(),
            w_imm: Default::default(),
            forms: HeaderForms::new(),
            header: MwrHeader::default(),
            total_each: array_init::array_init(|_| Default::default()),
            cur_each: array_init::array_init(|_| Default::default()),
            one_each: Default::default(),
            len_c: Default::default(),
        }
    }
}

impl<const C: usize, const CB: usize> Default for WritePick<C, CB> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const C: usize, const CB: usize> Logic for WritePick<C, CB> {
    #[hdl_gen]
    fn update(&mut self) {
        self.one_each.next = 0.into();
        for c in 0..C {
            self.forms.addr[c].next = self.addr[c].val();
            self.len_c.next = self.len_dw[c].val();
            self.one_each.next = self.one_each.val().replace_bit(
                c,
                (!self.forms.four_dw.val().get_bit(c) && (self.len_c.val() <= 1))
                    || (self.forms.four_dw.val().get_bit(c) && (self.len_c.val() == 0)),
            );
            self.total_each[c].next = bit_cast::<9, 7>(self.len_c.val()) + 3;
            self.cur_each[c].next = self.pos[c].val() - 3;
            if self.forms.four_dw.val().get_bit(c) {
                self.total_each[c].next = bit_cast::<9, 7>(self.len_c.val()) + 4;
                self.cur_each[c].next = self.pos[c].val() - 4;
            }
        }
        self.header.addr.next = self.addr[0].val();
        self.header.four_dw.next = self.forms.four_dw.val().get_bit(0);
        self.header.len_dw.next = self.len_dw[0].val();
        self.one_beat.next = self.one_each.val().get_bit(0);
        self.total.next = self.total_each[0].val();
        self.cur.next = self.cur_each[0].val();
        self.w_dest.next = self.dest[0].val();
        self.w_value.next = self.value[0].val();
        self.w_imm.next = false;
        for c in 0..C {
            if self.pick.val().index() == c {
                self.header.addr.next = self.addr[c].val();
                self.header.four_dw.next = self.forms.four_dw.val().get_bit(c);
                self.header.len_dw.next = self.len_dw[c].val();
                self.one_beat.next = self.one_each.val().get_bit(c);
                self.total.next = self.total_each[c].val();
                self.cur.next = self.cur_each[c].val();
                self.w_dest.next = self.dest[c].val();
                self.w_value.next = self.value[c].val();
                self.w_imm.next = self.imm[c].val();
            }
        }
        self.header.requester_id.next = self.requester_id.val();
        self.hdr_dws.next = self.header.hdr_dws.val();
        for k in 0..4 {
            self.hdr[k].next = self.header.dw[k].val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::Lcg;
    use pcie_model::tlp::{Addr, Bdf, Tag, Tlp};

    const C: usize = 4;

    /// Random writes on every channel (both header forms, 1 to 64 DWs) and a random pick:
    /// the outputs are the picked channel's, its header the MWr pcie-model encodes, its
    /// total and lane-0 position offset by that header's DWs.
    #[test]
    fn the_picked_write_is_prepared_as_its_mwr() {
        let mut uut = WritePick::<C, 2>::new();
        uut.connect_all();
        let mut rng = Lcg(0x3A9);
        let (mut four, mut one) = (0, 0);
        for round in 0..3_000 {
            let mut w = [(0u64, 0u64, 0u64, 0u64, 0u64, false); C];
            for (c, x) in w.iter_mut().enumerate() {
                let len = 1 + rng.below(64);
                let high = if rng.chance(0.5) {
                    rng.below(1 << 20) << 32
                } else {
                    0
                };
                let addr = high | (rng.below(1 << 20) << 12) | (4 * rng.below(1024 - len + 1));
                *x = (
                    addr,
                    len,
                    rng.below(1 << 16),
                    rng.below(5),
                    rng.below(1 << 32),
                    rng.chance(0.3),
                );
                uut.addr[c].next = x.0.into();
                uut.len_dw[c].next = x.1.into();
                uut.pos[c].next = x.2.into();
                uut.dest[c].next = x.3.into();
                uut.value[c].next = x.4.into();
                uut.imm[c].next = x.5;
            }
            let pick = rng.below(C as u64) as usize;
            let rid = rng.below(1 << 16) as u16;
            uut.pick.next = (pick as u64).into();
            uut.requester_id.next = u64::from(rid).into();
            assert!(simulate(&mut uut, 100), "settles");
            let (addr, len, pos, dest, value, imm) = w[pick];
            let tlp = Tlp::mem_write(Bdf(rid), Tag(0), Addr(addr), &vec![0; 4 * len as usize])
                .expect("a valid MWr")
                .to_bytes();
            let hdr_dws = tlp.len() as u64 / 4 - len;
            for (k, dw) in uut.hdr.iter().enumerate() {
                let want = tlp
                    .get(4 * k..4 * k + 4)
                    .filter(|_| (k as u64) < hdr_dws)
                    .map_or(0, |b| u32::from_be_bytes(b.try_into().unwrap()));
                assert_eq!(dw.val().to_u64(), u64::from(want), "round {round}: DW {k}");
            }
            assert_eq!(uut.hdr_dws.val().to_u64(), hdr_dws, "round {round}");
            assert_eq!(
                uut.total.val().to_u64(),
                hdr_dws + len,
                "round {round}: total"
            );
            assert_eq!(
                uut.cur.val().to_u64(),
                pos.wrapping_sub(hdr_dws) & 0xFFFF,
                "round {round}: cur"
            );
            assert_eq!(
                uut.one_beat.val(),
                hdr_dws + len <= 4,
                "round {round}: one beat"
            );
            assert_eq!(uut.w_dest.val().to_u64(), dest, "round {round}: dest");
            assert_eq!(uut.w_value.val().to_u64(), value, "round {round}: value");
            assert_eq!(uut.w_imm.val(), imm, "round {round}: imm");
            four += usize::from(hdr_dws == 4);
            one += usize::from(hdr_dws + len <= 4);
        }
        assert!(
            four > 1_000 && one > 20,
            "{four} 4-DW headers, {one} one-beat writes"
        );
    }

    #[test]
    fn write_pick_verilog_lints_clean() {
        let mut uut = WritePick::<C, 2>::new();
        let v = crate::verilog::export::block_verilog(&mut uut, "write_pick");
        crate::verilog::checks::lint_verilog(&v, "write_pick").unwrap();
    }
}
