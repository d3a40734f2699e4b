//! Completion beats into place, one per cycle, the header beat included: the header
//! checked against the read its tag names (`cpl_header`), its fields held for its
//! payload beats (`cpl_progress`), each beat's lanes into the reorder buffer's banks or
//! the channel's descriptor (`cpl_lanes`), and what the completion leaves of its read's
//! count.
//!
//! A beat's lanes are written a cycle after it is taken: the beat and what its header
//! found are registered (`l_*`, and the fields `cpl_progress` holds for the payload
//! beats anyway) between the header's checks and the lanes' placement, which would not
//! fit one cycle together. The count (the DWs still to come after the completion's last
//! beat, or 0 when it failed) goes out on `count_*` in the cycle of its last beat (of its
//! header when it failed), and the reassembly stage writes it a cycle later, so a read's
//! last DWs are in the banks before it can retire. (A good header with payload beats
//! after it writes the count unchanged, so that whether to write does not wait for the
//! checks.) A completion with an error status, the poison bit, no data, or a byte count
//! / length that does not fit its read fails its channel (`cpl_error`, a cycle after the
//! header, from a register: the header's checks are the DMA's deepest logic). A
//! completion for a tag that is not outstanding is counted as unexpected and dropped.

use super::cpl_header::CplHeader;
use super::cpl_lanes::CplLanes;
use super::cpl_progress::CplProgress;
use super::payload_lanes::PayloadLanes;
use super::pending_count::CountWrite;
use crate::stream::TlpSink;
use rust_hdl::prelude::*;

/// The completion intake of `C` channels (`CB` bits of channel number).
#[derive(LogicBlock)]
pub struct CplIntake<const C: usize, const CB: usize> {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Upstream: completions addressed to the DMA's tags (always taken).
    pub cpl: TlpSink,
    /// The input beat's tag field, where the tag table is read.
    pub tag: Signal<Out, Bits<8>>,
    /// The table's entry there: the read's end ring position (one past its last DW).
    pub lookup_end: Signal<In, Bits<16>>,
    /// Its length in DWs.
    pub lookup_len: Signal<In, Bits<8>>,
    /// Its DWs still to come, as the table holds them.
    pub lookup_rem: Signal<In, Bits<8>>,
    /// A data read's count write lands this cycle (readers see it as written).
    pub pending: Signal<In, Bit>,
    /// Its tag.
    pub pending_key: Signal<In, Bits<8>>,
    /// Its count.
    pub pending_rem: Signal<In, Bits<8>>,
    /// Per channel: its outstanding data tags (bit k: tag `8c + k`).
    pub t_busy: [Signal<In, Bits<8>>; C],
    /// Per channel: its descriptor fetch's DWs still to come (with a pending write's).
    pub d_rem: [Signal<In, Bits<8>>; C],
    /// ... as the fetches' registers hold them (the header's checks take a pending
    /// write's count on their own, at the end of the checks).
    pub d_stored: [Signal<In, Bits<8>>; C],
    /// Per channel: a fetch count write lands this cycle.
    pub d_pending: Signal<In, Bits<C>>,
    /// Its count.
    pub d_pending_rem: Signal<In, Bits<8>>,
    /// Per channel: a descriptor fetch is outstanding.
    pub d_busy: Signal<In, Bits<C>>,
    /// Write a data read's count (its tag's) next cycle: a completion's header (the
    /// count unchanged if payload beats follow), or its last payload beat.
    pub count_data: Signal<Out, Bit>,
    /// Write a descriptor fetch's count (its channel's) next cycle.
    pub count_desc: Signal<Out, Bit>,
    /// The data read's tag.
    pub count_tag: Signal<Out, Bits<8>>,
    /// The read's channel.
    pub count_chan: Signal<Out, Bits<CB>>,
    /// The count to write (either read's).
    pub count: CountWrite,
    /// Per channel pulse: a completion failed (the cycle after its header).
    pub cpl_error: Signal<Out, Bits<C>>,
    /// Per channel pulse: a completion arrived (timeout restart).
    pub cpl_seen: Signal<Out, Bits<C>>,
    /// Pulse: a completion matched no outstanding read.
    pub cpl_unexpected: Signal<Out, Bit>,
    /// Per bank: write the reorder buffer (a cycle after the beat).
    pub bank_we: Signal<Out, Bits<4>>,
    /// Per bank: row.
    pub bank_addr: [Signal<Out, Bits<10>>; 4],
    /// Per bank: data.
    pub bank_data: [Signal<Out, Bits<32>>; 4],
    /// Per DW k of a fetched descriptor: it is on `desc_data` (two cycles after its beat).
    pub desc_dw_we: Signal<Out, Bits<8>>,
    /// Per DW k of a fetched descriptor: the lane of `desc_data` that carries it, in bits
    /// 2k+1..2k.
    pub desc_dw_lanes: Signal<Out, Bits<16>>,
    /// The beat's lanes (wire order).
    pub desc_data: Signal<Out, Bits<128>>,
    /// One-hot: the channel whose descriptor fetch the DWs belong to (decoded here, a
    /// cycle early, so a channel's write enable is one AND, not a tag comparison).
    pub desc_chans: Signal<Out, Bits<C>>,
    /// The beat on the input as a header, against the read its tag names.
    header: CplHeader<C, CB>,
    /// The completion the beat belongs to: from its header, or held for its payload.
    progress: CplProgress<C, CB>,
    /// Per channel: the completion whose header was taken last cycle failed.
    err: DFF<Bits<C>>,
    /// Which of the beat's lanes carry payload.
    beat_payload: PayloadLanes,
    /// The header taken this cycle names an outstanding read and fails.
    fail: Signal<Local, Bit>,
    /// Per channel: the header taken this cycle fails.
    err_now: Signal<Local, Bits<C>>,
    // The beat taken last cycle, for the lanes' placement this cycle (its completion's
    // other fields are `progress`'s registers, which hold them from the cycle after its
    // header on):
    /// A beat was taken.
    l_take: DFF<Bit>,
    /// Its completion passed the checks (a header beat without SOP leaves `progress`'s
    /// registers as they were, so they would not say).
    l_ok: DFF<Bit>,
    /// Per lane: it carries a payload DW.
    l_payload: DFF<Bits<4>>,
    /// Ring position of its lane 0.
    l_pos: DFF<Bits<16>>,
    /// Its lanes.
    l_data: DFF<Bits<128>>,
    /// The beat's lanes into the reorder buffer or the channel's descriptor.
    lanes: CplLanes<C, CB>,
    // A descriptor's DWs leave through one more register: the lanes' placement and the
    // channel's choice of the descriptor field would not fit one cycle together. The
    // channel still has the whole descriptor when it acts on `desc_done`.
    /// `desc_dw_we`, registered.
    d_dw_we: DFF<Bits<8>>,
    /// `desc_dw_lanes`, registered.
    d_dw_lanes: DFF<Bits<16>>,
    /// `desc_data`, registered.
    d_data: DFF<Bits<128>>,
    /// `desc_chans`, registered.
    d_chans: DFF<Bits<C>>,
    /// The channel of the completion in progress, one-hot.
    chan_hot: Signal<Local, Bits<C>>,
}

