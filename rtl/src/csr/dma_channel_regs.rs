//! One DMA channel's registers in BAR0 (`peach2_regmap::dma`: the `CH_*` registers at
//! `channel_reg(c, ·)`): the start pulse of `CONTROL`, the configuration registers `DESC`,
//! `NOTIFY_RX`, `NOTIFY_SELF`, `NOTIFY_VALUE`, and the read mux over them and over the
//! channel's status. One instance per channel; the parent ties off `block`, the channel's
//! aligned block of BAR0. Offsets, fields and reset values are the regmap's constants.

use super::bus::{dw_index as reg, CsrTarget, ADDR_BITS};
use peach2_regmap::dma::{
    CHANNEL_STRIDE, CH_CONTROL, CH_COUNT, CH_CURRENT_HI, CH_CURRENT_LO, CH_DESC_HI, CH_DESC_LO,
    CH_NOTIFY_RX_HI, CH_NOTIFY_RX_LO, CH_NOTIFY_SELF_HI, CH_NOTIFY_SELF_LO, CH_NOTIFY_VALUE,
    CH_STATUS, CONTROL_HOST, CONTROL_INDEX_SHIFT, CONTROL_START,
};
use rust_hdl::prelude::*;

/// DW index bits of a register inside its channel's block.
pub const REG_BITS: usize = (CHANNEL_STRIDE / 4).trailing_zeros() as usize;
/// DW index bits naming a channel's block.
pub const BLOCK_BITS: usize = ADDR_BITS - REG_BITS;
// `get_bits` takes the block's position as a literal 4 below; the start bit is bit 0.
const _: () = assert!(CHANNEL_STRIDE.is_power_of_two() && REG_BITS == 4 && CONTROL_START == 1);

/// One DMA channel's registers as the register file drives them: what the host wrote,
/// out to the channel, and the channel's status, in.
#[derive(LogicInterface, Default)]
#[join = "ChannelRegsIn"]
pub struct ChannelRegs {
    /// Start pulse (`CONTROL` written with its start bit).
    pub start: Signal<Out, Bit>,
    /// `CONTROL`'s host bit of that write: the chain is in host memory (at `desc_base`).
    pub start_host: Signal<Out, Bit>,
    /// `CONTROL`'s first internal descriptor of that write.
    pub start_index: Signal<Out, Bits<10>>,
    /// `DESC`: the first host descriptor.
    pub desc_base: Signal<Out, Bits<64>>,
    /// `NOTIFY_RX`.
    pub notify_rx_addr: Signal<Out, Bits<64>>,
    /// `NOTIFY_SELF`.
    pub notify_self_addr: Signal<Out, Bits<64>>,
    /// `NOTIFY_VALUE`.
    pub notify_value: Signal<Out, Bits<32>>,
    /// `STATUS`, from the channel.
    pub status: Signal<In, Bits<32>>,
    /// `COUNT`, from the channel.
    pub count: Signal<In, Bits<32>>,
    /// `CURRENT`, from the channel.
    pub current: Signal<In, Bits<64>>,
}

/// The channel's side of [`ChannelRegs`].
#[derive(LogicInterface, Default)]
#[join = "ChannelRegs"]
pub struct ChannelRegsIn {
    /// See [`ChannelRegs::start`].
    pub start: Signal<In, Bit>,
    /// See [`ChannelRegs::start_host`].
    pub start_host: Signal<In, Bit>,
    /// See [`ChannelRegs::start_index`].
    pub start_index: Signal<In, Bits<10>>,
    /// See [`ChannelRegs::desc_base`].
    pub desc_base: Signal<In, Bits<64>>,
    /// See [`ChannelRegs::notify_rx_addr`].
    pub notify_rx_addr: Signal<In, Bits<64>>,
    /// See [`ChannelRegs::notify_self_addr`].
    pub notify_self_addr: Signal<In, Bits<64>>,
    /// See [`ChannelRegs::notify_value`].
    pub notify_value: Signal<In, Bits<32>>,
    /// See [`ChannelRegs::status`].
    pub status: Signal<Out, Bits<32>>,
    /// See [`ChannelRegs::count`].
    pub count: Signal<Out, Bits<32>>,
    /// See [`ChannelRegs::current`].
    pub current: Signal<Out, Bits<64>>,
}

