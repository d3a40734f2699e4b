//! One DMA channel: runs a descriptor chain. Fetches each descriptor (internal memory or
//! host memory), checks it, walks its blocks with a read cursor (MRds of at most
//! min(MRRS, 512) bytes, cut at that alignment, while tags and reorder-buffer room last)
//! and a write cursor (MWrs of at most min(MPS, 256) bytes, cut at that alignment, once
//! the data is in the buffer), then sends its notifications and follows `next`.
//!
//! Ring positions: each channel owns 1024 DWs of the reorder buffer; a block starts at a
//! fresh 16-byte line, at the lane of its source (= destination) address, so read and
//! write cursors agree on every DW's position. Reads may run up to the whole ring ahead of
//! the last write that has left the buffer.
//!
//! Errors (`peach2_regmap::dma::ErrorCause`): descriptor checks fail before anything is
//! read; a completion error stops writing at once and the channel waits for its other
//! reads (or the timeout) before reporting; descriptors of a chain run one after another.

use super::cursor::CursorStep;
use super::desc_check::DescCheck;
use super::dest_route::DestRoute;
use rust_hdl::prelude::*;

/// Channel state.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum ChanState {
    /// Never started.
    Idle,
    /// Chain finished.
    Done,
    /// Stopped on an error.
    Error,
    /// Reading a descriptor from internal memory.
    FetchInt,
    /// Asking for a host descriptor read.
    FetchHost,
    /// Waiting for the host descriptor's completion.
    FetchHostWait,
    /// Checking the descriptor.
    Check,
    /// Moving the descriptor's data.
    Run,
    /// Writing the receiver's notification slot.
    NotifyRx,
    /// Writing the own notification slot.
    NotifySelf,
    /// Sending the MSI.
    Msi,
    /// Following `next`.
    Next,
    /// Waiting for outstanding reads after a completion error.
    Drain,
}

