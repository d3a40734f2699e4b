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
//! Per input, the head beat asks for output `dest` when it is a `sop` beat and the input
//! is idle (not in the middle of a packet). Per output, a round-robin arbiter picks one
//! such input; the grant is used in the same cycle (cut-through, no bubble between
//! packets) and, unless that first beat is also the last, is held in `owner` until the
//! `eop` beat has been accepted, so packets never interleave. An input's `ready` is the
//! `ready` of the output it is granted to; an input without a grant is not ready. For a
//! head beat it is taken from the arbiter's `wins` and the beat's own destination rather
//! than from the grant (the same answer, without the destination's way through the
//! whole choice).
//!
//! Arbitration ([`OutputArbiter`]): each output keeps the inputs above the one whose grant
//! it took last. Their requests come first, lowest index first; without any, the search
//! wraps to input 0. The mark moves only when a fresh grant's first beat is taken, so a
//! grant the output cannot accept yet is offered again, and with every input asking the
//! grants go 0, 1, 2, 3, 4, 0, ...
//!
//! A packet whose `dest` names no endpoint (5..=7), or a beat that arrives at an idle
//! input without `sop` (a fragment, e.g. the tail of a packet cut by a reset), is taken
//! and discarded up to its `eop`, so a bad packet cannot block its input; `dropped`
//! reports it, per input.
//!
//! Each output ends in a 2-entry skid buffer ([`TlpSkid`]): `sources[j]` comes from
//! registers, and so does the readiness the switch sees, so no combinational path crosses
//! the block from the output side. Latency: a beat taken at a sink in cycle t is offered
//! at its source in cycle t+1; every output still moves one beat per cycle.

use super::arbiter::OutputArbiter;
use crate::stream::skid::TlpSkid;
use crate::stream::{TlpSink, TlpSource, DATA_BITS, ENDPOINT_BITS, NUM_ENDPOINTS};
use rust_hdl::prelude::*;

/// The crossbar's inputs: one per endpoint, and the completer's completions.
pub const INPUTS: usize = NUM_ENDPOINTS + 1;
/// The input of the internal completer's completions (the internal port's requests, the
/// DMA's, enter at `PORT_INTERNAL`).
pub const INPUT_COMPLETIONS: usize = NUM_ENDPOINTS;

// The request transpose and the status vectors below are written out per input and
// output.
const _: () = assert!(
    NUM_ENDPOINTS == 5 && INPUTS == 6,
    "the crossbar is written for 6 inputs and 5 outputs"
);

/// The crossbar block; see the module documentation. Inputs and outputs are indexed by
/// endpoint (`stream::PORT_*`), and input [`INPUT_COMPLETIONS`] follows the five.
#[derive(LogicBlock)]
pub struct Crossbar {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: clears grants, drops, arbitration priorities and
    /// the output registers.
    pub reset: Signal<In, Bit>,
    /// Upstream: beats from each input, routed by their `dest`.
    pub sinks: [TlpSink; INPUTS],
    /// Downstream: beats to each endpoint.
    pub sources: [TlpSource; NUM_ENDPOINTS],
    /// Bit j: output j is carrying a packet (granted mid-packet, or beats still in its
    /// output registers).
    pub busy: Signal<Out, Bits<NUM_ENDPOINTS>>,
    /// Bit i: input i started discarding a packet (bad `dest`) or a fragment (no `sop`)
    /// one cycle earlier; a one-cycle pulse per discarded packet, for a CSR counter.
    pub dropped: Signal<Out, Bits<INPUTS>>,

    /// Per output: its round-robin arbiter.
    arbiter: [OutputArbiter; NUM_ENDPOINTS],
    /// Per output: one-hot input holding it until its `eop` is accepted; zero when free.
    owner: [DFF<Bits<INPUTS>>; NUM_ENDPOINTS],
    /// Per input: discarding beats up to the current packet's `eop`.
    dropping: [DFF<Bit>; INPUTS],
    /// `dropped`, registered a cycle after the bad head it reports.
    dropped_pulse: DFF<Bits<INPUTS>>,
    /// Per output: its skid buffer.
    out: [TlpSkid; NUM_ENDPOINTS],