/// One channel's registers.
#[derive(LogicBlock)]
pub struct DmaChannelRegs {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: registers to 0.
    pub reset: Signal<In, Bit>,
    /// BAR0 accesses.
    pub csr: CsrTarget,
    /// This channel's block: DW index bits 13:4 of its registers (tied off).
    pub block: Signal<In, Bits<BLOCK_BITS>>,
    /// To the channel: what the host wrote; from it: what the host reads back.
    pub chan: ChannelRegs,
    /// `DESC` register.
    desc_a: DFF<Bits<64>>,
    /// `NOTIFY_RX` register.
    rx_a: DFF<Bits<64>>,
    /// `NOTIFY_SELF` register.
    self_a: DFF<Bits<64>>,
    /// `NOTIFY_VALUE` register.
    value: DFF<Bits<32>>,
    /// The write is to this channel's block.
    wr_hit: Signal<Local, Bit>,
    /// The written register's index in the block.
    wr_reg: Signal<Local, Bits<REG_BITS>>,
    /// The read is of this channel's block.
    rd_hit: Signal<Local, Bit>,
    /// The read register's index in the block.
    rd_reg: Signal<Local, Bits<REG_BITS>>,
    /// The write data with `CONTROL`'s index field at bit 0.
    index_field: Signal<Local, Bits<32>>,
    /// The write's enabled bytes, as the low half of a 64-bit register.
    wmask_lo: Signal<Local, Bits<64>>,
    /// The same, as the high half.
    wmask_hi: Signal<Local, Bits<64>>,
    /// The write's enabled data, as the low half.
    wd_lo: Signal<Local, Bits<64>>,
    /// The same, as the high half.
    wd_hi: Signal<Local, Bits<64>>,
    /// `CONTROL`'s index in the block (a write with the start bit pulses `start`; reads 0).
    at_control: Constant<Bits<REG_BITS>>,
    /// `STATUS`'s index in the block (read from the channel).
    at_status: Constant<Bits<REG_BITS>>,
    /// `COUNT`'s index in the block (read from the channel).
    at_count: Constant<Bits<REG_BITS>>,
    /// `CURRENT_LO`'s index in the block (read from the channel).
    at_current_lo: Constant<Bits<REG_BITS>>,
    /// `CURRENT_HI`'s index in the block (read from the channel).
    at_current_hi: Constant<Bits<REG_BITS>>,
    /// `DESC_LO`'s index in the block.
    at_desc_lo: Constant<Bits<REG_BITS>>,
    /// `DESC_HI`'s index in the block.
    at_desc_hi: Constant<Bits<REG_BITS>>,
    /// `NOTIFY_RX_LO`'s index in the block.
    at_rx_lo: Constant<Bits<REG_BITS>>,
    /// `NOTIFY_RX_HI`'s index in the block.
    at_rx_hi: Constant<Bits<REG_BITS>>,
    /// `NOTIFY_SELF_LO`'s index in the block.
    at_self_lo: Constant<Bits<REG_BITS>>,
    /// `NOTIFY_SELF_HI`'s index in the block.
    at_self_hi: Constant<Bits<REG_BITS>>,
    /// `NOTIFY_VALUE`'s index in the block.
    at_value: Constant<Bits<REG_BITS>>,
    /// `CONTROL`'s host bit.
    host_bit: Constant<Bits<32>>,
    /// `CONTROL`'s index field position.
    index_shift: Constant<Bits<32>>,
}

impl Default for DmaChannelRegs {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            csr: Default::default(),
            block: Default::default(),
            chan: Default::default(),
            desc_a: Default::default(),
            rx_a: Default::default(),
            self_a: Default::default(),
            value: Default::default(),
            wr_hit: Default::default(),
            wr_reg: Default::default(),
            rd_hit: Default::default(),
            rd_reg: Default::default(),
            index_field: Default::default(),
            wmask_lo: Default::default(),
            wmask_hi: Default::default(),
            wd_lo: Default::default(),
            wd_hi: Default::default(),
            at_control: reg(CH_CONTROL),
            at_status: reg(CH_STATUS),
            at_count: reg(CH_COUNT),
            at_current_lo: reg(CH_CURRENT_LO),
            at_current_hi: reg(CH_CURRENT_HI),
            at_desc_lo: reg(CH_DESC_LO),
            at_desc_hi: reg(CH_DESC_HI),
            at_rx_lo: reg(CH_NOTIFY_RX_LO),
            at_rx_hi: reg(CH_NOTIFY_RX_HI),
            at_self_lo: reg(CH_NOTIFY_SELF_LO),
            at_self_hi: reg(CH_NOTIFY_SELF_HI),
            at_value: reg(CH_NOTIFY_VALUE),
            host_bit: Constant::new(u64::from(CONTROL_HOST).into()),
            index_shift: Constant::new(u64::from(CONTROL_INDEX_SHIFT).into()),
        }
    }
}

