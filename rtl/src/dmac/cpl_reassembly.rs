//! Read completions back into place: the tag table, the reorder buffer's write side, the
//! in-order retirement of each channel's reads, and the delivery of fetched descriptors.
//!
//! Tags (`peach2_regmap::dma::tags`): with `C` channels, data reads use tags `0..8C`,
//! channel c owning `8c..8c+7` in issue order (a ring per channel); descriptor fetches use
//! tag `8C + c`. Per data tag the table (`tag_table`) holds the ring position of the
//! read's first DW, of its end, and the DWs still to come; the busy bits stay here.
//!
//! A completion may be split at any RCB and completions of different tags may arrive in
//! any order: the offset of a completion inside its read is `read length - byte count`,
//! so each payload DW goes straight to its ring position. The reorder buffer is four
//! banks of 32-bit block RAM (bank = ring position mod 4), so the four lanes of a beat
//! land in four different banks in the same cycle whatever the lane rotation; each
//! channel owns `1024 / C` rows of every bank ([`super::RingLayout`]). Beats are taken one
//! per cycle, the header beat included. A beat's lanes are written a cycle after it is
//! taken: the beat and what its header found are registered (`l_*`, and the `r_*` the
//! payload beats use anyway) between the header's checks and the lanes' placement, which would not fit one cycle together. Retirement
//! sees a read's last DW counted a cycle after its last beat, so `avail` passes the read
//! only after its last DWs are in the banks.
//!
//! Retirement: per channel, the oldest read whose DWs have all arrived retires and `avail`
//! (the ring position up to which data is complete) moves to its end, so writes can go
//! out in address order. A completion with an error status, the poison bit, no data, or
//! a byte count / length that does not fit its read fails the channel (`cpl_error`) and
//! its read counts as finished (the channel stops writing first: `cpl_error` comes a cycle
//! after the header, from a register, since the header's checks are the DMA's deepest
//! logic, and `avail` moves past the failed read two cycles after it, when the channel is
//! already draining). A completion for a tag that is not outstanding is counted as
//! unexpected and dropped.
//!
//! What a completion leaves of its read's count (the DWs still to come, or 0 when it
//! failed) is written a cycle after it (`pending_count`), into the tag table or the
//! channel's descriptor fetch count (`desc_fetches`): the header's checks and the
//! table's write logic would not fit one cycle together. Every reader of a count (the next header's checks, retirement, a fetch's end) takes it from
//! that pending write meanwhile, so the stage behaves, cycle for cycle, as if it were
//! written at once.
//!
//! Fetched descriptor DWs leave from the same registered beat, a cycle after it, and
//! `desc_done` a cycle after the fetch's last DW was counted, so a channel sees the whole
//! descriptor when it sees `desc_done`.

use super::cpl_header::CplHeader;
use super::cpl_lanes::CplLanes;
use super::desc_fetches::DescFetches;
use super::pending_count::PendingCount;
use super::read_order::ReadOrder;
use super::tag_class::TagClass;
use super::tag_table::TagTable;
use crate::stream::TlpSink;
use rust_hdl::prelude::*;

/// Completion handling state.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum ReassemblyState {
    /// Waiting for (or taking) a completion's header beat.
    Header,
    /// Taking payload beats.
    Data,
}