    /// Per input: holds or discards a packet already (it owns an output, or `dropping`),
    /// so its head is not a new request. A register of its own, moved by the input's own
    /// handshake, so that the requests do not wait for an OR over every output's owner.
    in_packet: [DFF<Bit>; INPUTS],
    /// Per input: the head beat starts a discard this cycle.
    bad_head: [Signal<Local, Bit>; INPUTS],
    /// Per input: one-hot output its head `sop` beat asks for (zero when none). As wide
    /// as the request vectors it is transposed into; bit 5 (a `dest` of 5, a bad head)
    /// names no output and is never read.
    want: [Signal<Local, Bits<INPUTS>>; INPUTS],
    /// Per output: one-hot inputs asking for it.
    request: [Signal<Local, Bits<INPUTS>>; NUM_ENDPOINTS],
    /// Per output: one-hot winner of this cycle's arbitration.
    grant: [Signal<Local, Bits<INPUTS>>; NUM_ENDPOINTS],
    /// Per output: one-hot input connected to it this cycle.
    sel: [Signal<Local, Bits<INPUTS>>; NUM_ENDPOINTS],
    /// Per output: a beat enters its skid buffer this cycle.
    push: [Signal<Local, Bit>; NUM_ENDPOINTS],
    /// Per output: the selected input's `valid` (the OR over the inputs in `sel`, one
    /// at most: an OR tree the mapping can balance, where a chain of `if`s is a chain
    /// of priority muxes).
    pick_valid: [Signal<Local, Bit>; NUM_ENDPOINTS],
    /// Per output: the selected input's `data`, as `pick_valid`.
    pick_data: [Signal<Local, Bits<DATA_BITS>>; NUM_ENDPOINTS],
    /// Per output: the selected input's `sop`, as `pick_valid`.
    pick_sop: [Signal<Local, Bit>; NUM_ENDPOINTS],
    /// Per output: the selected input's `eop`, as `pick_valid`.
    pick_eop: [Signal<Local, Bit>; NUM_ENDPOINTS],
    /// Per output: the selected input's `empty`, as `pick_valid`.
    pick_empty: [Signal<Local, Bits<2>>; NUM_ENDPOINTS],
    /// Per output: the selected input's `dest`, as `pick_valid`.
    pick_dest: [Signal<Local, Bits<ENDPOINT_BITS>>; NUM_ENDPOINTS],
    /// Per output: the selected input's `src`, as `pick_valid`.
    pick_src: [Signal<Local, Bits<ENDPOINT_BITS>>; NUM_ENDPOINTS],
    /// Per output: the selected input's `unsupported`, as `pick_valid`.
    pick_unsupported: [Signal<Local, Bit>; NUM_ENDPOINTS],
    /// Per output: `busy` before packing into the status vector.
    out_busy: [Signal<Local, Bit>; NUM_ENDPOINTS],
    /// Number of endpoints: a `dest` at or above it names none.
    endpoints: Constant<Bits<ENDPOINT_BITS>>,
    /// 1, shifted by a head beat's `dest` into its one-hot `want`.
    one: Constant<Bits<INPUTS>>,
    /// Output index j, for shifting by it.
    index: [Constant<Bits<ENDPOINT_BITS>>; NUM_ENDPOINTS],
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
            dropping: Default::default(),
            dropped_pulse: Default::default(),
            out: Default::default(),
            in_packet: Default::default(),
            bad_head: Default::default(),
            want: Default::default(),
            request: Default::default(),
            grant: Default::default(),
            sel: Default::default(),
            push: Default::default(),
            pick_valid: Default::default(),
            pick_data: Default::default(),
            pick_sop: Default::default(),
            pick_eop: Default::default(),
            pick_empty: Default::default(),
            pick_dest: Default::default(),
            pick_src: Default::default(),
            pick_unsupported: Default::default(),
            out_busy: Default::default(),
            endpoints: Constant::new((NUM_ENDPOINTS as u64).into()),
            one: Constant::new(1.into()),
            index: std::array::from_fn(|j| Constant::new((j as u64).into())),
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
        dff_setup!(self, clock, dropped_pulse);
        for k in 0..NUM_ENDPOINTS {
            self.arbiter[k].clock.next = self.clock.val();
            self.arbiter[k].reset.next = self.reset.val();
            self.owner[k].clock.next = self.clock.val();
            self.owner[k].d.next = self.owner[k].q.val();
            self.out[k].clock.next = self.clock.val();
            self.out[k].reset.next = self.reset.val();
        }

