//! The two forms a translated write's header can leave N in (PCIe 2.2.4.1: an address
//! below 4 GiB must use the 32-bit format). Combinational, from the egress's first
//! register ([`super::egress_decode::EgressDecode`]), which also says which form a header
//! takes (`high`).
//!
//! - `four_dw`: the header beat with its address DWs replaced by the local address (DW2
//!   bits 63:32, DW3 bits 31:0), for a local address at or above 4 GiB;
//! - `three_dw`: DW0 with fmt 011 made 010 (3-DW write), DW1, and the local address's
//!   low DW: the three lanes a shifted packet's first output beat starts with.

use rust_hdl::prelude::*;

/// The translated header's 4-DW and 3-DW forms.
#[derive(LogicBlock, Default)]
pub struct EgressHeaders {
    /// The header beat's DW0 and DW1 (a 4-DW memory write to a global address).
    pub head: Signal<In, Bits<64>>,
    /// Its local address.
    pub local_addr: Signal<In, Bits<64>>,
    /// The 4-DW header beat with the local address.
    pub four_dw: Signal<Out, Bits<128>>,
    /// The 3-DW header (lanes 0..=2).
    pub three_dw: Signal<Out, Bits<96>>,
    /// DW0 with fmt 010.
    dw0_3dw: Signal<Local, Bits<32>>,
}

impl Logic for EgressHeaders {
    #[hdl_gen]
    fn update(&mut self) {
        self.four_dw.next = bit_cast::<128, 64>(self.head.val())
            | (bit_cast::<128, 32>(self.local_addr.val().get_bits::<32>(32)) << 64)
            | (bit_cast::<128, 32>(self.local_addr.val().get_bits::<32>(0)) << 96);
        // fmt 011 (4-DW write) becomes 010 (3-DW write).
        self.dw0_3dw.next = self.head.val().get_bits::<32>(0) & 0xDFFF_FFFFu64;
        self.three_dw.next = bit_cast::<96, 32>(self.dw0_3dw.val())
            | (bit_cast::<96, 32>(self.head.val().get_bits::<32>(32)) << 32)
            | (bit_cast::<96, 32>(self.local_addr.val().get_bits::<32>(0)) << 64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::Lcg;
    use crate::verilog::checks::lint_verilog;
    use crate::verilog::export::block_verilog;

    /// Random headers and addresses (half of them below 4 GiB) against the forms above,
    /// DW by DW.
    #[test]
    fn forms_both_headers_dw_by_dw() {
        let mut uut = EgressHeaders::default();
        uut.connect_all();
        let mut rng = Lcg(0xE6);
        let mut lows = 0;
        for round in 0..2_000 {
            let dws: [u64; 2] = std::array::from_fn(|_| rng.below(1 << 32));
            let addr = if rng.chance(0.5) {
                rng.below(1 << 32)
            } else {
                rng.next_u64() | 1 << 40
            };
            uut.head.next = (dws[1] << 32 | dws[0]).into();
            uut.local_addr.next = addr.into();
            assert!(simulate(&mut uut, 100), "settles");
            let four = uut.four_dw.val().to_u128();
            let four_dws: Vec<u64> = (0..4).map(|k| (four >> (32 * k)) as u32 as u64).collect();
            assert_eq!(
                four_dws,
                [dws[0], dws[1], addr >> 32, addr & 0xFFFF_FFFF],
                "round {round}: 4-DW"
            );
            let three = uut.three_dw.val();
            let three_dws: Vec<u64> = (0..3)
                .map(|k| (three >> (32 * k)).get_bits::<32>(0).to_u64())
                .collect();
            assert_eq!(
                three_dws,
                [dws[0] & !(1 << 29), dws[1], addr & 0xFFFF_FFFF],
                "round {round}: 3-DW"
            );
            lows += usize::from(addr >> 32 == 0);
        }
        assert!(lows > 500, "{lows} addresses below 4 GiB");
    }

    #[test]
    fn egress_headers_lint_clean() {
        let mut uut = EgressHeaders::default();
        lint_verilog(&block_verilog(&mut uut, "egress_headers"), "egress_headers").unwrap();
    }
}