impl Logic for DmaChannelRegs {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, desc_a, rx_a, self_a, value);
        self.chan.desc_base.next = self.desc_a.q.val();
        self.chan.notify_rx_addr.next = self.rx_a.q.val();
        self.chan.notify_self_addr.next = self.self_a.q.val();
        self.chan.notify_value.next = self.value.q.val();

        // Decode: the block, then the register in it.
        self.wr_hit.next = self.csr.wr_en.val()
            && (self.csr.wr_addr.val().get_bits::<BLOCK_BITS>(4) == self.block.val());
        self.wr_reg.next = self.csr.wr_addr.val().get_bits::<REG_BITS>(0);
        self.rd_hit.next = self.csr.rd_addr.val().get_bits::<BLOCK_BITS>(4) == self.block.val();
        self.rd_reg.next = self.csr.rd_addr.val().get_bits::<REG_BITS>(0);
        self.wmask_lo.next = bit_cast::<64, 32>(self.csr.wr_mask.val());
        self.wmask_hi.next = bit_cast::<64, 32>(self.csr.wr_mask.val()) << 32;
        self.wd_lo.next = bit_cast::<64, 32>(self.csr.wr_data.val() & self.csr.wr_mask.val());
        self.wd_hi.next = bit_cast::<64, 32>(self.csr.wr_data.val() & self.csr.wr_mask.val()) << 32;

        // CONTROL: a start pulse when byte 0 carries the start bit.
        self.chan.start.next = self.wr_hit.val()
            && (self.wr_reg.val() == self.at_control.val())
            && self.csr.wr_be.val().get_bit(0)
            && self.csr.wr_data.val().get_bit(0);
        self.chan.start_host.next = (self.csr.wr_data.val() & self.host_bit.val()) != 0;
        // (Verilog cannot slice an expression: shift into a signal first.)
        self.index_field.next = self.csr.wr_data.val() >> self.index_shift.val();
        self.chan.start_index.next = self.index_field.val().get_bits::<10>(0);

        // Writes, byte by byte.
        if self.wr_hit.val() {
            if self.wr_reg.val() == self.at_desc_lo.val() {
                self.desc_a.d.next =
                    (self.desc_a.q.val() & !self.wmask_lo.val()) | self.wd_lo.val();
            }
            if self.wr_reg.val() == self.at_desc_hi.val() {
                self.desc_a.d.next =
                    (self.desc_a.q.val() & !self.wmask_hi.val()) | self.wd_hi.val();
            }
            if self.wr_reg.val() == self.at_rx_lo.val() {
                self.rx_a.d.next = (self.rx_a.q.val() & !self.wmask_lo.val()) | self.wd_lo.val();
            }
            if self.wr_reg.val() == self.at_rx_hi.val() {
                self.rx_a.d.next = (self.rx_a.q.val() & !self.wmask_hi.val()) | self.wd_hi.val();
            }
            if self.wr_reg.val() == self.at_self_lo.val() {
                self.self_a.d.next =
                    (self.self_a.q.val() & !self.wmask_lo.val()) | self.wd_lo.val();
            }
            if self.wr_reg.val() == self.at_self_hi.val() {
                self.self_a.d.next =
                    (self.self_a.q.val() & !self.wmask_hi.val()) | self.wd_hi.val();
            }
            if self.wr_reg.val() == self.at_value.val() {
                self.value.d.next = (self.value.q.val() & !self.csr.wr_mask.val())
                    | (self.csr.wr_data.val() & self.csr.wr_mask.val());
            }
        }

        // Reads: 0 outside the block and for CONTROL.
        self.csr.rd_data.next = 0.into();
        if self.rd_hit.val() {
            if self.rd_reg.val() == self.at_status.val() {
                self.csr.rd_data.next = self.chan.status.val();
            }
            if self.rd_reg.val() == self.at_count.val() {
                self.csr.rd_data.next = self.chan.count.val();
            }
            if self.rd_reg.val() == self.at_current_lo.val() {
                self.csr.rd_data.next = self.chan.current.val().get_bits::<32>(0);
            }
            if self.rd_reg.val() == self.at_current_hi.val() {
                self.csr.rd_data.next = self.chan.current.val().get_bits::<32>(32);
            }
            if self.rd_reg.val() == self.at_desc_lo.val() {
                self.csr.rd_data.next = self.desc_a.q.val().get_bits::<32>(0);
            }
            if self.rd_reg.val() == self.at_desc_hi.val() {
                self.csr.rd_data.next = self.desc_a.q.val().get_bits::<32>(32);
            }
            if self.rd_reg.val() == self.at_rx_lo.val() {
                self.csr.rd_data.next = self.rx_a.q.val().get_bits::<32>(0);
            }
            if self.rd_reg.val() == self.at_rx_hi.val() {
                self.csr.rd_data.next = self.rx_a.q.val().get_bits::<32>(32);
            }
            if self.rd_reg.val() == self.at_self_lo.val() {
                self.csr.rd_data.next = self.self_a.q.val().get_bits::<32>(0);
            }
            if self.rd_reg.val() == self.at_self_hi.val() {
                self.csr.rd_data.next = self.self_a.q.val().get_bits::<32>(32);
            }
            if self.rd_reg.val() == self.at_value.val() {
                self.csr.rd_data.next = self.value.q.val();
            }
        }

        if self.reset.val() {
            self.desc_a.d.next = 0.into();
            self.rx_a.d.next = 0.into();
            self.self_a.d.next = 0.into();
            self.value.d.next = 0.into();
        }
    }
}
