//! The descriptor check of a channel (a write-immediate descriptor has no source): the first rule a descriptor breaks, as an
//! `ErrorCause` code (`peach2_regmap::dma`), in the order the register map lists them.
//! Combinational; the channel latches the code in its `Check` state.

use super::desc_regs::DescFieldsIn;
use crate::fixed::Fixed;
use peach2_regmap::address::{BASE_SHIFT, GLOBAL_BASE_HI};
use peach2_regmap::dma::{flags, ErrorCause, MAX_LENGTH};
use rust_hdl::prelude::*;

// The flag tests below name the flags' bits, and the global-address test its base field.
const _: () = assert!(
    flags::TWO_D == 1 << 1
        && flags::NOTIFY_RX == 1 << 2
        && flags::NOTIFY_SELF == 1 << 3
        && flags::INTERRUPT == 1 << 4
        && BASE_SHIFT == 42
        && GLOBAL_BASE_HI == 1
        && ErrorCause::None as u32 == 0
);

/// An [`ErrorCause`]'s 4-bit code, as a block's constant.
pub type CauseCode<const CODE: u64> = Fixed<CODE, 4>;

/// The descriptor check.
#[derive(LogicBlock, Default)]
pub struct DescCheck {
    /// The descriptor (a write-immediate descriptor: only `dst`, the length (4) and
    /// 1-D are checked).
    pub desc: DescFieldsIn,
    /// `NOTIFY_RX`.
    pub notify_rx_addr: Signal<In, Bits<64>>,
    /// `NOTIFY_SELF`.
    pub notify_self_addr: Signal<In, Bits<64>>,
    /// `DMA_MSI_ADDR`.
    pub msi_addr: Signal<In, Bits<64>>,
    /// The destination can be routed.
    pub dst_ok: Signal<In, Bit>,
    /// The receiver's slot can be routed.
    pub rx_ok: Signal<In, Bit>,
    /// The cause code; 0 when the descriptor may run.
    pub cause: Signal<Out, Bits<4>>,
    /// The descriptor is 2-D (its `TWO_D` flag).
    two_d: Signal<Local, Bit>,
    /// A notification slot or the MSI address the flags use is not DW aligned.
    slots_misaligned: Signal<Local, Bit>,
    /// An address, length, pitch or slot the descriptor uses is not a multiple of 4.
    misaligned: Signal<Local, Bit>,
    /// Source and destination (or, 2-D, the two pitches) differ in their low 4 bits.
    low_bits: Signal<Local, Bit>,
    /// The length or the height is zero.
    zero: Signal<Local, Bit>,
    /// The longest length or width.
    max_length: Fixed<{ MAX_LENGTH as u64 }, 32>,
    /// The codes of the causes the check reports.
    misaligned_code: CauseCode<{ ErrorCause::Misaligned as u64 }>,
    /// The ErrorCause code for source and destination differing in their low 4 bits.
    low_bits_code: CauseCode<{ ErrorCause::LowBitsDiffer as u64 }>,
    /// The ErrorCause code for a zero length or height.
    zero_code: CauseCode<{ ErrorCause::ZeroLength as u64 }>,
    /// The ErrorCause code for a write-immediate descriptor not 4 bytes long, or 2-D.
    bad_immediate_code: CauseCode<{ ErrorCause::BadImmediate as u64 }>,
    /// The ErrorCause code for a length above `MAX_LENGTH`.
    oversized_code: CauseCode<{ ErrorCause::Oversized as u64 }>,
    /// The ErrorCause code for a source that is a global address.
    source_not_local_code: CauseCode<{ ErrorCause::SourceNotLocal as u64 }>,
    /// The ErrorCause code for a destination or receiver's slot the chip cannot route.
    unroutable_code: CauseCode<{ ErrorCause::Unroutable as u64 }>,
}

impl Logic for DescCheck {
    #[hdl_gen]
    fn update(&mut self) {
        self.two_d.next = self.desc.flags.val().get_bit(1);
        self.slots_misaligned.next = (self.desc.flags.val().get_bit(2)
            && (self.notify_rx_addr.val().get_bits::<2>(0) != 0))
            || (self.desc.flags.val().get_bit(3)
                && (self.notify_self_addr.val().get_bits::<2>(0) != 0))
            || (self.desc.flags.val().get_bit(4) && (self.msi_addr.val().get_bits::<2>(0) != 0));
        self.misaligned.next = (self.desc.src.val().get_bits::<2>(0) != 0)
            || (self.desc.dst.val().get_bits::<2>(0) != 0)
            || (self.desc.len.val().get_bits::<2>(0) != 0)
            || (self.two_d.val()
                && ((self.desc.src_pitch.val().get_bits::<2>(0) != 0)
                    || (self.desc.dst_pitch.val().get_bits::<2>(0) != 0)))
            || self.slots_misaligned.val();
        self.low_bits.next = (self.desc.src.val().get_bits::<4>(0)
            != self.desc.dst.val().get_bits::<4>(0))
            || (self.two_d.val()
                && (self.desc.src_pitch.val().get_bits::<4>(0)
                    != self.desc.dst_pitch.val().get_bits::<4>(0)));
        self.zero.next = (self.desc.len.val() == 0) || (self.desc.height.val() == 0);
        if self.desc.immediate.val() {
            // No source: the value is in the descriptor.
            self.misaligned.next =
                (self.desc.dst.val().get_bits::<2>(0) != 0) || self.slots_misaligned.val();
            self.low_bits.next = false;
            self.zero.next = false;
        }
        self.cause.next = 0.into();
        if self.misaligned.val() {
            self.cause.next = self.misaligned_code.val();
        } else if self.low_bits.val() {
            self.cause.next = self.low_bits_code.val();
        } else if self.zero.val() {
            self.cause.next = self.zero_code.val();
        } else if self.desc.immediate.val() && ((self.desc.len.val() != 4) || self.two_d.val()) {
            self.cause.next = self.bad_immediate_code.val();
        } else if self.desc.len.val() > self.max_length.val() {
            self.cause.next = self.oversized_code.val();
        } else if !self.desc.immediate.val() && (self.desc.src.val().get_bits::<22>(42) == 1) {
            self.cause.next = self.source_not_local_code.val();
        } else if !self.dst_ok.val() || (self.desc.flags.val().get_bit(2) && !self.rx_ok.val()) {
            self.cause.next = self.unroutable_code.val();
        }
    }
}
