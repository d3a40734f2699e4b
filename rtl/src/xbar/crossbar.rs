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
//! `ready` of the output it is granted to; an input without a grant is not ready.
//!
//! Arbitration: each output keeps `last`, the one-hot input whose grant it took last.
//! Requests from inputs above `last` come first, lowest index first; without any, the
//! search wraps to input 0. `last` moves only when a fresh grant's first beat is taken,
//! so a grant the output cannot accept yet is offered again, and with every input asking
//! the grants go 0, 1, 2, 3, 4, 0, ...
//!
//! A packet whose `dest` names no endpoint (5..=7), or a beat that arrives at an idle
//! input without `sop` (a fragment, e.g. the tail of a packet cut by a reset), is taken
//! and discarded up to its `eop`, so a bad packet cannot block its input; `dropped`
//! reports it, per input.
//!
//! Each output ends in a 2-entry skid buffer (`main`, `skid`): `sources[j]` comes from
//! registers, and so does the readiness the switch sees (`!skid_valid`), so no
//! combinational path crosses the block from the output side, and the second entry
//! catches the beat already under way when the downstream drops `ready`. Latency: a beat
//! taken at a sink in cycle t is offered at its source in cycle t+1; every output still
//! moves one beat per cycle.
//!
//! All of this is one rust-hdl block on purpose: it was written when rust-hdl's one
//! `always @(*)` per module made an arbiter or skid buffer child (written and read back in
//! the same cycle) a false loop for Verilator (UNOPTFLAT). The export's split pass
//! (`verilog::split`) has since removed that limit; the block is kept whole because its
//! tests and figures are of it as one stage.

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

    /// Per output: one-hot input whose grant was taken last; zero after reset.
    last: [DFF<Bits<INPUTS>>; NUM_ENDPOINTS],
    /// Per output: one-hot input holding it until its `eop` is accepted; zero when free.
    owner: [DFF<Bits<INPUTS>>; NUM_ENDPOINTS],
    /// Per input: discarding beats up to the current packet's `eop`.
    dropping: [DFF<Bit>; INPUTS],
    dropped_pulse: DFF<Bits<INPUTS>>,
    // Per output: the skid buffer's two entries.
    main_valid: [DFF<Bit>; NUM_ENDPOINTS],
    main_data: [DFF<Bits<DATA_BITS>>; NUM_ENDPOINTS],
    main_sop: [DFF<Bit>; NUM_ENDPOINTS],
    main_eop: [DFF<Bit>; NUM_ENDPOINTS],
    main_empty: [DFF<Bits<2>>; NUM_ENDPOINTS],
    main_dest: [DFF<Bits<ENDPOINT_BITS>>; NUM_ENDPOINTS],
    main_src: [DFF<Bits<ENDPOINT_BITS>>; NUM_ENDPOINTS],
    main_unsupported: [DFF<Bit>; NUM_ENDPOINTS],
    skid_valid: [DFF<Bit>; NUM_ENDPOINTS],
    skid_data: [DFF<Bits<DATA_BITS>>; NUM_ENDPOINTS],
    skid_sop: [DFF<Bit>; NUM_ENDPOINTS],
    skid_eop: [DFF<Bit>; NUM_ENDPOINTS],
    skid_empty: [DFF<Bits<2>>; NUM_ENDPOINTS],
    skid_dest: [DFF<Bits<ENDPOINT_BITS>>; NUM_ENDPOINTS],
    skid_src: [DFF<Bits<ENDPOINT_BITS>>; NUM_ENDPOINTS],
    skid_unsupported: [DFF<Bit>; NUM_ENDPOINTS],

    /// Per input: holds or discards a packet already, so its head is not a new request.
    in_packet: [Signal<Local, Bit>; INPUTS],
    /// Per input: the head beat starts a discard this cycle.
    bad_head: [Signal<Local, Bit>; INPUTS],
    /// Per input: one-hot output its head `sop` beat asks for (zero when none). As wide
    /// as the request vectors it is transposed into; bit 5 (a `dest` of 5, a bad head)
    /// names no output and is never read.
    want: [Signal<Local, Bits<INPUTS>>; INPUTS],
    /// Per output: one-hot inputs asking for it.
    request: [Signal<Local, Bits<INPUTS>>; NUM_ENDPOINTS],
    /// Per output: requests from inputs above `last`.
    after_last: [Signal<Local, Bits<INPUTS>>; NUM_ENDPOINTS],
    /// Per output: one-hot winner of this cycle's arbitration.
    grant: [Signal<Local, Bits<INPUTS>>; NUM_ENDPOINTS],
    /// Per output: one-hot input connected to it this cycle.
    sel: [Signal<Local, Bits<INPUTS>>; NUM_ENDPOINTS],
    // Per output: the beat arriving from the selected input.
    in_valid: [Signal<Local, Bit>; NUM_ENDPOINTS],
    in_data: [Signal<Local, Bits<DATA_BITS>>; NUM_ENDPOINTS],
    in_sop: [Signal<Local, Bit>; NUM_ENDPOINTS],
    in_eop: [Signal<Local, Bit>; NUM_ENDPOINTS],
    in_empty: [Signal<Local, Bits<2>>; NUM_ENDPOINTS],
    in_dest: [Signal<Local, Bits<ENDPOINT_BITS>>; NUM_ENDPOINTS],
    in_src: [Signal<Local, Bits<ENDPOINT_BITS>>; NUM_ENDPOINTS],
    in_unsupported: [Signal<Local, Bit>; NUM_ENDPOINTS],
    /// Per output: the skid buffer can take a beat (registered: no skid beat held).
    can_take: [Signal<Local, Bit>; NUM_ENDPOINTS],
    /// Per output: a beat enters the output registers this cycle.
    push: [Signal<Local, Bit>; NUM_ENDPOINTS],
    /// Per output: the downstream takes the `main` beat this cycle.
    pop: [Signal<Local, Bit>; NUM_ENDPOINTS],
    /// Per output: `busy` before packing into the status vector.
    out_busy: [Signal<Local, Bit>; NUM_ENDPOINTS],
    /// Number of endpoints: a `dest` at or above it names none.
    endpoints: Constant<Bits<ENDPOINT_BITS>>,
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
            last: Default::default(),
            owner: Default::default(),
            dropping: Default::default(),
            dropped_pulse: Default::default(),
            main_valid: Default::default(),
            main_data: Default::default(),
            main_sop: Default::default(),
            main_eop: Default::default(),
            main_empty: Default::default(),
            main_dest: Default::default(),
            main_src: Default::default(),
            main_unsupported: Default::default(),
            skid_valid: Default::default(),
            skid_data: Default::default(),
            skid_sop: Default::default(),
            skid_eop: Default::default(),
            skid_empty: Default::default(),
            skid_dest: Default::default(),
            skid_src: Default::default(),
            skid_unsupported: Default::default(),
            in_packet: Default::default(),
            bad_head: Default::default(),
            want: Default::default(),
            request: Default::default(),
            after_last: Default::default(),
            grant: Default::default(),
            sel: Default::default(),
            in_valid: Default::default(),
            in_data: Default::default(),
            in_sop: Default::default(),
            in_eop: Default::default(),
            in_empty: Default::default(),
            in_dest: Default::default(),
            in_src: Default::default(),
            in_unsupported: Default::default(),
            can_take: Default::default(),
            push: Default::default(),
            pop: Default::default(),
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
            self.last[k].clock.next = self.clock.val();
            self.last[k].d.next = self.last[k].q.val();
            self.owner[k].clock.next = self.clock.val();
            self.owner[k].d.next = self.owner[k].q.val();
            self.main_valid[k].clock.next = self.clock.val();
            self.main_valid[k].d.next = self.main_valid[k].q.val();
            self.main_data[k].clock.next = self.clock.val();
            self.main_data[k].d.next = self.main_data[k].q.val();
            self.main_sop[k].clock.next = self.clock.val();
            self.main_sop[k].d.next = self.main_sop[k].q.val();
            self.main_eop[k].clock.next = self.clock.val();
            self.main_eop[k].d.next = self.main_eop[k].q.val();
            self.main_empty[k].clock.next = self.clock.val();
            self.main_empty[k].d.next = self.main_empty[k].q.val();
            self.main_dest[k].clock.next = self.clock.val();
            self.main_dest[k].d.next = self.main_dest[k].q.val();
            self.main_src[k].clock.next = self.clock.val();
            self.main_src[k].d.next = self.main_src[k].q.val();
            self.main_unsupported[k].clock.next = self.clock.val();
            self.main_unsupported[k].d.next = self.main_unsupported[k].q.val();
            self.skid_valid[k].clock.next = self.clock.val();
            self.skid_valid[k].d.next = self.skid_valid[k].q.val();
            self.skid_data[k].clock.next = self.clock.val();
            self.skid_data[k].d.next = self.skid_data[k].q.val();
            self.skid_sop[k].clock.next = self.clock.val();
            self.skid_sop[k].d.next = self.skid_sop[k].q.val();
            self.skid_eop[k].clock.next = self.clock.val();
            self.skid_eop[k].d.next = self.skid_eop[k].q.val();
            self.skid_empty[k].clock.next = self.clock.val();
            self.skid_empty[k].d.next = self.skid_empty[k].q.val();
            self.skid_dest[k].clock.next = self.clock.val();
            self.skid_dest[k].d.next = self.skid_dest[k].q.val();
            self.skid_src[k].clock.next = self.clock.val();
            self.skid_src[k].d.next = self.skid_src[k].q.val();
            self.skid_unsupported[k].clock.next = self.clock.val();
            self.skid_unsupported[k].d.next = self.skid_unsupported[k].q.val();
        }

        for i in 0..INPUTS {
            self.dropping[i].clock.next = self.clock.val();
            self.dropping[i].d.next = self.dropping[i].q.val();
        }

        // Inputs: what each head beat asks for.
        for i in 0..INPUTS {
            self.in_packet[i].next = self.dropping[i].q.val();
            for j in 0..NUM_ENDPOINTS {
                if self.owner[j].q.val().get_bit(i) {
                    self.in_packet[i].next = true;
                }
            }
            self.bad_head[i].next = self.sinks[i].valid.val()
                && !self.in_packet[i].val()
                && !self.reset.val()
                && (!self.sinks[i].sop.val() || (self.sinks[i].dest.val() >= self.endpoints.val()));
            self.want[i].next = 0.into();
            if self.sinks[i].valid.val() && self.sinks[i].sop.val() && !self.in_packet[i].val() {
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
            // Bits strictly above the one-hot `last` (none when `last` is zero).
            self.after_last[j].next =
                self.request[j].val() & !((self.last[j].q.val() - 1) | self.last[j].q.val());
            // `x & (!x + 1)` isolates the lowest set bit.
            if self.after_last[j].val().any() {
                self.grant[j].next = self.after_last[j].val() & (!self.after_last[j].val() + 1);
            } else {
                self.grant[j].next = self.request[j].val() & (!self.request[j].val() + 1);
            }
            if self.owner[j].q.val().any() {
                self.sel[j].next = self.owner[j].q.val();
            } else {
                self.sel[j].next = self.grant[j].val();
            }

            self.in_valid[j].next = false;
            self.in_data[j].next = 0.into();
            self.in_sop[j].next = false;
            self.in_eop[j].next = false;
            self.in_empty[j].next = 0.into();
            self.in_dest[j].next = 0.into();
            self.in_src[j].next = 0.into();
            self.in_unsupported[j].next = false;
            for i in 0..INPUTS {
                if self.sel[j].val().get_bit(i) {
                    self.in_valid[j].next = self.sinks[i].valid.val() && !self.reset.val();
                    self.in_data[j].next = self.sinks[i].data.val();
                    self.in_sop[j].next = self.sinks[i].sop.val();
                    self.in_eop[j].next = self.sinks[i].eop.val();
                    self.in_empty[j].next = self.sinks[i].empty.val();
                    self.in_dest[j].next = self.sinks[i].dest.val();
                    self.in_src[j].next = self.sinks[i].src.val();
                    self.in_unsupported[j].next = self.sinks[i].unsupported.val();
                }
            }

            self.can_take[j].next = !self.skid_valid[j].q.val() && !self.reset.val();
            self.push[j].next = self.in_valid[j].val() && self.can_take[j].val();
            // The priority moves only when a fresh grant's first beat is taken.
            if self.push[j].val() && !self.owner[j].q.val().any() {
                self.last[j].d.next = self.grant[j].val();
            }
            if self.push[j].val() {
                if self.in_eop[j].val() {
                    self.owner[j].d.next = 0.into();
                } else {
                    self.owner[j].d.next = self.sel[j].val();
                }
            }

            self.sources[j].valid.next = self.main_valid[j].q.val() && !self.reset.val();
            self.sources[j].data.next = self.main_data[j].q.val();
            self.sources[j].sop.next = self.main_sop[j].q.val();
            self.sources[j].eop.next = self.main_eop[j].q.val();
            self.sources[j].empty.next = self.main_empty[j].q.val();
            self.sources[j].dest.next = self.main_dest[j].q.val();
            self.sources[j].src.next = self.main_src[j].q.val();
            self.sources[j].unsupported.next = self.main_unsupported[j].q.val();
            self.pop[j].next = self.sources[j].valid.val() && self.sources[j].ready.val();
            if !self.main_valid[j].q.val() || self.pop[j].val() {
                // `main` is free: refill it from `skid` first (that beat is older, and
                // nothing is pushed while `skid` holds one).
                if self.skid_valid[j].q.val() {
                    self.main_valid[j].d.next = true;
                    self.main_data[j].d.next = self.skid_data[j].q.val();
                    self.main_sop[j].d.next = self.skid_sop[j].q.val();
                    self.main_eop[j].d.next = self.skid_eop[j].q.val();
                    self.main_empty[j].d.next = self.skid_empty[j].q.val();
                    self.main_dest[j].d.next = self.skid_dest[j].q.val();
                    self.main_src[j].d.next = self.skid_src[j].q.val();
                    self.main_unsupported[j].d.next = self.skid_unsupported[j].q.val();
                    self.skid_valid[j].d.next = false;
                } else {
                    self.main_valid[j].d.next = self.push[j].val();
                    self.main_data[j].d.next = self.in_data[j].val();
                    self.main_sop[j].d.next = self.in_sop[j].val();
                    self.main_eop[j].d.next = self.in_eop[j].val();
                    self.main_empty[j].d.next = self.in_empty[j].val();
                    self.main_dest[j].d.next = self.in_dest[j].val();
                    self.main_src[j].d.next = self.in_src[j].val();
                    self.main_unsupported[j].d.next = self.in_unsupported[j].val();
                }
            } else if self.push[j].val() {
                self.skid_valid[j].d.next = true;
                self.skid_data[j].d.next = self.in_data[j].val();
                self.skid_sop[j].d.next = self.in_sop[j].val();
                self.skid_eop[j].d.next = self.in_eop[j].val();
                self.skid_empty[j].d.next = self.in_empty[j].val();
                self.skid_dest[j].d.next = self.in_dest[j].val();
                self.skid_src[j].d.next = self.in_src[j].val();
                self.skid_unsupported[j].d.next = self.in_unsupported[j].val();
            }
            self.out_busy[j].next = self.owner[j].q.val().any() || self.main_valid[j].q.val();
        }

        // Inputs: ready from the granted output, or always while discarding.
        for i in 0..INPUTS {
            self.sinks[i].ready.next = self.dropping[i].q.val() || self.bad_head[i].val();
            for j in 0..NUM_ENDPOINTS {
                if self.sel[j].val().get_bit(i) && self.can_take[j].val() {
                    self.sinks[i].ready.next = true;
                }
            }
            if self.reset.val() {
                self.sinks[i].ready.next = false;
            }
            if self.sinks[i].valid.val() && (self.dropping[i].q.val() || self.bad_head[i].val()) {
                self.dropping[i].d.next = !self.sinks[i].eop.val();
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
                self.last[k].d.next = 0.into();
                self.owner[k].d.next = 0.into();
                self.main_valid[k].d.next = false;
                self.skid_valid[k].d.next = false;
            }
            for i in 0..INPUTS {
                self.dropping[i].d.next = false;
            }
            self.dropped_pulse.d.next = 0.into();
        }
    }
}