impl<const C: usize, const CB: usize> CplIntake<C, CB> {
    /// Waiting for a header; panics on a channel count without a tag or ring layout.
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cpl: Default::default(),
            tag: Default::default(),
            lookup_end: Default::default(),
            lookup_len: Default::default(),
            lookup_rem: Default::default(),
            pending: Default::default(),
            pending_key: Default::default(),
            pending_rem: Default::default(),
            t_busy: array_init::array_init(|_| Default::default()),
            d_rem: array_init::array_init(|_| Default::default()),
            d_stored: array_init::array_init(|_| Default::default()),
            d_pending: Default::default(),
            d_pending_rem: Default::default(),
            d_busy: Default::default(),
            count_data: Default::default(),
            count_desc: Default::default(),
            count_tag: Default::default(),
            count_chan: Default::default(),
            count: Default::default(),
            cpl_error: Default::default(),
            cpl_seen: Default::default(),
            cpl_unexpected: Default::default(),
            bank_we: Default::default(),
            bank_addr: Default::default(),
            bank_data: Default::default(),
            desc_dw_we: Default::default(),
            desc_dw_lanes: Default::default(),
            desc_data: Default::default(),
            desc_chans: Default::default(),
            header: CplHeader::new(),
            progress: CplProgress::new(),
            err: Default::default(),
            beat_payload: Default::default(),
            fail: Default::default(),
            err_now: Default::default(),
            l_take: Default::default(),
            l_ok: Default::default(),
            l_payload: Default::default(),
            l_pos: Default::default(),
            l_data: Default::default(),
            lanes: CplLanes::new(),
            d_dw_we: Default::default(),
            d_dw_lanes: Default::default(),
            d_data: Default::default(),
            d_chans: Default::default(),
            chan_hot: Default::default(),
        }
    }
}

