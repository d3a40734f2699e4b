//! The translated targets' registers (`peach2_regmap::csr::target_lo`, `target_hi`,
//! `target_ctrl`): per target (host, GPU 0..3) a 64-bit base, `TARGET_HI:TARGET_LO`,
//! written byte by byte, and an enable, `TARGET_CTRL` bit 0. The register file ORs the
//! answer into its own and registers it.

use super::bus::{dw_index as at, CsrTarget, ADDR_BITS};
use peach2_regmap::address::TRANSLATED_TARGETS;
use peach2_regmap::csr::{target_ctrl, target_hi, target_lo, TARGET_ENABLE};
use rust_hdl::prelude::*;

// The enable is `TARGET_CTRL` bit 0.
const _: () = assert!(TARGET_ENABLE == 1);

/// Number of translated targets (host, GPU 0..3).
pub const TARGETS: usize = TRANSLATED_TARGETS;

/// The targets' bases and enables.
#[derive(LogicBlock)]
pub struct TargetRegs {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: bases 0, targets disabled.
    pub reset: Signal<In, Bit>,
    /// BAR0 accesses; the answer is combinational (0 outside these registers).
    pub csr: CsrTarget,
    /// `TARGET_HI:TARGET_LO` per target.
    pub target_base: [Signal<Out, Bits<64>>; TARGETS],
    /// `TARGET_CTRL` enable bits, bit t for target t.
    pub target_enable: Signal<Out, Bits<5>>,
    /// The bases.
    base: [DFF<Bits<64>>; TARGETS],
    /// The enables.
    enable: DFF<Bits<5>>,
    /// The write's enabled bytes, as the low half of a 64-bit register.
    wmask_lo: Signal<Local, Bits<64>>,
    /// The same, as the high half.
    wmask_hi: Signal<Local, Bits<64>>,
    /// The write data in both halves.
    wr_data64: Signal<Local, Bits<64>>,
    /// The enable bit read.
    rd_ctrl: Signal<Local, Bit>,
    /// A `TARGET_CTRL` register is read.
    rd_ctrl_hit: Signal<Local, Bit>,
    /// Per target: the DW index of its `TARGET_LO`.
    at_lo: [Constant<Bits<ADDR_BITS>>; TARGETS],
    /// Per target: the DW index of its `TARGET_HI`.
    at_hi: [Constant<Bits<ADDR_BITS>>; TARGETS],
    /// Per target: the DW index of its `TARGET_CTRL`.
    at_ctrl: [Constant<Bits<ADDR_BITS>>; TARGETS],
}

impl Default for TargetRegs {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            csr: Default::default(),
            target_base: array_init::array_init(|_| Default::default()),
            target_enable: Default::default(),
            base: array_init::array_init(|_| Default::default()),
            enable: Default::default(),
            wmask_lo: Default::default(),
            wmask_hi: Default::default(),
            wr_data64: Default::default(),
            rd_ctrl: Default::default(),
            rd_ctrl_hit: Default::default(),
            at_lo: array_init::array_init(|t| at(target_lo(t as u32))),
            at_hi: array_init::array_init(|t| at(target_hi(t as u32))),
            at_ctrl: array_init::array_init(|t| at(target_ctrl(t as u32))),
        }
    }
}

impl Logic for TargetRegs {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, enable);
        // (rust-hdl cannot use a loop index inside bit_cast: casts happen outside loops.)
        for t in 0..TARGETS {
            self.base[t].clock.next = self.clock.val();
            self.base[t].d.next = self.base[t].q.val();
            self.target_base[t].next = self.base[t].q.val();
        }
        self.target_enable.next = self.enable.q.val();

        self.wmask_lo.next = bit_cast::<64, 32>(self.csr.wr_mask.val());
        self.wmask_hi.next = bit_cast::<64, 32>(self.csr.wr_mask.val()) << 32;
        self.wr_data64.next = bit_cast::<64, 32>(self.csr.wr_data.val())
            | (bit_cast::<64, 32>(self.csr.wr_data.val()) << 32);
        if self.csr.wr_en.val() {
            for t in 0..TARGETS {
                if self.csr.wr_addr.val() == self.at_lo[t].val() {
                    self.base[t].d.next = (self.base[t].q.val() & !self.wmask_lo.val())
                        | (self.wr_data64.val() & self.wmask_lo.val());
                }
                if self.csr.wr_addr.val() == self.at_hi[t].val() {
                    self.base[t].d.next = (self.base[t].q.val() & !self.wmask_hi.val())
                        | (self.wr_data64.val() & self.wmask_hi.val());
                }
                if (self.csr.wr_addr.val() == self.at_ctrl[t].val())
                    && self.csr.wr_be.val().get_bit(0)
                {
                    self.enable.d.next = self
                        .enable
                        .q
                        .val()
                        .replace_bit(t, self.csr.wr_data.val().get_bit(0));
                }
            }
        }

        self.csr.rd_data.next = 0.into();
        self.rd_ctrl.next = false;
        self.rd_ctrl_hit.next = false;
        for t in 0..TARGETS {
            if self.csr.rd_addr.val() == self.at_lo[t].val() {
                self.csr.rd_data.next =
                    self.csr.rd_data.val() | self.base[t].q.val().get_bits::<32>(0);
            }
            if self.csr.rd_addr.val() == self.at_hi[t].val() {
                self.csr.rd_data.next =
                    self.csr.rd_data.val() | self.base[t].q.val().get_bits::<32>(32);
            }
            if self.csr.rd_addr.val() == self.at_ctrl[t].val() {
                self.rd_ctrl.next = self.enable.q.val().get_bit(t);
                self.rd_ctrl_hit.next = true;
            }
        }
        if self.rd_ctrl_hit.val() {
            self.csr.rd_data.next =
                self.csr.rd_data.val() | bit_cast::<32, 1>(self.rd_ctrl.val().into());
        }

        if self.reset.val() {
            self.enable.d.next = 0.into();
            for t in 0..TARGETS {
                self.base[t].d.next = 0.into();
            }
        }
    }
}