/// The completion reassembly stage of `C` channels (`CB` bits of channel number).
#[derive(LogicBlock)]
pub struct CplReassembly<const C: usize, const CB: usize> {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Upstream: completions addressed to the DMA's tags.
    pub cpl: TlpSink,
    /// Pulse: a read was issued with `issue_tag`.
    pub issue_valid: Signal<In, Bit>,
    /// Tag of the read issued.
    pub issue_tag: Signal<In, Bits<8>>,
    /// Ring position of its first DW.
    pub issue_pos: Signal<In, Bits<16>>,
    /// Its length in DWs.
    pub issue_len_dw: Signal<In, Bits<8>>,
    /// Per channel pulse: forget the channel's outstanding reads (after an error).
    pub chan_reset: Signal<In, Bits<C>>,
    /// Per channel: ring position up to which data is complete.
    pub avail: [Signal<Out, Bits<16>>; C],
    /// Per channel: tag index (0..7) of its next data read.
    pub issue_idx: [Signal<Out, Bits<3>>; C],
    /// Per channel: a data tag is free.
    pub can_issue: Signal<Out, Bits<C>>,
    /// Per channel: no read outstanding (data or descriptor).
    pub idle: Signal<Out, Bits<C>>,
    /// Per channel pulse: a completion failed (the cycle after its header).
    pub cpl_error: Signal<Out, Bits<C>>,
    /// Per channel pulse: a completion arrived (timeout restart).
    pub cpl_seen: Signal<Out, Bits<C>>,
    /// Per channel pulse: the descriptor fetch finished (its DWs are written).
    pub desc_done: Signal<Out, Bits<C>>,
    /// Per lane: a fetched descriptor DW is on `desc_data` (a cycle after its beat).
    pub desc_we: Signal<Out, Bits<4>>,
    /// Per lane l: which DW of the descriptor (0..7), in bits 3l+2..3l.
    pub desc_idx: Signal<Out, Bits<12>>,
    /// The beat's lanes (wire order).
    pub desc_data: Signal<Out, Bits<128>>,
    /// The tag of the descriptor fetch the DWs belong to (names the channel).
    pub desc_tag: Signal<Out, Bits<8>>,
    /// Per bank: write the reorder buffer (a cycle after the beat).
    pub bank_we: Signal<Out, Bits<4>>,
    /// Per bank: row (the channel's rows, then the ring line: [`RingLayout`]).
    pub bank_addr: [Signal<Out, Bits<10>>; 4],
    /// Per bank: data.
    pub bank_data: [Signal<Out, Bits<32>>; 4],
    /// Pulse: a completion matched no outstanding read.
    pub cpl_unexpected: Signal<Out, Bit>,
    /// Header or payload beats next.
    state: DFF<ReassemblyState>,
    /// Per data tag: ring start, ring end and DWs still to come (`tag_table`).
    tags: TagTable<C>,
    /// Per channel: its data reads in issue order (outstanding tags, the oldest,
    /// `avail`).
    order: [ReadOrder; C],
    /// Per channel: its descriptor fetch (outstanding, DWs to come, done).
    fetches: DescFetches<C, CB>,
    /// Per channel: the completion whose header was taken last cycle failed.
    err: DFF<Bits<C>>,
    /// A completion's count of what its data read still expects, written into the tag
    /// table a cycle after the completion (its header's checks and the table's write
    /// logic would not fit one cycle together); until then readers take it from here.
    count: PendingCount<8>,
    /// The tag table's count at the input beat's tag, with `count`'s write.
    lookup_rem: Signal<Local, Bits<8>>,
    /// Per channel: the tag table's count of the oldest read, with `count`'s write.
    retire_rem: [Signal<Local, Bits<8>>; C],
    /// The completion taken this cycle fails and names an outstanding data read.
    fail_data: Signal<Local, Bit>,
    /// The completion taken this cycle fails and names an outstanding descriptor fetch.
    fail_desc: Signal<Local, Bit>,
    /// The DWs still expected by the read of the completion taken (data or descriptor).
    e_rem: Signal<Local, Bits<8>>,
    /// Per channel: the header taken this cycle fails.
    err_now: Signal<Local, Bits<C>>,
    // The beat taken last cycle, for the lanes' placement this cycle (its completion's
    // other fields are the `r_*` registers, which hold them from the cycle after its
    // header on):
    /// A beat was taken.
    l_take: DFF<Bit>,
    /// Its completion passed the checks (a header beat without SOP leaves the `r_*`
    /// registers as they were, so `r_ok` would not say).
    l_ok: DFF<Bit>,
    /// Index of its lane 0 in the packet, in DWs (`r_bidx` already names the next beat's).
    l_bidx: DFF<Bits<11>>,
    /// Its lanes.
    l_data: DFF<Bits<128>>,
    // The completion taken, registered at its header for the payload beats after it:
    /// Ring position of its first payload DW.
    r_base: DFF<Bits<16>>,
    /// Index of the next beat's lane 0 in the packet, in DWs (header DWs included).
    r_bidx: DFF<Bits<11>>,
    /// Payload DWs.
    r_plen: DFF<Bits<11>>,
    /// Channel.
    r_chan: DFF<Bits<CB>>,
    /// A descriptor fetch's completion (not data).
    r_desc: DFF<Bit>,
    /// It passed the checks (its payload is written).
    r_ok: DFF<Bit>,
    /// Its tag.
    r_tag: DFF<Bits<8>>,
    /// Its data read's DWs still to come, as the header found them (for the count at
    /// its last beat: nothing else changes that tag's entry meanwhile).
    r_rem: DFF<Bits<8>>,
    /// The beat on the input as a header, against the read its tag names.
    header: CplHeader<C, CB>,
    // The completion being taken (from the header beat, or the registers after it).
    /// See `r_base`.
    e_base: Signal<Local, Bits<16>>,
    /// See `r_bidx`.
    e_bidx: Signal<Local, Bits<11>>,
    /// See `r_plen`.
    e_plen: Signal<Local, Bits<11>>,
    /// See `r_chan`.
    e_chan: Signal<Local, Bits<CB>>,
    /// See `r_desc`.
    e_desc: Signal<Local, Bit>,
    /// See `r_ok`.
    e_ok: Signal<Local, Bit>,
    /// See `r_tag`.
    e_tag: Signal<Local, Bits<8>>,
    /// A beat is taken this cycle.
    take: Signal<Local, Bit>,
    /// The beat's lanes into the reorder buffer or the channel's descriptor.
    lanes: CplLanes<C, CB>,
    /// Ring position one past the read being issued.
    issue_end: Signal<Local, Bits<16>>,
    /// DWs of the read being issued.
    issue_rem: Signal<Local, Bits<8>>,
    /// The issued read's tag class and channel.
    i_class: TagClass<C, CB>,
}

