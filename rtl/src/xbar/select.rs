//! The crossbar's connections: each output's beat from the input its select names.
//!
//! A select is one-hot or zero (an output's owner), so each output field is the OR of
//! the selected inputs' fields: an OR tree the mapping can
//! balance, two LUT levels after the select, where a chain of `if`s is a chain of
//! priority muxes (four). Combinational.

use super::crossbar::INPUTS;
use crate::stream::{DATA_BITS, ENDPOINT_BITS, NUM_ENDPOINTS};
use rust_hdl::prelude::*;

/// Every output's beat from the input its one-hot select names.
#[derive(LogicBlock, Default)]
pub struct XbarSelect {
    /// Upstream: each input's `data` (whether an output takes it is the input side's).
    pub data: [Signal<In, Bits<DATA_BITS>>; INPUTS],
    /// Each input's `sop`.
    pub sop: [Signal<In, Bit>; INPUTS],
    /// Each input's `eop`.
    pub eop: [Signal<In, Bit>; INPUTS],
    /// Each input's `empty`.
    pub empty: [Signal<In, Bits<2>>; INPUTS],
    /// Each input's `dest`.
    pub dest: [Signal<In, Bits<ENDPOINT_BITS>>; INPUTS],
    /// Each input's `src`.
    pub src: [Signal<In, Bits<ENDPOINT_BITS>>; INPUTS],
    /// Each input's `unsupported`.
    pub unsupported: [Signal<In, Bit>; INPUTS],
    /// Per output: the input connected to it, one-hot, or none.
    pub sel: [Signal<In, Bits<INPUTS>>; NUM_ENDPOINTS],
    /// Downstream: each output's `data` (0 with no input selected).
    pub out_data: [Signal<Out, Bits<DATA_BITS>>; NUM_ENDPOINTS],
    /// Each output's `sop`.
    pub out_sop: [Signal<Out, Bit>; NUM_ENDPOINTS],
    /// Each output's `eop`.
    pub out_eop: [Signal<Out, Bit>; NUM_ENDPOINTS],
    /// Each output's `empty`.
    pub out_empty: [Signal<Out, Bits<2>>; NUM_ENDPOINTS],
    /// Each output's `dest`.
    pub out_dest: [Signal<Out, Bits<ENDPOINT_BITS>>; NUM_ENDPOINTS],
    /// Each output's `src`.
    pub out_src: [Signal<Out, Bits<ENDPOINT_BITS>>; NUM_ENDPOINTS],
    /// Each output's `unsupported`.
    pub out_unsupported: [Signal<Out, Bit>; NUM_ENDPOINTS],
}

impl Logic for XbarSelect {
    #[hdl_gen]
    fn update(&mut self) {
        for j in 0..NUM_ENDPOINTS {
            self.out_data[j].next = 0.into();
            self.out_sop[j].next = false;
            self.out_eop[j].next = false;
            self.out_empty[j].next = 0.into();
            self.out_dest[j].next = 0.into();
            self.out_src[j].next = 0.into();
            self.out_unsupported[j].next = false;
            for i in 0..INPUTS {
                if self.sel[j].val().get_bit(i) {
                    self.out_data[j].next = self.out_data[j].val() | self.data[i].val();
                    self.out_sop[j].next = self.out_sop[j].val() || self.sop[i].val();
                    self.out_eop[j].next = self.out_eop[j].val() || self.eop[i].val();
                    self.out_empty[j].next = self.out_empty[j].val() | self.empty[i].val();
                    self.out_dest[j].next = self.out_dest[j].val() | self.dest[i].val();
                    self.out_src[j].next = self.out_src[j].val() | self.src[i].val();
                    self.out_unsupported[j].next =
                        self.out_unsupported[j].val() || self.unsupported[i].val();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{bits128, Lcg};
    use crate::verilog::checks::lint_verilog;
    use crate::verilog::export::block_verilog;

    /// One input's fields: data, sop, eop, empty, dest, src, unsupported.
    type Beat = (u128, bool, bool, u64, u64, u64, bool);

    /// Random input beats and random one-hot (or empty) selects: each output carries
    /// every field of the input it selects, and nothing without one.
    #[test]
    fn each_output_carries_the_selected_input() {
        let mut uut = XbarSelect::default();
        uut.connect_all();
        let mut rng = Lcg(0x5E1EC7);
        let mut picks = [0usize; INPUTS + 1];
        for round in 0..2_000 {
            let beats: Vec<Beat> = (0..INPUTS)
                .map(|_| {
                    (
                        u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64()),
                        rng.chance(0.5),
                        rng.chance(0.5),
                        rng.below(4),
                        rng.below(8),
                        rng.below(8),
                        rng.chance(0.5),
                    )
                })
                .collect();
            for (i, b) in beats.iter().enumerate() {
                uut.data[i].next = bits128(b.0);
                uut.sop[i].next = b.1;
                uut.eop[i].next = b.2;
                uut.empty[i].next = b.3.into();
                uut.dest[i].next = b.4.into();
                uut.src[i].next = b.5.into();
                uut.unsupported[i].next = b.6;
            }
            let sel: Vec<Option<usize>> = (0..NUM_ENDPOINTS)
                .map(|_| {
                    let k = rng.below(INPUTS as u64 + 1) as usize;
                    (k < INPUTS).then_some(k)
                })
                .collect();
            for (j, s) in sel.iter().enumerate() {
                uut.sel[j].next = s.map_or(0, |i| 1u64 << i).into();
            }
            assert!(simulate(&mut uut, 100), "settles");
            for (j, s) in sel.iter().enumerate() {
                let want = s.map_or((0, false, false, 0, 0, 0, false), |i| beats[i]);
                let got = (
                    uut.out_data[j].val().to_u128(),
                    uut.out_sop[j].val(),
                    uut.out_eop[j].val(),
                    uut.out_empty[j].val().to_u64(),
                    uut.out_dest[j].val().to_u64(),
                    uut.out_src[j].val().to_u64(),
                    uut.out_unsupported[j].val(),
                );
                assert_eq!(got, want, "round {round}: output {j} selects {s:?}");
                picks[s.unwrap_or(INPUTS)] += 1;
            }
        }
        assert!(picks.iter().all(|&n| n > 1_000), "{picks:?}");
    }

    #[test]
    fn xbar_select_lint_clean() {
        let mut uut = XbarSelect::default();
        lint_verilog(&block_verilog(&mut uut, "xbar_select"), "xbar_select").unwrap();
    }
}
