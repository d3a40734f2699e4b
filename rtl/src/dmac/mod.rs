//! The DMA controller: `C` channels (four in the chip: `peach2_regmap::dma::CHANNELS`)
//! moving descriptor chains with RDMA writes.
//!
//! Data path, one stage per file:
//!
//! ```text
//!  CONTROL write ─> channel[c] ──(desc index)──> desc_ram (1024 x 32 B, block RAM)
//!                     │ read cursor ─> read_req ─(MRd)─> rd_out ─> N
//!  cpl ─> cpl_reassembly ─(tag table, 4 banks)─> reorder buffer (16 KiB, block RAM)
//!                     │ write cursor ─> write_gen ─(MWr)─> wr_out ─> crossbar dest
//! ```
//!
//! - `desc_ram`: the internal descriptor memory, written through BAR0.
//! - `channel`: per channel, the chain walker, notifications and status, with its parts:
//!   `chain_walk` (the state along the chain, with `desc_pointer`, the current
//!   descriptor, and `stop_cause`, why it stopped), `desc_regs` (the current descriptor and its fields), `desc_check` (the
//!   descriptor's error cause), two `cursor`s (read and write: the next TLP's
//!   address, size and ring position, block after block), `end_writes` (the
//!   notifications and MSI after a descriptor's data), `cpl_watchdog` (the
//!   completion timeout) and `channel_offers` (what it asks for in each state, and
//!   whose request a grant answers).
//! - `requests`: a channel's read and write requests (held until a one-cycle grant),
//!   the bundles between the channels and the two requesters.
//! - `read_req`: round-robin MRd issue with tags (`8c..8c+7` data, `8C+c` descriptors:
//!   `peach2_regmap::dma::tags`).
//! - `cpl_reassembly`: completions (split, out of order across tags) into the reorder
//!   buffer, in-order retirement per channel, host descriptor delivery; `tag_table` is
//!   its per-tag array (start, length, DWs to come), `read_order` each channel's
//!   data reads in issue order (the oldest, `avail`), `tag_class` tells its tags apart,
//!   `cpl_intake` takes the beats: `cpl_header` checks a completion's header against
//!   the read its tag names, `cpl_progress` holds its fields for its payload beats,
//!   `cpl_lanes` puts a beat's lanes into the banks, at the rows `ring_rows` gives (the
//!   write generator reads by the same rule); `desc_fetches` counts each channel's
//!   descriptor fetch, and `pending_count` holds a completion's count for the cycle
//!   before it is written.
//! - `write_gen`: round-robin MWr issue from the reorder buffer, plus one-DW notifications;
//!   `mwr_header` forms the MWr's header, `write_beat` each beat's lanes (bank reads,
//!   then header, value or bank data).
//! - `dest_route`: the crossbar destination of a write address.
//!
//! Register and descriptor formats: `peach2_regmap::dma`.

pub mod chain_count;
pub mod chain_walk;
pub mod channel;
pub mod channel_offers;
pub mod channel_status;
pub mod cpl_header;
pub mod cpl_intake;
pub mod cpl_lanes;
pub mod cpl_progress;
pub mod cpl_reassembly;
pub mod cpl_watchdog;
pub mod cursor;
pub mod data_cursors;
pub mod desc_check;
pub mod desc_fetches;
pub mod desc_pointer;
pub mod desc_ram;
pub mod desc_regs;
pub mod dest_route;
pub mod end_writes;
pub mod header_forms;
pub mod mrd_beat;
pub mod mrd_slots;
pub mod mwr_header;
pub mod offers;
pub mod payload_lanes;
pub mod pending_count;
pub mod read_order;
pub mod read_req;
pub mod requests;
pub mod ring_rows;
pub mod round_robin;
pub mod stop_cause;
pub mod tag_class;
pub mod tag_table;
pub mod write_beat;
pub mod write_gen;
pub mod write_pick;

#[cfg(test)]
mod bandwidth_tests;
#[cfg(test)]
mod chain_walk_tests;
#[cfg(test)]
mod channel_count_tests;
#[cfg(test)]
mod cpl_intake_tests;
#[cfg(test)]
mod cpl_reassembly_tests;
#[cfg(test)]
mod error_tests;
#[cfg(test)]
mod lint_tests;
#[cfg(test)]
mod notify_tests;
#[cfg(test)]
mod tests;

