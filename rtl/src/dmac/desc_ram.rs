//! The internal descriptor memory: 1024 descriptors of 8 DWs in eight 1024 x 32 block RAMs
//! (bank k holds DW k of every descriptor), so a whole descriptor is read in one cycle.
//!
//! Written DW by DW from BAR0 (`DESC[i]`, `peach2_regmap::dma`); only whole-DW writes
//! are applied (block RAM has no byte enables here). Read by the `C` channels: one
//! request per cycle, lowest channel first (a channel reads once per descriptor, so no
//! channel can starve another); the descriptor appears on `desc` one cycle after the grant,
//! with `desc_valid` set for the granted channel.

use crate::csr::bus::CsrTarget;
use peach2_regmap::dma::{DESC_BASE, DESC_BYTES, DESC_COUNT};
use rust_hdl::prelude::*;

// The decode below: the window is DW indices 0x2000..0x3FFF of BAR0 (bit 13 set), eight DWs
// per descriptor (index in DW bits 12:3), 1024 descriptors (10 index bits).
const _: () = assert!(DESC_BASE / 4 == 1 << 13 && DESC_BYTES == 32 && DESC_COUNT == 1 << 10);

/// The descriptor memory, read by `C` channels.
#[derive(LogicBlock)]
pub struct DescRam<const C: usize> {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high (the memory keeps its contents).
    pub reset: Signal<In, Bit>,
    /// BAR0 accesses: writes of the descriptor window (DW 0x2000..0x3FFF); reads are
    /// answered with 0.
    pub csr: CsrTarget,
    /// Per channel: a descriptor read is wanted.
    pub req: Signal<In, Bits<C>>,
    /// Per channel: the descriptor index wanted.
    pub req_index: [Signal<In, Bits<10>>; C],
    /// Per channel: the descriptor on `desc` is this channel's (one cycle after its request).
    pub desc_valid: Signal<Out, Bits<C>>,
    /// The descriptor read, DW k in bits 32k+31..32k.
    pub desc: Signal<Out, Bits<256>>,
    /// The eight block RAMs: bank k holds DW k of every descriptor.
    banks: [RAM<Bits<32>, 10>; 8],
    /// The channel granted last cycle: its descriptor is on `desc`.
    granted: DFF<Bits<C>>,
    /// The channel granted now.
    grant: Signal<Local, Bits<C>>,
    /// The index read now.
    rd_index: Signal<Local, Bits<10>>,
}

impl<const C: usize> DescRam<C> {
    /// The memory (contents cleared in simulation, undefined in hardware until written).
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            csr: Default::default(),
            req: Default::default(),
            req_index: array_init::array_init(|_| Default::default()),
            desc_valid: Default::default(),
            desc: Default::default(),
            banks: Default::default(),
            granted: Default::default(),
            grant: Default::default(),
            rd_index: Default::default(),
        }
    }
}

impl<const C: usize> Default for DescRam<C> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const C: usize> Logic for DescRam<C> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, granted);
        // The lowest requesting channel: the first bit set.
        self.grant.next = 0.into();
        self.rd_index.next = self.req_index[0].val();
        for c in 0..C {
            if self.req.val().get_bit(c) && (self.grant.val() == 0) {
                self.grant.next = self.grant.val().replace_bit(c, true);
                self.rd_index.next = self.req_index[c].val();
            }
        }
        self.granted.d.next = self.grant.val();
        self.desc_valid.next = self.granted.q.val();
        for k in 0..8 {
            self.banks[k].read_clock.next = self.clock.val();
            self.banks[k].write_clock.next = self.clock.val();
            self.banks[k].read_address.next = self.rd_index.val();
            self.banks[k].write_address.next = self.csr.wr_addr.val().get_bits::<10>(3);
            self.banks[k].write_data.next = self.csr.wr_data.val();
            self.banks[k].write_enable.next = self.csr.wr_en.val()
                && self.csr.wr_addr.val().get_bit(13)
                && (self.csr.wr_be.val() == 0xF)
                && (self.csr.wr_addr.val().get_bits::<3>(0).index() == k);
        }
        self.csr.rd_data.next = 0.into();
        self.desc.next = bit_cast::<256, 32>(self.banks[0].read_data.val())
            | (bit_cast::<256, 32>(self.banks[1].read_data.val()) << 32)
            | (bit_cast::<256, 32>(self.banks[2].read_data.val()) << 64)
            | (bit_cast::<256, 32>(self.banks[3].read_data.val()) << 96)
            | (bit_cast::<256, 32>(self.banks[4].read_data.val()) << 128)
            | (bit_cast::<256, 32>(self.banks[5].read_data.val()) << 160)
            | (bit_cast::<256, 32>(self.banks[6].read_data.val()) << 192)
            | (bit_cast::<256, 32>(self.banks[7].read_data.val()) << 224);
        if self.reset.val() {
            self.granted.d.next = 0.into();
        }
    }
}
