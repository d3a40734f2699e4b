//! Byte enables as a bit mask: enable k covers bits 8k+7..8k of a register. The one
//! statement of that rule: the completer puts it on the CSR bus (`wr_mask`) and the
//! ports' config spaces merge a CfgWr's enabled bytes with it. Combinational.

use rust_hdl::prelude::*;

/// The bit mask of four byte enables.
#[derive(LogicBlock, Default)]
pub struct ByteMask {
    /// Byte enables, byte 0 in bit 0.
    pub be: Signal<In, Bits<4>>,
    /// The enabled bytes' bits.
    pub mask: Signal<Out, Bits<32>>,
}

impl Logic for ByteMask {
    #[hdl_gen]
    fn update(&mut self) {
        self.mask.next = 0.into();
        if self.be.val().get_bit(0) {
            self.mask.next = self.mask.val() | 0xFF;
        }
        if self.be.val().get_bit(1) {
            self.mask.next = self.mask.val() | 0xFF00;
        }
        if self.be.val().get_bit(2) {
            self.mask.next = self.mask.val() | 0xFF_0000;
        }
        if self.be.val().get_bit(3) {
            self.mask.next = self.mask.val() | 0xFF00_0000u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every enable pattern gives its bytes' bits and no others.
    #[test]
    fn every_pattern_gives_its_bytes() {
        let mut uut = ByteMask::default();
        uut.connect_all();
        for be in 0..16u64 {
            uut.be.next = be.into();
            assert!(simulate(&mut uut, 100), "settles");
            let want: u64 = (0..4)
                .filter(|k| be >> k & 1 == 1)
                .map(|k| 0xFF << (8 * k))
                .sum();
            assert_eq!(uut.mask.val().to_u64(), want, "be {be:#06b}");
        }
    }

    #[test]
    fn byte_mask_verilog_lints_clean() {
        let mut uut = ByteMask::default();
        let v = crate::verilog::export::block_verilog(&mut uut, "csr_byte_mask");
        crate::verilog::checks::lint_verilog(&v, "csr_byte_mask").unwrap();
    }
}