use crate::csr::bus::CsrTarget;
use crate::csr::dma_channel_regs::ChannelRegsIn;
use crate::router::RouteConfig;
use crate::stream::{TlpSink, TlpSource};
use channel::DmaChannel;
use cpl_reassembly::CplReassembly;
use desc_ram::DescRam;
use peach2_regmap::dma::{self as regmap_dma, tags};
use read_req::ReadReq;
use requests::{ReadReqSource, WriteReqSource};
use rust_hdl::prelude::*;
use write_gen::WriteGen;

/// Channels of the chip's DMA controller.
pub const CHANNELS: usize = regmap_dma::CHANNELS as usize;
/// Bits of a channel number in the chip.
pub const CHANNEL_BITS: usize = regmap_dma::CHANNEL_BITS as usize;
/// The chip's DMA controller.
pub type ChipDmac = Dmac<CHANNELS, CHANNEL_BITS>;

/// Rows of each reorder-buffer bank (four banks of 32-bit block RAM: 16 KiB).
pub const BANK_ROWS: u64 = 1024;

/// How `C` channels share the read tags and the reorder buffer: each channel owns
/// `BANK_ROWS / C` rows of every bank (its ring of `4 · BANK_ROWS / C` DWs); a DW at ring
/// position q of channel c sits in bank `q mod 4`, row `c << row_shift | (q / 4) & row_mask`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RingLayout {
    /// DWs of a channel's ring.
    pub ring_dws: u64,
    /// Shift of the channel number in a bank row.
    pub row_shift: u64,
    /// Mask of the ring line in a bank row.
    pub row_mask: u64,
    /// Data tags, `8C`: descriptor-fetch tags follow them.
    pub data_tags: u32,
}

impl RingLayout {
    /// The layout of `c` channels of `cb` bits; panics (a design error, at elaboration)
    /// unless `c == 1 << cb` and the regmap's tag layout holds for `c`.
    pub fn new(c: usize, cb: usize) -> Self {
        assert!(
            c == 1 << cb && tags::layout_ok(c as u32),
            "a DMA controller of {c} channels ({cb} bits) has no tag layout: 2, 4, 8 or 16"
        );
        let rows = BANK_ROWS / c as u64;
        Self {
            ring_dws: 4 * rows,
            row_shift: u64::from(rows.trailing_zeros()),
            row_mask: rows - 1,
            data_tags: tags::data_tags(c as u32),
        }
    }

    /// The bank and row of channel `chan`'s ring position `pos`: the rule above written
    /// plainly, the tests' model of [`ring_rows::RingRows`].
    #[cfg(test)]
    pub(crate) fn place(&self, chan: u64, pos: u64) -> (usize, u64) {
        (
            (pos % 4) as usize,
            chan << self.row_shift | (pos / 4) & self.row_mask,
        )
    }
}

