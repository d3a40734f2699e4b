//! The internal completer: CSR accesses from TLPs, and UR/CA completions.
//!
//! One request at a time; `super::req_decode` says what each is and where in BAR0 it
//! lands, `super::cpl_fields` makes the answer's header and `super::cpl_beats` its beats.
//! A write is applied DW by DW as its payload lanes arrive (byte enables from the
//! header). A read of 1 to 4 DWs is answered
//! with one CplD, a longer one with Completer Abort; a request the RX stage marked
//! `unsupported`, and a locked read, is consumed and answered with UR (a CplLk for the
//! locked read). Completions that reach here match no request of the chip's (the DMA's are
//! taken off before, by `super::mux`) and are counted. A read takes two cycles per DW: the
//! notification store's block RAM answers a cycle after the address.

use super::cpl_beats::CplBeats;
use super::cpl_fields::CplFields;
use super::req_decode::{ReqDecode, RequestKind};
use crate::csr::bus::CsrBus;
use crate::csr::byte_mask::ByteMask;
use crate::stream::{TlpSink, TlpSource};
use rust_hdl::prelude::*;

/// Completer state.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum CompleterState {
    /// Waiting for a request.
    Idle,
    /// Applying a CSR write's payload, lane by lane.
    Write,
    /// Reading CSRs into the completion's data.
    Read,
    /// Consuming the rest of a packet, then answering if `respond` is set.
    Drain,
    /// Sending the completion's first beat.
    Respond,
    /// Sending the completion's second beat (reads of 2..4 DWs).
    Respond2,
}

// Completion status codes (PCIe Base Spec 3.0, 2.2.9) appear as literals below (rust-hdl
// prints named constants by name): SC = 0, UR = 1, CA = 4.

/// The internal completer.
#[derive(LogicBlock)]
pub struct InternalCompleter {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Upstream: TLPs the crossbar delivers to the chip.
    pub from_xbar: TlpSink,
    /// Downstream: completions into the crossbar, `dest` = the requester's port.
    pub to_xbar: TlpSource,
    /// Completer id (the N port's bus/device/function).
    pub completer_id: Signal<In, Bits<16>>,
    /// BAR0 accesses to the chip's registers and memories.
    pub csr: CsrBus,
    /// Pulse: a UR completion left for port `status_port`.
    pub ur_sent: Signal<Out, Bit>,
    /// Pulse: a completion matched no request.
    pub cpl_unexpected: Signal<Out, Bit>,
    /// Pulse: a request was dropped here (from port `status_port`).
    pub dropped: Signal<Out, Bit>,
    /// Port the pulses above refer to.
    pub status_port: Signal<Out, Bits<3>>,
    /// What the completer is doing with the current request.
    state: DFF<CompleterState>,
    /// The request's header DW 0 (fmt, type, length), latched at its first beat.
    h0: DFF<Bits<32>>,
    /// Its header DW 1 (requester id, tag, byte enables).
    h1: DFF<Bits<32>>,
    /// The crossbar port it came from (where the answer goes).
    src: DFF<Bits<3>>,
    /// The answer's completion status (SC 0, UR 1, CA 4).
    status: DFF<Bits<3>>,
    /// The request is answered once its last beat is consumed.
    respond: DFF<Bit>,
    /// The input beat's lane that holds the next payload DW (4: the next beat).
    lane: DFF<Bits<3>>,
    /// BAR0 DW address of the next DW written (of the first DW read).
    dw_addr: DFF<Bits<14>>,
    /// DWs still to write; DWs to read.
    dws_left: DFF<Bits<11>>,
    /// The next DW written is the first (its byte enables are `first_be`).
    first: DFF<Bit>,
    /// The DW being read (0..3).
    rd_index: DFF<Bits<3>>,
    /// The read address has been held a cycle: the DW is on `csr_rd_data`.
    rd_wait: DFF<Bit>,
    /// The DWs read, in wire byte order.
    rd_data: [DFF<Bits<32>>; 4],
    /// The beat on the input, as a request's header (meaningful on `sop`).
    req: ReqDecode,
    /// DWs read once the current one is taken.
    rd_count: Signal<Local, Bits<11>>,
    /// `csr.wr_be` as a bit mask.
    be_mask: ByteMask,
    /// The payload DW in lane `lane` of the input beat.
    lane_data: Signal<Local, Bits<32>>,
    /// That DW as a register value (byte 0 in bits 7:0).
    lane_value: Signal<Local, Bits<32>>,
    /// The DW read, in wire byte order.
    rd_lane: Signal<Local, Bits<32>>,
    /// The latched request's length field.
    length: Signal<Local, Bits<10>>,
    /// Its first DW's byte enables.
    first_be: Signal<Local, Bits<4>>,
    /// Its last DW's byte enables.
    last_be: Signal<Local, Bits<4>>,
    /// The answer's header, from the latched request.
    fields: CplFields,
    /// The answer's beats.
    beats: CplBeats,
}

