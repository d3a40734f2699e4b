//! One DMA channel: runs a descriptor chain. Fetches each descriptor (internal memory or
//! host memory), checks it, moves its data ([`DataCursors`]: MRds of at most min(MRRS,
//! 512) bytes while tags and reorder-buffer room last, MWrs of at most min(MPS, 256)
//! bytes once their data is in the buffer), then sends its notifications and follows
//! `next`. With `DMA_CONFIG.NOTIFY_AT_LAST_READ` the notifications start once the last
//! read is taken and go out between the remaining data writes ([`EndWrites`]); the channel
//! still follows `next` only after both. A write-immediate descriptor skips the cursors:
//! one 4-byte write of its own value.
//!
//! Ring positions: each channel owns `ring_dws` DWs of the reorder buffer
//! ([`super::RingLayout`]: 1024 with four channels); a block starts at a
//! fresh 16-byte line, at the lane of its source (= destination) address, so read and
//! write cursors agree on every DW's position. Reads may run up to the whole ring ahead of
//! the last write that has left the buffer.
//!
//! Errors (`peach2_regmap::dma::ErrorCause`): descriptor checks fail before anything is
//! read; a completion error stops writing at once and the channel waits for its other
//! reads (or the timeout) before reporting; descriptors of a chain run one after another.

use super::chain_count::ChainCount;
use super::chain_walk::{ChainWalk, ChanState};
use super::channel_offers::ChannelOffers;
use super::channel_status::ChannelStatus;
use super::cpl_watchdog::CplWatchdog;
use super::data_cursors::DataCursors;
use super::desc_check::DescCheck;
use super::desc_regs::{DescFields, DescRegs};
use super::dest_route::DestRoute;
use super::end_writes::EndWrites;
use super::offers::{DataOffer, EndOffer};
use super::requests::{ReadReqSource, WriteReqSource};
use crate::csr::dma_channel_regs::ChannelRegsIn;
use crate::router::RouteConfig;
use peach2_regmap::dma::{flags, DESC_BYTES, DESC_COUNT};
use rust_hdl::prelude::*;

// A descriptor's place: its internal index at `cur` bits 14:5, its host address 32-byte
// aligned, 8 DWs to fetch; the chain ends at the `LAST` flag, bit 0.
const _: () = assert!(DESC_BYTES == 1 << 5 && DESC_COUNT == 1 << 10 && flags::LAST == 1);

