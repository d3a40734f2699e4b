//! The DMA controller's registers in BAR0 (map: `peach2_regmap::dma`): configuration
//! registers, the per-channel start pulse, and the read mux over them and over the
//! channels' status. Reads of offsets outside the DMA map return 0 (the chip ORs this
//! block's read data with the other register file's).

use super::bus::CsrTarget;
use crate::dmac::CHANNELS;
use rust_hdl::prelude::*;

/// The DMA register file.
#[derive(LogicBlock, Default)]
pub struct DmaRegs {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// BAR0 accesses.
    pub csr: CsrTarget,
    /// Per channel: start pulse (`CONTROL` written with bit 0).
    pub start: [Signal<Out, Bit>; CHANNELS],
    /// Per channel: `CONTROL` bit 1 of that write.
    pub start_host: [Signal<Out, Bit>; CHANNELS],
    /// Per channel: `CONTROL` bits 25:16 of that write.
    pub start_index: [Signal<Out, Bits<10>>; CHANNELS],
    /// Per channel: `DESC`.
    pub desc_base: [Signal<Out, Bits<64>>; CHANNELS],
    /// Per channel: `NOTIFY_RX`.
    pub notify_rx_addr: [Signal<Out, Bits<64>>; CHANNELS],
    /// Per channel: `NOTIFY_SELF`.
    pub notify_self_addr: [Signal<Out, Bits<64>>; CHANNELS],
    /// Per channel: `NOTIFY_VALUE`.
    pub notify_value: [Signal<Out, Bits<32>>; CHANNELS],
    /// `DMA_CHAIN_LIMIT`.
    pub chain_limit: Signal<Out, Bits<32>>,
    /// `DMA_CPL_TIMEOUT`.
    pub cpl_timeout: Signal<Out, Bits<32>>,
    /// `DMA_MSI_ADDR`.
    pub msi_addr: Signal<Out, Bits<64>>,
    /// `DMA_MSI_DATA`.
    pub msi_data: Signal<Out, Bits<32>>,
    /// Per channel: `STATUS`.
    pub status: [Signal<In, Bits<32>>; CHANNELS],
    /// Per channel: `COUNT`.
    pub count: [Signal<In, Bits<32>>; CHANNELS],
    /// Per channel: `CURRENT`.
    pub current: [Signal<In, Bits<64>>; CHANNELS],
    limit: DFF<Bits<32>>,
    timeout: DFF<Bits<32>>,
    msi_lo: DFF<Bits<32>>,
    msi_hi: DFF<Bits<32>>,
    msi_d: DFF<Bits<32>>,
    desc_a: [DFF<Bits<64>>; CHANNELS],
    rx_a: [DFF<Bits<64>>; CHANNELS],
    self_a: [DFF<Bits<64>>; CHANNELS],
    value: [DFF<Bits<32>>; CHANNELS],
    wd: Signal<Local, Bits<32>>,
    wmask_lo: Signal<Local, Bits<64>>,
    wmask_hi: Signal<Local, Bits<64>>,
    wd_lo: Signal<Local, Bits<64>>,
    wd_hi: Signal<Local, Bits<64>>,
}