/// One DMA channel.
#[derive(LogicBlock)]
pub struct DmaChannel {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Pulse: `CONTROL` written with the start bit.
    pub start: Signal<In, Bit>,
    /// The chain is in host memory (at `desc_base`).
    pub start_host: Signal<In, Bit>,
    /// First internal descriptor.
    pub start_index: Signal<In, Bits<10>>,
    /// `DESC`: first host descriptor.
    pub desc_base: Signal<In, Bits<64>>,
    /// `NOTIFY_RX`.
    pub notify_rx_addr: Signal<In, Bits<64>>,
    /// `NOTIFY_SELF`.
    pub notify_self_addr: Signal<In, Bits<64>>,
    /// `NOTIFY_VALUE`.
    pub notify_value: Signal<In, Bits<32>>,
    /// `DMA_CHAIN_LIMIT`.
    pub chain_limit: Signal<In, Bits<32>>,
    /// `DMA_CPL_TIMEOUT`.
    pub cpl_timeout: Signal<In, Bits<32>>,
    /// `DMA_MSI_ADDR`.
    pub msi_addr: Signal<In, Bits<64>>,
    /// `DMA_MSI_DATA`.
    pub msi_data: Signal<In, Bits<32>>,
    /// This node's id.
    pub node_id: Signal<In, Bits<4>>,
    /// Routing table (as `crate::router::Router`).
    pub route_table: Signal<In, Bits<48>>,
    /// Per-port link ready.
    pub port_ready: Signal<In, Bits<4>>,
    /// N's max read request size code (128 << code bytes).
    pub max_read_req: Signal<In, Bits<3>>,
    /// N's max payload size code (128 << code bytes).
    pub max_payload: Signal<In, Bits<3>>,
    /// The internal descriptor read is on `desc_ram`.
    pub desc_ram_valid: Signal<In, Bit>,
    /// The internal descriptor read (DW k in bits 32k+31..32k).
    pub desc_ram: Signal<In, Bits<256>>,
    /// Per lane: a fetched host descriptor DW (see `CplReassembly`).
    pub desc_we: Signal<In, Bits<4>>,
    /// Per lane l: its index, bits 3l+2..3l.
    pub desc_idx: Signal<In, Bits<12>>,
    /// The lanes (wire order).
    pub desc_data: Signal<In, Bits<128>>,
    /// Channel of the host descriptor DWs.
    pub desc_chan: Signal<In, Bits<2>>,
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
    /// Pulse: the read was taken.
    pub rd_grant: Signal<In, Bit>,
    /// Pulse: the write was taken.
    pub wr_grant: Signal<In, Bit>,
    /// Pulse: the write's data left the reorder buffer.
    pub wr_done: Signal<In, Bit>,
    /// Internal descriptor read wanted.
    pub desc_ram_req: Signal<Out, Bit>,
    /// Its index.
    pub desc_ram_index: Signal<Out, Bits<10>>,
    /// A read is wanted.
    pub rd_valid: Signal<Out, Bit>,
    /// Read address.
    pub rd_addr: Signal<Out, Bits<64>>,
    /// Read length in DWs.
    pub rd_len_dw: Signal<Out, Bits<8>>,
    /// Read tag.
    pub rd_tag: Signal<Out, Bits<8>>,
    /// Ring position of the read's first DW.
    pub rd_pos: Signal<Out, Bits<16>>,
    /// A write is wanted.
    pub wr_valid: Signal<Out, Bit>,
    /// The write carries `wr_value`.
    pub wr_imm: Signal<Out, Bit>,
    /// Write address.
    pub wr_addr: Signal<Out, Bits<64>>,
    /// Write length in DWs.
    pub wr_len_dw: Signal<Out, Bits<7>>,
    /// Ring position of the write's first DW.
    pub wr_pos: Signal<Out, Bits<16>>,
    /// Crossbar destination of the write.
    pub wr_dest: Signal<Out, Bits<3>>,
    /// Value of a one-DW write.
    pub wr_value: Signal<Out, Bits<32>>,
    /// Pulse: forget this channel's outstanding reads.
    pub chan_reset: Signal<Out, Bit>,
    /// `STATUS`.
    pub status: Signal<Out, Bits<32>>,
    /// `COUNT`.
    pub count: Signal<Out, Bits<32>>,
    /// `CURRENT`.
    pub current: Signal<Out, Bits<64>>,
    state: DFF<ChanState>,
    cause: DFF<Bits<4>>,
    done_count: DFF<Bits<32>>,
    host: DFF<Bit>,
    cur: DFF<Bits<64>>,
    d: [DFF<Bits<32>>; 8],
    timer: DFF<Bits<32>>,
    r_addr: DFF<Bits<64>>,
    r_row: DFF<Bits<64>>,
    r_left: DFF<Bits<25>>,
    r_rows: DFF<Bits<17>>,
    rpos: DFF<Bits<16>>,
    w_addr: DFF<Bits<64>>,
    w_row: DFF<Bits<64>>,
    w_left: DFF<Bits<25>>,
    w_rows: DFF<Bits<17>>,
    wpos: DFF<Bits<16>>,
    wfree: DFF<Bits<16>>,
    w_flight: DFF<Bit>,
    w_flight_end: DFF<Bits<16>>,
    w_dest: DFF<Bits<3>>,
    rx_dest: DFF<Bits<3>>,
    dst_route: DestRoute,
    check: DescCheck,
    rd_cur: CursorStep,
    wr_cur: CursorStep,
    rx_route: DestRoute,
    chan: Constant<Bits<2>>,
    src: Signal<Local, Bits<64>>,
    dst: Signal<Local, Bits<64>>,
    len: Signal<Local, Bits<32>>,
    flags: Signal<Local, Bits<5>>,
    height: Signal<Local, Bits<17>>,
    two_d: Signal<Local, Bit>,
    start_pos: Signal<Local, Bits<16>>,
    r_n: Signal<Local, Bits<8>>,
    r_space: Signal<Local, Bits<16>>,
    r_next_row: Signal<Local, Bits<64>>,
    r_next_pos: Signal<Local, Bits<16>>,
    w_n: Signal<Local, Bits<7>>,
    w_short: Signal<Local, Bits<16>>,
    w_next_row: Signal<Local, Bits<64>>,
    w_next_pos: Signal<Local, Bits<16>>,
    sw: [Signal<Local, Bits<32>>; 4],
    running: Signal<Local, Bit>,
    stopped: Signal<Local, Bit>,
}

