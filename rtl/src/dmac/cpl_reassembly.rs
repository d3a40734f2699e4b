//! Read completions back into place: the tag table, the reorder buffer's write side, the
//! in-order retirement of each channel's reads, and the delivery of fetched descriptors.
//!
//! Tags: data reads use tags 0..31, channel c owning `8c..8c+7` in issue order (a ring per
//! channel); descriptor fetches use tag `0x20 + c`. Per data tag the table (`tag_table`)
//! holds the ring position of the read's first DW, of its end, and the DWs still to come;
//! the busy bits stay here.
//!
//! A completion may be split at any RCB and completions of different tags may arrive in
//! any order: the offset of a completion inside its read is `read length - byte count`,
//! so each payload DW goes straight to its ring position. The reorder buffer is four
//! banks of 32-bit block RAM (bank = ring position mod 4), so the four lanes of a beat
//! land in four different banks in the same cycle whatever the lane rotation. Beats are
//! taken one per cycle, the header beat included.
//!
//! Retirement: per channel, the oldest read whose DWs have all arrived retires and `avail`
//! (the ring position up to which data is complete) moves to its end, so writes can go
//! out in address order. A completion with an error status, the poison bit, no data, or
//! a byte count / length that does not fit its read fails the channel (`cpl_error`) and
//! its read counts as finished (the channel stops writing first). A completion for a tag
//! that is not outstanding is counted as unexpected and dropped.

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