impl Default for InternalCompleter {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            from_xbar: Default::default(),
            to_xbar: Default::default(),
            completer_id: Default::default(),
            csr: Default::default(),
            ur_sent: Default::default(),
            cpl_unexpected: Default::default(),
            dropped: Default::default(),
            status_port: Default::default(),
            state: Default::default(),
            h0: Default::default(),
            h1: Default::default(),
            src: Default::default(),
            status: Default::default(),
            respond: Default::default(),
            lane: Default::default(),
            dw_addr: Default::default(),
            dws_left: Default::default(),
            first: Default::default(),
            rd_index: Default::default(),
            rd_wait: Default::default(),
            rd_data: array_init::array_init(|_| Default::default()),
            req: Default::default(),
            rd_count: Default::default(),
            be_mask: Default::default(),
            lane_data: Default::default(),
            lane_value: Default::default(),
            rd_lane: Default::default(),
            length: Default::default(),
            first_be: Default::default(),
            last_be: Default::default(),
            fields: Default::default(),
            beats: Default::default(),
        }
    }
}

impl Logic for InternalCompleter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, h0, h1, src, status, respond, lane, dw_addr, dws_left, first,
            rd_index, rd_wait
        );
        self.rd_count.next = bit_cast::<11, 3>(self.rd_index.q.val()) + 1;
        for k in 0..4 {
            self.rd_data[k].clock.next = self.clock.val();
            self.rd_data[k].d.next = self.rd_data[k].q.val();
        }

        self.req.data.next = self.from_xbar.data.val();
        self.req.unsupported.next = self.from_xbar.unsupported.val();
        self.lane_data.next = 0.into();
        for k in 0..4 {
            if self.lane.q.val().index() == k {
                self.lane_data.next = self.from_xbar.data.val().get_bits::<32>(32 * k);
            }
        }

        // Register byte k travels as wire byte k (PCIe byte order): lane and value are
        // byte-swapped.
        self.lane_value.next = (bit_cast::<32, 8>(self.lane_data.val().get_bits::<8>(0)) << 24)
            | (bit_cast::<32, 8>(self.lane_data.val().get_bits::<8>(8)) << 16)
            | (bit_cast::<32, 8>(self.lane_data.val().get_bits::<8>(16)) << 8)
            | bit_cast::<32, 8>(self.lane_data.val().get_bits::<8>(24));
        self.rd_lane.next = (bit_cast::<32, 8>(self.csr.rd_data.val().get_bits::<8>(0)) << 24)
            | (bit_cast::<32, 8>(self.csr.rd_data.val().get_bits::<8>(8)) << 16)
            | (bit_cast::<32, 8>(self.csr.rd_data.val().get_bits::<8>(16)) << 8)
            | bit_cast::<32, 8>(self.csr.rd_data.val().get_bits::<8>(24));

        // Completion header from the latched request.
        self.length.next = self.h0.q.val().get_bits::<10>(0);
        self.first_be.next = self.h1.q.val().get_bits::<4>(0);
        self.last_be.next = self.h1.q.val().get_bits::<4>(4);
        self.fields.req_dw0.next = self.h0.q.val();
        self.fields.req_dw1.next = self.h1.q.val();
        self.fields.addr_dw.next = self.dw_addr.q.val().get_bits::<5>(0);
        self.fields.status.next = self.status.q.val();
        self.fields.completer_id.next = self.completer_id.val();
        self.beats.hdr_dw0.next = self.fields.dw0.val();
        self.beats.hdr_dw1.next = self.fields.dw1.val();
        self.beats.hdr_dw2.next = self.fields.dw2.val();
        self.beats.status.next = self.status.q.val();
        self.beats.length.next = self.length.val();
        for k in 0..4 {
            self.beats.rd_data[k].next = self.rd_data[k].q.val();
        }

        // Defaults.
        self.from_xbar.ready.next = false;
        self.to_xbar.valid.next = false;
        self.to_xbar.data.next = 0.into();
        self.to_xbar.sop.next = false;
        self.to_xbar.eop.next = false;
        self.to_xbar.empty.next = 0.into();
        self.to_xbar.dest.next = self.src.q.val();
        self.to_xbar.src.next = 4.into();
        self.to_xbar.unsupported.next = false;
        self.csr.wr_en.next = false;
        self.csr.wr_addr.next = self.dw_addr.q.val();
        self.csr.wr_data.next = self.lane_value.val();
        self.csr.wr_be.next = 0xF.into();
        self.csr.rd_addr.next = self.dw_addr.q.val() + bit_cast::<14, 3>(self.rd_index.q.val());
        self.ur_sent.next = false;
        self.cpl_unexpected.next = false;
        self.dropped.next = false;
        self.status_port.next = self.src.q.val();

        match self.state.q.val() {
            CompleterState::Idle => {
                if self.from_xbar.valid.val() && self.from_xbar.sop.val() {
                    self.h0.d.next = self.from_xbar.data.val().get_bits::<32>(0);
                    self.h1.d.next = self.from_xbar.data.val().get_bits::<32>(32);
                    self.src.d.next = self.from_xbar.src.val();
                    self.dw_addr.d.next = self.req.dw_addr.val();
                    self.dws_left.d.next = self.req.len.val();
                    self.first.d.next = true;
                    self.rd_index.d.next = 0.into();
                    self.respond.d.next = false;
                    self.status.d.next = 1.into();
                    // Payload of a 3-DW header starts in lane 3; of a 4-DW one, in the next beat.
                    self.lane.d.next = 3.into();
                    if self.req.four_dw.val() {
                        self.lane.d.next = 4.into();
                    }
                    self.state.d.next = CompleterState::Drain;
                    match self.req.kind.val() {
                        RequestKind::Unsupported => {
                            self.respond.d.next = true;
                        }
                        RequestKind::Completion => {
                            self.cpl_unexpected.next = true;
                        }
                        RequestKind::Write => {
                            self.state.d.next = CompleterState::Write;
                            if self.req.outside.val() {
                                self.state.d.next = CompleterState::Drain;
                                self.dropped.next = true;
                                self.status_port.next = self.from_xbar.src.val();
                            }
                        }
                        RequestKind::Dropped => {
                            self.dropped.next = true;
                            self.status_port.next = self.from_xbar.src.val();
                        }
                        RequestKind::Read => {
                            // A read with more beats than its header is answered UR.
                            self.respond.d.next = true;
                            if self.from_xbar.eop.val() {
                                self.status.d.next = 0.into();
                                self.from_xbar.ready.next = true;
                                self.rd_wait.d.next = false;
                                self.state.d.next = CompleterState::Read;
                            }
                        }
                        RequestKind::LongRead => {
                            self.respond.d.next = true;
                            self.status.d.next = 4.into();
                        }
                    }
                } else if self.from_xbar.valid.val() {
                    // A beat outside a packet: consume it.
                    self.from_xbar.ready.next = true;
                }
            }
            CompleterState::Write => {
                if self.from_xbar.valid.val() {
                    if self.lane.q.val() == 4 {
                        self.from_xbar.ready.next = true;
                        self.lane.d.next = 0.into();
                        if self.from_xbar.eop.val() {
                            self.state.d.next = CompleterState::Idle;
                        }
                    } else {
                        self.csr.wr_en.next = true;
                        if self.first.q.val() {
                            self.csr.wr_be.next = self.first_be.val();
                        } else if self.dws_left.q.val() == 1 {
                            self.csr.wr_be.next = self.last_be.val();
                        }
                        self.first.d.next = false;
                        self.dw_addr.d.next = self.dw_addr.q.val() + 1;
                        self.dws_left.d.next = self.dws_left.q.val() - 1;
                        self.lane.d.next = self.lane.q.val() + 1;
                        if self.dws_left.q.val() == 1 {
                            self.from_xbar.ready.next = true;
                            self.state.d.next = CompleterState::Idle;
                            if !self.from_xbar.eop.val() {
                                self.state.d.next = CompleterState::Drain;
                            }
                        } else if self.lane.q.val() == 3 {
                            self.from_xbar.ready.next = true;
                            self.lane.d.next = 0.into();
                            if self.from_xbar.eop.val() {
                                // Fewer DWs than the header said: stop here.
                                self.state.d.next = CompleterState::Idle;
                            }
                        }
                    }
                }
            }
            CompleterState::Read => {
                self.rd_wait.d.next = !self.rd_wait.q.val();
                if self.rd_wait.q.val() {
                    for k in 0..4 {
                        if self.rd_index.q.val().index() == k {
                            self.rd_data[k].d.next = self.rd_lane.val();
                        }
                    }
                    self.rd_index.d.next = self.rd_index.q.val() + 1;
                    if self.rd_count.val() == self.dws_left.q.val() {
                        self.state.d.next = CompleterState::Respond;
                    }
                }
            }
            CompleterState::Drain => {
                self.from_xbar.ready.next = true;
                if self.from_xbar.valid.val() && self.from_xbar.eop.val() {
                    self.state.d.next = CompleterState::Idle;
                    if self.respond.q.val() {
                        self.state.d.next = CompleterState::Respond;
                    }
                }
            }
            CompleterState::Respond => {
                self.to_xbar.valid.next = true;
                self.to_xbar.sop.next = true;
                self.to_xbar.data.next = self.beats.first_data.val();
                self.to_xbar.eop.next = self.beats.first_eop.val();
                self.to_xbar.empty.next = self.beats.first_empty.val();
                if self.to_xbar.ready.val() {
                    self.ur_sent.next = self.status.q.val() == 1;
                    self.state.d.next = CompleterState::Idle;
                    if (self.status.q.val() == 0) && (self.length.val() != 1) {
                        self.state.d.next = CompleterState::Respond2;
                    }
                }
            }
            CompleterState::Respond2 => {
                self.to_xbar.valid.next = true;
                self.to_xbar.eop.next = true;
                self.to_xbar.empty.next = self.beats.second_empty.val();
                self.to_xbar.data.next = self.beats.second_data.val();
                if self.to_xbar.ready.val() {
                    self.state.d.next = CompleterState::Idle;
                }
            }
        }
        // The byte enables as a bit mask, for every target.
        self.be_mask.be.next = self.csr.wr_be.val();
        self.csr.wr_mask.next = self.be_mask.mask.val();
        if self.reset.val() {
            self.state.d.next = CompleterState::Idle;
        }
    }
}