/// One DMA channel.
#[derive(LogicBlock, Default)]
pub struct DmaChannel {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// This channel's first data tag, `8c` (tied off by the controller).
    pub data_tag_base: Signal<In, Bits<8>>,
    /// This channel's descriptor-fetch tag (tied off by the controller).
    pub desc_tag: Signal<In, Bits<8>>,
    /// DWs of this channel's ring in the reorder buffer (tied off by the controller).
    pub ring_dws: Signal<In, Bits<16>>,
    /// The channel's registers: what the host wrote (`CONTROL`'s start, `DESC`,
    /// `NOTIFY_*`), and `STATUS`, `COUNT`, `CURRENT` back.
    pub regs: ChannelRegsIn,
    /// `DMA_CHAIN_LIMIT`.
    pub chain_limit: Signal<In, Bits<32>>,
    /// `DMA_CPL_TIMEOUT`.
    pub cpl_timeout: Signal<In, Bits<32>>,
    /// `DMA_CONFIG`'s `NOTIFY_AT_LAST_READ`: the ending writes start once the last read
    /// is taken, while the data's writes go on.
    pub notify_at_last_read: Signal<In, Bit>,
    /// `DMA_MSI_ADDR`.
    pub msi_addr: Signal<In, Bits<64>>,
    /// `DMA_MSI_DATA`.
    pub msi_data: Signal<In, Bits<32>>,
    /// Where global writes go.
    pub routes: RouteConfig,
    /// N's max read request size code (128 << code bytes).
    pub max_read_req: Signal<In, Bits<3>>,
    /// N's max payload size code (128 << code bytes).
    pub max_payload: Signal<In, Bits<3>>,
    /// The internal descriptor read is on `desc_ram`.
    pub desc_ram_valid: Signal<In, Bit>,
    /// The internal descriptor read (DW k in bits 32k+31..32k).
    pub desc_ram: Signal<In, Bits<256>>,
    /// Per DW k: a fetched host descriptor's DW k is on `desc_data` (see `CplReassembly`).
    pub desc_dw_we: Signal<In, Bits<8>>,
    /// Per DW k: the lane of `desc_data` that carries it, in bits 2k+1..2k.
    pub desc_dw_lanes: Signal<In, Bits<16>>,
    /// The lanes (wire order).
    pub desc_data: Signal<In, Bits<128>>,
    /// The host descriptor DWs answer this channel's fetch (its tag, `desc_tag`).
    pub desc_mine: Signal<In, Bit>,
    /// Pulse: the host descriptor is complete.
    pub desc_done: Signal<In, Bit>,
    /// Ring position up to which data has arrived.
    pub avail: Signal<In, Bits<16>>,
    /// Tag index of the next data read.
    pub issue_idx: Signal<In, Bits<3>>,
    /// A data tag is free.
    pub can_issue: Signal<In, Bit>,
    /// No read outstanding.
    pub reads_idle: Signal<In, Bit>,
    /// Pulse: a completion failed.
    pub cpl_error: Signal<In, Bit>,
    /// Pulse: a completion arrived.
    pub cpl_seen: Signal<In, Bit>,
    /// Internal descriptor read wanted.
    pub desc_ram_req: Signal<Out, Bit>,
    /// Its index.
    pub desc_ram_index: Signal<Out, Bits<10>>,
    /// Downstream: the channel's reads (descriptor fetches and data).
    pub rd: ReadReqSource,
    /// Downstream: the channel's writes (data, notifications, MSI, immediates).
    pub wr: WriteReqSource,
    /// Pulse: forget this channel's outstanding reads.
    pub chan_reset: Signal<Out, Bit>,
    /// Where the channel is in its chain; the current descriptor; why it stopped.
    walk: ChainWalk,
    /// Descriptors done since the start (`COUNT`) and the chain limit.
    chain: ChainCount,
    /// The current descriptor's fields.
    desc: DescRegs,
    /// Routes the descriptor's destination.
    dst_route: DestRoute,
    /// The descriptor's error cause.
    check: DescCheck,
    /// The descriptor's data: read and write cursors, the ring between them.
    data: DataCursors,
    /// Routes `NOTIFY_RX`.
    rx_route: DestRoute,
    /// `NOTIFY_RX` a cycle after its register, beside its route's answer of that cycle
    /// (`rx_dest_q`, `rx_ok_q`): configuration, so the checks and the ending writes see
    /// the address and its route of one cycle, and the route lookup is not in one cycle
    /// with the checks and the walk's state behind them. The delay is never seen: a
    /// descriptor is checked two cycles or more after the `CONTROL` write that starts
    /// its chain, and that write comes after the `NOTIFY_RX` writes it goes with.
    rx_addr_q: DFF<Bits<64>>,
    /// `rx_route`'s destination for `rx_addr_q`.
    rx_dest_q: DFF<Bits<3>>,
    /// `rx_route` found a route for `rx_addr_q`.
    rx_ok_q: DFF<Bit>,
    /// The descriptor's `LAST` flag: its chain ends after it.
    last: Signal<Local, Bit>,
    /// The notifications and MSI after the descriptor's data.
    ending: EndWrites,
    /// What the channel asks for in its state; whose request a grant answers.
    offers: ChannelOffers,
    /// The completion timeout.
    watchdog: CplWatchdog,
    /// `STATUS` and `CURRENT`.
    status_regs: ChannelStatus,
}

