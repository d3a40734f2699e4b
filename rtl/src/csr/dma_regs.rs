//! The DMA controller's registers in BAR0 (map: `peach2_regmap::dma`): the global
//! configuration registers here, each channel's in a [`DmaChannelRegs`], and the read mux
//! over them. Reads of offsets outside the DMA map return 0 (the chip ORs this block's
//! read data with the other targets'). Offsets and reset values are the regmap's.

use super::bus::{dw_index as at, CsrTarget, ADDR_BITS};
use super::dma_channel_regs::{ChannelRegs, DmaChannelRegs, BLOCK_BITS};
use crate::dmac::CHANNELS;
use peach2_regmap::dma::{
    channel_reg, config, CHAIN_LIMIT, CHAIN_LIMIT_RESET, CHANNEL_STRIDE, CONFIG, CONFIG_RESET,
    CPL_TIMEOUT, CPL_TIMEOUT_RESET, MSI_ADDR_HI, MSI_ADDR_LO, MSI_DATA,
};
use rust_hdl::prelude::*;

/// The DMA register file.
#[derive(LogicBlock)]
pub struct DmaRegs {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// BAR0 accesses.
    pub csr: CsrTarget,
    /// Per channel: its registers, to and from the channel.
    pub channel: [ChannelRegs; CHANNELS],
    /// `DMA_CHAIN_LIMIT`.
    pub chain_limit: Signal<Out, Bits<32>>,
    /// `DMA_CPL_TIMEOUT`.
    pub cpl_timeout: Signal<Out, Bits<32>>,
    /// `DMA_MSI_ADDR`.
    pub msi_addr: Signal<Out, Bits<64>>,
    /// `DMA_MSI_DATA`.
    pub msi_data: Signal<Out, Bits<32>>,
    /// `DMA_CONFIG`'s `NOTIFY_AT_LAST_READ`.
    pub notify_at_last_read: Signal<Out, Bit>,
    /// Each channel's registers.
    chans: [DmaChannelRegs; CHANNELS],
    /// `DMA_CHAIN_LIMIT` register.
    limit: DFF<Bits<32>>,
    /// `DMA_CPL_TIMEOUT` register.
    timeout: DFF<Bits<32>>,
    /// `DMA_MSI_ADDR_LO` register.
    msi_lo: DFF<Bits<32>>,
    /// `DMA_MSI_ADDR_HI` register.
    msi_hi: DFF<Bits<32>>,
    /// `DMA_MSI_DATA` register.
    msi_d: DFF<Bits<32>>,
    /// `DMA_CONFIG` register (its defined bits).
    mode: DFF<Bits<32>>,
    /// The global registers' answer to the read.
    rd_global: Signal<Local, Bits<32>>,
    /// The read answer, from the address of the cycle before.
    rd_q: DFF<Bits<32>>,
    /// The channels' answers to the address on the bus.
    answer: Signal<Local, Bits<32>>,
    /// The DW index of `DMA_CHAIN_LIMIT`.
    at_limit: Constant<Bits<ADDR_BITS>>,
    /// The DW index of `DMA_CPL_TIMEOUT`.
    at_timeout: Constant<Bits<ADDR_BITS>>,
    /// The DW index of `DMA_MSI_ADDR_LO`.
    at_msi_lo: Constant<Bits<ADDR_BITS>>,
    /// The DW index of `DMA_MSI_ADDR_HI`.
    at_msi_hi: Constant<Bits<ADDR_BITS>>,
    /// The DW index of `DMA_MSI_DATA`.
    at_msi_data: Constant<Bits<ADDR_BITS>>,
    /// The DW index of `DMA_CONFIG`.
    at_mode: Constant<Bits<ADDR_BITS>>,
    /// The bits `DMA_CONFIG` has (`NOTIFY_AT_LAST_READ`); writes to the others are dropped.
    mode_mask: Constant<Bits<32>>,
    /// `DMA_CONFIG`'s reset value: 0, notifications follow the data.
    mode_reset: Constant<Bits<32>>,
    /// `DMA_CHAIN_LIMIT`'s reset value: 1024, the size of the internal memory.
    limit_reset: Constant<Bits<32>>,
    /// `DMA_CPL_TIMEOUT`'s reset value: 65536 cycles.
    timeout_reset: Constant<Bits<32>>,
    /// Per channel: its block of BAR0 (DW index bits 13:4).
    block: [Constant<Bits<BLOCK_BITS>>; CHANNELS],
}

impl Default for DmaRegs {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            csr: Default::default(),
            channel: Default::default(),
            chain_limit: Default::default(),
            cpl_timeout: Default::default(),
            msi_addr: Default::default(),
            msi_data: Default::default(),
            notify_at_last_read: Default::default(),
            chans: array_init::array_init(|_| Default::default()),
            limit: Default::default(),
            timeout: Default::default(),
            msi_lo: Default::default(),
            msi_hi: Default::default(),
            msi_d: Default::default(),
            mode: Default::default(),
            rd_global: Default::default(),
            rd_q: Default::default(),
            answer: Default::default(),
            at_limit: at(CHAIN_LIMIT),
            at_timeout: at(CPL_TIMEOUT),
            at_msi_lo: at(MSI_ADDR_LO),
            at_msi_hi: at(MSI_ADDR_HI),
            at_msi_data: at(MSI_DATA),
            at_mode: at(CONFIG),
            mode_mask: Constant::new(u64::from(config::MASK).into()),
            mode_reset: Constant::new(u64::from(CONFIG_RESET).into()),
            limit_reset: Constant::new(u64::from(CHAIN_LIMIT_RESET).into()),
            timeout_reset: Constant::new(u64::from(CPL_TIMEOUT_RESET).into()),
            block: array_init::array_init(|c| {
                Constant::new(u64::from(channel_reg(c as u32, 0) / CHANNEL_STRIDE).into())
            }),
        }
    }
}