impl DmaChannel {
    /// Channel `index` (0..=3).
    pub fn new(index: u64) -> Self {
        assert!(index < 4, "DmaChannel: index 0..=3");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            start_host: Default::default(),
            start_index: Default::default(),
            desc_base: Default::default(),
            notify_rx_addr: Default::default(),
            notify_self_addr: Default::default(),
            notify_value: Default::default(),
            chain_limit: Default::default(),
            cpl_timeout: Default::default(),
            msi_addr: Default::default(),
            msi_data: Default::default(),
            node_id: Default::default(),
            route_table: Default::default(),
            port_ready: Default::default(),
            max_read_req: Default::default(),
            max_payload: Default::default(),
            desc_ram_valid: Default::default(),
            desc_ram: Default::default(),
            desc_we: Default::default(),
            desc_idx: Default::default(),
            desc_data: Default::default(),
            desc_chan: Default::default(),
            desc_done: Default::default(),
            avail: Default::default(),
            issue_idx: Default::default(),
            can_issue: Default::default(),
            reads_idle: Default::default(),
            cpl_error: Default::default(),
            cpl_seen: Default::default(),
            rd_grant: Default::default(),
            wr_grant: Default::default(),
            wr_done: Default::default(),
            desc_ram_req: Default::default(),
            desc_ram_index: Default::default(),
            rd_valid: Default::default(),
            rd_addr: Default::default(),
            rd_len_dw: Default::default(),
            rd_tag: Default::default(),
            rd_pos: Default::default(),
            wr_valid: Default::default(),
            wr_imm: Default::default(),
            wr_addr: Default::default(),
            wr_len_dw: Default::default(),
            wr_pos: Default::default(),
            wr_dest: Default::default(),
            wr_value: Default::default(),
            chan_reset: Default::default(),
            status: Default::default(),
            count: Default::default(),
            current: Default::default(),
            state: Default::default(),
            cause: Default::default(),
            done_count: Default::default(),
            host: Default::default(),
            cur: Default::default(),
            d: Default::default(),
            timer: Default::default(),
            r_addr: Default::default(),
            r_row: Default::default(),
            r_left: Default::default(),
            r_rows: Default::default(),
            rpos: Default::default(),
            w_addr: Default::default(),
            w_row: Default::default(),
            w_left: Default::default(),
            w_rows: Default::default(),
            wpos: Default::default(),
            wfree: Default::default(),
            w_flight: Default::default(),
            w_flight_end: Default::default(),
            w_dest: Default::default(),
            rx_dest: Default::default(),
            dst_route: Default::default(),
            check: Default::default(),
            rd_cur: Default::default(),
            wr_cur: Default::default(),
            rx_route: Default::default(),
            chan: Constant::new(index.into()),
            src: Default::default(),
            dst: Default::default(),
            len: Default::default(),
            flags: Default::default(),
            height: Default::default(),
            two_d: Default::default(),
            start_pos: Default::default(),
            r_n: Default::default(),
            r_space: Default::default(),
            r_next_row: Default::default(),
            r_next_pos: Default::default(),
            w_n: Default::default(),
            w_short: Default::default(),
            w_next_row: Default::default(),
            w_next_pos: Default::default(),
            sw: Default::default(),
            running: Default::default(),
            stopped: Default::default(),
        }
    }
}

