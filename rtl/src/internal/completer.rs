//! The internal completer: CSR accesses from TLPs, and UR/CA completions.
//!
//! One request at a time. A CSR write is applied DW by DW as its payload lanes arrive
//! (byte enables from the header). A CSR read of 1 to 4 DWs is answered with one CplD; a
//! longer read is answered with Completer Abort (BAR0 is registers, not memory). A request
//! the RX stage marked `unsupported`, and a locked read (an endpoint supports no locked
//! access), is consumed and answered with UR; `super::cpl_fields` makes the answer's
//! header (a CplLk for the locked read). Completions that
//! reach here match no request of the chip's (the DMA's completions are taken off before,
//! by `super::mux`) and are counted. Writes to the internal-memory target (a global
//! address of this node) at offset `o` land in the DMA's descriptor memory (BAR0 0x8000 +
//! `o`, `o` < 32 KiB) or in the notification store (BAR0 `NOTIFY`, `o` in its window,
//! `peach2_regmap::notify`); elsewhere they are dropped. A read takes two cycles per DW:
//! the notification store's block RAM answers a cycle after the address.

use super::cpl_fields::CplFields;
use crate::csr::bus::CsrBus;
use crate::stream::{TlpSink, TlpSource};
use peach2_regmap::address::{BASE_SHIFT, GLOBAL_BASE_HI};
use peach2_regmap::{dma, notify};
use rust_hdl::prelude::*;