/// The completion reassembly stage.
#[derive(LogicBlock, Default)]
pub struct CplReassembly {
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
    pub chan_reset: Signal<In, Bits<4>>,
    /// Per channel: ring position up to which data is complete.
    pub avail: [Signal<Out, Bits<16>>; 4],
    /// Per channel: tag index (0..7) of its next data read.
    pub issue_idx: [Signal<Out, Bits<3>>; 4],
    /// Per channel: a data tag is free.
    pub can_issue: Signal<Out, Bits<4>>,
    /// Per channel: no read outstanding (data or descriptor).
    pub idle: Signal<Out, Bits<4>>,
    /// Per channel pulse: a completion failed.
    pub cpl_error: Signal<Out, Bits<4>>,
    /// Per channel pulse: a completion arrived (timeout restart).
    pub cpl_seen: Signal<Out, Bits<4>>,
    /// Per channel pulse: the descriptor fetch finished.
    pub desc_done: Signal<Out, Bits<4>>,
    /// Per lane: a fetched descriptor DW is on `desc_data`.
    pub desc_we: Signal<Out, Bits<4>>,
    /// Per lane l: which DW of the descriptor (0..7), in bits 3l+2..3l.
    pub desc_idx: Signal<Out, Bits<12>>,
    /// The beat's lanes (wire order).
    pub desc_data: Signal<Out, Bits<128>>,
    /// The channel the descriptor DWs belong to.
    pub desc_chan: Signal<Out, Bits<2>>,
    /// Per bank: write the reorder buffer.
    pub bank_we: Signal<Out, Bits<4>>,
    /// Per bank: row (channel in 9:8, ring line in 7:0).
    pub bank_addr: [Signal<Out, Bits<10>>; 4],
    /// Per bank: data.
    pub bank_data: [Signal<Out, Bits<32>>; 4],
    /// Pulse: a completion matched no outstanding read.
    pub cpl_unexpected: Signal<Out, Bit>,
    /// Header or payload beats next.
    state: DFF<ReassemblyState>,
    /// Per data tag: ring start, ring end and DWs still to come (`tag_table`).
    tags: TagTable,
    /// Per data tag (32): a read is outstanding.
    t_busy: DFF<Bits<32>>,
    /// Per channel: DWs of its descriptor fetch still to come.
    d_rem: [DFF<Bits<8>>; 4],
    /// Per channel: a descriptor fetch is outstanding.
    d_busy: DFF<Bits<4>>,
    /// Per channel: data reads issued (mod 16); bits 2:0 name the next tag.
    ip: [DFF<Bits<4>>; 4],
    /// Per channel: data reads retired (mod 16); bits 2:0 name the oldest tag.
    rp: [DFF<Bits<4>>; 4],
    /// Per channel: ring position up to which data is complete (`avail`).
    avail_q: [DFF<Bits<16>>; 4],
    // The completion taken, registered at its header for the payload beats after it:
    /// Ring position of its first payload DW.
    r_base: DFF<Bits<16>>,
    /// Index of the next beat's lane 0 in the packet, in DWs (header DWs included).
    r_bidx: DFF<Bits<11>>,
    /// Payload DWs.
    r_plen: DFF<Bits<11>>,
    /// Channel.
    r_chan: DFF<Bits<2>>,
    /// A descriptor fetch's completion (not data).
    r_desc: DFF<Bit>,
    /// It passed the checks (its payload is written).
    r_ok: DFF<Bit>,
    /// Its tag.
    r_tag: DFF<Bits<5>>,
    // Header decode of the beat on the input.
    /// Length field, in DWs (0 means 1024).
    h_len: Signal<Local, Bits<11>>,
    /// Byte count in DWs: what the read still expects, this completion included.
    h_bc_dw: Signal<Local, Bits<16>>,
    /// Tag.
    h_tag: Signal<Local, Bits<8>>,
    /// A data tag (0..31).
    h_is_data: Signal<Local, Bit>,
    /// A descriptor-fetch tag (0x20 + c).
    h_is_desc: Signal<Local, Bit>,
    /// CplD, status SC, not poisoned, byte count a whole number of DWs.
    h_good_status: Signal<Local, Bit>,
    /// Channel of the tag.
    h_chan: Signal<Local, Bits<2>>,
    // What the tag's read expects (the table for data, `d_rem` for descriptors):
    /// Ring position of the read's first DW.
    lk_start: Signal<Local, Bits<16>>,
    /// Ring position one past its last DW.
    lk_end: Signal<Local, Bits<16>>,
    /// DWs still to come.
    lk_rem: Signal<Local, Bits<8>>,
    /// The read is outstanding.
    lk_busy: Signal<Local, Bit>,
    /// The busy bits shifted so that the header tag's is bit 0.
    busy_at_tag: Signal<Local, Bits<32>>,
    /// DWs of the whole read.
    lk_total: Signal<Local, Bits<16>>,
    /// The tag has a read outstanding.
    h_known: Signal<Local, Bit>,
    /// The completion fits its read and is good.
    h_ok: Signal<Local, Bit>,
    // The completion being taken (from the header beat, or the registers after it).
    /// See `r_base`.
    e_base: Signal<Local, Bits<16>>,
    /// See `r_bidx`.
    e_bidx: Signal<Local, Bits<11>>,
    /// See `r_plen`.
    e_plen: Signal<Local, Bits<11>>,
    /// See `r_chan`.
    e_chan: Signal<Local, Bits<2>>,
    /// See `r_desc`.
    e_desc: Signal<Local, Bit>,
    /// See `r_ok`.
    e_ok: Signal<Local, Bit>,
    /// See `r_tag`.
    e_tag: Signal<Local, Bits<5>>,
    /// A beat is taken this cycle.
    take: Signal<Local, Bit>,
    /// Ring position of this beat's lane 0 (payload DW `bidx - 3`).
    bq: Signal<Local, Bits<16>>,
    /// Per lane: its ring position.
    q: [Signal<Local, Bits<16>>; 4],
    /// Per lane: its DW index in the packet.
    t: [Signal<Local, Bits<11>>; 4],
    /// Per lane: its row in the reorder buffer's bank (channel, position / 4).
    row: [Signal<Local, Bits<10>>; 4],
    /// Per lane: it carries a payload DW to write.
    v: Signal<Local, Bits<4>>,
    /// Lane index one past the payload (header DWs included).
    plen_end: Signal<Local, Bits<11>>,
    /// Ring position one past the read being issued.
    issue_end: Signal<Local, Bits<16>>,
    /// DWs of the read being issued.
    issue_rem: Signal<Local, Bits<8>>,
    /// `t_busy` for the next cycle.
    busy_n: Signal<Local, Bits<32>>,
    /// Per channel: data reads outstanding (issued minus retired, mod 16).
    outstanding: [Signal<Local, Bits<4>>; 4],
    /// `d_busy` for the next cycle.
    dbusy_n: Signal<Local, Bits<4>>,
}