/// The DMA controller of `C` channels (`CB` bits of channel number).
#[derive(LogicBlock)]
pub struct Dmac<const C: usize, const CB: usize> {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Upstream: completions for the DMA's tags.
    pub cpl: TlpSink,
    /// Downstream: read requests (to N).
    pub rd_out: TlpSource,
    /// Downstream: writes (to the channel's destination port).
    pub wr_out: TlpSource,
    /// BAR0 accesses (the descriptor memory's writes).
    pub csr: CsrTarget,
    /// Requester id (N's bus/device/function).
    pub requester_id: Signal<In, Bits<16>>,
    /// N's max read request size code.
    pub max_read_req: Signal<In, Bits<3>>,
    /// N's max payload size code.
    pub max_payload: Signal<In, Bits<3>>,
    /// Where global writes go.
    pub routes: RouteConfig,
    /// Per channel: its registers (what the host wrote; its status back).
    pub channel: [ChannelRegsIn; C],
    /// `DMA_CHAIN_LIMIT`.
    pub chain_limit: Signal<In, Bits<32>>,
    /// `DMA_CPL_TIMEOUT`.
    pub cpl_timeout: Signal<In, Bits<32>>,
    /// `DMA_CONFIG`'s `NOTIFY_AT_LAST_READ`.
    pub notify_at_last_read: Signal<In, Bit>,
    /// `DMA_MSI_ADDR`.
    pub msi_addr: Signal<In, Bits<64>>,
    /// `DMA_MSI_DATA`.
    pub msi_data: Signal<In, Bits<32>>,
    /// Pulse: a completion matched no outstanding read.
    pub cpl_unexpected: Signal<Out, Bit>,
    /// The channels.
    chans: [DmaChannel; C],
    /// The internal descriptor memory: written through BAR0, read by the channels.
    desc_ram: DescRam<C>,
    /// The read requester: the channels' MRds, round robin, towards N.
    read_req: ReadReq<C, CB>,
    /// Completion reassembly: completions into the reorder buffer, fetched descriptors out.
    reasm: CplReassembly<C, CB>,
    /// The write generator: the channels' MWrs from the reorder buffer, and notifications.
    write_gen: WriteGen<C, CB>,
    /// The reorder buffer's four banks (bank = ring position mod 4).
    ring: [RAM<Bits<32>, 10>; 4],
    /// Per channel: wants a descriptor from the internal memory.
    v_desc_req: Signal<Local, Bits<C>>,
    /// Per channel: forget its outstanding reads.
    v_reset: Signal<Local, Bits<C>>,
    /// Per channel: its first data tag.
    data_tag_base: [Constant<Bits<8>>; C],
    /// Per channel: its descriptor-fetch tag.
    desc_tag: [Constant<Bits<8>>; C],
    /// DWs of each channel's ring.
    ring_dws: Constant<Bits<16>>,
}

impl<const C: usize, const CB: usize> Dmac<C, CB> {
    /// A DMA controller with idle channels; panics (at elaboration) unless `C == 1 << CB`
    /// is 2, 4, 8 or 16.
    pub fn new() -> Self {
        let ring = RingLayout::new(C, CB);
        let tag = |t: u32| Constant::new(u64::from(t).into());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cpl: Default::default(),
            rd_out: Default::default(),
            wr_out: Default::default(),
            csr: Default::default(),
            requester_id: Default::default(),
            max_read_req: Default::default(),
            max_payload: Default::default(),
            routes: Default::default(),
            chain_limit: Default::default(),
            cpl_timeout: Default::default(),
            notify_at_last_read: Default::default(),
            msi_addr: Default::default(),
            msi_data: Default::default(),
            cpl_unexpected: Default::default(),
            channel: array_init::array_init(|_| Default::default()),
            chans: array_init::array_init(|_| Default::default()),
            desc_ram: DescRam::new(),
            read_req: ReadReq::new(),
            reasm: CplReassembly::new(),
            write_gen: WriteGen::new(),
            ring: Default::default(),
            v_desc_req: Default::default(),
            v_reset: Default::default(),
            data_tag_base: array_init::array_init(|c| tag(tags::data(c as u32, 0))),
            desc_tag: array_init::array_init(|c| tag(tags::desc(C as u32, c as u32))),
            ring_dws: Constant::new(ring.ring_dws.into()),
        }
    }
}

impl<const C: usize, const CB: usize> Default for Dmac<C, CB> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
impl<const C: usize, const CB: usize> Dmac<C, CB> {
    /// Per channel, this cycle: its write request's `valid`, `cancel` and `grant`, for
    /// tests that check the request is held (see `requests`).
    pub(crate) fn write_requests(&self) -> [(bool, bool, bool); C] {
        array_init::array_init(|c| {
            let w = &self.chans[c].wr;
            (w.valid.val(), w.cancel.val(), w.grant.val())
        })
    }
}