impl Logic for DmaChannel {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rx_addr_q, rx_dest_q, rx_ok_q);
        // The descriptor: from the internal memory, or DW by DW from its fetch's
        // completions.
        self.desc.clock.next = self.clock.val();
        self.desc.load_ram.next =
            (self.walk.state.val() == ChanState::FetchInt) && self.desc_ram_valid.val();
        self.desc.ram.next = self.desc_ram.val();
        self.desc.dw_we.next = 0.into();
        if (self.walk.state.val() == ChanState::FetchHostWait) && self.desc_mine.val() {
            self.desc.dw_we.next = self.desc_dw_we.val();
        }
        self.desc.dw_lanes.next = self.desc_dw_lanes.val();
        self.desc.lanes.next = self.desc_data.val();

        // Its checks, with the routes of its destination and of `NOTIFY_RX`.
        self.dst_route.addr.next = self.desc.fields.dst.val();
        self.dst_route.one_dw.next = self.desc.fields.immediate.val();
        self.rx_route.addr.next = self.regs.notify_rx_addr.val();
        self.rx_route.one_dw.next = true;
        RouteConfig::link(&mut self.routes, &mut self.dst_route.routes);
        RouteConfig::link(&mut self.routes, &mut self.rx_route.routes);
        DescFields::join(&mut self.desc.fields, &mut self.check.desc);
        self.last.next = self.desc.fields.flags.val().get_bit(0);
        self.rx_addr_q.d.next = self.regs.notify_rx_addr.val();
        self.rx_dest_q.d.next = self.rx_route.dest.val();
        self.rx_ok_q.d.next = self.rx_route.ok.val();
        self.check.notify_rx_addr.next = self.rx_addr_q.q.val();
        self.check.notify_self_addr.next = self.regs.notify_self_addr.val();
        self.check.msi_addr.next = self.msi_addr.val();
        self.check.dst_ok.next = self.dst_route.ok.val();
        self.check.rx_ok.next = self.rx_ok_q.q.val();

        // The chain continues the ring where the last one left it; the descriptor being
        // checked loads the cursors, whatever the checks say (one that fails stops the
        // channel, and the next start restarts the cursors: the load's many enables wait
        // for the state alone, not for the checks); grants in `Run` step them.
        self.data.clock.next = self.clock.val();
        self.data.reset.next = self.reset.val();
        self.data.restart.next = self.walk.starting.val();
        self.data.load.next = self.walk.state.val() == ChanState::Check;
        self.data.src.next = self.desc.fields.src.val();
        self.data.dst.next = self.desc.fields.dst.val();
        self.data.len.next = self.desc.fields.len.val().get_bits::<25>(0);
        self.data.height.next = self.desc.fields.height.val();
        self.data.src_pitch.next = self.desc.fields.src_pitch.val();
        self.data.dst_pitch.next = self.desc.fields.dst_pitch.val();
        self.data.run.next = self.walk.state.val() == ChanState::Run;
        self.data.avail.next = self.avail.val();
        self.data.can_issue.next = self.can_issue.val();
        self.data.ring_dws.next = self.ring_dws.val();
        self.data.cpl_error.next = self.cpl_error.val();
        self.data.max_read_req.next = self.max_read_req.val();
        self.data.max_payload.next = self.max_payload.val();

        // The descriptor's ending writes: after its data, or from its last read on.
        self.ending.clock.next = self.clock.val();
        self.ending.reset.next = self.reset.val() || self.walk.stopped.val();
        self.ending.data_done.next = self.walk.data_done.val();
        self.ending.run.next = self.walk.state.val() == ChanState::Run;
        self.ending.at_last_read.next = self.notify_at_last_read.val();
        self.ending.reads_left.next = self.data.reads_left.val();
        self.ending.flags.next = self.desc.fields.flags.val();
        self.ending.notify_rx_addr.next = self.rx_addr_q.q.val();
        self.ending.rx_dest.next = self.walk.rx_dest.val();
        self.ending.notify_self_addr.next = self.regs.notify_self_addr.val();
        self.ending.notify_value.next = self.regs.notify_value.val();
        self.ending.count.next = self.chain.count.val();
        self.ending.msi_addr.next = self.msi_addr.val();
        self.ending.msi_data.next = self.msi_data.val();

        // The requests: the descriptor's fetch, its data's reads and writes, its ending
        // writes or immediate value.
        self.offers.state.next = self.walk.state.val();
        self.offers.cur.next = self.walk.cur.val();
        self.offers.desc_tag.next = self.desc_tag.val();
        self.offers.data_tag_base.next = self.data_tag_base.val();
        self.offers.issue_idx.next = self.issue_idx.val();
        DataOffer::join(&mut self.data.offer, &mut self.offers.data);
        self.offers.data_wr_dest.next = self.walk.w_dest.val();
        EndOffer::join(&mut self.ending.wr, &mut self.offers.end);
        self.offers.imm_addr.next = self.desc.fields.dst.val();
        self.offers.imm_value.next = self.desc.fields.src.val().get_bits::<32>(0);
        self.offers.stopping.next = self.cpl_error.val() || self.watchdog.expired_before.val();
        ReadReqSource::link(&mut self.rd, &mut self.offers.rd);
        WriteReqSource::link(&mut self.wr, &mut self.offers.wr);
        self.desc_ram_req.next = self.offers.desc_ram_req.val();
        self.desc_ram_index.next = self.offers.desc_ram_index.val();

        // The walk along the chain, its count and its completion timeout.
        self.walk.clock.next = self.clock.val();
        self.walk.reset.next = self.reset.val();
        self.walk.start.next = self.regs.start.val();
        self.walk.start_host.next = self.regs.start_host.val();
        self.walk.start_index.next = self.regs.start_index.val();
        self.walk.desc_base.next = self.regs.desc_base.val();
        self.walk.desc_ram_valid.next = self.desc_ram_valid.val();
        self.walk.fetch_grant.next = self.rd.grant.val();
        self.walk.desc_done.next = self.desc_done.val();
        self.walk.check_cause.next = self.check.cause.val();
        self.walk.immediate.next = self.desc.fields.immediate.val();
        self.walk.dst_route_dest.next = self.dst_route.dest.val();
        self.walk.rx_route_dest.next = self.rx_dest_q.q.val();
        // What follows the data's last write (its ending writes, the next descriptor's)
        // queues behind it in the write generator, so it need not leave the buffer first;
        // a chain's end waits for it.
        self.walk.data_written.next = self.data.done.val()
            || (self.data.taken.val() && (self.ending.remaining.val() || !self.last.val()));
        self.walk.imm_grant.next = self.wr.grant.val();
        self.walk.end_remaining.next = self.ending.remaining.val();
        self.walk.end_done.next = self.ending.done.val();
        self.walk.last.next = self.last.val();
        self.walk.limit_reached.next = self.chain.limit_reached.val();
        self.walk.next_host.next = self.desc.next_host.val();
        self.walk.next_int.next = self.desc.next_int.val();
        self.walk.reads_idle.next = self.reads_idle.val();
        self.walk.w_flight.next = self.data.w_flight.val();
        self.walk.cpl_error.next = self.cpl_error.val();
        self.walk.expired.next = self.watchdog.expired.val();
        self.chan_reset.next = self.walk.chan_reset.val();
        self.chain.clock.next = self.clock.val();
        self.chain.reset.next = self.reset.val();
        self.chain.restart.next = self.walk.starting.val();
        self.chain.step.next = self.walk.data_done.val();
        self.chain.limit.next = self.chain_limit.val();
        self.watchdog.clock.next = self.clock.val();
        self.watchdog.reset.next = self.reset.val();
        self.watchdog.running.next = self.walk.running.val();
        self.watchdog.cpl_seen.next = self.cpl_seen.val();
        self.watchdog.reads_idle.next = self.reads_idle.val();
        self.watchdog.cpl_timeout.next = self.cpl_timeout.val();

        // Status registers.
        self.status_regs.state.next = self.walk.state.val();
        self.status_regs.cause.next = self.walk.cause.val();
        self.status_regs.host.next = self.walk.host.val();
        self.status_regs.cur.next = self.walk.cur.val();
        self.regs.status.next = self.status_regs.status.val();
        self.regs.count.next = self.chain.count.val();
        self.regs.current.next = self.status_regs.current.val();
    }
}