impl Logic for CplReassembly {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, t_busy, d_busy, r_base, r_bidx, r_plen, r_chan, r_desc, r_ok, r_tag
        );
        self.tags.clock.next = self.clock.val();
        for c in 0..4 {
            self.d_rem[c].clock.next = self.clock.val();
            self.d_rem[c].d.next = self.d_rem[c].q.val();
            self.ip[c].clock.next = self.clock.val();
            self.ip[c].d.next = self.ip[c].q.val();
            self.rp[c].clock.next = self.clock.val();
            self.rp[c].d.next = self.rp[c].q.val();
            self.avail_q[c].clock.next = self.clock.val();
            self.avail_q[c].d.next = self.avail_q[c].q.val();
            self.avail[c].next = self.avail_q[c].q.val();
            self.issue_idx[c].next = self.ip[c].q.val().get_bits::<3>(0);
        }

        // Header fields of the beat on the input (a CplD's 3-DW header).
        self.h_len.next = bit_cast::<11, 10>(self.cpl.data.val().get_bits::<10>(0));
        self.h_bc_dw.next = bit_cast::<16, 10>(self.cpl.data.val().get_bits::<10>(34));
        self.h_tag.next = self.cpl.data.val().get_bits::<8>(72);
        self.h_is_data.next = self.h_tag.val().get_bits::<3>(5) == 0;
        self.h_is_desc.next = self.h_tag.val().get_bits::<6>(2) == 8;
        // CplD (fmt 010, type 01010), status SC, not poisoned, byte count a whole DW count.
        self.h_good_status.next = (self.cpl.data.val().get_bits::<8>(24) == 0x4A)
            && (self.cpl.data.val().get_bits::<3>(45) == 0)
            && !self.cpl.data.val().get_bit(14)
            && (self.cpl.data.val().get_bits::<2>(32) == 0);
        self.h_chan.next = self.h_tag.val().get_bits::<2>(3);
        // The table is read at the tag of the completion being taken: the header's,
        // or the registered one while its payload beats follow.
        self.tags.lookup_tag.next = self.r_tag.q.val();
        if self.state.q.val() == ReassemblyState::Header {
            self.tags.lookup_tag.next = self.h_tag.val().get_bits::<5>(0);
        }
        self.busy_at_tag.next =
            self.t_busy.q.val() >> bit_cast::<32, 5>(self.h_tag.val().get_bits::<5>(0));
        self.lk_start.next = 0.into();
        self.lk_end.next = 8.into();
        self.lk_rem.next = 0.into();
        self.lk_busy.next = false;
        if self.h_is_data.val() {
            self.lk_start.next = self.tags.lookup_start.val();
            self.lk_end.next = self.tags.lookup_end.val();
            self.lk_rem.next = self.tags.lookup_rem.val();
            self.lk_busy.next = self.busy_at_tag.val().get_bit(0);
        }
        if self.h_is_desc.val() {
            self.h_chan.next = self.h_tag.val().get_bits::<2>(0);
            for c in 0..4 {
                if self.h_tag.val().get_bits::<2>(0).index() == c {
                    self.lk_rem.next = self.d_rem[c].q.val();
                    self.lk_busy.next = self.d_busy.q.val().get_bit(c);
                }
            }
        }
        self.lk_total.next = self.lk_end.val() - self.lk_start.val();
        // Completions reach here only with the DMA's tag range; an idle tag is unexpected.
        self.h_known.next = (self.h_is_data.val() || self.h_is_desc.val()) && self.lk_busy.val();
        self.h_ok.next = self.h_known.val()
            && self.h_good_status.val()
            && (self.h_len.val() != 0)
            && (self.h_bc_dw.val() != 0)
            && (self.h_bc_dw.val() <= self.lk_total.val())
            && (bit_cast::<16, 11>(self.h_len.val()) <= self.h_bc_dw.val())
            && (self.h_len.val() <= bit_cast::<11, 8>(self.lk_rem.val()));

        // The completion in progress.
        self.e_base.next = self.r_base.q.val();
        self.e_bidx.next = self.r_bidx.q.val();
        self.e_plen.next = self.r_plen.q.val();
        self.e_chan.next = self.r_chan.q.val();
        self.e_desc.next = self.r_desc.q.val();
        self.e_ok.next = self.r_ok.q.val();
        self.e_tag.next = self.r_tag.q.val();
        if self.state.q.val() == ReassemblyState::Header {
            self.e_base.next = self.lk_start.val() + (self.lk_total.val() - self.h_bc_dw.val());
            self.e_bidx.next = 0.into();
            self.e_plen.next = self.h_len.val();
            self.e_chan.next = self.h_chan.val();
            self.e_desc.next = self.h_is_desc.val();
            self.e_ok.next = self.h_ok.val() && self.cpl.sop.val();
            self.e_tag.next = self.h_tag.val().get_bits::<5>(0);
        }
        self.cpl.ready.next = true;
        self.take.next = self.cpl.valid.val();

        // Lane l of this beat is payload DW (bidx + l - 3) at ring position base + that.
        self.bq.next = self.e_base.val() + bit_cast::<16, 11>(self.e_bidx.val()) - 3;
        self.q[0].next = self.bq.val();
        self.q[1].next = self.bq.val() + 1;
        self.q[2].next = self.bq.val() + 2;
        self.q[3].next = self.bq.val() + 3;
        self.t[0].next = self.e_bidx.val();
        self.t[1].next = self.e_bidx.val() + 1;
        self.t[2].next = self.e_bidx.val() + 2;
        self.t[3].next = self.e_bidx.val() + 3;
        self.row[0].next = (bit_cast::<10, 2>(self.e_chan.val()) << 8)
            | bit_cast::<10, 8>(self.q[0].val().get_bits::<8>(2));
        self.row[1].next = (bit_cast::<10, 2>(self.e_chan.val()) << 8)
            | bit_cast::<10, 8>(self.q[1].val().get_bits::<8>(2));
        self.row[2].next = (bit_cast::<10, 2>(self.e_chan.val()) << 8)
            | bit_cast::<10, 8>(self.q[2].val().get_bits::<8>(2));
        self.row[3].next = (bit_cast::<10, 2>(self.e_chan.val()) << 8)
            | bit_cast::<10, 8>(self.q[3].val().get_bits::<8>(2));
        self.plen_end.next = self.e_plen.val() + 3;
        self.v.next = 0.into();
        for l in 0..4 {
            if self.take.val()
                && self.e_ok.val()
                && (self.t[l].val() >= 3)
                && (self.t[l].val() < self.plen_end.val())
            {
                self.v.next = self.v.val().replace_bit(l, true);
            }
        }
        self.bank_we.next = 0.into();
        self.desc_we.next = 0.into();
        self.desc_chan.next = self.e_chan.val();
        self.desc_data.next = self.cpl.data.val();
        self.desc_idx.next = bit_cast::<12, 3>(self.q[0].val().get_bits::<3>(0))
            | (bit_cast::<12, 3>(self.q[1].val().get_bits::<3>(0)) << 3)
            | (bit_cast::<12, 3>(self.q[2].val().get_bits::<3>(0)) << 6)
            | (bit_cast::<12, 3>(self.q[3].val().get_bits::<3>(0)) << 9);
        for b in 0..4 {
            self.bank_addr[b].next = self.row[b].val();
            self.bank_data[b].next = self.cpl.data.val().get_bits::<32>(32 * b);
            for l in 0..4 {
                if self.v.val().get_bit(l) && (self.q[l].val().get_bits::<2>(0).index() == b) {
                    self.bank_addr[b].next = self.row[l].val();
                    self.bank_data[b].next = self.cpl.data.val().get_bits::<32>(32 * l);
                }
            }
        }
        if self.e_desc.val() {
            self.desc_we.next = self.v.val();
        } else {
            for b in 0..4 {
                for l in 0..4 {
                    if self.v.val().get_bit(l) && (self.q[l].val().get_bits::<2>(0).index() == b) {
                        self.bank_we.next = self.bank_we.val().replace_bit(b, true);
                    }
                }
            }
        }

        // Header: account for the completion; payload beats follow in Data.
        self.tags.clear.next = false;
        self.tags.clear_tag.next = self.h_tag.val().get_bits::<5>(0);
        self.tags.dec.next = false;
        self.tags.dec_tag.next = self.e_tag.val();
        self.tags.dec_rem.next = self.tags.lookup_rem.val() - self.e_plen.val().get_bits::<8>(0);
        self.cpl_error.next = 0.into();
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
            if !self.cpl.eop.val() {
                self.state.d.next = ReassemblyState::Data;
            }
            if !self.h_known.val() {
                self.cpl_unexpected.next = true;
            } else {
                for c in 0..4 {
                    if self.h_chan.val().index() == c {
                        self.cpl_seen.next = self.cpl_seen.val().replace_bit(c, true);
                        if !self.h_ok.val() {
                            self.cpl_error.next = self.cpl_error.val().replace_bit(c, true);
                        }
                    }
                }
                if !self.h_ok.val() {
                    // The read counts as finished: its channel stops on the error.
                    self.tags.clear.next = self.h_is_data.val();
                    for c in 0..4 {
                        if self.h_is_desc.val() && (self.h_tag.val().get_bits::<2>(0).index() == c)
                        {
                            self.d_rem[c].d.next = 0.into();
                        }
                    }
                }
            }
        }
        if (self.state.q.val() == ReassemblyState::Data) && self.take.val() && self.cpl.eop.val() {
            self.state.d.next = ReassemblyState::Header;
        }
        // The last beat: the DWs are in place, count them.
        if self.take.val() && self.cpl.eop.val() && self.e_ok.val() {
            self.tags.dec.next = !self.e_desc.val();
            for c in 0..4 {
                if self.e_desc.val() && (self.e_tag.val().get_bits::<2>(0).index() == c) {
                    self.d_rem[c].d.next =
                        self.d_rem[c].q.val() - self.e_plen.val().get_bits::<8>(0);
                }
            }
        }

        // Issue: record where the read's data goes.
        self.issue_end.next = self.issue_pos.val() + bit_cast::<16, 8>(self.issue_len_dw.val());
        self.issue_rem.next = self.issue_len_dw.val();
        self.tags.issue.next =
            self.issue_valid.val() && (self.issue_tag.val().get_bits::<3>(5) == 0);
        self.tags.issue_tag.next = self.issue_tag.val().get_bits::<5>(0);
        self.tags.issue_start.next = self.issue_pos.val();
        self.tags.issue_end.next = self.issue_end.val();
        self.tags.issue_rem.next = self.issue_rem.val();
        if self.issue_valid.val() && (self.issue_tag.val().get_bits::<3>(5) == 0) {
            for c in 0..4 {
                if self.issue_tag.val().get_bits::<2>(3).index() == c {
                    self.ip[c].d.next = self.ip[c].q.val() + 1;
                }
            }
        }
        self.busy_n.next = self.t_busy.q.val();
        if self.issue_valid.val() && (self.issue_tag.val().get_bits::<3>(5) == 0) {
            for i in 0..32 {
                if self.issue_tag.val().get_bits::<5>(0).index() == i {
                    self.busy_n.next = self.busy_n.val().replace_bit(i, true);
                }
            }
        }
        self.dbusy_n.next = self.d_busy.q.val();
        for c in 0..4 {
            if self.issue_valid.val()
                && (self.issue_tag.val().get_bits::<6>(2) == 8)
                && (self.issue_tag.val().get_bits::<2>(0).index() == c)
            {
                self.dbusy_n.next = self.dbusy_n.val().replace_bit(c, true);
                self.d_rem[c].d.next = self.issue_len_dw.val();
            }
        }

        // Retirement, oldest read first per channel; descriptor fetches finish alone.
        self.desc_done.next = 0.into();
        self.can_issue.next = 0.into();
        self.idle.next = 0.into();
        // Channel c's oldest read has tag 8c + rp[c] (mod 8).
        self.tags.retire_tag[0].next = bit_cast::<5, 3>(self.rp[0].q.val().get_bits::<3>(0));
        self.tags.retire_tag[1].next = 8 | bit_cast::<5, 3>(self.rp[1].q.val().get_bits::<3>(0));
        self.tags.retire_tag[2].next = 16 | bit_cast::<5, 3>(self.rp[2].q.val().get_bits::<3>(0));
        self.tags.retire_tag[3].next = 24 | bit_cast::<5, 3>(self.rp[3].q.val().get_bits::<3>(0));
        for c in 0..4 {
            for k in 0..8 {
                if (self.rp[c].q.val().get_bits::<3>(0).index() == k)
                    && (self.rp[c].q.val() != self.ip[c].q.val())
                    && self.t_busy.q.val().get_bit(8 * c + k)
                    && (self.tags.retire_rem[c].val() == 0)
                {
                    self.avail_q[c].d.next = self.tags.retire_end[c].val();
                    self.rp[c].d.next = self.rp[c].q.val() + 1;
                    self.busy_n.next = self.busy_n.val().replace_bit(8 * c + k, false);
                }
            }
            if self.d_busy.q.val().get_bit(c) && (self.d_rem[c].q.val() == 0) {
                self.desc_done.next = self.desc_done.val().replace_bit(c, true);
                self.dbusy_n.next = self.dbusy_n.val().replace_bit(c, false);
            }
            // The difference is taken in 4 bits first: inside the comparison, Verilog would
            // widen the counters to the literal's 32 bits and never see 8 after a wrap.
            self.outstanding[c].next = self.ip[c].q.val() - self.rp[c].q.val();
            if self.outstanding[c].val() != 8 {
                self.can_issue.next = self.can_issue.val().replace_bit(c, true);
            }
            if (self.ip[c].q.val() == self.rp[c].q.val()) && !self.d_busy.q.val().get_bit(c) {
                self.idle.next = self.idle.val().replace_bit(c, true);
            }
            if self.chan_reset.val().get_bit(c) {
                self.rp[c].d.next = self.ip[c].q.val();
                self.dbusy_n.next = self.dbusy_n.val().replace_bit(c, false);
                for k in 0..8 {
                    self.busy_n.next = self.busy_n.val().replace_bit(8 * c + k, false);
                }
            }
        }

        self.t_busy.d.next = self.busy_n.val();
        self.d_busy.d.next = self.dbusy_n.val();
        if self.reset.val() {
            self.state.d.next = ReassemblyState::Header;
            self.t_busy.d.next = 0.into();
            self.d_busy.d.next = 0.into();
            for c in 0..4 {
                self.ip[c].d.next = 0.into();
                self.rp[c].d.next = 0.into();
                self.avail_q[c].d.next = 0.into();
            }
        }
    }
}
