//! A channel's copy of its current descriptor (eight DWs, layout in
//! `peach2_regmap::dma`) and its fields.
//!
//! The descriptor arrives whole from the internal descriptor RAM, or DW by DW from host
//! completions, whose lanes are in wire order (big-endian bytes) while descriptors are
//! little-endian DWs.

use crate::csr::wire_order::WireOrder;
use peach2_regmap::dma::{flags, DESC_BYTES, DESC_COUNT, IMMEDIATE};
use rust_hdl::prelude::*;

// The fields' places as `peach2_regmap::dma::Descriptor` lays them out: the length below
// DW 3's `IMMEDIATE` bit 31, the flags in DW 4's low 5 bits (`TWO_D` bit 1), `next` above
// them (a descriptor is 32 bytes), an internal `next` an index of 10 bits at bits 14:5.
const _: () = assert!(
    IMMEDIATE == 1 << 31
        && flags::MASK == 0x1F
        && flags::TWO_D == 1 << 1
        && DESC_BYTES == 0x20
        && (DESC_COUNT - 1) * DESC_BYTES == 0x7FE0
);

/// A descriptor's fields, as the channel checks and moves its data (the chain's `next`
/// stays with [`DescRegs`]).
#[derive(LogicInterface, Default)]
#[join = "DescFieldsIn"]
pub struct DescFields {
    /// Source address.
    pub src: Signal<Out, Bits<64>>,
    /// Destination address.
    pub dst: Signal<Out, Bits<64>>,
    /// Bytes per block (DW 3 without the `immediate` bit).
    pub len: Signal<Out, Bits<32>>,
    /// A write-immediate descriptor (its value is `src[31:0]`).
    pub immediate: Signal<Out, Bit>,
    /// Flags (end of chain, 2-D, notify receiver, notify self, MSI).
    pub flags: Signal<Out, Bits<5>>,
    /// Blocks (1 unless 2-D).
    pub height: Signal<Out, Bits<17>>,
    /// Source pitch in bytes.
    pub src_pitch: Signal<Out, Bits<32>>,
    /// Destination pitch in bytes.
    pub dst_pitch: Signal<Out, Bits<32>>,
}

/// The receiving side of [`DescFields`].
#[derive(LogicInterface, Default)]
#[join = "DescFields"]
pub struct DescFieldsIn {
    /// See [`DescFields::src`].
    pub src: Signal<In, Bits<64>>,
    /// See [`DescFields::dst`].
    pub dst: Signal<In, Bits<64>>,
    /// See [`DescFields::len`].
    pub len: Signal<In, Bits<32>>,
    /// See [`DescFields::immediate`].
    pub immediate: Signal<In, Bit>,
    /// See [`DescFields::flags`].
    pub flags: Signal<In, Bits<5>>,
    /// See [`DescFields::height`].
    pub height: Signal<In, Bits<17>>,
    /// See [`DescFields::src_pitch`].
    pub src_pitch: Signal<In, Bits<32>>,
    /// See [`DescFields::dst_pitch`].
    pub dst_pitch: Signal<In, Bits<32>>,
}

/// The descriptor registers.
#[derive(LogicBlock, Default)]
pub struct DescRegs {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Pulse: take all eight DWs from `ram` (DW k in bits 32k+31..32k).
    pub load_ram: Signal<In, Bit>,
    /// An internal descriptor.
    pub ram: Signal<In, Bits<256>>,
    /// Per DW k: take DW k from `lanes`, from the lane in bits 2k+1..2k of `dw_lanes`.
    pub dw_we: Signal<In, Bits<8>>,
    /// Per DW k: the lane of `lanes` that holds it, in bits 2k+1..2k (a lane select per
    /// register, so each DW's write is one 4-to-1 choice, not a search of the lanes for
    /// its index).
    pub dw_lanes: Signal<In, Bits<16>>,
    /// A completion beat's lanes (wire order).
    pub lanes: Signal<In, Bits<128>>,
    /// The descriptor's fields.
    pub fields: DescFields,
    /// The next host descriptor's address.
    pub next_host: Signal<Out, Bits<64>>,
    /// The next internal descriptor's byte offset (index << 5).
    pub next_int: Signal<Out, Bits<64>>,
    /// The current descriptor's eight DWs, in register byte order.
    d: [DFF<Bits<32>>; 8],
    /// Each lane's DW in register byte order.
    sw: [WireOrder; 4],
}