impl<const C: usize, const CB: usize> CplReassembly<C, CB> {
    /// Idle, no read outstanding; panics on a channel count without a tag layout.
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cpl: Default::default(),
            issue_valid: Default::default(),
            issue_tag: Default::default(),
            issue_pos: Default::default(),
            issue_len_dw: Default::default(),
            chan_reset: Default::default(),
            avail: array_init::array_init(|_| Default::default()),
            issue_idx: array_init::array_init(|_| Default::default()),
            can_issue: Default::default(),
            idle: Default::default(),
            cpl_error: Default::default(),
            cpl_seen: Default::default(),
            desc_done: Default::default(),
            desc_we: Default::default(),
            desc_idx: Default::default(),
            desc_data: Default::default(),
            desc_tag: Default::default(),
            bank_we: Default::default(),
            bank_addr: Default::default(),
            bank_data: Default::default(),
            cpl_unexpected: Default::default(),
            state: Default::default(),
            tags: TagTable::new(),
            order: array_init::array_init(|_| Default::default()),
            fetches: DescFetches::new(),
            err: Default::default(),
            count: Default::default(),
            lookup_rem: Default::default(),
            retire_rem: array_init::array_init(|_| Default::default()),
            fail_data: Default::default(),
            fail_desc: Default::default(),
            e_rem: Default::default(),
            err_now: Default::default(),
            l_take: Default::default(),
            l_ok: Default::default(),
            l_bidx: Default::default(),
            l_data: Default::default(),
            r_base: Default::default(),
            r_bidx: Default::default(),
            r_plen: Default::default(),
            r_chan: Default::default(),
            r_desc: Default::default(),
            r_ok: Default::default(),
            r_tag: Default::default(),
            r_rem: Default::default(),
            header: CplHeader::new(),
            e_base: Default::default(),
            e_bidx: Default::default(),
            e_plen: Default::default(),
            e_chan: Default::default(),
            e_desc: Default::default(),
            e_ok: Default::default(),
            e_tag: Default::default(),
            take: Default::default(),
            lanes: CplLanes::new(),
            issue_end: Default::default(),
            issue_rem: Default::default(),
            i_class: TagClass::new(),
        }
    }
}

