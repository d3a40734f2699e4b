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
//! channel owns `1024 / C` rows of every bank ([`super::RingLayout`]). `cpl_intake` takes
//! the beats, checks each header against the read its tag names and places the lanes, a
//! cycle after the beat.
//!
//! Retirement: per channel, the oldest read whose DWs have all arrived retires and `avail`
//! (the ring position up to which data is complete) moves to its end, so writes can go
//! out in address order. A failed completion's read counts as finished (the channel stops
//! writing first: `cpl_error` comes a cycle after the header, and `avail` moves past the
//! failed read two cycles after it, when the channel is already draining).
//!
//! What a completion leaves of its read's count (the DWs still to come, or 0 when it
//! failed) is written a cycle after its last beat (`pending_count`; a good header with
//! payload beats after it writes the count unchanged), into the tag table
//! or the channel's descriptor fetch count (`desc_fetches`): the header's checks and the
//! table's write logic would not fit one cycle together, and retirement so sees a read's
//! last DW counted once its lanes are in the banks. Every reader of a count (the next
//! header's checks, retirement, a fetch's end) takes it from that pending write
//! meanwhile (the header's checks compare the completion with both before choosing),
//! so the stage behaves, cycle for cycle, as if it were written at once.
//!
//! Fetched descriptor DWs leave the intake two cycles after their beat, as `desc_done`
//! does after the fetch's last beat (its count is written a cycle after the beat and
//! `desc_done` comes a cycle after that), so a channel that checks its descriptor the
//! cycle after `desc_done` has all of it.