        for i in 0..INPUTS {
            self.dropping[i].clock.next = self.clock.val();
            self.dropping[i].d.next = self.dropping[i].q.val();
            self.in_packet[i].clock.next = self.clock.val();
            self.in_packet[i].d.next = self.in_packet[i].q.val();
        }

        // Inputs: what each head beat asks for.
        for i in 0..INPUTS {
            self.bad_head[i].next = self.sinks[i].valid.val()
                && !self.in_packet[i].q.val()
                && !self.reset.val()
                && (!self.sinks[i].sop.val() || (self.sinks[i].dest.val() >= self.endpoints.val()));
            self.want[i].next = 0.into();
            if self.sinks[i].valid.val() && self.sinks[i].sop.val() && !self.in_packet[i].q.val() {
                // A `dest` of 5..=7 asks for no output (it is a bad head).
                self.want[i].next = self.one.val() << self.sinks[i].dest.val();
            }
        }

        // Outputs: arbitrate, connect, register.
        for j in 0..NUM_ENDPOINTS {
            // Transpose: bit i of output j's request is bit j of input i's `want`.
            self.request[j].next = ((self.want[0].val() >> self.index[j].val()) & 1)
                | (((self.want[1].val() >> self.index[j].val()) & 1) << 1)
                | (((self.want[2].val() >> self.index[j].val()) & 1) << 2)
                | (((self.want[3].val() >> self.index[j].val()) & 1) << 3)
                | (((self.want[4].val() >> self.index[j].val()) & 1) << 4)
                | (((self.want[5].val() >> self.index[j].val()) & 1) << 5);
            self.arbiter[j].request.next = self.request[j].val();
            self.grant[j].next = self.arbiter[j].grant.val();
            if self.owner[j].q.val().any() {
                self.sel[j].next = self.owner[j].q.val();
            } else {
                self.sel[j].next = self.grant[j].val();
            }

            self.pick_valid[j].next = false;
            self.pick_data[j].next = 0.into();
            self.pick_sop[j].next = false;
            self.pick_eop[j].next = false;
            self.pick_empty[j].next = 0.into();
            self.pick_dest[j].next = 0.into();
            self.pick_src[j].next = 0.into();
            self.pick_unsupported[j].next = false;
            for i in 0..INPUTS {
                if self.sel[j].val().get_bit(i) {
                    self.pick_valid[j].next = self.pick_valid[j].val() || self.sinks[i].valid.val();
                    self.pick_data[j].next = self.pick_data[j].val() | self.sinks[i].data.val();
                    self.pick_sop[j].next = self.pick_sop[j].val() || self.sinks[i].sop.val();
                    self.pick_eop[j].next = self.pick_eop[j].val() || self.sinks[i].eop.val();
                    self.pick_empty[j].next = self.pick_empty[j].val() | self.sinks[i].empty.val();
                    self.pick_dest[j].next = self.pick_dest[j].val() | self.sinks[i].dest.val();
                    self.pick_src[j].next = self.pick_src[j].val() | self.sinks[i].src.val();
                    self.pick_unsupported[j].next =
                        self.pick_unsupported[j].val() || self.sinks[i].unsupported.val();
                }
            }
            self.out[j].sink.valid.next = self.pick_valid[j].val() && !self.reset.val();
            self.out[j].sink.data.next = self.pick_data[j].val();
            self.out[j].sink.sop.next = self.pick_sop[j].val();
            self.out[j].sink.eop.next = self.pick_eop[j].val();
            self.out[j].sink.empty.next = self.pick_empty[j].val();
            self.out[j].sink.dest.next = self.pick_dest[j].val();
            self.out[j].sink.src.next = self.pick_src[j].val();
            self.out[j].sink.unsupported.next = self.pick_unsupported[j].val();
            self.push[j].next = self.out[j].sink.valid.val() && self.out[j].sink.ready.val();
            // The priority moves only when a fresh grant's first beat is taken.
            self.arbiter[j].taken.next = self.push[j].val() && !self.owner[j].q.val().any();
            if self.push[j].val() {
                if self.out[j].sink.eop.val() {
                    self.owner[j].d.next = 0.into();
                } else {
                    self.owner[j].d.next = self.sel[j].val();
                }
            }
            TlpSource::link(&mut self.sources[j], &mut self.out[j].source);
            self.out_busy[j].next = self.owner[j].q.val().any() || self.out[j].holding.val();
        }

