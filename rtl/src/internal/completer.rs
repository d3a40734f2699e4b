//! The internal completer: CSR accesses from TLPs, and UR/CA completions.
//!
//! One request at a time; `super::req_decode` says what each is and where in BAR0 it
//! lands, `super::req_plan` what the completer does first with it, `super::csr_write` applies a write's payload DW by DW as its lanes arrive,
//! `super::csr_read` reads a read's DWs, `super::cpl_send` sends the answer (its header
//! from `super::cpl_fields`, its beats from `super::cpl_beats`). A read of 1 to 4 DWs is
//! answered with one CplD, a longer one with Completer Abort; a request the RX stage
//! marked `unsupported`, and a locked read, is consumed and answered with UR (a CplLk for
//! the locked read). Completions that reach here match no request of the chip's (the
//! DMA's are taken off before, by `super::mux`) and are counted.

use super::cpl_send::CplSend;
use super::csr_read::CsrRead;
use super::csr_write::CsrWrite;
use super::req_decode::ReqDecode;
use super::req_plan::ReqPlan;
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
    /// Sending the completion (`CplSend`).
    Respond,
}

/// The internal completer.
#[derive(LogicBlock, Default)]
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
    /// Pulse: a request was dropped here (from port `status_port`), the cycle after its
    /// header.
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
    /// The request's BAR0 DW address.
    dw_addr: DFF<Bits<14>>,
    /// The request was dropped: `dropped` leaves from a register, so the port counters
    /// behind it do not wait on the request's decode (`src` holds its port by then).
    drop_q: DFF<Bit>,
    /// The beat on the input, as a request's header (meaningful on `sop`).
    req: ReqDecode,
    /// What the completer does first with that request.
    plan: ReqPlan,
    /// A request's header beat is on the input while idle: the stages load it.
    header: Signal<Local, Bit>,
    /// Applies a write's payload.
    write: CsrWrite,
    /// Reads a read's DWs.
    read: CsrRead,
    /// `csr.wr_be` as a bit mask.
    be_mask: ByteMask,
    /// The answer.
    answer: CplSend,
}