impl Logic for DmaRegs {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, limit, timeout, msi_lo, msi_hi, msi_d, mode, rd_q);
        self.chain_limit.next = self.limit.q.val();
        self.cpl_timeout.next = self.timeout.q.val();
        self.msi_addr.next = (bit_cast::<64, 32>(self.msi_hi.q.val()) << 32)
            | bit_cast::<64, 32>(self.msi_lo.q.val());
        self.msi_data.next = self.msi_d.q.val();
        self.notify_at_last_read.next = self.mode.q.val().get_bit(0);

        // The channels: every access to each, their answers ORed (and registered, as the
        // bus lets a target answer in the address's second cycle).
        self.answer.next = 0.into();
        for c in 0..CHANNELS {
            self.chans[c].clock.next = self.clock.val();
            self.chans[c].reset.next = self.reset.val();
            self.chans[c].block.next = self.block[c].val();
            self.chans[c].csr.wr_en.next = self.csr.wr_en.val();
            self.chans[c].csr.wr_addr.next = self.csr.wr_addr.val();
            self.chans[c].csr.wr_data.next = self.csr.wr_data.val();
            self.chans[c].csr.wr_be.next = self.csr.wr_be.val();
            self.chans[c].csr.wr_mask.next = self.csr.wr_mask.val();
            self.chans[c].csr.rd_addr.next = self.csr.rd_addr.val();
            self.answer.next = self.answer.val() | self.chans[c].csr.rd_data.val();
            ChannelRegs::link(&mut self.channel[c], &mut self.chans[c].chan);
        }

        // The global registers.
        if self.csr.wr_en.val() {
            if self.csr.wr_addr.val() == self.at_limit.val() {
                self.limit.d.next = (self.limit.q.val() & !self.csr.wr_mask.val())
                    | (self.csr.wr_data.val() & self.csr.wr_mask.val());
            }
            if self.csr.wr_addr.val() == self.at_timeout.val() {
                self.timeout.d.next = (self.timeout.q.val() & !self.csr.wr_mask.val())
                    | (self.csr.wr_data.val() & self.csr.wr_mask.val());
            }
            if self.csr.wr_addr.val() == self.at_msi_lo.val() {
                self.msi_lo.d.next = (self.msi_lo.q.val() & !self.csr.wr_mask.val())
                    | (self.csr.wr_data.val() & self.csr.wr_mask.val());
            }
            if self.csr.wr_addr.val() == self.at_msi_hi.val() {
                self.msi_hi.d.next = (self.msi_hi.q.val() & !self.csr.wr_mask.val())
                    | (self.csr.wr_data.val() & self.csr.wr_mask.val());
            }
            if self.csr.wr_addr.val() == self.at_msi_data.val() {
                self.msi_d.d.next = (self.msi_d.q.val() & !self.csr.wr_mask.val())
                    | (self.csr.wr_data.val() & self.csr.wr_mask.val());
            }
            if self.csr.wr_addr.val() == self.at_mode.val() {
                self.mode.d.next = ((self.mode.q.val() & !self.csr.wr_mask.val())
                    | (self.csr.wr_data.val() & self.csr.wr_mask.val()))
                    & self.mode_mask.val();
            }
        }
        self.rd_global.next = 0.into();
        if self.csr.rd_addr.val() == self.at_limit.val() {
            self.rd_global.next = self.limit.q.val();
        }
        if self.csr.rd_addr.val() == self.at_timeout.val() {
            self.rd_global.next = self.timeout.q.val();
        }
        if self.csr.rd_addr.val() == self.at_msi_lo.val() {
            self.rd_global.next = self.msi_lo.q.val();
        }
        if self.csr.rd_addr.val() == self.at_msi_hi.val() {
            self.rd_global.next = self.msi_hi.q.val();
        }
        if self.csr.rd_addr.val() == self.at_msi_data.val() {
            self.rd_global.next = self.msi_d.q.val();
        }
        if self.csr.rd_addr.val() == self.at_mode.val() {
            self.rd_global.next = self.mode.q.val();
        }
        self.rd_q.d.next = self.answer.val() | self.rd_global.val();
        self.csr.rd_data.next = self.rd_q.q.val();

        if self.reset.val() {
            self.limit.d.next = self.limit_reset.val();
            self.timeout.d.next = self.timeout_reset.val();
            self.msi_lo.d.next = 0.into();
            self.msi_hi.d.next = 0.into();
            self.msi_d.d.next = 0.into();
            self.mode.d.next = self.mode_reset.val();
        }
    }
}