impl<const C: usize, const CB: usize> Logic for Dmac<C, CB> {
    #[hdl_gen]
    fn update(&mut self) {
        self.desc_ram.clock.next = self.clock.val();
        self.desc_ram.reset.next = self.reset.val();
        self.read_req.clock.next = self.clock.val();
        self.read_req.reset.next = self.reset.val();
        self.reasm.clock.next = self.clock.val();
        self.reasm.reset.next = self.reset.val();
        self.write_gen.clock.next = self.clock.val();
        self.write_gen.reset.next = self.reset.val();

        // Descriptor memory: BAR0 writes in, channel reads out.
        CsrTarget::link(&mut self.csr, &mut self.desc_ram.csr);

        // Completions in, requests out.
        TlpSink::link(&mut self.cpl, &mut self.reasm.cpl);
        TlpSource::link(&mut self.rd_out, &mut self.read_req.out);
        TlpSource::link(&mut self.wr_out, &mut self.write_gen.out);
        self.read_req.requester_id.next = self.requester_id.val();
        self.write_gen.requester_id.next = self.requester_id.val();
        self.cpl_unexpected.next = self.reasm.cpl_unexpected.val();

        // The reorder buffer: written by reassembly, read by the write generator.
        for b in 0..4 {
            self.ring[b].write_clock.next = self.clock.val();
            self.ring[b].read_clock.next = self.clock.val();
            self.ring[b].write_enable.next = self.reasm.bank_we.val().get_bit(b);
            self.ring[b].write_address.next = self.reasm.bank_addr[b].val();
            self.ring[b].write_data.next = self.reasm.bank_data[b].val();
            self.ring[b].read_address.next = self.write_gen.bank_raddr[b].val();
            self.write_gen.bank_rdata[b].next = self.ring[b].read_data.val();
        }

        self.v_desc_req.next = 0.into();
        self.v_reset.next = 0.into();
        for c in 0..C {
            self.chans[c].data_tag_base.next = self.data_tag_base[c].val();
            self.chans[c].desc_tag.next = self.desc_tag[c].val();
            self.chans[c].ring_dws.next = self.ring_dws.val();
            self.chans[c].clock.next = self.clock.val();
            self.chans[c].reset.next = self.reset.val();
            ChannelRegsIn::link(&mut self.channel[c], &mut self.chans[c].regs);
            self.chans[c].chain_limit.next = self.chain_limit.val();
            self.chans[c].cpl_timeout.next = self.cpl_timeout.val();
            self.chans[c].notify_at_last_read.next = self.notify_at_last_read.val();
            self.chans[c].msi_addr.next = self.msi_addr.val();
            self.chans[c].msi_data.next = self.msi_data.val();
            RouteConfig::link(&mut self.routes, &mut self.chans[c].routes);
            self.chans[c].max_read_req.next = self.max_read_req.val();
            self.chans[c].max_payload.next = self.max_payload.val();

            self.chans[c].desc_ram_valid.next = self.desc_ram.desc_valid.val().get_bit(c);
            self.chans[c].desc_ram.next = self.desc_ram.desc.val();
            self.desc_ram.req_index[c].next = self.chans[c].desc_ram_index.val();
            self.chans[c].desc_dw_we.next = self.reasm.desc_dw_we.val();
            self.chans[c].desc_dw_lanes.next = self.reasm.desc_dw_lanes.val();
            self.chans[c].desc_data.next = self.reasm.desc_data.val();
            self.chans[c].desc_mine.next = self.reasm.desc_chans.val().get_bit(c);
            self.chans[c].desc_done.next = self.reasm.desc_done.val().get_bit(c);
            self.chans[c].avail.next = self.reasm.avail[c].val();
            self.chans[c].issue_idx.next = self.reasm.issue_idx[c].val();
            self.chans[c].can_issue.next = self.reasm.can_issue.val().get_bit(c);
            self.chans[c].reads_idle.next = self.reasm.idle.val().get_bit(c);
            self.chans[c].cpl_error.next = self.reasm.cpl_error.val().get_bit(c);
            self.chans[c].cpl_seen.next = self.reasm.cpl_seen.val().get_bit(c);
            ReadReqSource::join(&mut self.chans[c].rd, &mut self.read_req.chans[c]);
            WriteReqSource::join(&mut self.chans[c].wr, &mut self.write_gen.chans[c]);
            if self.chans[c].desc_ram_req.val() {
                self.v_desc_req.next = self.v_desc_req.val().replace_bit(c, true);
            }
            if self.chans[c].chan_reset.val() {
                self.v_reset.next = self.v_reset.val().replace_bit(c, true);
            }
        }
        self.desc_ram.req.next = self.v_desc_req.val();
        self.reasm.chan_reset.next = self.v_reset.val();
        self.reasm.issue_valid.next = self.read_req.issue_valid.val();
        self.reasm.issue_tag.next = self.read_req.issue_tag.val();
        self.reasm.issue_len_dw.next = self.read_req.issue_len_dw.val();
        self.reasm.issue_end.next = self.read_req.issue_end.val();
    }
}
