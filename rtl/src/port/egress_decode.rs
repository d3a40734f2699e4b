//! The N port's egress, first register: each beat from the crossbar, registered with what
//! the translation (`super::egress_translate`) needs to know of a header beat: whether
//! it is a global write, whether its target is enabled, and its local address
//! (`TARGET[target] + offset`, `peach2_regmap::address`). The translation then decides
//! from registers, so the address sum and the target windows are not in one clock cycle
//! with its choice and the crossbar's.
//!
//! One beat deep ([`BeatSlot`]): the beat waits here until the translation takes it
//! (`take`), and the next comes in the same cycle.

use crate::csr::target_regs::TARGETS;
use crate::stream::beat_slot::BeatSlot;
use crate::stream::TlpSink;
use peach2_regmap::address::{BASE_SHIFT, GLOBAL_BASE_HI};
use rust_hdl::prelude::*;

// The global space's base is address bits 63:42.
const _: () = assert!(BASE_SHIFT == 42);

/// The egress's first register.
#[derive(LogicBlock)]
pub struct EgressDecode {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Upstream: packets the crossbar sends to N.
    pub from_xbar: TlpSink,
    /// Downstream: a beat is registered.
    pub valid: Signal<Out, Bit>,
    /// Downstream: the translation takes the beat this cycle.
    pub take: Signal<In, Bit>,
    /// The beat's data.
    pub data: Signal<Out, Bits<128>>,
    /// First beat of a TLP.
    pub sop: Signal<Out, Bit>,
    /// Last beat of a TLP.
    pub eop: Signal<Out, Bit>,
    /// Unused DW lanes in the `eop` beat.
    pub empty: Signal<Out, Bits<2>>,
    /// Crossbar destination.
    pub dest: Signal<Out, Bits<3>>,
    /// Crossbar source.
    pub src: Signal<Out, Bits<3>>,
    /// Marked to be answered with UR.
    pub unsupported: Signal<Out, Bit>,
    /// On a header beat: a 4-DW memory write to a global address.
    pub global_write: Signal<Out, Bit>,
    /// On a header beat: its target is enabled.
    pub enabled: Signal<Out, Bit>,
    /// On a header beat: its local address, `TARGET[target] + offset`.
    pub local_addr: Signal<Out, Bits<64>>,
    /// On a header beat: the local address is at or above 4 GiB (the header keeps its
    /// 4-DW form).
    pub high: Signal<Out, Bit>,
    /// Local base address per target (host, GPU 0..3).
    pub target_base: [Signal<In, Bits<64>>; TARGETS],
    /// Enable bit per target.
    pub target_enable: Signal<In, Bits<5>>,
    /// The beat.
    slot: BeatSlot,
    /// See `dest`.
    q_dest: DFF<Bits<3>>,
    /// See `src`.
    q_src: DFF<Bits<3>>,
    /// See `unsupported`.
    q_unsupported: DFF<Bit>,
    /// See `global_write`.
    q_global: DFF<Bit>,
    /// See `enabled`.
    q_enabled: DFF<Bit>,
    /// See `local_addr`.
    q_local: DFF<Bits<64>>,
    /// See `high`. A register of its own, not a compare after `q_local`: the
    /// translation's choice, and from it the crossbar's output `ready`, would wait for
    /// the compare.
    q_high: DFF<Bit>,
    /// The incoming header's target field (global address bits 35:33).
    target: Signal<Local, Bits<3>>,
    /// That target's base address.
    base: Signal<Local, Bits<64>>,
    /// The incoming header's local address.
    local_sum: Signal<Local, Bits<64>>,
    /// The carry out of the low DWs' sum into `local_sum`'s bit 32.
    low_carry: Signal<Local, Bit>,
    /// `local_sum` is at or above 4 GiB.
    high_now: Signal<Local, Bit>,
    /// The offset in the target: address bits 32:0 (DW2 bit 0 and DW3).
    offset: Signal<Local, Bits<64>>,
    /// The global space's base (address bits 63:42), to tell a global write.
    global_base_hi: Constant<Bits<22>>,
}