use super::cpl_intake::CplIntake;
use super::desc_fetches::DescFetches;
use super::pending_count::{CountWrite, PendingCount};
use super::read_order::ReadOrder;
use super::tag_class::TagClass;
use super::tag_table::TagTable;
use crate::stream::TlpSink;
use rust_hdl::prelude::*;

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
    /// Its length in DWs.
    pub issue_len_dw: Signal<In, Bits<8>>,
    /// Ring position one past its last DW (the channel's cursor keeps it in a register).
    pub issue_end: Signal<In, Bits<16>>,
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
    /// Per DW k of a fetched descriptor: it is on `desc_data` (two cycles after its beat).
    pub desc_dw_we: Signal<Out, Bits<8>>,
    /// Per DW k of a fetched descriptor: the lane of `desc_data` that carries it, in bits
    /// 2k+1..2k.
    pub desc_dw_lanes: Signal<Out, Bits<16>>,
    /// The beat's lanes (wire order).
    pub desc_data: Signal<Out, Bits<128>>,
    /// One-hot: the channel whose descriptor fetch the DWs belong to.
    pub desc_chans: Signal<Out, Bits<C>>,
    /// Per bank: write the reorder buffer (a cycle after the beat).
    pub bank_we: Signal<Out, Bits<4>>,
    /// Per bank: row (the channel's rows, then the ring line: [`RingLayout`]).
    pub bank_addr: [Signal<Out, Bits<10>>; 4],
    /// Per bank: data.
    pub bank_data: [Signal<Out, Bits<32>>; 4],
    /// Pulse: a completion matched no outstanding read.
    pub cpl_unexpected: Signal<Out, Bit>,
    /// The completion beats: header checks, lanes into place, counts.
    intake: CplIntake<C, CB>,
    /// Per data tag: ring start, ring end and DWs still to come (`tag_table`).
    tags: TagTable<C>,
    /// Per channel: its data reads in issue order (outstanding tags, the oldest,
    /// `avail`).
    order: [ReadOrder; C],
    /// Per channel: its descriptor fetch (outstanding, DWs to come, done).
    fetches: DescFetches<C, CB>,
    /// A completion's count of what its data read still expects, written into the tag
    /// table a cycle after the completion; until then readers take it from here.
    count: PendingCount<8>,
    /// Per channel c, bit k: tag `8c + k` expects no more DWs (the table's count is 0,
    /// with `count`'s write).
    done: [Signal<Local, Bits<8>>; C],
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
            issue_len_dw: Default::default(),
            chan_reset: Default::default(),
            avail: array_init::array_init(|_| Default::default()),
            issue_idx: array_init::array_init(|_| Default::default()),
            can_issue: Default::default(),
            idle: Default::default(),
            cpl_error: Default::default(),
            cpl_seen: Default::default(),
            desc_done: Default::default(),
            desc_dw_we: Default::default(),
            desc_dw_lanes: Default::default(),
            desc_data: Default::default(),
            desc_chans: Default::default(),
            bank_we: Default::default(),
            bank_addr: Default::default(),
            bank_data: Default::default(),
            cpl_unexpected: Default::default(),
            intake: CplIntake::new(),
            tags: TagTable::new(),
            order: array_init::array_init(|_| Default::default()),
            fetches: DescFetches::new(),
            count: Default::default(),
            done: array_init::array_init(|_| Default::default()),
            issue_end: Default::default(),
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
        self.intake.clock.next = self.clock.val();
        self.intake.reset.next = self.reset.val();
        self.tags.clock.next = self.clock.val();
        self.count.clock.next = self.clock.val();
        self.count.reset.next = self.reset.val();
        self.fetches.clock.next = self.clock.val();
        self.fetches.reset.next = self.reset.val();
        self.fetches.chan_reset.next = self.chan_reset.val();

        // The completion beats, into the banks and the channels' descriptors.
        TlpSink::link(&mut self.cpl, &mut self.intake.cpl);
        self.bank_we.next = self.intake.bank_we.val();
        for b in 0..4 {
            self.bank_addr[b].next = self.intake.bank_addr[b].val();
            self.bank_data[b].next = self.intake.bank_data[b].val();
        }
        self.desc_dw_we.next = self.intake.desc_dw_we.val();
        self.desc_dw_lanes.next = self.intake.desc_dw_lanes.val();
        self.desc_data.next = self.intake.desc_data.val();
        self.desc_chans.next = self.intake.desc_chans.val();
        self.desc_done.next = self.fetches.done.val();
        self.cpl_error.next = self.intake.cpl_error.val();
        self.cpl_seen.next = self.intake.cpl_seen.val();
        self.cpl_unexpected.next = self.intake.cpl_unexpected.val();

        // The read a header names, as the table and the counts say now: last cycle's
        // completion's count is written now and read as if written last cycle.
        self.tags.lookup_tag.next = self.intake.tag.val();
        self.intake.lookup_end.next = self.tags.lookup_end.val();
        self.intake.lookup_len.next = self.tags.lookup_len.val();
        self.intake.lookup_rem.next = self.tags.lookup_rem.val();
        self.intake.pending.next = self.count.pending.val();
        self.intake.pending_key.next = self.count.pending_key.val();
        self.intake.pending_rem.next = self.count.value.val();
        for c in 0..C {
            self.intake.t_busy[c].next = self.order[c].busy.val();
            self.intake.d_rem[c].next = self.fetches.rem[c].val();
            self.intake.d_stored[c].next = self.fetches.stored[c].val();
        }
        self.intake.d_pending.next = self.fetches.pending.val();
        self.intake.d_pending_rem.next = self.fetches.pending_rem.val();
        self.intake.d_busy.next = self.fetches.busy.val();

        // What the completion leaves of its read's count, written next cycle.
        self.count.we.next = self.intake.count_data.val();
        self.count.key.next = self.intake.count_tag.val();
        CountWrite::join(&mut self.intake.count, &mut self.count.write);
        self.tags.dec.next = self.count.pending.val();
        self.tags.dec_tag.next = self.count.pending_key.val();
        self.tags.dec_rem.next = self.count.value.val();
        self.fetches.count_we.next = self.intake.count_desc.val();
        self.fetches.count_chan.next = self.intake.count_chan.val();
        CountWrite::join(&mut self.intake.count, &mut self.fetches.count_write);

        // Issue: record where the read's data goes.
        self.i_class.tag.next = self.issue_tag.val();
        self.tags.issue.next = self.issue_valid.val() && self.i_class.is_data.val();
        self.tags.issue_tag.next = self.issue_tag.val();
        self.tags.issue_end.next = self.issue_end.val();
        self.tags.issue_rem.next = self.issue_len_dw.val();
        self.fetches.issue.next = self.issue_valid.val() && self.i_class.is_desc.val();
        self.fetches.issue_chan.next = self.i_class.chan.val();
        self.fetches.issue_len_dw.next = self.issue_len_dw.val();

        // Retirement, oldest read first per channel (descriptor fetches finish alone).
        self.can_issue.next = 0.into();
        self.idle.next = 0.into();
        for c in 0..C {
            self.order[c].clock.next = self.clock.val();
            self.order[c].reset.next = self.reset.val();
            self.order[c].issue.next = self.issue_valid.val()
                && self.i_class.is_data.val()
                && (self.i_class.chan.val().index() == c);
            self.order[c].issue_index.next = self.i_class.index.val();
            self.avail[c].next = self.order[c].avail.val();
            self.issue_idx[c].next = self.order[c].next_index.val();
            // Channel c's oldest read has tag 8c + its index.
            self.tags.retire_idx[c].next = self.order[c].oldest.val();
            self.done[c].next = self.tags.rem_zero[c].val();
            if self.count.pending.val()
                && (self.count.pending_key.val().get_bits::<5>(3).index() == c)
            {
                for k in 0..8 {
                    if self.count.pending_key.val().get_bits::<3>(0).index() == k {
                        self.done[c].next = self.done[c]
                            .val()
                            .replace_bit(k, self.count.value.val() == 0);
                    }
                }
            }
            self.order[c].done.next = self.done[c].val();
            self.order[c].retire_end.next = self.tags.retire_end[c].val();
            self.order[c].chan_reset.next = self.chan_reset.val().get_bit(c);
            if self.order[c].can_issue.val() {
                self.can_issue.next = self.can_issue.val().replace_bit(c, true);
            }
            if self.order[c].none_outstanding.val() && !self.fetches.busy.val().get_bit(c) {
                self.idle.next = self.idle.val().replace_bit(c, true);
            }
        }
    }
}