impl<const C: usize, const CB: usize> Default for CplIntake<C, CB> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const C: usize, const CB: usize> Logic for CplIntake<C, CB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, err, l_take, l_ok, l_payload, l_pos, l_data, d_dw_we, d_dw_lanes, d_data,
            d_chans
        );
        self.cpl.ready.next = true;

        // The beat on the input as a header. The table is read at its tag field whatever
        // the state: only a header beat's answer is used (payload beats count from what
        // `progress` holds), so the read address does not wait for the state.
        self.header.data.next = self.cpl.data.val();
        self.tag.next = self.header.tag.val();
        self.header.lookup_end.next = self.lookup_end.val();
        self.header.lookup_len.next = self.lookup_len.val();
        self.header.lookup_rem.next = self.lookup_rem.val();
        self.header.pending.next = self.pending.val();
        self.header.pending_key.next = self.pending_key.val();
        self.header.pending_rem.next = self.pending_rem.val();
        for c in 0..C {
            self.header.t_busy[c].next = self.t_busy[c].val();
            self.header.d_stored[c].next = self.d_stored[c].val();
        }
        self.header.d_pending.next = self.d_pending.val();
        self.header.d_pending_rem.next = self.d_pending_rem.val();
        self.header.d_busy.next = self.d_busy.val();

        // The completion in progress.
        self.progress.clock.next = self.clock.val();
        self.progress.reset.next = self.reset.val();
        self.progress.take.next = self.cpl.valid.val();
        self.progress.sop.next = self.cpl.sop.val();
        self.progress.eop.next = self.cpl.eop.val();
        self.progress.h_lane0.next = self.header.lane0.val();
        self.progress.h_len.next = self.header.len.val();
        self.progress.h_chan.next = self.header.chan.val();
        self.progress.h_desc.next = self.header.is_desc.val();
        self.progress.h_ok.next = self.header.ok.val();
        self.progress.h_tag.next = self.header.tag.val();
        self.progress.h_rem.next = self.header.rem.val();
        self.progress.h_rem_less.next = self.header.rem_less.val();
        for c in 0..C {
            self.progress.d_rem[c].next = self.d_rem[c].val();
        }

        // The header's verdict: seen, failed (the read counts as finished: its channel
        // stops on the error) or unexpected.
        self.fail.next = false;
        self.err_now.next = 0.into();
        self.cpl_seen.next = 0.into();
        self.cpl_unexpected.next = false;
        self.cpl_error.next = self.err.q.val();
        if self.progress.take_header.val() {
            if !self.header.known.val() {
                self.cpl_unexpected.next = true;
            } else {
                self.fail.next = !self.header.ok.val();
                for c in 0..C {
                    if self.header.chan.val().index() == c {
                        self.cpl_seen.next = self.cpl_seen.val().replace_bit(c, true);
                        if !self.header.ok.val() {
                            self.err_now.next = self.err_now.val().replace_bit(c, true);
                        }
                    }
                }
            }
        }
        // The count: every header of an outstanding read writes its read's count (to 0
        // if it failed; less its payload if it is also the last beat; unchanged, a write
        // of what the table holds, if payload beats follow), and a good completion's
        // last payload beat writes it less the payload. So whether to write waits only
        // for the tag's lookup, not for the checks (the DMA's deepest logic): they
        // decide only the clear, which `pending_count` keeps in a register of its own.
        self.count_data.next = (self.progress.last_ok.val() && !self.progress.r_desc.val())
            || (self.progress.take_header.val()
                && self.header.known.val()
                && !self.header.is_desc.val());
        self.count_desc.next = (self.progress.last_ok.val() && self.progress.r_desc.val())
            || (self.progress.take_header.val()
                && self.header.known.val()
                && self.header.is_desc.val());
        self.count.clear.next = self.fail.val();
        self.count_tag.next = self.progress.tag.val();
        self.count_chan.next = self.progress.chan.val();
        self.count.rem.next = self.progress.rem.val();
        self.count.less.next = self.progress.less.val();
        self.count.last.next = self.cpl.eop.val();

        // The beat, registered; last cycle's beat's lanes into place.
        self.l_take.d.next = self.cpl.valid.val();
        self.l_ok.d.next = self.progress.ok.val();
        self.beat_payload.bidx.next = self.progress.bidx.val();
        self.beat_payload.plen.next = self.progress.plen.val();
        self.l_payload.d.next = self.beat_payload.payload.val();
        self.l_pos.d.next = self.progress.lane0.val();
        self.l_data.d.next = self.cpl.data.val();
        self.lanes.take.next = self.l_take.q.val();
        self.lanes.ok.next = self.l_ok.q.val();
        self.lanes.desc.next = self.progress.r_desc.val();
        self.lanes.lane0_pos.next = self.l_pos.q.val();
        self.lanes.payload.next = self.l_payload.q.val();
        self.lanes.chan.next = self.progress.r_chan.val();
        self.lanes.data.next = self.l_data.q.val();
        self.bank_we.next = self.lanes.bank_we.val();
        for b in 0..4 {
            self.bank_addr[b].next = self.lanes.bank_addr[b].val();
            self.bank_data[b].next = self.lanes.bank_data[b].val();
        }
        self.chan_hot.next = 0.into();
        for c in 0..C {
            if self.progress.r_chan.val().index() == c {
                self.chan_hot.next = self.chan_hot.val().replace_bit(c, true);
            }
        }
        self.d_dw_we.d.next = self.lanes.desc_dw_we.val();
        self.d_chans.d.next = self.chan_hot.val();
        self.d_data.d.next = self.l_data.q.val();
        self.desc_dw_we.next = self.d_dw_we.q.val();
        self.desc_chans.next = self.d_chans.q.val();
        self.desc_data.next = self.d_data.q.val();
        self.d_dw_lanes.d.next = self.lanes.desc_dw_lanes.val();
        self.desc_dw_lanes.next = self.d_dw_lanes.q.val();

        self.err.d.next = self.err_now.val();
        if self.reset.val() {
            self.err.d.next = 0.into();
            self.l_take.d.next = false;
            self.d_dw_we.d.next = 0.into();
        }
    }
}