        // Inputs: ready from the output that takes them, or always while discarding. An
        // output takes the input that owns it, or, free, a head beat that asks for it and
        // would win it (`wins`, not `sel`: the arbiter's answer for this input does not
        // wait for this input's own destination).
        for i in 0..INPUTS {
            self.sinks[i].ready.next = self.dropping[i].q.val() || self.bad_head[i].val();
            for j in 0..NUM_ENDPOINTS {
                if self.out[j].sink.ready.val() {
                    if self.owner[j].q.val().get_bit(i) {
                        self.sinks[i].ready.next = true;
                    }
                    if !self.owner[j].q.val().any()
                        && self.want[i].val().get_bit(j)
                        && self.arbiter[j].wins.val().get_bit(i)
                    {
                        self.sinks[i].ready.next = true;
                    }
                }
            }
            if self.reset.val() {
                self.sinks[i].ready.next = false;
            }
            if self.sinks[i].valid.val() && (self.dropping[i].q.val() || self.bad_head[i].val()) {
                self.dropping[i].d.next = !self.sinks[i].eop.val();
            }
            // Every beat an input gives is its packet's (to an output or discarded): a
            // packet holds the input from its first beat taken to its `eop`.
            if self.sinks[i].valid.val() && self.sinks[i].ready.val() {
                self.in_packet[i].d.next = !self.sinks[i].eop.val();
            }
        }

        self.busy.next = bit_cast::<NUM_ENDPOINTS, 1>(self.out_busy[0].val().into())
            | (bit_cast::<NUM_ENDPOINTS, 1>(self.out_busy[1].val().into()) << 1)
            | (bit_cast::<NUM_ENDPOINTS, 1>(self.out_busy[2].val().into()) << 2)
            | (bit_cast::<NUM_ENDPOINTS, 1>(self.out_busy[3].val().into()) << 3)
            | (bit_cast::<NUM_ENDPOINTS, 1>(self.out_busy[4].val().into()) << 4);
        self.dropped_pulse.d.next = bit_cast::<INPUTS, 1>(self.bad_head[0].val().into())
            | (bit_cast::<INPUTS, 1>(self.bad_head[1].val().into()) << 1)
            | (bit_cast::<INPUTS, 1>(self.bad_head[2].val().into()) << 2)
            | (bit_cast::<INPUTS, 1>(self.bad_head[3].val().into()) << 3)
            | (bit_cast::<INPUTS, 1>(self.bad_head[4].val().into()) << 4)
            | (bit_cast::<INPUTS, 1>(self.bad_head[5].val().into()) << 5);
        self.dropped.next = self.dropped_pulse.q.val();

        if self.reset.val() {
            for k in 0..NUM_ENDPOINTS {
                self.owner[k].d.next = 0.into();
            }
            for i in 0..INPUTS {
                self.dropping[i].d.next = false;
                self.in_packet[i].d.next = false;
            }
            self.dropped_pulse.d.next = 0.into();
        }
    }
}
