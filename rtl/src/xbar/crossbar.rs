//! The crossbar: six inputs (N, E, W, S, the internal port's requests, the internal
//! completer's completions) to five outputs (N, E, W, S, internal), one packet at a time
//! per output, round-robin among the inputs that want the same output.
//!
//! The completions have an input of their own ([`INPUT_COMPLETIONS`]) so that a host's
//! register read is answered while a DMA packet from the internal port waits for a busy
//! output: sharing one input, the completion waited behind it, for as long as a
//! congested ring port gave no credits (PCIe orders a switch's packets per egress port;
//! a completion to N need not wait for a write to E). The DMA's reads and writes keep
//! one input, so a read never passes the DMA's own earlier write.
//!
//! Per input ([`XbarInputs`]), the head beat asks for output `dest` when it is a `sop`
//! beat and the input is idle (not in the middle of a packet). Each output takes beats
//! from one input only, its `owner`, a register: a head of the owner's that asks for it,
//! then the rest of that packet (`mid`) up to its `eop`, so packets never interleave and
//! the 128-bit connection waits for no arbiter.
//!
//! Ownership ([`OutputArbiter`]): when the output is between packets (its owner has no
//! beat for it, or the beat it takes is an `eop`), the round-robin grant among the inputs
//! asking for it becomes its owner at the next edge; without a request the owner stays,
//! and an owner whose head waits for the output's registers keeps it. So an input
//! sending packet after packet to an output keeps it without a gap, a packet from another
//! input follows an `eop` with none (its grant was made during the `eop`), and a head
//! that asks for an idle output owned by another input waits one cycle for its grant to
//! become the owner. The order: the inputs above the owner first, lowest index first,
//! then from input 0; with every input asking, owners go 0, 1, 2, 3, 4, 5, 0, ...
//!
//! Connections ([`XbarSelect`]): each output's beat is the one of its owner, taken as an
//! OR over the one-hot owner.
//!
//! A packet whose `dest` names no endpoint (5..=7), or a beat that arrives at an idle
//! input without `sop` (a fragment, e.g. the tail of a packet cut by a reset), is taken
//! and discarded up to its `eop` ([`XbarInputs`]), so a bad packet cannot block its
//! input; `dropped` reports it, per input.
//!
//! Each output ends in a 2-entry skid buffer ([`TlpSkid`]): `sources[j]` comes from
//! registers, and so does the readiness the switch sees, so no combinational path crosses
//! the block from the output side. Latency: a beat taken at a sink in cycle t is offered
//! at its source in cycle t+1; every output still moves one beat per cycle.

use super::arbiter::OutputArbiter;
use super::inputs::XbarInputs;
use super::select::XbarSelect;
use crate::stream::skid::TlpSkid;
use crate::stream::{TlpSink, TlpSource, NUM_ENDPOINTS};
use rust_hdl::prelude::*;

/// The crossbar's inputs: one per endpoint, and the completer's completions.
pub const INPUTS: usize = NUM_ENDPOINTS + 1;
/// The input of the internal completer's completions (the internal port's requests, the
/// DMA's, enter at `PORT_INTERNAL`).
pub const INPUT_COMPLETIONS: usize = NUM_ENDPOINTS;

/// The crossbar block; see the module documentation. Inputs and outputs are indexed by
/// endpoint (`stream::PORT_*`), and input [`INPUT_COMPLETIONS`] follows the five.
#[derive(LogicBlock)]
pub struct Crossbar {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: clears owners, drops and the output registers.
    pub reset: Signal<In, Bit>,
    /// Upstream: beats from each input, routed by their `dest`.
    pub sinks: [TlpSink; INPUTS],
    /// Downstream: beats to each endpoint.
    pub sources: [TlpSource; NUM_ENDPOINTS],
    /// Bit j: output j is carrying a packet (in the middle of one, or beats still in its
    /// output registers).
    pub busy: Signal<Out, Bits<NUM_ENDPOINTS>>,
    /// Bit i: input i started discarding a packet (bad `dest`) or a fragment (no `sop`)
    /// one cycle earlier; a one-cycle pulse per discarded packet, for a CSR counter.
    pub dropped: Signal<Out, Bits<INPUTS>>,

    /// Per output: its round-robin arbiter, who owns it next.
    arbiter: [OutputArbiter; NUM_ENDPOINTS],
    /// Per output: the one-hot input it takes beats from; zero after reset.
    owner: [DFF<Bits<INPUTS>>; NUM_ENDPOINTS],
    /// Bit j: output j has taken a packet's head from its owner and not yet its `eop`.
    mid: DFF<Bits<NUM_ENDPOINTS>>,
    /// `dropped`, registered a cycle after the bad head it reports.
    dropped_pulse: DFF<Bits<INPUTS>>,
    /// Per output: its skid buffer.
    out: [TlpSkid; NUM_ENDPOINTS],

    /// The input side: each head's request, discards, each input's `ready`.
    inputs: XbarInputs,
    /// Bit j: output j's registers take a beat this cycle if one is offered.
    out_ready: Signal<Local, Bits<NUM_ENDPOINTS>>,
    /// Per output: one-hot inputs asking for it.
    request: [Signal<Local, Bits<INPUTS>>; NUM_ENDPOINTS],
    /// Per output: a beat enters its skid buffer this cycle.
    push: [Signal<Local, Bit>; NUM_ENDPOINTS],
    /// Per output: it is between packets at this edge (its owner has no beat for it, or
    /// the beat it takes is an `eop`), so its grant, if any, becomes its owner.
    handover: [Signal<Local, Bit>; NUM_ENDPOINTS],
    /// `mid` after this cycle's beats, bit by bit (a DFF's `d` reads back its settled
    /// value, not the bits set before it in this pass).
    mid_next: Signal<Local, Bits<NUM_ENDPOINTS>>,
    /// Each output's beat from the input its `sel` names.
    select: XbarSelect,
}

