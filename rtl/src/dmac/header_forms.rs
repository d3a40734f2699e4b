//! Which of `C` channels' request addresses need a 4-DW header: a memory request's
//! address at or above 4 GiB takes the 4-DW form, one below it the 3-DW form (PCIe 2.0,
//! 2.2.4.1: a 64-bit address with its upper half zero must use the 3-DW form). The read
//! requester and the write generator decide it for every channel before their round
//! robin picks one, so the header's form waits on no 32-bit compare after the pick.
//! Combinational.

use rust_hdl::prelude::*;

/// The header form of `C` channels' addresses.
#[derive(LogicBlock)]
pub struct HeaderForms<const C: usize> {
    /// Per channel: the request's DW-aligned address.
    pub addr: [Signal<In, Bits<64>>; C],
    /// Bit c: channel c's address needs the 4-DW header.
    pub four_dw: Signal<Out, Bits<C>>,
}

impl<const C: usize> HeaderForms<C> {
    /// The decision for `C` channels.
    pub fn new() -> Self {
        Self {
            addr: array_init::array_init(|_| Default::default()),
            four_dw: Default::default(),
        }
    }
}

impl<const C: usize> Default for HeaderForms<C> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const C: usize> Logic for HeaderForms<C> {
    #[hdl_gen]
    fn update(&mut self) {
        self.four_dw.next = 0.into();
        for c in 0..C {
            self.four_dw.next = self
                .four_dw
                .val()
                .replace_bit(c, self.addr[c].val().get_bits::<32>(32) != 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::Lcg;
    use crate::verilog::checks::lint_verilog;
    use crate::verilog::export::block_verilog;
    use pcie_model::tlp::{Addr, Bdf, Tag, Tlp};

    /// Random addresses, many at the 4 GiB boundary, against the header pcie-model
    /// builds for a one-DW read there.
    #[test]
    fn four_dw_exactly_where_pcie_model_uses_the_4_dw_form() {
        let mut uut = HeaderForms::<4>::new();
        uut.connect_all();
        let mut rng = Lcg(0x4D3);
        let mut four = 0;
        for i in 0..2_000u64 {
            let addrs: Vec<u64> = (0..4)
                .map(|_| match rng.below(4) {
                    0 => 4 * rng.below(1 << 30),
                    1 => (1 << 32) - 4 * (1 + rng.below(4)),
                    2 => (1 << 32) + 4 * rng.below(4),
                    _ => rng.next_u64() & !3,
                })
                .collect();
            for (c, a) in addrs.iter().enumerate() {
                uut.addr[c].next = (*a).into();
            }
            assert!(simulate(&mut uut, 100), "settles");
            for (c, &a) in addrs.iter().enumerate() {
                let hdr = Tlp::mem_read(Bdf(1), Tag(0), Addr(a), 4)
                    .expect("a valid read")
                    .to_bytes()
                    .len();
                let want = hdr == 16;
                assert_eq!(uut.four_dw.val().get_bit(c), want, "case {i}: {a:#x}");
                four += usize::from(want);
            }
        }
        assert!(four > 2_000, "{four} 4-DW addresses");
    }

    #[test]
    fn header_forms_verilog_lints_clean() {
        let mut uut = HeaderForms::<4>::new();
        let v = block_verilog(&mut uut, "dma_header_forms");
        lint_verilog(&v, "dma_header_forms").unwrap();
    }
}