impl Logic for DescRegs {
    #[hdl_gen]
    fn update(&mut self) {
        for k in 0..8 {
            self.d[k].clock.next = self.clock.val();
            self.d[k].d.next = self.d[k].q.val();
        }
        // Lane l's DW with its bytes swapped back.
        for l in 0..4 {
            self.sw[l].dw.next = self.lanes.val().get_bits::<32>(32 * l);
        }
        if self.load_ram.val() {
            for k in 0..8 {
                self.d[k].d.next = self.ram.val().get_bits::<32>(32 * k);
            }
        }
        for k in 0..8 {
            if self.dw_we.val().get_bit(k) {
                self.d[k].d.next = self.sw[0].swapped.val();
                for l in 1..4 {
                    if self.dw_lanes.val().get_bits::<2>(2 * k).index() == l {
                        self.d[k].d.next = self.sw[l].swapped.val();
                    }
                }
            }
        }

        self.fields.src.next = (bit_cast::<64, 16>(self.d[1].q.val().get_bits::<16>(0)) << 32)
            | bit_cast::<64, 32>(self.d[0].q.val());
        self.fields.dst.next = (bit_cast::<64, 16>(self.d[1].q.val().get_bits::<16>(16)) << 32)
            | bit_cast::<64, 32>(self.d[2].q.val());
        self.fields.len.next = self.d[3].q.val() & 0x7FFF_FFFF;
        self.fields.immediate.next = self.d[3].q.val().get_bit(31);
        self.fields.flags.next = self.d[4].q.val().get_bits::<5>(0);
        self.fields.height.next = 1.into();
        if self.d[4].q.val().get_bit(1) {
            self.fields.height.next = bit_cast::<17, 16>(self.d[5].q.val().get_bits::<16>(16));
        }
        self.fields.src_pitch.next = self.d[6].q.val();
        self.fields.dst_pitch.next = self.d[7].q.val();
        self.next_host.next = (bit_cast::<64, 16>(self.d[5].q.val().get_bits::<16>(0)) << 32)
            | bit_cast::<64, 32>(self.d[4].q.val() & 0xFFFF_FFE0u64);
        self.next_int.next = bit_cast::<64, 32>(self.d[4].q.val() & 0x7FE0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Lcg, Stepper};
    use peach2_regmap::dma::{flags, Descriptor};

    fn fields(r: &DescRegs) -> [u64; 10] {
        [
            u64::from(r.fields.immediate.val()),
            r.fields.src.val().to_u64(),
            r.fields.dst.val().to_u64(),
            r.fields.len.val().to_u64(),
            r.fields.flags.val().to_u64(),
            r.fields.height.val().to_u64(),
            r.fields.src_pitch.val().to_u64(),
            r.fields.dst_pitch.val().to_u64(),
            r.next_host.val().to_u64(),
            r.next_int.val().to_u64(),
        ]
    }

    /// The fields as `peach2_regmap::dma` decodes the same DWs.
    fn golden(dws: &[u32; 8]) -> [u64; 10] {
        let d = Descriptor::from_dws(*dws);
        let height = if d.flags & flags::TWO_D != 0 {
            u64::from(d.height)
        } else {
            1
        };
        [
            u64::from(d.immediate),
            d.src,
            d.dst,
            u64::from(d.length),
            u64::from(d.flags),
            height,
            u64::from(d.src_pitch),
            u64::from(d.dst_pitch),
            d.next,
            // An internal chain's next descriptor: index bits only.
            d.next & 0x7FE0,
        ]
    }

    #[test]
    fn fields_from_ram_and_from_host_lanes_in_random_order() {
        let mut s = Stepper::new(DescRegs::default(), |r| &mut r.clock);
        let mut rng = Lcg(11);
        for case in 0..100 {
            let dws: [u32; 8] = std::array::from_fn(|_| rng.next_u64() as u32);
            if case % 2 == 0 {
                let mut ram = Bits::<256>::default();
                for (k, &w) in dws.iter().enumerate() {
                    ram.set_bits::<32>(32 * k, u64::from(w).into());
                }
                s.uut.load_ram.next = true;
                s.uut.ram.next = ram;
                s.settle();
                s.tick();
                s.uut.load_ram.next = false;
            } else {
                // DWs in a random order, up to four per beat, on random lanes.
                let mut order: Vec<usize> = (0..8).collect();
                for i in (1..8).rev() {
                    order.swap(i, rng.below(i as u64 + 1) as usize);
                }
                for chunk in order.chunks(1 + rng.below(4) as usize) {
                    // Lanes no DW is taken from carry garbage; DWs not written this beat
                    // name any lane.
                    let mut lanes: [u32; 4] = std::array::from_fn(|_| rng.next_u64() as u32);
                    let mut we = 0u64;
                    let mut dw_lanes = rng.next_u64() & 0xFFFF;
                    for (slot, &k) in chunk.iter().enumerate() {
                        let l = (slot + case) % 4;
                        we |= 1 << k;
                        dw_lanes = dw_lanes & !(3 << (2 * k)) | (l as u64) << (2 * k);
                        lanes[l] = dws[k].swap_bytes();
                    }
                    s.uut.dw_lanes.next = dw_lanes.into();
                    let wire = (0..4).fold(0u128, |a, l| a | u128::from(lanes[l]) << (32 * l));
                    s.uut.dw_we.next = we.into();
                    s.uut.lanes.next = crate::harness::bits128(wire);
                    s.settle();
                    s.tick();
                }
                s.uut.dw_we.next = 0.into();
            }
            s.settle();
            assert_eq!(fields(&s.uut), golden(&dws), "case {case}: {dws:08x?}");
        }
    }
}
