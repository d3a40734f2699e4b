//! The header of the DMA's memory writes: an MWr of `len_dw` DWs at a DW-aligned address,
//! 3 DWs below 4 GiB and 4 DWs above (PCIe 2.0, 2.2.4.1: a 64-bit address with its upper
//! half zero must use the 3-DW form), traffic class 0, tag 0, all bytes enabled (last
//! byte enables 0 for a one-DW write). Combinational; the write generator registers it
//! with the TLP it starts.
//!
//! Header DWs are in wire order, each DW's first wire byte in bits 31:24, as the lanes
//! carry them.

use rust_hdl::prelude::*;

/// An MWr header for the write generator.
#[derive(LogicBlock, Default)]
pub struct MwrHeader {
    /// DW-aligned address (bits 1:0 ignored).
    pub addr: Signal<In, Bits<64>>,
    /// Payload DWs (1..=64; the length field's low 7 bits).
    pub len_dw: Signal<In, Bits<7>>,
    /// Requester id (bus/device/function).
    pub requester_id: Signal<In, Bits<16>>,
    /// The address is at or above 4 GiB (`addr[63:32] != 0`): the 4-DW form. The write
    /// generator decides it for every channel before it picks one.
    pub four_dw: Signal<In, Bit>,
    /// The header's DWs; `dw[3]` is 0 in the 3-DW form.
    pub dw: [Signal<Out, Bits<32>>; 4],
    /// Header DWs: 3 or 4 (9 bits, the width of the generator's lane index).
    pub hdr_dws: Signal<Out, Bits<9>>,
    /// First and last byte enables (DW 1's low byte).
    byte_enables: Signal<Local, Bits<32>>,
}

impl Logic for MwrHeader {
    #[hdl_gen]
    fn update(&mut self) {
        self.hdr_dws.next = 3.into();
        self.byte_enables.next = 0xFF.into();
        if self.len_dw.val() == 1 {
            self.byte_enables.next = 0x0F.into();
        }
        // fmt 010 (3-DW with data), type 0, TC 0, length.
        self.dw[0].next = 0x4000_0000 | bit_cast::<32, 7>(self.len_dw.val());
        self.dw[1].next =
            (bit_cast::<32, 16>(self.requester_id.val()) << 16) | self.byte_enables.val();
        self.dw[2].next = self.addr.val().get_bits::<32>(0) & 0xFFFF_FFFCu64;
        self.dw[3].next = 0.into();
        if self.four_dw.val() {
            // fmt 011: the upper address half, then the lower.
            self.hdr_dws.next = 4.into();
            self.dw[0].next = 0x6000_0000 | bit_cast::<32, 7>(self.len_dw.val());
            self.dw[2].next = self.addr.val().get_bits::<32>(32);
            self.dw[3].next = self.addr.val().get_bits::<32>(0) & 0xFFFF_FFFCu64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::Lcg;
    use pcie_model::tlp::{Addr, Bdf, Tag, Tlp};

    /// Random addresses (both forms, the 4 GiB boundary included), lengths and requester
    /// ids: the header is the one pcie-model encodes for the same write.
    #[test]
    fn header_is_the_mwr_pcie_model_encodes() {
        let mut uut = MwrHeader::default();
        uut.connect_all();
        let mut rng = Lcg(0x3A3);
        let mut four = 0;
        for i in 0..2_000u64 {
            let len = 1 + rng.below(64) as usize;
            // A 4 KiB page, then a DW in it from which the write does not cross it.
            let room = (4096 - 4 * len as u64) / 4 + 1;
            let (page, at) = match i % 4 {
                0 => (rng.below(1 << 20), rng.below(room)),
                1 => (rng.below(1 << 36) | 1 << 20, rng.below(room)),
                2 => ((1 << 20) - 1, room - 1),
                _ => (1 << 20, rng.below(2)),
            };
            let addr = page << 12 | at << 2;
            let rid = rng.below(1 << 16) as u16;
            uut.addr.next = addr.into();
            uut.len_dw.next = (len as u64).into();
            uut.requester_id.next = u64::from(rid).into();
            uut.four_dw.next = addr >> 32 != 0;
            assert!(simulate(&mut uut, 100), "settles");
            let tlp = Tlp::mem_write(Bdf(rid), Tag(0), Addr(addr), &vec![0; 4 * len])
                .expect("a valid MWr")
                .to_bytes();
            let hdr_dws = tlp.len() / 4 - len;
            assert_eq!(uut.hdr_dws.val().to_u64(), hdr_dws as u64, "{addr:#x}");
            for (k, dw) in uut.dw.iter().enumerate() {
                let want = tlp
                    .get(4 * k..4 * k + 4)
                    .filter(|_| k < hdr_dws)
                    .map_or(0, |b| u32::from_be_bytes(b.try_into().unwrap()));
                assert_eq!(dw.val().to_u64(), u64::from(want), "{addr:#x} DW {k}");
            }
            four += usize::from(hdr_dws == 4);
        }
        assert!(four > 500, "{four} 4-DW headers");
    }
}