// The internal window's decode below: descriptors at offsets below 2^15 (BAR0 DW 0x2000),
// the notification store in the 16 KiB from 2 << 14 (BAR0 DW 0x1000); the global space's
// base is address bits 63:42.
const _: () = assert!(dma::DESC_COUNT * dma::DESC_BYTES == 1 << 15);
const _: () = assert!(dma::DESC_BASE == 0x2000 * 4);
const _: () = assert!(notify::INTERNAL_BASE == 2 << 14 && notify::DWS * 4 == 1 << 14);
const _: () = assert!(BASE_SHIFT == 42);
const _: () = assert!(notify::BAR0_BASE == 0x1000 * 4);

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
    state: DFF<CompleterState>,
    h0: DFF<Bits<32>>,
    h1: DFF<Bits<32>>,
    src: DFF<Bits<3>>,
    status: DFF<Bits<3>>,
    respond: DFF<Bit>,
    lane: DFF<Bits<3>>,
    dw_addr: DFF<Bits<14>>,
    dws_left: DFF<Bits<11>>,
    first: DFF<Bit>,
    rd_index: DFF<Bits<3>>,
    /// The read address has been held a cycle: the DW is on `csr_rd_data`.
    rd_wait: DFF<Bit>,
    rd_data: [DFF<Bits<32>>; 4],
    // Combinational views of the beat on the input.
    in_fmt: Signal<Local, Bits<3>>,
    /// Empty lanes of the last response beat, before the cut to 2 bits.
    last_pad: Signal<Local, Bits<3>>,
    /// DWs read once the current one is taken.
    rd_count: Signal<Local, Bits<11>>,
    in_type: Signal<Local, Bits<5>>,
    in_addr_lo: Signal<Local, Bits<32>>,
    in_global: Signal<Local, Bit>,
    /// `csr.wr_be` as a bit mask.
    be_mask: Signal<Local, Bits<32>>,
    /// The global write's offset is in the descriptor memory.
    in_desc: Signal<Local, Bit>,
    /// The global write's offset is in the notification store.
    in_notify: Signal<Local, Bit>,
    in_len: Signal<Local, Bits<11>>,
    lane_data: Signal<Local, Bits<32>>,
    lane_value: Signal<Local, Bits<32>>,
    rd_lane: Signal<Local, Bits<32>>,
    // Fields of the latched header.
    length: Signal<Local, Bits<10>>,
    first_be: Signal<Local, Bits<4>>,
    last_be: Signal<Local, Bits<4>>,
    /// The answer's header, from the latched request.
    fields: CplFields,
    global_base_hi: Constant<Bits<22>>,
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
            in_fmt: Default::default(),
            last_pad: Default::default(),
            rd_count: Default::default(),
            in_type: Default::default(),
            in_addr_lo: Default::default(),
            in_global: Default::default(),
            be_mask: Default::default(),
            in_desc: Default::default(),
            in_notify: Default::default(),
            in_len: Default::default(),
            lane_data: Default::default(),
            lane_value: Default::default(),
            rd_lane: Default::default(),
            length: Default::default(),
            first_be: Default::default(),
            last_be: Default::default(),
            fields: Default::default(),
            global_base_hi: Constant::new(GLOBAL_BASE_HI.into()),
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

        // The beat on the input, decoded as a header (meaningful on sop).
        self.in_fmt.next = self.from_xbar.data.val().get_bits::<3>(29);
        self.in_type.next = self.from_xbar.data.val().get_bits::<5>(24);
        self.in_addr_lo.next = self.from_xbar.data.val().get_bits::<32>(64);
        self.in_global.next = false;
        if self.in_fmt.val().get_bit(0) {
            self.in_addr_lo.next = self.from_xbar.data.val().get_bits::<32>(96);
            self.in_global.next =
                self.from_xbar.data.val().get_bits::<22>(74) == self.global_base_hi.val();
        }
        // Offset bits 32:15 zero: descriptors; bits 32:14 = 2: the notification store.
        self.in_desc.next = !self.from_xbar.data.val().get_bit(64)
            && (self.in_addr_lo.val().get_bits::<17>(15) == 0);
        self.in_notify.next = !self.from_xbar.data.val().get_bit(64)
            && (self.in_addr_lo.val().get_bits::<18>(14) == 2);
        self.in_len.next = bit_cast::<11, 10>(self.from_xbar.data.val().get_bits::<10>(0));
        if self.from_xbar.data.val().get_bits::<10>(0) == 0 {
            self.in_len.next = 1024.into();
        }
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
        self.last_pad.next = 5 - bit_cast::<3, 10>(self.length.val());
        self.first_be.next = self.h1.q.val().get_bits::<4>(0);
        self.last_be.next = self.h1.q.val().get_bits::<4>(4);
        self.fields.req_dw0.next = self.h0.q.val();
        self.fields.req_dw1.next = self.h1.q.val();
        self.fields.addr_dw.next = self.dw_addr.q.val().get_bits::<5>(0);
        self.fields.status.next = self.status.q.val();
        self.fields.completer_id.next = self.completer_id.val();

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
                    self.dw_addr.d.next = self.in_addr_lo.val().get_bits::<14>(2);
                    self.dws_left.d.next = self.in_len.val();
                    self.first.d.next = true;
                    self.rd_index.d.next = 0.into();
                    self.respond.d.next = false;
                    self.status.d.next = 1.into();
                    // Payload of a 3-DW header starts in lane 3; of a 4-DW one, in the next beat.
                    self.lane.d.next = 3.into();
                    if self.in_fmt.val().get_bit(0) {
                        self.lane.d.next = 4.into();
                    }
                    self.state.d.next = CompleterState::Drain;
                    if self.from_xbar.unsupported.val() {
                        self.respond.d.next = true;
                    } else if (self.in_type.val() == 10) || (self.in_type.val() == 11) {
                        self.cpl_unexpected.next = true;
                    } else if (self.in_type.val() == 0) && self.in_fmt.val().get_bit(1) {
                        self.state.d.next = CompleterState::Write;
                        if self.in_global.val() {
                            // The internal-memory target: descriptors at BAR0 0x8000,
                            // notifications at BAR0 0x4000.
                            if self.in_desc.val() {
                                self.dw_addr.d.next =
                                    bit_cast::<14, 13>(self.in_addr_lo.val().get_bits::<13>(2))
                                        | 0x2000;
                            } else if self.in_notify.val() {
                                self.dw_addr.d.next =
                                    bit_cast::<14, 12>(self.in_addr_lo.val().get_bits::<12>(2))
                                        | 0x1000;
                            } else {
                                self.state.d.next = CompleterState::Drain;
                                self.dropped.next = true;
                                self.status_port.next = self.from_xbar.src.val();
                            }
                        }
                    } else if (self.in_type.val() == 0) && !self.in_fmt.val().get_bit(1) {
                        self.respond.d.next = true;
                        if self.in_len.val() > 4 {
                            self.status.d.next = 4.into();
                        } else if self.from_xbar.eop.val() {
                            self.status.d.next = 0.into();
                            self.from_xbar.ready.next = true;
                            self.rd_wait.d.next = false;
                            self.state.d.next = CompleterState::Read;
                        }
                    } else if (self.in_type.val() == 1) && !self.in_fmt.val().get_bit(1) {
                        // MRdLk: an endpoint supports no locked access.
                        self.respond.d.next = true;
                    } else {
                        self.dropped.next = true;
                        self.status_port.next = self.from_xbar.src.val();
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
                self.to_xbar.data.next = bit_cast::<128, 32>(self.fields.dw0.val())
                    | (bit_cast::<128, 32>(self.fields.dw1.val()) << 32)
                    | (bit_cast::<128, 32>(self.fields.dw2.val()) << 64);
                if self.status.q.val() == 0 {
                    self.to_xbar.data.next = bit_cast::<128, 32>(self.fields.dw0.val())
                        | (bit_cast::<128, 32>(self.fields.dw1.val()) << 32)
                        | (bit_cast::<128, 32>(self.fields.dw2.val()) << 64)
                        | (bit_cast::<128, 32>(self.rd_data[0].q.val()) << 96);
                    self.to_xbar.eop.next = self.length.val() == 1;
                } else {
                    self.to_xbar.eop.next = true;
                    self.to_xbar.empty.next = 1.into();
                }
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
                self.to_xbar.empty.next = bit_cast::<2, 3>(self.last_pad.val());
                // Unused lanes stay zero (beat format): only rd_data[1..length] goes out.
                self.to_xbar.data.next = bit_cast::<128, 32>(self.rd_data[1].q.val());
                if self.length.val() >= 3 {
                    self.to_xbar.data.next = bit_cast::<128, 32>(self.rd_data[1].q.val())
                        | (bit_cast::<128, 32>(self.rd_data[2].q.val()) << 32);
                }
                if self.length.val() == 4 {
                    self.to_xbar.data.next = bit_cast::<128, 32>(self.rd_data[1].q.val())
                        | (bit_cast::<128, 32>(self.rd_data[2].q.val()) << 32)
                        | (bit_cast::<128, 32>(self.rd_data[3].q.val()) << 64);
                }
                if self.to_xbar.ready.val() {
                    self.state.d.next = CompleterState::Idle;
                }
            }
        }
        // The byte enables as a bit mask, for every target.
        self.be_mask.next = 0.into();
        if self.csr.wr_be.val().get_bit(0) {
            self.be_mask.next = self.be_mask.val() | 0xFF;
        }
        if self.csr.wr_be.val().get_bit(1) {
            self.be_mask.next = self.be_mask.val() | 0xFF00;
        }
        if self.csr.wr_be.val().get_bit(2) {
            self.be_mask.next = self.be_mask.val() | 0xFF_0000;
        }
        if self.csr.wr_be.val().get_bit(3) {
            self.be_mask.next = self.be_mask.val() | 0xFF00_0000u64;
        }
        self.csr.wr_mask.next = self.be_mask.val();
        if self.reset.val() {
            self.state.d.next = CompleterState::Idle;
        }
    }
}
