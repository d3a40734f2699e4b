//! The DMA's memory read as its one beat: an MRd of `len_dw` DWs at a DW-aligned address,
//! 3-DW header below 4 GiB and 4-DW above (PCIe 2.0, 2.2.4.1), traffic class 0, no
//! attributes, all bytes enabled (last byte enables 0 for a one-DW read), with the
//! requester id and the channel's tag. Combinational; the read requester picks a channel's
//! read and writes its beat into an output slot. The header form and the one-DW case come
//! in as bits, decided per channel before the pick.
//!
//! Header DWs are in wire order, each DW's first wire byte in bits 31:24, as the lanes
//! carry them.

use crate::stream::DATA_BITS;
use rust_hdl::prelude::*;

/// One MRd beat for the read requester.
#[derive(LogicBlock, Default)]
pub struct MrdBeat {
    /// DW-aligned address (bits 1:0 ignored).
    pub addr: Signal<In, Bits<64>>,
    /// Length in DWs (the length field; 0 means 1024).
    pub len_dw: Signal<In, Bits<8>>,
    /// The read's tag.
    pub tag: Signal<In, Bits<8>>,
    /// Requester id (bus/device/function).
    pub requester_id: Signal<In, Bits<16>>,
    /// The address is at or above 4 GiB: the 4-DW form.
    pub four_dw: Signal<In, Bit>,
    /// A one-DW read: last byte enables 0.
    pub one_dw: Signal<In, Bit>,
    /// The beat: the header in lanes 0..=2 or 0..=3.
    pub data: Signal<Out, Bits<DATA_BITS>>,
    /// Its unused lanes: 1 for a 3-DW header, 0 for a 4-DW one.
    pub empty: Signal<Out, Bits<2>>,
    /// Header DW0: fmt (3-DW or 4-DW header), type 0, the length.
    dw0: Signal<Local, Bits<32>>,
    /// Header DW1: requester id, tag, last and first DW byte enables.
    dw1: Signal<Local, Bits<32>>,
}

impl Logic for MrdBeat {
    #[hdl_gen]
    fn update(&mut self) {
        // fmt 000 (3-DW) or 001 (4-DW), type 0.
        self.dw0.next = bit_cast::<32, 8>(self.len_dw.val());
        if self.four_dw.val() {
            self.dw0.next = bit_cast::<32, 8>(self.len_dw.val()) | 0x2000_0000;
        }
        self.dw1.next = (bit_cast::<32, 16>(self.requester_id.val()) << 16)
            | (bit_cast::<32, 8>(self.tag.val()) << 8)
            | 0xFF;
        if self.one_dw.val() {
            self.dw1.next = (bit_cast::<32, 16>(self.requester_id.val()) << 16)
                | (bit_cast::<32, 8>(self.tag.val()) << 8)
                | 0x0F;
        }
        if self.four_dw.val() {
            self.data.next = bit_cast::<128, 32>(self.dw0.val())
                | (bit_cast::<128, 32>(self.dw1.val()) << 32)
                | (bit_cast::<128, 32>(self.addr.val().get_bits::<32>(32)) << 64)
                | (bit_cast::<128, 32>(self.addr.val().get_bits::<32>(0) & 0xFFFF_FFFCu64) << 96);
            self.empty.next = 0.into();
        } else {
            self.data.next = bit_cast::<128, 32>(self.dw0.val())
                | (bit_cast::<128, 32>(self.dw1.val()) << 32)
                | (bit_cast::<128, 32>(self.addr.val().get_bits::<32>(0) & 0xFFFF_FFFCu64) << 64);
            self.empty.next = 1.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::Lcg;
    use pcie_model::beats::{tlp_from_beats, Beat};
    use pcie_model::tlp::{Addr, Bdf, Tag, Tlp};

    /// Random reads (both header forms, the 4 GiB boundary included, 1 to 1024 DWs, any
    /// tag and requester): the beat is the one pcie-model cuts from the same MRd.
    #[test]
    fn beat_is_the_mrd_pcie_model_encodes() {
        let mut uut = MrdBeat::default();
        uut.connect_all();
        let mut rng = Lcg(0x3D7);
        let mut four = 0;
        for i in 0..2_000u64 {
            let len = [1, 2, 3, 64, 128, 1024][rng.below(6) as usize] as u64;
            let base = match i % 3 {
                0 => rng.below(1 << 20) << 12,
                1 => (rng.below(1 << 36) | 1 << 20) << 12,
                _ => ((1 << 20) - 1 + rng.below(2)) << 12,
            };
            let addr = base | (4 * rng.below((4096 - 4 * len) / 4 + 1));
            let (tag, rid) = (rng.below(256), rng.below(1 << 16));
            let wide = addr >> 32 != 0;
            four += usize::from(wide);
            uut.addr.next = (addr | rng.below(4)).into();
            uut.len_dw.next = (len & 0xFF).into();
            uut.tag.next = tag.into();
            uut.requester_id.next = rid.into();
            uut.four_dw.next = wide;
            uut.one_dw.next = len == 1;
            assert!(simulate(&mut uut, 100), "settles");
            let want = Tlp::mem_read(
                Bdf(rid as u16),
                Tag(tag as u8),
                Addr(addr),
                4 * len as usize,
            )
            .expect("a valid read");
            let beat = Beat {
                data: uut.data.val().to_u128(),
                sop: true,
                eop: true,
                empty: uut.empty.val().to_u64() as u8,
            };
            assert_eq!(
                tlp_from_beats(&[beat]).expect("a valid MRd"),
                want,
                "read {i}"
            );
        }
        assert!(four > 500, "{four} 4-DW headers");
    }

    #[test]
    fn mrd_beat_verilog_lints_clean() {
        let mut uut = MrdBeat::default();
        let v = crate::verilog::export::block_verilog(&mut uut, "mrd_beat");
        crate::verilog::checks::lint_verilog(&v, "mrd_beat").unwrap();
    }
}
