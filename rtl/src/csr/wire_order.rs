//! A DW between register order and PCIe wire order: register byte k travels as wire byte
//! k (PCIe 2.0, 2.2.1), so a register value and the lane that carries it are byte-swapped.
//! The swap is its own inverse. Combinational.

use rust_hdl::prelude::*;

/// One DW, byte-swapped.
#[derive(LogicBlock, Default)]
pub struct WireOrder {
    /// The DW in one order.
    pub dw: Signal<In, Bits<32>>,
    /// The same DW in the other.
    pub swapped: Signal<Out, Bits<32>>,
}

impl Logic for WireOrder {
    #[hdl_gen]
    fn update(&mut self) {
        self.swapped.next = (bit_cast::<32, 8>(self.dw.val().get_bits::<8>(0)) << 24)
            | (bit_cast::<32, 8>(self.dw.val().get_bits::<8>(8)) << 16)
            | (bit_cast::<32, 8>(self.dw.val().get_bits::<8>(16)) << 8)
            | bit_cast::<32, 8>(self.dw.val().get_bits::<8>(24));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::Lcg;

    /// Random DWs come out as `u32::swap_bytes` makes them.
    #[test]
    fn swaps_the_bytes() {
        let mut uut = WireOrder::default();
        uut.connect_all();
        let mut rng = Lcg(0x5A4B);
        for _ in 0..500 {
            let dw = rng.next_u64() as u32;
            uut.dw.next = u64::from(dw).into();
            assert!(simulate(&mut uut, 100), "settles");
            assert_eq!(
                uut.swapped.val().to_u64() as u32,
                dw.swap_bytes(),
                "{dw:#x}"
            );
        }
    }

    #[test]
    fn wire_order_verilog_lints_clean() {
        let mut uut = WireOrder::default();
        let v = crate::verilog::export::block_verilog(&mut uut, "csr_wire_order");
        crate::verilog::checks::lint_verilog(&v, "csr_wire_order").unwrap();
    }
}