impl Default for EgressDecode {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            from_xbar: Default::default(),
            valid: Default::default(),
            take: Default::default(),
            data: Default::default(),
            sop: Default::default(),
            eop: Default::default(),
            empty: Default::default(),
            dest: Default::default(),
            src: Default::default(),
            unsupported: Default::default(),
            global_write: Default::default(),
            enabled: Default::default(),
            local_addr: Default::default(),
            high: Default::default(),
            target_base: array_init::array_init(|_| Default::default()),
            target_enable: Default::default(),
            slot: Default::default(),
            q_dest: Default::default(),
            q_src: Default::default(),
            q_unsupported: Default::default(),
            q_global: Default::default(),
            q_enabled: Default::default(),
            q_local: Default::default(),
            q_high: Default::default(),
            target: Default::default(),
            base: Default::default(),
            local_sum: Default::default(),
            low_carry: Default::default(),
            high_now: Default::default(),
            offset: Default::default(),
            global_base_hi: Constant::new(GLOBAL_BASE_HI.into()),
        }
    }
}

impl Logic for EgressDecode {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            q_dest,
            q_src,
            q_unsupported,
            q_global,
            q_enabled,
            q_local,
            q_high
        );
        self.slot.clock.next = self.clock.val();
        self.slot.reset.next = self.reset.val();
        self.slot.sink.data.next = self.from_xbar.data.val();
        self.slot.sink.sop.next = self.from_xbar.sop.val();
        self.slot.sink.eop.next = self.from_xbar.eop.val();
        self.slot.sink.empty.next = self.from_xbar.empty.val();
        self.slot.sink.valid.next = self.from_xbar.valid.val();
        self.from_xbar.ready.next = self.slot.sink.ready.val();
        self.slot.flush.next = false;
        self.slot.take.next = self.take.val();
        self.valid.next = self.slot.valid.val();
        self.data.next = self.slot.data.val();
        self.sop.next = self.slot.sop.val();
        self.eop.next = self.slot.eop.val();
        self.empty.next = self.slot.empty.val();
        self.dest.next = self.q_dest.q.val();
        self.src.next = self.q_src.q.val();
        self.unsupported.next = self.q_unsupported.q.val();
        self.global_write.next = self.q_global.q.val();
        self.enabled.next = self.q_enabled.q.val();
        self.local_addr.next = self.q_local.q.val();
        self.high.next = self.q_high.q.val();

        // The beat on the input, decoded as a header.
        self.target.next = self.from_xbar.data.val().get_bits::<3>(65);
        self.base.next = 0.into();
        for t in 0..TARGETS {
            if self.target.val().index() == t {
                self.base.next = self.target_base[t].val();
            }
        }
        self.offset.next = (bit_cast::<64, 1>(self.from_xbar.data.val().get_bits::<1>(64)) << 32)
            | bit_cast::<64, 32>(self.from_xbar.data.val().get_bits::<32>(96));

        self.local_sum.next = self.base.val() + self.offset.val();
        // The sum's high DW is the base's plus the offset's bit 32 and the low DWs'
        // carry: 0, 1 or 2. It is zero exactly when the base's high DW is minus that,
        // so three compares on the base decide, beside the sum rather than after it.
        // The carry is the sum's bit 32 less the operands' own.
        self.low_carry.next = self.local_sum.val().get_bit(32)
            ^ self.base.val().get_bit(32)
            ^ self.offset.val().get_bit(32);
        self.high_now.next = self.base.val().get_bits::<32>(32) != 0;
        if self.offset.val().get_bit(32) != self.low_carry.val() {
            self.high_now.next = self.base.val().get_bits::<32>(32) != 0xFFFF_FFFFu64;
        }
        if self.offset.val().get_bit(32) && self.low_carry.val() {
            self.high_now.next = self.base.val().get_bits::<32>(32) != 0xFFFF_FFFEu64;
        }

        if self.slot.load.val() {
            self.q_dest.d.next = self.from_xbar.dest.val();
            self.q_src.d.next = self.from_xbar.src.val();
            self.q_unsupported.d.next = self.from_xbar.unsupported.val();
            // fmt/type 0x60: a 4-DW memory write.
            self.q_global.d.next = (self.from_xbar.data.val().get_bits::<8>(24) == 0x60)
                && (self.from_xbar.data.val().get_bits::<22>(74) == self.global_base_hi.val());
            self.q_enabled.d.next = false;
            for t in 0..TARGETS {
                if self.target.val().index() == t {
                    self.q_enabled.d.next = self.target_enable.val().get_bit(t);
                }
            }
            self.q_local.d.next = self.local_sum.val();
            self.q_high.d.next = self.high_now.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{bits128, Lcg, Stepper};

    /// Header beats of random targets and offsets against random bases, three in eight
    /// of them with a high DW of 0, 0xFFFF_FFFF or 0xFFFF_FFFE (where the sum's high DW
    /// wraps to zero or past it): the local address is the base plus the offset, and
    /// `high` says whether it is at or above 4 GiB.
    #[test]
    fn local_address_and_its_form_are_the_sum_of_base_and_offset() {
        let mut s = Stepper::new(EgressDecode::default(), |u| &mut u.clock);
        let mut rng = Lcg(0xEDC);
        let mut bases = [0u64; TARGETS];
        let (mut highs, mut lows, mut wraps) = (0, 0, 0);
        s.uut.reset.next = true;
        s.tick();
        s.uut.reset.next = false;
        for round in 0..5_000 {
            for (t, b) in bases.iter_mut().enumerate() {
                let hi = match rng.below(8) {
                    0 => 0,
                    1 => 0xFFFF_FFFF,
                    2 => 0xFFFF_FFFE,
                    _ => rng.below(1 << 32),
                };
                *b = hi << 32 | rng.below(1 << 32);
                s.uut.target_base[t].next = (*b).into();
            }
            s.uut.target_enable.next = 0x1F.into();
            let target = rng.below(TARGETS as u64);
            let offset = rng.below(1 << 33) & !3;
            // DW0 of a 4-DW write; the global address in DW2 (bits 63:32) and DW3.
            let addr = GLOBAL_BASE_HI << BASE_SHIFT | target << 33 | offset;
            let data = 0x6000_0001u128
                | u128::from(addr >> 32) << 64
                | u128::from(addr & 0xFFFF_FFFF) << 96;
            let u = &mut s.uut;
            u.from_xbar.valid.next = true;
            u.from_xbar.data.next = bits128(data);
            u.from_xbar.sop.next = true;
            u.from_xbar.eop.next = true;
            u.take.next = true;
            s.settle();
            assert!(s.uut.from_xbar.ready.val(), "round {round}: taken");
            s.tick();
            s.uut.from_xbar.valid.next = false;
            s.settle();
            let local = bases[target as usize].wrapping_add(offset);
            let u = &s.uut;
            assert!(
                u.valid.val() && u.global_write.val(),
                "round {round}: a global write"
            );
            assert_eq!(u.local_addr.val().to_u64(), local, "round {round}: address");
            assert_eq!(
                u.high.val(),
                local >> 32 != 0,
                "round {round}: form of {local:#x}"
            );
            highs += usize::from(local >> 32 != 0);
            lows += usize::from(local >> 32 == 0);
            wraps += usize::from(bases[target as usize] >> 32 != 0 && local >> 32 == 0);
        }
        assert!(
            highs > 1_000 && lows > 300 && wraps > 20,
            "{highs} high, {lows} low, {wraps} wrapped"
        );
    }

    #[test]
    fn egress_decode_verilog_lints_clean() {
        let mut uut = EgressDecode::default();
        let v = crate::verilog::export::block_verilog(&mut uut, "egress_decode");
        crate::verilog::checks::lint_verilog(&v, "egress_decode").unwrap();
    }
}