impl Logic for InternalCompleter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, h0, h1, src, status, respond, dw_addr, drop_q);
        self.req.data.next = self.from_xbar.data.val();
        self.req.unsupported.next = self.from_xbar.unsupported.val();
        self.plan.kind.next = self.req.kind.val();
        self.plan.outside.next = self.req.outside.val();
        self.plan.eop.next = self.from_xbar.eop.val();
        // The write and read stages load at every header beat; the state says which runs.
        self.write.clock.next = self.clock.val();
        self.write.data.next = self.from_xbar.data.val();
        self.write.valid.next = self.from_xbar.valid.val();
        self.write.eop.next = self.from_xbar.eop.val();
        self.header.next = (self.state.q.val() == CompleterState::Idle)
            && self.from_xbar.valid.val()
            && self.from_xbar.sop.val();
        self.write.load.next = self.header.val();
        self.write.dw_addr.next = self.req.dw_addr.val();
        self.write.len.next = self.req.len.val();
        self.write.four_dw.next = self.req.four_dw.val();
        self.write.first_be.next = self.h1.q.val().get_bits::<4>(0);
        self.write.last_be.next = self.h1.q.val().get_bits::<4>(4);
        self.write.active.next = self.state.q.val() == CompleterState::Write;
        self.read.clock.next = self.clock.val();
        self.read.rd_data.next = self.csr.rd_data.val();
        self.read.load.next = self.header.val();
        self.read.dw_addr.next = self.req.dw_addr.val();
        // A read reaches `Read` only with 1 to 4 DWs: its length field's low bits.
        self.read.len.next = self.h0.q.val().get_bits::<3>(0);
        self.read.active.next = self.state.q.val() == CompleterState::Read;

        // The answer, from the latched request.
        self.answer.clock.next = self.clock.val();
        self.answer.reset.next = self.reset.val();
        TlpSource::link(&mut self.to_xbar, &mut self.answer.to_xbar);
        self.answer.load.next = self.header.val();
        self.answer.req_dw0.next = self.h0.q.val();
        self.answer.req_dw1.next = self.h1.q.val();
        self.answer.addr_dw.next = self.dw_addr.q.val().get_bits::<5>(0);
        self.answer.status.next = self.status.q.val();
        self.answer.completer_id.next = self.completer_id.val();
        self.answer.dest.next = self.src.q.val();
        for k in 0..4 {
            self.answer.rd_data[k].next = self.read.data[k].val();
        }
        self.ur_sent.next = self.answer.ur_sent.val();

        // Defaults.
        self.from_xbar.ready.next = false;
        self.csr.wr_en.next = self.write.wr_en.val();
        self.csr.wr_addr.next = self.write.wr_addr.val();
        self.csr.wr_data.next = self.write.wr_data.val();
        self.csr.wr_be.next = self.write.wr_be.val();
        self.csr.rd_addr.next = self.read.rd_addr.val();
        self.cpl_unexpected.next = false;
        self.drop_q.d.next = false;
        self.dropped.next = self.drop_q.q.val();
        self.status_port.next = self.src.q.val();
        // The answer is on offer from a register of `answer`'s, asked for a cycle ahead by
        // the transitions into `Respond` and while in it: not from the next state's decode,
        // which waits for the request's. Entering `Respond` from `Idle` latches a request,
        // and its answer waits a cycle for the header register anyway: `Respond` asks next.
        self.answer.send_next.next = false;

        match self.state.q.val() {
            CompleterState::Idle => {
                if self.from_xbar.valid.val() && self.from_xbar.sop.val() {
                    self.h0.d.next = self.from_xbar.data.val().get_bits::<32>(0);
                    self.h1.d.next = self.from_xbar.data.val().get_bits::<32>(32);
                    self.src.d.next = self.from_xbar.src.val();
                    self.dw_addr.d.next = self.req.dw_addr.val();
                    self.respond.d.next = self.plan.respond.val();
                    self.status.d.next = self.plan.status.val();
                    self.state.d.next = self.plan.state.val();
                    self.drop_q.d.next = self.plan.dropped.val();
                    self.cpl_unexpected.next = self.plan.unexpected.val();
                    // A read's only beat is taken now; its length says what follows.
                    self.from_xbar.ready.next = self.req.is_read.val() && self.from_xbar.eop.val();
                } else if self.from_xbar.valid.val() {
                    // A beat outside a packet: consume it.
                    self.from_xbar.ready.next = true;
                }
            }
            CompleterState::Write => {
                self.from_xbar.ready.next = self.write.ready.val();
                if self.write.done.val() {
                    self.state.d.next = CompleterState::Idle;
                }
                if self.write.overlong.val() {
                    self.state.d.next = CompleterState::Drain;
                }
            }
            CompleterState::Read => {
                if self.read.done.val() {
                    self.state.d.next = CompleterState::Respond;
                    self.answer.send_next.next = true;
                }
            }
            CompleterState::Drain => {
                self.from_xbar.ready.next = true;
                if self.from_xbar.valid.val() && self.from_xbar.eop.val() {
                    self.state.d.next = CompleterState::Idle;
                    if self.respond.q.val() {
                        self.state.d.next = CompleterState::Respond;
                        self.answer.send_next.next = true;
                    }
                }
            }
            CompleterState::Respond => {
                self.answer.send_next.next = !self.answer.done.val();
                if self.answer.done.val() {
                    self.state.d.next = CompleterState::Idle;
                }
            }
        }
        // The byte enables as a bit mask, for every target.
        self.be_mask.be.next = self.csr.wr_be.val();
        self.csr.wr_mask.next = self.be_mask.mask.val();
        if self.reset.val() {
            self.state.d.next = CompleterState::Idle;
            self.drop_q.d.next = false;
            self.answer.send_next.next = false;
        }
    }
}