impl Logic for DmaRegs {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, limit, timeout, msi_lo, msi_hi, msi_d);
        for c in 0..CHANNELS {
            self.desc_a[c].clock.next = self.clock.val();
            self.desc_a[c].d.next = self.desc_a[c].q.val();
            self.rx_a[c].clock.next = self.clock.val();
            self.rx_a[c].d.next = self.rx_a[c].q.val();
            self.self_a[c].clock.next = self.clock.val();
            self.self_a[c].d.next = self.self_a[c].q.val();
            self.value[c].clock.next = self.clock.val();
            self.value[c].d.next = self.value[c].q.val();
        }
        self.wd.next = self.csr.wr_data.val() & self.csr.wr_mask.val();
        self.wmask_lo.next = bit_cast::<64, 32>(self.csr.wr_mask.val());
        self.wmask_hi.next = bit_cast::<64, 32>(self.csr.wr_mask.val()) << 32;
        self.wd_lo.next = bit_cast::<64, 32>(self.wd.val());
        self.wd_hi.next = bit_cast::<64, 32>(self.wd.val()) << 32;

        self.chain_limit.next = self.limit.q.val();
        self.cpl_timeout.next = self.timeout.q.val();
        self.msi_addr.next = (bit_cast::<64, 32>(self.msi_hi.q.val()) << 32)
            | bit_cast::<64, 32>(self.msi_lo.q.val());
        self.msi_data.next = self.msi_d.q.val();
        for c in 0..CHANNELS {
            self.start[c].next = false;
            self.start_host[c].next = self.csr.wr_data.val().get_bit(1);
            self.start_index[c].next = self.csr.wr_data.val().get_bits::<10>(16);
            self.desc_base[c].next = self.desc_a[c].q.val();
            self.notify_rx_addr[c].next = self.rx_a[c].q.val();
            self.notify_self_addr[c].next = self.self_a[c].q.val();
            self.notify_value[c].next = self.value[c].q.val();
        }

        if self.csr.wr_en.val() {
            if self.csr.wr_addr.val() == 0x400 {
                self.limit.d.next = (self.limit.q.val() & !self.csr.wr_mask.val()) | self.wd.val();
            }
            if self.csr.wr_addr.val() == 0x401 {
                self.timeout.d.next =
                    (self.timeout.q.val() & !self.csr.wr_mask.val()) | self.wd.val();
            }
            if self.csr.wr_addr.val() == 0x402 {
                self.msi_lo.d.next =
                    (self.msi_lo.q.val() & !self.csr.wr_mask.val()) | self.wd.val();
            }
            if self.csr.wr_addr.val() == 0x403 {
                self.msi_hi.d.next =
                    (self.msi_hi.q.val() & !self.csr.wr_mask.val()) | self.wd.val();
            }
            if self.csr.wr_addr.val() == 0x404 {
                self.msi_d.d.next = (self.msi_d.q.val() & !self.csr.wr_mask.val()) | self.wd.val();
            }
            for c in 0..CHANNELS {
                // Channel c's registers are DW 0x440 + 0x10c + (byte offset / 4).
                if (self.csr.wr_addr.val().index() == 0x440 + 0x10 * c)
                    && self.csr.wr_be.val().get_bit(0)
                {
                    self.start[c].next = self.csr.wr_data.val().get_bit(0);
                }
                if self.csr.wr_addr.val().index() == 0x445 + 0x10 * c {
                    self.desc_a[c].d.next =
                        (self.desc_a[c].q.val() & !self.wmask_lo.val()) | self.wd_lo.val();
                }
                if self.csr.wr_addr.val().index() == 0x446 + 0x10 * c {
                    self.desc_a[c].d.next =
                        (self.desc_a[c].q.val() & !self.wmask_hi.val()) | self.wd_hi.val();
                }
                if self.csr.wr_addr.val().index() == 0x447 + 0x10 * c {
                    self.rx_a[c].d.next =
                        (self.rx_a[c].q.val() & !self.wmask_lo.val()) | self.wd_lo.val();
                }
                if self.csr.wr_addr.val().index() == 0x448 + 0x10 * c {
                    self.rx_a[c].d.next =
                        (self.rx_a[c].q.val() & !self.wmask_hi.val()) | self.wd_hi.val();
                }
                if self.csr.wr_addr.val().index() == 0x449 + 0x10 * c {
                    self.self_a[c].d.next =
                        (self.self_a[c].q.val() & !self.wmask_lo.val()) | self.wd_lo.val();
                }
                if self.csr.wr_addr.val().index() == 0x44A + 0x10 * c {
                    self.self_a[c].d.next =
                        (self.self_a[c].q.val() & !self.wmask_hi.val()) | self.wd_hi.val();
                }
                if self.csr.wr_addr.val().index() == 0x44B + 0x10 * c {
                    self.value[c].d.next =
                        (self.value[c].q.val() & !self.csr.wr_mask.val()) | self.wd.val();
                }
            }
        }

        self.csr.rd_data.next = 0.into();
        if self.csr.rd_addr.val() == 0x400 {
            self.csr.rd_data.next = self.limit.q.val();
        }
        if self.csr.rd_addr.val() == 0x401 {
            self.csr.rd_data.next = self.timeout.q.val();
        }
        if self.csr.rd_addr.val() == 0x402 {
            self.csr.rd_data.next = self.msi_lo.q.val();
        }
        if self.csr.rd_addr.val() == 0x403 {
            self.csr.rd_data.next = self.msi_hi.q.val();
        }
        if self.csr.rd_addr.val() == 0x404 {
            self.csr.rd_data.next = self.msi_d.q.val();
        }
        for c in 0..CHANNELS {
            if self.csr.rd_addr.val().index() == 0x441 + 0x10 * c {
                self.csr.rd_data.next = self.status[c].val();
            }
            if self.csr.rd_addr.val().index() == 0x442 + 0x10 * c {
                self.csr.rd_data.next = self.count[c].val();
            }
            if self.csr.rd_addr.val().index() == 0x443 + 0x10 * c {
                self.csr.rd_data.next = self.current[c].val().get_bits::<32>(0);
            }
            if self.csr.rd_addr.val().index() == 0x444 + 0x10 * c {
                self.csr.rd_data.next = self.current[c].val().get_bits::<32>(32);
            }
            if self.csr.rd_addr.val().index() == 0x445 + 0x10 * c {
                self.csr.rd_data.next = self.desc_a[c].q.val().get_bits::<32>(0);
            }
            if self.csr.rd_addr.val().index() == 0x446 + 0x10 * c {
                self.csr.rd_data.next = self.desc_a[c].q.val().get_bits::<32>(32);
            }
            if self.csr.rd_addr.val().index() == 0x447 + 0x10 * c {
                self.csr.rd_data.next = self.rx_a[c].q.val().get_bits::<32>(0);
            }
            if self.csr.rd_addr.val().index() == 0x448 + 0x10 * c {
                self.csr.rd_data.next = self.rx_a[c].q.val().get_bits::<32>(32);
            }
            if self.csr.rd_addr.val().index() == 0x449 + 0x10 * c {
                self.csr.rd_data.next = self.self_a[c].q.val().get_bits::<32>(0);
            }
            if self.csr.rd_addr.val().index() == 0x44A + 0x10 * c {
                self.csr.rd_data.next = self.self_a[c].q.val().get_bits::<32>(32);
            }
            if self.csr.rd_addr.val().index() == 0x44B + 0x10 * c {
                self.csr.rd_data.next = self.value[c].q.val();
            }
        }

        if self.reset.val() {
            self.limit.d.next = 1024.into();
            self.timeout.d.next = 65536.into();
            self.msi_lo.d.next = 0.into();
            self.msi_hi.d.next = 0.into();
            self.msi_d.d.next = 0.into();
            for c in 0..CHANNELS {
                self.desc_a[c].d.next = 0.into();
                self.rx_a[c].d.next = 0.into();
                self.self_a[c].d.next = 0.into();
                self.value[c].d.next = 0.into();
            }
        }
    }
}