impl Logic for DmaChannel {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            cause,
            done_count,
            host,
            cur,
            timer,
            r_addr,
            r_row,
            r_left,
            r_rows,
            rpos,
            w_addr,
            w_row,
            w_left,
            w_rows,
            wpos,
            wfree,
            w_flight,
            w_flight_end,
            w_dest,
            rx_dest
        );
        for k in 0..8 {
            self.d[k].clock.next = self.clock.val();
            self.d[k].d.next = self.d[k].q.val();
        }
        // The descriptor's fields (layout: `peach2_regmap::dma`).
        self.src.next = (bit_cast::<64, 16>(self.d[1].q.val().get_bits::<16>(0)) << 32)
            | bit_cast::<64, 32>(self.d[0].q.val());
        self.dst.next = (bit_cast::<64, 16>(self.d[1].q.val().get_bits::<16>(16)) << 32)
            | bit_cast::<64, 32>(self.d[2].q.val());
        self.len.next = self.d[3].q.val();
        self.flags.next = self.d[4].q.val().get_bits::<5>(0);
        self.two_d.next = self.flags.val().get_bit(1);
        self.height.next = 1.into();
        if self.two_d.val() {
            self.height.next = bit_cast::<17, 16>(self.d[5].q.val().get_bits::<16>(16));
        }
        self.dst_route.addr.next = self.dst.val();
        self.rx_route.addr.next = self.notify_rx_addr.val();
        self.dst_route.node_id.next = self.node_id.val();
        self.rx_route.node_id.next = self.node_id.val();
        self.dst_route.route_table.next = self.route_table.val();
        self.rx_route.route_table.next = self.route_table.val();
        self.dst_route.port_ready.next = self.port_ready.val();
        self.rx_route.port_ready.next = self.port_ready.val();

        self.check.src.next = self.src.val();
        self.check.dst.next = self.dst.val();
        self.check.len.next = self.len.val();
        self.check.flags.next = self.flags.val();
        self.check.height.next = self.height.val();
        self.check.src_pitch.next = self.d[6].q.val();
        self.check.dst_pitch.next = self.d[7].q.val();
        self.check.notify_rx_addr.next = self.notify_rx_addr.val();
        self.check.notify_self_addr.next = self.notify_self_addr.val();
        self.check.msi_addr.next = self.msi_addr.val();
        self.check.dst_ok.next = self.dst_route.ok.val();
        self.check.rx_ok.next = self.rx_route.ok.val();
        // A block starts at a fresh line, at its address's lane.
        self.start_pos.next =
            ((self.rpos.q.val() + 3) & 0xFFFC) | bit_cast::<16, 2>(self.src.val().get_bits::<2>(2));

        // Read cursor: the next MRd.
        self.rd_cur.max.next = 128.into();
        if self.max_read_req.val() == 0 {
            self.rd_cur.max.next = 32.into();
        }
        if self.max_read_req.val() == 1 {
            self.rd_cur.max.next = 64.into();
        }
        self.rd_cur.addr.next = self.r_addr.q.val();
        self.rd_cur.left.next = self.r_left.q.val();
        self.rd_cur.pos.next = self.rpos.q.val();
        self.rd_cur.row.next = self.r_row.q.val();
        self.rd_cur.pitch.next = self.d[6].q.val();
        self.r_n.next = self.rd_cur.n.val();
        self.r_space.next =
            self.rpos.q.val() + bit_cast::<16, 8>(self.r_n.val()) - self.wfree.q.val();
        self.r_next_row.next = self.rd_cur.next_row.val();
        self.r_next_pos.next = self.rd_cur.next_pos.val();
        // Write cursor: the next MWr.
        self.wr_cur.max.next = 64.into();
        if self.max_payload.val() == 0 {
            self.wr_cur.max.next = 32.into();
        }
        self.wr_cur.addr.next = self.w_addr.q.val();
        self.wr_cur.left.next = self.w_left.q.val();
        self.wr_cur.pos.next = self.wpos.q.val();
        self.wr_cur.row.next = self.w_row.q.val();
        self.wr_cur.pitch.next = self.d[7].q.val();
        // At most 64 DWs: fits 7 bits.
        self.w_n.next = self.wr_cur.n.val().get_bits::<7>(0);
        // Negative (bit 15 set) while the data is not all in the buffer yet.
        self.w_short.next =
            self.avail.val() - (self.wpos.q.val() + bit_cast::<16, 7>(self.w_n.val()));
        self.w_next_row.next = self.wr_cur.next_row.val();
        self.w_next_pos.next = self.wr_cur.next_pos.val();

        // Host descriptor DWs arrive in wire order; descriptors are little-endian DWs.
        self.sw[0].next = (bit_cast::<32, 8>(self.desc_data.val().get_bits::<8>(0)) << 24)
            | (bit_cast::<32, 8>(self.desc_data.val().get_bits::<8>(8)) << 16)
            | (bit_cast::<32, 8>(self.desc_data.val().get_bits::<8>(16)) << 8)
            | bit_cast::<32, 8>(self.desc_data.val().get_bits::<8>(24));
        self.sw[1].next = (bit_cast::<32, 8>(self.desc_data.val().get_bits::<8>(32)) << 24)
            | (bit_cast::<32, 8>(self.desc_data.val().get_bits::<8>(40)) << 16)
            | (bit_cast::<32, 8>(self.desc_data.val().get_bits::<8>(48)) << 8)
            | bit_cast::<32, 8>(self.desc_data.val().get_bits::<8>(56));
        self.sw[2].next = (bit_cast::<32, 8>(self.desc_data.val().get_bits::<8>(64)) << 24)
            | (bit_cast::<32, 8>(self.desc_data.val().get_bits::<8>(72)) << 16)
            | (bit_cast::<32, 8>(self.desc_data.val().get_bits::<8>(80)) << 8)
            | bit_cast::<32, 8>(self.desc_data.val().get_bits::<8>(88));
        self.sw[3].next = (bit_cast::<32, 8>(self.desc_data.val().get_bits::<8>(96)) << 24)
            | (bit_cast::<32, 8>(self.desc_data.val().get_bits::<8>(104)) << 16)
            | (bit_cast::<32, 8>(self.desc_data.val().get_bits::<8>(112)) << 8)
            | bit_cast::<32, 8>(self.desc_data.val().get_bits::<8>(120));

        // Defaults.
        self.desc_ram_req.next = false;
        self.desc_ram_index.next = self.cur.q.val().get_bits::<10>(5);
        self.rd_valid.next = false;
        self.rd_addr.next = self.r_addr.q.val();
        self.rd_len_dw.next = self.r_n.val();
        self.rd_tag.next =
            (bit_cast::<8, 2>(self.chan.val()) << 3) | bit_cast::<8, 3>(self.issue_idx.val());
        self.rd_pos.next = self.rpos.q.val();
        self.wr_valid.next = false;
        self.wr_imm.next = false;
        self.wr_addr.next = self.w_addr.q.val();
        self.wr_len_dw.next = self.w_n.val();
        self.wr_pos.next = self.wpos.q.val();
        self.wr_dest.next = self.w_dest.q.val();
        self.wr_value.next = self.notify_value.val() + self.done_count.q.val();
        self.chan_reset.next = false;
        self.running.next = false;

        // The write cursor's TLP leaves the buffer.
        if self.wr_done.val() {
            self.w_flight.d.next = false;
            self.wfree.d.next = self.w_flight_end.q.val();
        }

        self.stopped.next = (self.state.q.val() == ChanState::Idle)
            || (self.state.q.val() == ChanState::Done)
            || (self.state.q.val() == ChanState::Error);
        if self.stopped.val() && self.start.val() {
            self.cause.d.next = 0.into();
            self.done_count.d.next = 0.into();
            self.host.d.next = self.start_host.val();
            self.cur.d.next = bit_cast::<64, 10>(self.start_index.val()) << 5;
            self.state.d.next = ChanState::FetchInt;
            if self.start_host.val() {
                self.cur.d.next = self.desc_base.val() & 0xFFFF_FFFF_FFFF_FFE0u64;
                self.state.d.next = ChanState::FetchHost;
            }
            self.rpos.d.next = self.avail.val();
            self.wpos.d.next = self.avail.val();
            self.wfree.d.next = self.avail.val();
            self.w_flight.d.next = false;
        }

        match self.state.q.val() {
            ChanState::Idle => {}
            ChanState::Done => {}
            ChanState::Error => {}
            ChanState::FetchInt => {
                self.desc_ram_req.next = true;
                if self.desc_ram_valid.val() {
                    for k in 0..8 {
                        self.d[k].d.next = self.desc_ram.val().get_bits::<32>(32 * k);
                    }
                    self.state.d.next = ChanState::Check;
                }
            }
            ChanState::FetchHost => {
                self.rd_valid.next = true;
                self.rd_addr.next = self.cur.q.val();
                self.rd_len_dw.next = 8.into();
                self.rd_tag.next = 0x20 | bit_cast::<8, 2>(self.chan.val());
                self.rd_pos.next = 0.into();
                if self.rd_grant.val() {
                    self.state.d.next = ChanState::FetchHostWait;
                }
            }
            ChanState::FetchHostWait => {
                self.running.next = true;
                for l in 0..4 {
                    if self.desc_we.val().get_bit(l) && (self.desc_chan.val() == self.chan.val()) {
                        for k in 0..8 {
                            if self.desc_idx.val().get_bits::<3>(3 * l).index() == k {
                                self.d[k].d.next = self.sw[l].val();
                            }
                        }
                    }
                }
                if self.desc_done.val() {
                    self.state.d.next = ChanState::Check;
                }
            }
            ChanState::Check => {
                self.state.d.next = ChanState::Error;
                self.cause.d.next = self.check.cause.val();
                if self.check.cause.val() == 0 {
                    self.state.d.next = ChanState::Run;
                    self.r_addr.d.next = self.src.val();
                    self.r_row.d.next = self.src.val();
                    self.r_left.d.next = self.len.val().get_bits::<25>(0);
                    self.r_rows.d.next = self.height.val();
                    self.rpos.d.next = self.start_pos.val();
                    self.w_addr.d.next = self.dst.val();
                    self.w_row.d.next = self.dst.val();
                    self.w_left.d.next = self.len.val().get_bits::<25>(0);
                    self.w_rows.d.next = self.height.val();
                    self.wpos.d.next = self.start_pos.val();
                    self.w_dest.d.next = self.dst_route.dest.val();
                    self.rx_dest.d.next = self.rx_route.dest.val();
                }
            }
            ChanState::Run => {
                self.running.next = true;
                // Reads, while a tag is free and the ring has room.
                self.rd_valid.next = (self.r_rows.q.val() != 0)
                    && self.can_issue.val()
                    && (self.r_space.val() <= 1024);
                if self.rd_grant.val() {
                    self.r_addr.d.next =
                        self.r_addr.q.val() + (bit_cast::<64, 8>(self.r_n.val()) << 2);
                    self.r_left.d.next =
                        self.r_left.q.val() - (bit_cast::<25, 8>(self.r_n.val()) << 2);
                    self.rpos.d.next = self.rpos.q.val() + bit_cast::<16, 8>(self.r_n.val());
                    if self.r_left.q.val() == (bit_cast::<25, 8>(self.r_n.val()) << 2) {
                        self.r_rows.d.next = self.r_rows.q.val() - 1;
                        self.r_row.d.next = self.r_next_row.val();
                        self.r_addr.d.next = self.r_next_row.val();
                        self.r_left.d.next = self.len.val().get_bits::<25>(0);
                        self.rpos.d.next = self.r_next_pos.val();
                    }
                }
                // Writes, once their data is in the buffer.
                self.wr_valid.next = (self.w_rows.q.val() != 0)
                    && !self.w_short.val().get_bit(15)
                    && !self.cpl_error.val();
                if self.wr_grant.val() {
                    self.w_flight.d.next = true;
                    self.w_flight_end.d.next =
                        self.wpos.q.val() + bit_cast::<16, 7>(self.w_n.val());
                    self.w_addr.d.next =
                        self.w_addr.q.val() + (bit_cast::<64, 7>(self.w_n.val()) << 2);
                    self.w_left.d.next =
                        self.w_left.q.val() - (bit_cast::<25, 7>(self.w_n.val()) << 2);
                    self.wpos.d.next = self.wpos.q.val() + bit_cast::<16, 7>(self.w_n.val());
                    if self.w_left.q.val() == (bit_cast::<25, 7>(self.w_n.val()) << 2) {
                        self.w_rows.d.next = self.w_rows.q.val() - 1;
                        self.w_row.d.next = self.w_next_row.val();
                        self.w_addr.d.next = self.w_next_row.val();
                        self.w_left.d.next = self.len.val().get_bits::<25>(0);
                        self.wpos.d.next = self.w_next_pos.val();
                    }
                }
                if (self.w_rows.q.val() == 0) && !self.w_flight.q.val() {
                    self.done_count.d.next = self.done_count.q.val() + 1;
                    // Then the flagged notifications in order, then `next`.
                    self.state.d.next = ChanState::Next;
                    if self.flags.val().get_bit(2) {
                        self.state.d.next = ChanState::NotifyRx;
                    } else if self.flags.val().get_bit(3) {
                        self.state.d.next = ChanState::NotifySelf;
                    } else if self.flags.val().get_bit(4) {
                        self.state.d.next = ChanState::Msi;
                    }
                }
            }
            ChanState::NotifyRx => {
                self.wr_valid.next = true;
                self.wr_imm.next = true;
                self.wr_addr.next = self.notify_rx_addr.val();
                self.wr_len_dw.next = 1.into();
                self.wr_dest.next = self.rx_dest.q.val();
                if self.wr_grant.val() {
                    self.state.d.next = ChanState::Next;
                    if self.flags.val().get_bit(3) {
                        self.state.d.next = ChanState::NotifySelf;
                    } else if self.flags.val().get_bit(4) {
                        self.state.d.next = ChanState::Msi;
                    }
                }
            }
            ChanState::NotifySelf => {
                self.wr_valid.next = true;
                self.wr_imm.next = true;
                self.wr_addr.next = self.notify_self_addr.val();
                self.wr_len_dw.next = 1.into();
                self.wr_dest.next = 0.into();
                if self.wr_grant.val() {
                    self.state.d.next = ChanState::Next;
                    if self.flags.val().get_bit(4) {
                        self.state.d.next = ChanState::Msi;
                    }
                }
            }
            ChanState::Msi => {
                self.wr_valid.next = true;
                self.wr_imm.next = true;
                self.wr_addr.next = self.msi_addr.val();
                self.wr_len_dw.next = 1.into();
                self.wr_dest.next = 0.into();
                self.wr_value.next = self.msi_data.val();
                if self.wr_grant.val() {
                    self.state.d.next = ChanState::Next;
                }
            }
            ChanState::Next => {
                if self.flags.val().get_bit(0) {
                    self.state.d.next = ChanState::Done;
                } else if self.done_count.q.val() >= self.chain_limit.val() {
                    self.cause.d.next = 5.into();
                    self.state.d.next = ChanState::Error;
                } else if self.host.q.val() {
                    self.cur.d.next = (bit_cast::<64, 16>(self.d[5].q.val().get_bits::<16>(0))
                        << 32)
                        | bit_cast::<64, 32>(self.d[4].q.val() & 0xFFFF_FFE0u64);
                    self.state.d.next = ChanState::FetchHost;
                } else {
                    self.cur.d.next = bit_cast::<64, 32>(self.d[4].q.val() & 0x7FE0);
                    self.state.d.next = ChanState::FetchInt;
                }
            }
            ChanState::Drain => {
                self.running.next = true;
                if self.reads_idle.val() && !self.w_flight.q.val() {
                    self.state.d.next = ChanState::Error;
                }
            }
        }

        // A failed completion stops the channel; the timeout too, if nothing comes back.
        if self.running.val() {
            self.timer.d.next = self.timer.q.val() + 1;
        }
        if !self.running.val() || self.cpl_seen.val() || self.reads_idle.val() {
            self.timer.d.next = 0.into();
        }
        if self.cpl_error.val()
            && ((self.state.q.val() == ChanState::Run)
                || (self.state.q.val() == ChanState::FetchHostWait))
        {
            self.cause.d.next = 6.into();
            self.state.d.next = ChanState::Drain;
        }
        if self.running.val() && (self.timer.q.val() >= self.cpl_timeout.val()) {
            if self.state.q.val() != ChanState::Drain {
                self.cause.d.next = 7.into();
            }
            self.chan_reset.next = true;
            self.state.d.next = ChanState::Error;
        }

        // Status registers.
        self.status.next = bit_cast::<32, 4>(self.cause.q.val()) << 4;
        if self.state.q.val() == ChanState::Done {
            self.status.next = (bit_cast::<32, 4>(self.cause.q.val()) << 4) | 2;
        } else if self.state.q.val() == ChanState::Error {
            self.status.next = (bit_cast::<32, 4>(self.cause.q.val()) << 4) | 3;
        } else if self.state.q.val() != ChanState::Idle {
            self.status.next = (bit_cast::<32, 4>(self.cause.q.val()) << 4) | 1;
        }
        self.count.next = self.done_count.q.val();
        self.current.next = self.cur.q.val();
        if !self.host.q.val() {
            self.current.next = bit_cast::<64, 10>(self.cur.q.val().get_bits::<10>(5));
        }

        if self.reset.val() {
            self.state.d.next = ChanState::Idle;
            self.cause.d.next = 0.into();
            self.done_count.d.next = 0.into();
            self.host.d.next = false;
            self.cur.d.next = 0.into();
            self.timer.d.next = 0.into();
            self.w_flight.d.next = false;
            self.rpos.d.next = 0.into();
            self.wpos.d.next = 0.into();
            self.wfree.d.next = 0.into();
        }
    }
}