impl<const C: usize, const CB: usize> Default for CplReassembly<C, CB> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const C: usize, const CB: usize> Logic for CplReassembly<C, CB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, err, l_take, l_ok, l_bidx, l_data, r_base, r_bidx, r_plen, r_chan,
            r_desc, r_ok, r_tag, r_rem
        );
        self.tags.clock.next = self.clock.val();
        for c in 0..C {
            self.order[c].clock.next = self.clock.val();
            self.order[c].reset.next = self.reset.val();
            self.avail[c].next = self.order[c].avail.val();
            self.issue_idx[c].next = self.order[c].next_index.val();
        }

        // Last cycle's completion's counts: written now, and seen by every reader now
        // as if written last cycle.
        self.count.clock.next = self.clock.val();
        self.count.reset.next = self.reset.val();
        self.tags.dec.next = self.count.pending.val();
        self.tags.dec_tag.next = self.count.pending_key.val();
        self.tags.dec_rem.next = self.count.value.val();
        self.fetches.clock.next = self.clock.val();
        self.fetches.reset.next = self.reset.val();
        self.fetches.chan_reset.next = self.chan_reset.val();

        // The beat on the input as a header. The table is read at its tag field whatever
        // the state: only a header beat's answer is used (payload beats count from
        // `r_rem`), so the read address does not wait for the state.
        self.header.data.next = self.cpl.data.val();
        self.tags.lookup_tag.next = self.header.tag.val();
        self.lookup_rem.next = self.tags.lookup_rem.val();
        if self.count.pending.val() && (self.count.pending_key.val() == self.header.tag.val()) {
            self.lookup_rem.next = self.count.value.val();
        }
        self.header.lookup_start.next = self.tags.lookup_start.val();
        self.header.lookup_len.next = self.tags.lookup_len.val();
        self.header.lookup_rem.next = self.lookup_rem.val();
        for c in 0..C {
            self.header.t_busy[c].next = self.order[c].busy.val();
            self.header.d_rem[c].next = self.fetches.rem[c].val();
        }
        self.header.d_busy.next = self.fetches.busy.val();

        // The completion in progress.
        self.e_base.next = self.r_base.q.val();
        self.e_bidx.next = self.r_bidx.q.val();
        self.e_plen.next = self.r_plen.q.val();
        self.e_chan.next = self.r_chan.q.val();
        self.e_desc.next = self.r_desc.q.val();
        self.e_ok.next = self.r_ok.q.val();
        self.e_tag.next = self.r_tag.q.val();
        if self.state.q.val() == ReassemblyState::Header {
            self.e_base.next = self.header.base.val();
            self.e_bidx.next = 0.into();
            self.e_plen.next = self.header.len.val();
            self.e_chan.next = self.header.chan.val();
            self.e_desc.next = self.header.is_desc.val();
            self.e_ok.next = self.header.ok.val() && self.cpl.sop.val();
            self.e_tag.next = self.header.tag.val();
        }
        self.cpl.ready.next = true;
        self.take.next = self.cpl.valid.val();

        // The beat, registered; last cycle's beat's lanes into place.
        self.l_take.d.next = self.take.val();
        self.l_ok.d.next = self.e_ok.val();
        self.l_bidx.d.next = self.e_bidx.val();
        self.l_data.d.next = self.cpl.data.val();
        self.lanes.take.next = self.l_take.q.val();
        self.lanes.ok.next = self.l_ok.q.val();
        self.lanes.desc.next = self.r_desc.q.val();
        self.lanes.base.next = self.r_base.q.val();
        self.lanes.bidx.next = self.l_bidx.q.val();
        self.lanes.plen.next = self.r_plen.q.val();
        self.lanes.chan.next = self.r_chan.q.val();
        self.lanes.data.next = self.l_data.q.val();
        self.bank_we.next = self.lanes.bank_we.val();
        for b in 0..4 {
            self.bank_addr[b].next = self.lanes.bank_addr[b].val();
            self.bank_data[b].next = self.lanes.bank_data[b].val();
        }
        self.desc_we.next = self.lanes.desc_we.val();
        self.desc_idx.next = self.lanes.desc_idx.val();
        self.desc_tag.next = self.r_tag.q.val();
        self.desc_data.next = self.l_data.q.val();
        self.desc_done.next = self.fetches.done.val();

        // Header: account for the completion; payload beats follow in Data. Its counts
        // are written next cycle (`count`, `fetches`).
        self.e_rem.next = self.r_rem.q.val();
        if self.state.q.val() == ReassemblyState::Header {
            self.e_rem.next = self.lookup_rem.val();
        }
        for c in 0..C {
            if self.e_desc.val() && (self.e_chan.val().index() == c) {
                self.e_rem.next = self.fetches.rem[c].val();
            }
        }
        self.fail_data.next = false;
        self.fail_desc.next = false;
        self.count.we.next = false;
        self.count.clear.next = false;
        self.count.key.next = self.e_tag.val();
        self.count.rem.next = self.e_rem.val() - self.e_plen.val().get_bits::<8>(0);
        self.fetches.count_we.next = false;
        self.fetches.count_clear.next = false;
        self.fetches.count_chan.next = self.e_chan.val();
        self.fetches.count_rem.next = self.e_rem.val() - self.e_plen.val().get_bits::<8>(0);
        self.cpl_error.next = self.err.q.val();
        self.err_now.next = 0.into();
        self.cpl_seen.next = 0.into();
        self.cpl_unexpected.next = false;
        if self.take.val() {
            self.r_bidx.d.next = self.e_bidx.val() + 4;
        }
        if (self.state.q.val() == ReassemblyState::Header) && self.take.val() && self.cpl.sop.val()
        {
            self.r_base.d.next = self.e_base.val();
            self.r_plen.d.next = self.e_plen.val();
            self.r_chan.d.next = self.e_chan.val();
            self.r_desc.d.next = self.e_desc.val();
            self.r_ok.d.next = self.e_ok.val();
            self.r_tag.d.next = self.e_tag.val();
            self.r_rem.d.next = self.lookup_rem.val();
            if !self.cpl.eop.val() {
                self.state.d.next = ReassemblyState::Data;
            }
            if !self.header.known.val() {
                self.cpl_unexpected.next = true;
            } else {
                for c in 0..C {
                    if self.header.chan.val().index() == c {
                        self.cpl_seen.next = self.cpl_seen.val().replace_bit(c, true);
                        if !self.header.ok.val() {
                            self.err_now.next = self.err_now.val().replace_bit(c, true);
                        }
                    }
                }
                if !self.header.ok.val() {
                    // The read counts as finished: its channel stops on the error.
                    self.fail_data.next = self.header.is_data.val();
                    self.fail_desc.next = self.header.is_desc.val();
                }
            }
        }
        if (self.state.q.val() == ReassemblyState::Data) && self.take.val() && self.cpl.eop.val() {
            self.state.d.next = ReassemblyState::Header;
        }
        // The last beat: the DWs are in place (next cycle), count them.
        if self.take.val() && self.cpl.eop.val() && self.e_ok.val() {
            self.count.we.next = !self.e_desc.val();
            self.fetches.count_we.next = self.e_desc.val();
        }
        if self.fail_data.val() {
            self.count.we.next = true;
            self.count.clear.next = true;
        }
        if self.fail_desc.val() {
            self.fetches.count_we.next = true;
            self.fetches.count_clear.next = true;
        }

        // Issue: record where the read's data goes.
        self.issue_end.next = self.issue_pos.val() + bit_cast::<16, 8>(self.issue_len_dw.val());
        self.issue_rem.next = self.issue_len_dw.val();
        self.i_class.tag.next = self.issue_tag.val();
        self.tags.issue.next = self.issue_valid.val() && self.i_class.is_data.val();
        self.tags.issue_tag.next = self.issue_tag.val();
        self.tags.issue_start.next = self.issue_pos.val();
        self.tags.issue_end.next = self.issue_end.val();
        self.tags.issue_rem.next = self.issue_rem.val();
        for c in 0..C {
            self.order[c].issue.next = self.issue_valid.val()
                && self.i_class.is_data.val()
                && (self.i_class.chan.val().index() == c);
            self.order[c].issue_index.next = self.i_class.index.val();
        }
        self.fetches.issue.next = self.issue_valid.val() && self.i_class.is_desc.val();
        self.fetches.issue_chan.next = self.i_class.chan.val();
        self.fetches.issue_len_dw.next = self.issue_len_dw.val();

        // Retirement, oldest read first per channel (descriptor fetches finish alone).
        self.can_issue.next = 0.into();
        self.idle.next = 0.into();
        for c in 0..C {
            // Channel c's oldest read has tag 8c + its index.
            self.tags.retire_idx[c].next = self.order[c].oldest.val();
            self.retire_rem[c].next = self.tags.retire_rem[c].val();
            if self.count.pending.val()
                && (self.count.pending_key.val().get_bits::<5>(3).index() == c)
                && (self.count.pending_key.val().get_bits::<3>(0) == self.order[c].oldest.val())
            {
                self.retire_rem[c].next = self.count.value.val();
            }
            self.order[c].retire_rem.next = self.retire_rem[c].val();
            self.order[c].retire_end.next = self.tags.retire_end[c].val();
            self.order[c].chan_reset.next = self.chan_reset.val().get_bit(c);
            if self.order[c].can_issue.val() {
                self.can_issue.next = self.can_issue.val().replace_bit(c, true);
            }
            if self.order[c].none_outstanding.val() && !self.fetches.busy.val().get_bit(c) {
                self.idle.next = self.idle.val().replace_bit(c, true);
            }
        }

        self.err.d.next = self.err_now.val();
        if self.reset.val() {
            self.state.d.next = ReassemblyState::Header;
            self.err.d.next = 0.into();
            self.l_take.d.next = false;
        }
    }
}
