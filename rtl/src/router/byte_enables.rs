//! Whether a memory request's byte enables follow PCIe's rules (PCIe 2.0, 2.2.5, which
//! lets a receiver treat a violation as a malformed TLP): a 1-DW request has `last_be` 0;
//! a longer one has both nonzero, and contiguous (`first_be` enabling up to its DW's end,
//! `last_be` from its DW's start) unless it is a QW-aligned 2-DW request.

use rust_hdl::prelude::*;

/// The byte-enable check of one memory request header (combinational).
#[derive(LogicBlock, Default)]
pub struct ByteEnableCheck {
    /// The length field (DW0 bits 9:0; 0 is 1024 DWs).
    pub length: Signal<In, Bits<10>>,
    /// `first_be` (DW1 bits 3:0).
    pub first_be: Signal<In, Bits<4>>,
    /// `last_be` (DW1 bits 7:4).
    pub last_be: Signal<In, Bits<4>>,
    /// Address bit 2: the request starts in the upper DW of a QW.
    pub upper_dw: Signal<In, Bit>,
    /// The byte enables follow the rules.
    pub ok: Signal<Out, Bit>,
    /// The length field is 1 DW.
    one_dw: Signal<Local, Bit>,
}

impl Logic for ByteEnableCheck {
    #[hdl_gen]
    fn update(&mut self) {
        self.one_dw.next = self.length.val() == 1;
        self.ok.next = self.one_dw.val() && (self.last_be.val() == 0);
        if !self.one_dw.val() && (self.first_be.val() != 0) && (self.last_be.val() != 0) {
            // Only a QW-aligned 2-DW request may have holes.
            self.ok.next = ((self.length.val() == 2) && !self.upper_dw.val())
                || (((self.first_be.val() == 0xF)
                    || (self.first_be.val() == 0xE)
                    || (self.first_be.val() == 0xC)
                    || (self.first_be.val() == 0x8))
                    && ((self.last_be.val() == 0x1)
                        || (self.last_be.val() == 0x3)
                        || (self.last_be.val() == 0x7)
                        || (self.last_be.val() == 0xF)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verilog::checks::lint_verilog;
    use crate::verilog::export::block_verilog;
    use pcie_model::tlp::check_byte_enables;

    /// Every pair of byte enables, at both DWs of a QW, for short and long lengths,
    /// against pcie-model's rule.
    #[test]
    fn byte_enables_checked_as_pcie_model_checks_them() {
        let mut uut = ByteEnableCheck::default();
        uut.connect_all();
        let mut verdicts = [0usize; 2];
        for length in [1u64, 2, 3, 4, 5, 255, 1023, 0] {
            for first in 0..16u64 {
                for last in 0..16u64 {
                    for upper in [false, true] {
                        uut.length.next = length.into();
                        uut.first_be.next = first.into();
                        uut.last_be.next = last.into();
                        uut.upper_dw.next = upper;
                        assert!(simulate(&mut uut, 100), "settles");
                        let dws = if length == 0 { 1024 } else { length as u16 };
                        let address = 0x1000 + 4 * u64::from(upper);
                        let want =
                            check_byte_enables(first as u8, last as u8, dws, address).is_ok();
                        assert_eq!(
                            uut.ok.val(),
                            want,
                            "length {dws}, first_be {first:04b}, last_be {last:04b}, \
                             upper DW {upper}"
                        );
                        verdicts[usize::from(want)] += 1;
                    }
                }
            }
        }
        assert!(verdicts.iter().all(|&n| n > 200), "{verdicts:?}");
    }

    #[test]
    fn byte_enable_check_lint_clean() {
        let mut uut = ByteEnableCheck::default();
        lint_verilog(
            &block_verilog(&mut uut, "byte_enable_check"),
            "byte_enable_check",
        )
        .unwrap();
    }
}
