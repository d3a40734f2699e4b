//! The beats of the internal completer's answer: a completion without data (UR, CA) is
//! one beat, its 3-DW header with lane 3 empty; a CplD of 1 DW is one beat, header and
//! data; a CplD of 2 to 4 DWs is two, the header with the first DW, then the rest with
//! its unused lanes zero (the beat format). Combinational.

use rust_hdl::prelude::*;

/// The completer's answer, as beats.
#[derive(LogicBlock, Default)]
pub struct CplBeats {
    /// Header DW 0 (`cpl_fields`).
    pub hdr_dw0: Signal<In, Bits<32>>,
    /// Header DW 1.
    pub hdr_dw1: Signal<In, Bits<32>>,
    /// Header DW 2.
    pub hdr_dw2: Signal<In, Bits<32>>,
    /// Completion status: SC (0) carries data, any other none.
    pub status: Signal<In, Bits<3>>,
    /// DWs read (1..=4; only with SC).
    pub length: Signal<In, Bits<10>>,
    /// The DWs read, in wire byte order.
    pub rd_data: [Signal<In, Bits<32>>; 4],
    /// The first beat's lanes.
    pub first_data: Signal<Out, Bits<128>>,
    /// The first beat ends the completion.
    pub first_eop: Signal<Out, Bit>,
    /// Its empty lanes, when it ends the completion.
    pub first_empty: Signal<Out, Bits<2>>,
    /// The second beat's lanes (it always ends the completion).
    pub second_data: Signal<Out, Bits<128>>,
    /// Its empty lanes.
    pub second_empty: Signal<Out, Bits<2>>,
    /// The header's three DWs in lanes 0..2.
    header: Signal<Local, Bits<128>>,
    /// Empty lanes of the second beat, before the cut to 2 bits: 5 - length.
    last_pad: Signal<Local, Bits<3>>,
}

impl Logic for CplBeats {
    #[hdl_gen]
    fn update(&mut self) {
        self.header.next = bit_cast::<128, 32>(self.hdr_dw0.val())
            | (bit_cast::<128, 32>(self.hdr_dw1.val()) << 32)
            | (bit_cast::<128, 32>(self.hdr_dw2.val()) << 64);
        self.first_data.next = self.header.val();
        self.first_eop.next = true;
        self.first_empty.next = 1.into();
        if self.status.val() == 0 {
            self.first_data.next =
                self.header.val() | (bit_cast::<128, 32>(self.rd_data[0].val()) << 96);
            self.first_eop.next = self.length.val() == 1;
            self.first_empty.next = 0.into();
        }
        self.last_pad.next = 5 - bit_cast::<3, 10>(self.length.val());
        self.second_empty.next = bit_cast::<2, 3>(self.last_pad.val());
        self.second_data.next = bit_cast::<128, 32>(self.rd_data[1].val());
        if self.length.val() >= 3 {
            self.second_data.next = bit_cast::<128, 32>(self.rd_data[1].val())
                | (bit_cast::<128, 32>(self.rd_data[2].val()) << 32);
        }
        if self.length.val() == 4 {
            self.second_data.next = bit_cast::<128, 32>(self.rd_data[1].val())
                | (bit_cast::<128, 32>(self.rd_data[2].val()) << 32)
                | (bit_cast::<128, 32>(self.rd_data[3].val()) << 64);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::Lcg;
    use pcie_model::beats::to_beats;
    use pcie_model::tlp::{Bdf, CplStatus, Tag, Tlp};

    /// Completions of 1 to 4 DWs and without data (UR, CA), built by pcie-model and cut
    /// into beats by it: the block's beats are those, from the header's DWs and the data.
    #[test]
    fn beats_are_the_ones_pcie_model_cuts() {
        let mut uut = CplBeats::default();
        uut.connect_all();
        let mut rng = Lcg(0xC9B);
        for i in 0..2_000 {
            let status = [CplStatus::Sc, CplStatus::Ur, CplStatus::Ca][i % 3];
            let len = 1 + rng.below(4) as usize;
            let data: Vec<u8> = (0..4 * len).map(|_| rng.below(256) as u8).collect();
            let sc = status == CplStatus::Sc;
            let tlp = Tlp::completion(
                Bdf(rng.below(1 << 16) as u16),
                status,
                Bdf(rng.below(1 << 16) as u16),
                Tag(rng.below(256) as u8),
                (4 * len) as u16,
                (rng.below(32) * 4) as u8,
                if sc { &data } else { &[] },
            )
            .expect("a valid completion");
            let bytes = tlp.to_bytes();
            let dw = |k: usize| u32::from_be_bytes(bytes[4 * k..4 * k + 4].try_into().unwrap());
            uut.hdr_dw0.next = u64::from(dw(0)).into();
            uut.hdr_dw1.next = u64::from(dw(1)).into();
            uut.hdr_dw2.next = u64::from(dw(2)).into();
            uut.status.next = (status as u64).into();
            uut.length.next = (len as u64).into();
            for (k, port) in uut.rd_data.iter_mut().enumerate() {
                let word = if sc && k < len {
                    dw(3 + k)
                } else {
                    rng.next_u64() as u32
                };
                port.next = u64::from(word).into();
            }
            assert!(simulate(&mut uut, 100), "settles");
            let want = to_beats(&tlp);
            let got_first = (
                uut.first_data.val().to_u128(),
                uut.first_eop.val(),
                u64::from(want[0].empty),
            );
            assert_eq!(
                (got_first.0, got_first.1),
                (want[0].data, want[0].eop),
                "{status:?}, {len} DWs: first beat"
            );
            if want[0].eop {
                assert_eq!(uut.first_empty.val().to_u64(), got_first.2, "first empty");
            }
            assert_eq!(want.len(), if sc && len > 1 { 2 } else { 1 });
            if let Some(second) = want.get(1) {
                assert_eq!(uut.second_data.val().to_u128(), second.data, "second beat");
                assert_eq!(uut.second_empty.val().to_u64(), u64::from(second.empty));
            }
        }
    }

    #[test]
    fn cpl_beats_verilog_lints_clean() {
        let mut uut = CplBeats::default();
        let v = crate::verilog::export::block_verilog(&mut uut, "internal_cpl_beats");
        crate::verilog::checks::lint_verilog(&v, "internal_cpl_beats").unwrap();
    }
}
