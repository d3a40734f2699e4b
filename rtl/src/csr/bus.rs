//! The CSR bus: BAR0 accesses from the internal completer to the blocks that hold
//! registers or memory behind BAR0 (the register file, the DMA registers, the descriptor
//! memory, the notification store). Addresses are DW indices (BAR0 offset / 4).
//!
//! A write happens at the clock edge where `wr_en` is set, on the bytes `wr_be` enables;
//! `wr_mask` is the same enables as a bit mask (byte k: bits 8k+7..8k), made once by the
//! completer, so a target merges `old & !mask | data & mask`. A read: the completer holds
//! `rd_addr` (a register) for two cycles and takes `rd_data` in the second; every
//! target answers from registers (the DMA registers register their decode's answer, the
//! register file its answer in parts that it ORs, the memories their read), and 0
//! outside its own range, so the chip ORs the targets' answers.

use rust_hdl::prelude::*;

/// DW index bits: BAR0 is 64 KiB.
pub const ADDR_BITS: usize = 14;
const _: () = assert!(peach2_regmap::csr::BAR0_SIZE == 4 << ADDR_BITS);

/// A register's DW index (byte offset / 4) as a decode constant of `N` bits: the whole
/// BAR0 index (`ADDR_BITS`) or the part a decoder compares.
pub fn dw_index<const N: usize>(byte_offset: u32) -> Constant<Bits<N>> {
    Constant::new(u64::from(byte_offset / 4).into())
}

/// The completer's side.
#[derive(LogicInterface, Default)]
#[join = "CsrTarget"]
pub struct CsrBus {
    /// Write strobe.
    pub wr_en: Signal<Out, Bit>,
    /// Write DW index.
    pub wr_addr: Signal<Out, Bits<ADDR_BITS>>,
    /// Write data (register byte k in bits 8k+7..8k).
    pub wr_data: Signal<Out, Bits<32>>,
    /// Write byte enables.
    pub wr_be: Signal<Out, Bits<4>>,
    /// `wr_be` as a bit mask.
    pub wr_mask: Signal<Out, Bits<32>>,
    /// Read DW index.
    pub rd_addr: Signal<Out, Bits<ADDR_BITS>>,
    /// Read data: the OR of every target's answer.
    pub rd_data: Signal<In, Bits<32>>,
}

/// A target's side; the mirror of [`CsrBus`].
#[derive(LogicInterface, Default)]
#[join = "CsrBus"]
pub struct CsrTarget {
    /// Write strobe.
    pub wr_en: Signal<In, Bit>,
    /// Write DW index.
    pub wr_addr: Signal<In, Bits<ADDR_BITS>>,
    /// Write data.
    pub wr_data: Signal<In, Bits<32>>,
    /// Write byte enables.
    pub wr_be: Signal<In, Bits<4>>,
    /// `wr_be` as a bit mask.
    pub wr_mask: Signal<In, Bits<32>>,
    /// Read DW index.
    pub rd_addr: Signal<In, Bits<ADDR_BITS>>,
    /// This target's answer (0 outside its range).
    pub rd_data: Signal<Out, Bits<32>>,
}

/// Targets on the chip's CSR bus: the register file, the DMA registers, the DMA
/// controller (its descriptor memory) and the notification store.
pub const TARGETS: usize = 4;

/// The bus fanned out to `N` targets: every target sees the completer's accesses; the
/// completer reads the OR of their answers.
#[derive(LogicBlock)]
pub struct CsrSplit<const N: usize> {
    /// From the completer.
    pub from_completer: CsrTarget,
    /// To each target.
    pub to_targets: [CsrBus; N],
}

impl<const N: usize> Default for CsrSplit<N> {
    fn default() -> Self {
        Self {
            from_completer: Default::default(),
            to_targets: array_init::array_init(|_| Default::default()),
        }
    }
}

impl<const N: usize> Logic for CsrSplit<N> {
    #[hdl_gen]
    fn update(&mut self) {
        self.from_completer.rd_data.next = 0.into();
        for t in 0..N {
            self.to_targets[t].wr_en.next = self.from_completer.wr_en.val();
            self.to_targets[t].wr_addr.next = self.from_completer.wr_addr.val();
            self.to_targets[t].wr_data.next = self.from_completer.wr_data.val();
            self.to_targets[t].wr_be.next = self.from_completer.wr_be.val();
            self.to_targets[t].wr_mask.next = self.from_completer.wr_mask.val();
            self.to_targets[t].rd_addr.next = self.from_completer.rd_addr.val();
            self.from_completer.rd_data.next =
                self.from_completer.rd_data.val() | self.to_targets[t].rd_data.val();
        }
    }
}