impl Crossbar {
    /// A crossbar with all outputs free.
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            sinks: Default::default(),
            sources: Default::default(),
            busy: Default::default(),
            dropped: Default::default(),
            arbiter: Default::default(),
            owner: Default::default(),
            mid: Default::default(),
            dropped_pulse: Default::default(),
            out: array_init::array_init(|_| TlpSkid::reader_reset_with_it()),
            inputs: XbarInputs::new(),
            out_ready: Default::default(),
            request: Default::default(),
            push: Default::default(),
            handover: Default::default(),
            mid_next: Default::default(),
            select: Default::default(),
        }
    }
}

impl Default for Crossbar {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for Crossbar {
    #[hdl_gen]
    fn update(&mut self) {
        self.mid.clock.next = self.clock.val();
        dff_setup!(self, clock, dropped_pulse);
        for k in 0..NUM_ENDPOINTS {
            self.owner[k].clock.next = self.clock.val();
            self.owner[k].d.next = self.owner[k].q.val();
            self.out[k].clock.next = self.clock.val();
            self.out[k].reset.next = self.reset.val();
        }
        self.inputs.clock.next = self.clock.val();
        self.inputs.reset.next = self.reset.val();

        // Inputs: their beats, to the input side and to the connections.
        for i in 0..INPUTS {
            self.inputs.valid[i].next = self.sinks[i].valid.val();
            self.inputs.sop[i].next = self.sinks[i].sop.val();
            self.inputs.eop[i].next = self.sinks[i].eop.val();
            self.inputs.dest[i].next = self.sinks[i].dest.val();
            self.sinks[i].ready.next = self.inputs.ready[i].val();
            self.select.data[i].next = self.sinks[i].data.val();
            self.select.sop[i].next = self.sinks[i].sop.val();
            self.select.eop[i].next = self.sinks[i].eop.val();
            self.select.empty[i].next = self.sinks[i].empty.val();
            self.select.dest[i].next = self.sinks[i].dest.val();
            self.select.src[i].next = self.sinks[i].src.val();
            self.select.unsupported[i].next = self.sinks[i].unsupported.val();
        }

        // Outputs: arbitrate, connect, register.
        self.busy.next = 0.into();
        self.out_ready.next = 0.into();
        self.mid_next.next = self.mid.q.val();
        for j in 0..NUM_ENDPOINTS {
            // Transpose: bit i of output j's request is bit j of input i's `want`.
            self.request[j].next = 0.into();
            for i in 0..INPUTS {
                self.request[j].next = self.request[j]
                    .val()
                    .replace_bit(i, self.inputs.want[i].val().get_bit(j));
            }
            self.arbiter[j].request.next = self.request[j].val();
            self.arbiter[j].owner.next = self.owner[j].q.val();

            self.select.sel[j].next = self.owner[j].q.val();
            self.out[j].sink.valid.next = self.inputs.offer.val().get_bit(j) && !self.reset.val();
            self.out[j].sink.data.next = self.select.out_data[j].val();
            self.out[j].sink.sop.next = self.select.out_sop[j].val();
            self.out[j].sink.eop.next = self.select.out_eop[j].val();
            self.out[j].sink.empty.next = self.select.out_empty[j].val();
            self.out[j].sink.dest.next = self.select.out_dest[j].val();
            self.out[j].sink.src.next = self.select.out_src[j].val();
            self.out[j].sink.unsupported.next = self.select.out_unsupported[j].val();
            self.out_ready.next = self
                .out_ready
                .val()
                .replace_bit(j, self.out[j].sink.ready.val());
            self.push[j].next = self.out[j].sink.valid.val() && self.out[j].sink.ready.val();
            // An owner with a head for the output keeps it until the head is taken.
            self.handover[j].next =
                !self.mid.q.val().get_bit(j) && !self.inputs.offer.val().get_bit(j);
            if self.push[j].val() {
                // Not `replace_bit(j, !eop)`: Verilog widens the `~` (the `widths` check).
                if self.out[j].sink.eop.val() {
                    self.mid_next.next = self.mid_next.val().replace_bit(j, false);
                } else {
                    self.mid_next.next = self.mid_next.val().replace_bit(j, true);
                }
                self.handover[j].next = self.out[j].sink.eop.val();
            }
            if self.handover[j].val() && self.arbiter[j].grant.val().any() {
                self.owner[j].d.next = self.arbiter[j].grant.val();
            }
            TlpSource::link(&mut self.sources[j], &mut self.out[j].source);
            self.busy.next = self.busy.val().replace_bit(
                j,
                self.mid.q.val().get_bit(j) || self.sources[j].valid.val(),
            );
            self.inputs.owner[j].next = self.owner[j].q.val();
        }
        self.mid.d.next = self.mid_next.val();
        self.inputs.mid.next = self.mid.q.val();
        self.inputs.out_ready.next = self.out_ready.val();

        self.dropped_pulse.d.next = self.inputs.bad_head.val();
        self.dropped.next = self.dropped_pulse.q.val();

        if self.reset.val() {
            for k in 0..NUM_ENDPOINTS {
                self.owner[k].d.next = 0.into();
            }
            self.mid.d.next = 0.into();
            self.dropped_pulse.d.next = 0.into();
        }
    }
}
