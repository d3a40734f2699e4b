//! What a TLP is, from its header's fmt and type fields (PCIe 3.0 Table 2-3): the classes
//! the routing rules tell apart. A reserved combination (a TLP prefix's fmt among them)
//! is none of them.

use rust_hdl::prelude::*;

/// The fmt/type decode of one header (combinational).
#[derive(LogicBlock, Default)]
pub struct TlpTypeDecode {
    /// The fmt field (DW0 bits 31:29).
    pub fmt: Signal<In, Bits<3>>,
    /// The type field (DW0 bits 28:24).
    pub typ: Signal<In, Bits<5>>,
    /// A memory request: a read, a locked read or a write.
    pub is_mem: Signal<Out, Bit>,
    /// An atomic request: FetchAdd, Swap or CAS.
    pub is_atomic: Signal<Out, Bit>,
    /// An I/O read or write request.
    pub is_io: Signal<Out, Bit>,
    /// A config request, type 0 or type 1.
    pub is_cfg: Signal<Out, Bit>,
    /// A completion (Cpl, CplD, CplLk or CplDLk).
    pub is_cpl: Signal<Out, Bit>,
    /// A message (Msg or MsgD).
    pub is_msg: Signal<Out, Bit>,
    /// A non-posted request (a memory read, an I/O request or an atomic): it needs an
    /// answer.
    pub non_posted: Signal<Out, Bit>,
}

impl Logic for TlpTypeDecode {
    #[hdl_gen]
    fn update(&mut self) {
        // fmt bit 1: with data; bit 0: 4-DW header; fmt 1xx is a TLP prefix.
        self.is_mem.next = ((self.typ.val() == 0) && !self.fmt.val().get_bit(2))
            || ((self.typ.val() == 1) && (self.fmt.val().get_bits::<2>(1) == 0));
        self.is_atomic.next = (self.typ.val() >= 12)
            && (self.typ.val() <= 14)
            && (self.fmt.val().get_bits::<2>(1) == 1);
        self.is_io.next = (self.typ.val() == 2) && ((self.fmt.val() == 0) || (self.fmt.val() == 2));
        self.is_cfg.next = ((self.typ.val() == 4) || (self.typ.val() == 5))
            && ((self.fmt.val() == 0) || (self.fmt.val() == 2));
        self.is_cpl.next = ((self.typ.val() == 10) || (self.typ.val() == 11))
            && ((self.fmt.val() == 0) || (self.fmt.val() == 2));
        self.is_msg.next = (self.typ.val().get_bits::<2>(3) == 2)
            && ((self.fmt.val() == 1) || (self.fmt.val() == 3));
        self.non_posted.next = self.is_atomic.val()
            || self.is_io.val()
            || (self.is_mem.val() && !self.fmt.val().get_bit(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verilog::checks::lint_verilog;
    use crate::verilog::export::block_verilog;
    use pcie_model::TlpKind::{self, *};

    /// Every fmt and type against pcie-model's Table 2-3, class by class.
    #[test]
    fn every_fmt_and_type_decodes_as_pcie_model_says() {
        let mut uut = TlpTypeDecode::default();
        uut.connect_all();
        let mut kinds = 0;
        for fmt in 0..8u8 {
            for ty in 0..32u8 {
                uut.fmt.next = u64::from(fmt).into();
                uut.typ.next = u64::from(ty).into();
                assert!(simulate(&mut uut, 100), "settles");
                let kind = TlpKind::from_fmt_type(fmt, ty);
                let is = |ks: &[TlpKind]| kind.is_some_and(|k| ks.contains(&k));
                let want = [
                    is(&[MRd, MRdLk, MWr]),
                    is(&[FetchAdd, Swap, Cas]),
                    is(&[IORd, IOWr]),
                    is(&[CfgRd0, CfgWr0, CfgRd1, CfgWr1]),
                    is(&[Cpl, CplD, CplLk, CplDLk]),
                    is(&[Msg, MsgD]),
                    is(&[MRd, MRdLk, IORd, IOWr, FetchAdd, Swap, Cas]),
                ];
                let got = [
                    uut.is_mem.val(),
                    uut.is_atomic.val(),
                    uut.is_io.val(),
                    uut.is_cfg.val(),
                    uut.is_cpl.val(),
                    uut.is_msg.val(),
                    uut.non_posted.val(),
                ];
                assert_eq!(got, want, "fmt {fmt:03b} type {ty:05b}: {kind:?}");
                kinds += usize::from(kind.is_some());
            }
        }
        // MRd, MWr, MRdLk and the three atomics with two fmts each, Msg and MsgD with
        // eight types each, the I/O, config and completion kinds once.
        assert_eq!(kinds, 6 * 2 + 2 * 8 + 10, "decodable combinations");
    }

    #[test]
    fn tlp_type_decode_lint_clean() {
        let mut uut = TlpTypeDecode::default();
        lint_verilog(
            &block_verilog(&mut uut, "tlp_type_decode"),
            "tlp_type_decode",
        )
        .unwrap();
    }
}
