//! The crossbar's input side: what each input's head beat asks for, the discard of bad
//! heads and fragments, and each input's `ready`.
//!
//! Per input, the head beat asks for output `dest` (`want`, one-hot) when it is a `sop`
//! beat and the input is idle (`in_packet` low: it neither holds an output nor discards).
//! A head whose `dest` names no endpoint (5..=7), or a beat that arrives at an idle input
//! without `sop` (a fragment, e.g. the tail of a packet cut by a reset), is a bad head:
//! it is taken and discarded up to its `eop` (`dropping`), so a bad packet cannot block
//! its input.
//!
//! An output takes beats from its owner only (a register): the rest of the packet it is
//! in the middle of (`mid`), or a head that asks for it. An input is ready when it
//! discards, or when an output it owns takes its beat, while that output's registers can
//! take one (`out_ready`): in the middle of a packet, if its output can; otherwise, if
//! its head is a fragment or names no output (a bad head), or if the output it names can
//! (`ready` without `valid` moves nothing). `offer` says, per output, that its owner has
//! a beat for it. Nothing here waits for an arbiter: who owns an output next is the
//! crossbar's.

use super::crossbar::INPUTS;
use crate::stream::{ENDPOINT_BITS, NUM_ENDPOINTS};
use rust_hdl::prelude::*;

/// The input side of the crossbar.
#[derive(LogicBlock)]
pub struct XbarInputs {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: no input holds or discards a packet, none is
    /// ready.
    pub reset: Signal<In, Bit>,
    /// Upstream: each input's `valid`.
    pub valid: [Signal<In, Bit>; INPUTS],
    /// Each input's `sop`.
    pub sop: [Signal<In, Bit>; INPUTS],
    /// Each input's `eop`.
    pub eop: [Signal<In, Bit>; INPUTS],
    /// Each input's `dest`.
    pub dest: [Signal<In, Bits<ENDPOINT_BITS>>; INPUTS],
    /// Per output: one-hot input that owns it (zero after reset).
    pub owner: [Signal<In, Bits<INPUTS>>; NUM_ENDPOINTS],
    /// Bit j: output j is in the middle of a packet from its owner.
    pub mid: Signal<In, Bits<NUM_ENDPOINTS>>,
    /// Bit j: output j's registers take a beat this cycle if one is offered.
    pub out_ready: Signal<In, Bits<NUM_ENDPOINTS>>,
    /// Per input: one-hot output its head `sop` beat asks for (zero when none). As wide
    /// as the request vectors it is transposed into; bit 5 (a `dest` of 5, a bad head)
    /// names no output.
    pub want: [Signal<Out, Bits<INPUTS>>; INPUTS],
    /// Bit i: input i's head beat starts a discard this cycle (outside reset).
    pub bad_head: Signal<Out, Bits<INPUTS>>,
    /// Per input: its beat is taken this cycle (if valid).
    pub ready: [Signal<Out, Bit>; INPUTS],
    /// Bit j: output j's owner has a beat for it this cycle (the rest of its packet, or a
    /// head asking for it).
    pub offer: Signal<Out, Bits<NUM_ENDPOINTS>>,
    /// Per input: discarding beats up to the current packet's `eop`.
    dropping: [DFF<Bit>; INPUTS],
    /// Per input: holds or discards a packet already (it owns an output, or `dropping`),
    /// so its head is not a new request. A register of its own, moved by the input's own
    /// handshake, so that the requests do not wait for an OR over every output's owner.
    in_packet: [DFF<Bit>; INPUTS],
    /// Per input: 1 shifted by its `dest` (zero for a `dest` of 6 or 7; bit 5, no
    /// output, for 5).
    dest_hot: [Signal<Local, Bits<INPUTS>>; INPUTS],
    /// The bits of `dest_hot` that name an endpoint.
    endpoints: Constant<Bits<INPUTS>>,
    /// Per input: bit j, output j is owned by it and can take a beat this cycle.
    can_take: [Signal<Local, Bits<INPUTS>>; INPUTS],
    /// 1, shifted by a head beat's `dest` into its one-hot `want`.
    one: Constant<Bits<INPUTS>>,
}

impl XbarInputs {
    /// The input side with every input idle.
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            valid: Default::default(),
            sop: Default::default(),
            eop: Default::default(),
            dest: Default::default(),
            owner: Default::default(),
            mid: Default::default(),
            out_ready: Default::default(),
            want: Default::default(),
            bad_head: Default::default(),
            ready: Default::default(),
            offer: Default::default(),
            dropping: Default::default(),
            in_packet: Default::default(),
            dest_hot: Default::default(),
            can_take: Default::default(),
            endpoints: Constant::new(((1u64 << NUM_ENDPOINTS) - 1).into()),
            one: Constant::new(1.into()),
        }
    }
}

impl Default for XbarInputs {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for XbarInputs {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..INPUTS {
            self.dropping[i].clock.next = self.clock.val();
            self.dropping[i].d.next = self.dropping[i].q.val();
            self.in_packet[i].clock.next = self.clock.val();
            self.in_packet[i].d.next = self.in_packet[i].q.val();
        }

        // What each head beat asks for. The `dest` decoded once, into the one-hot that
        // both the request and the bad-head check read (a compare would be a carry chain
        // of its own in front of the check). A bad head during reset is harmless: reset
        // takes nothing and clears what a discard would set.
        self.bad_head.next = 0.into();
        for i in 0..INPUTS {
            self.dest_hot[i].next = self.one.val() << self.dest[i].val();
            self.bad_head.next = self.bad_head.val().replace_bit(
                i,
                self.valid[i].val()
                    && !self.in_packet[i].q.val()
                    && (!self.sop[i].val()
                        || !(self.dest_hot[i].val() & self.endpoints.val()).any()),
            );
            self.want[i].next = 0.into();
            if self.valid[i].val() && self.sop[i].val() && !self.in_packet[i].q.val() {
                // A `dest` of 5..=7 asks for no output (it is a bad head).
                self.want[i].next = self.dest_hot[i].val();
            }
        }

        // What each output's owner has for it.
        self.offer.next = 0.into();
        for j in 0..NUM_ENDPOINTS {
            for i in 0..INPUTS {
                if self.owner[j].val().get_bit(i)
                    && ((self.mid.val().get_bit(j) && self.valid[i].val())
                        || self.want[i].val().get_bit(j))
                {
                    self.offer.next = self.offer.val().replace_bit(j, true);
                }
            }
        }

        // Ready from an output it owns that takes its beat, or always while discarding.
        // Written for the head's fields to come last, whatever `valid` says (a `ready`
        // without `valid` moves nothing): the outputs that could take a beat from the
        // input come from registers, the head's `sop` and `dest` choose among them.
        for i in 0..INPUTS {
            self.can_take[i].next = 0.into();
            for j in 0..NUM_ENDPOINTS {
                if self.owner[j].val().get_bit(i) && self.out_ready.val().get_bit(j) {
                    self.can_take[i].next = self.can_take[i].val().replace_bit(j, true);
                }
            }
            self.ready[i].next = self.dropping[i].q.val()
                || (self.can_take[i].val() & bit_cast::<INPUTS, NUM_ENDPOINTS>(self.mid.val()))
                    .any()
                || (!self.in_packet[i].q.val()
                    && (!self.sop[i].val()
                        || !(self.dest_hot[i].val() & self.endpoints.val()).any()
                        || (self.dest_hot[i].val() & self.can_take[i].val()).any()));
            if self.reset.val() {
                self.ready[i].next = false;
            }
            if self.valid[i].val() && (self.dropping[i].q.val() || self.bad_head.val().get_bit(i)) {
                self.dropping[i].d.next = !self.eop[i].val();
            }
            // Every beat an input gives is its packet's (to an output or discarded): a
            // packet holds the input from its first beat taken to its `eop`.
            if self.valid[i].val() && self.ready[i].val() {
                self.in_packet[i].d.next = !self.eop[i].val();
            }
        }

        if self.reset.val() {
            for i in 0..INPUTS {
                self.dropping[i].d.next = false;
                self.in_packet[i].d.next = false;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Lcg, Stepper};
    use crate::verilog::checks::lint_verilog;
    use crate::verilog::export::block_verilog;

    /// One input as the rule sees it: discarding, holding a packet.
    #[derive(Clone, Copy, Default)]
    struct Input {
        dropping: bool,
        in_packet: bool,
    }

    /// Random beats (good heads, bad `dest`s, fragments, tails), random owners, `mid`
    /// bits and output readiness, random resets: every cycle each input's `want`,
    /// `bad_head` and `ready` and each output's `offer` are the rule's (module
    /// documentation), and a discard lasts to its packet's `eop`.
    #[test]
    fn heads_ask_discard_and_take_by_the_rule() {
        let mut s = Stepper::new(XbarInputs::new(), |u| &mut u.clock);
        let mut rng = Lcg(0x1B7);
        let mut model = [Input::default(); INPUTS];
        let (mut discards, mut taken_heads, mut owned_beats) = (0, 0, 0);
        for cycle in 0..30_000 {
            let reset = cycle == 0 || rng.chance(0.002);
            let beats: Vec<(bool, bool, bool, u64)> = (0..INPUTS)
                .map(|_| {
                    (
                        rng.chance(0.7),
                        rng.chance(0.5),
                        rng.chance(0.4),
                        if rng.chance(0.1) {
                            5 + rng.below(3)
                        } else {
                            rng.below(NUM_ENDPOINTS as u64)
                        },
                    )
                })
                .collect();
            let owner: Vec<u64> = (0..NUM_ENDPOINTS)
                .map(|_| {
                    if rng.chance(0.4) {
                        1 << rng.below(INPUTS as u64)
                    } else {
                        0
                    }
                })
                .collect();
            let mid = rng.below(1 << NUM_ENDPOINTS);
            let out_ready = rng.below(1 << NUM_ENDPOINTS);
            let u = &mut s.uut;
            u.reset.next = reset;
            for (i, b) in beats.iter().enumerate() {
                u.valid[i].next = b.0;
                u.sop[i].next = b.1;
                u.eop[i].next = b.2;
                u.dest[i].next = b.3.into();
            }
            for (port, &o) in u.owner.iter_mut().zip(&owner) {
                port.next = o.into();
            }
            u.mid.next = mid.into();
            u.out_ready.next = out_ready.into();
            s.settle();
            let mut bad = 0;
            let mut offer = 0;
            for (i, &(valid, sop, eop, dest)) in beats.iter().enumerate() {
                let m = model[i];
                let head = valid && sop && !m.in_packet;
                // As wide as the inputs: a `dest` of 5 sets bit 5, which names no output.
                let want = if head {
                    (1 << dest) & ((1 << INPUTS) - 1)
                } else {
                    0
                };
                let is_bad = valid && !m.in_packet && (!sop || dest >= 5);
                bad |= u64::from(is_bad) << i;
                // An output takes its owner's beat: the rest of its packet, or a head
                // asking for it.
                let owns = |j: usize| owner[j] >> i & 1 == 1;
                for j in 0..NUM_ENDPOINTS {
                    if owns(j) && valid && (mid >> j & 1 == 1 || want >> j & 1 == 1) {
                        offer |= 1 << j;
                    }
                }
                let can = |j: usize| owns(j) && out_ready >> j & 1 == 1;
                let rest = (0..NUM_ENDPOINTS).any(|j| can(j) && mid >> j & 1 == 1);
                let head_ok = !sop || dest >= 5 || can(dest as usize);
                let ready = !reset && (m.dropping || rest || (!m.in_packet && head_ok));
                let is_bad = is_bad && !reset;
                let u = &s.uut;
                assert_eq!(
                    u.want[i].val().to_u64(),
                    want,
                    "cycle {cycle}: input {i} want"
                );
                assert_eq!(u.ready[i].val(), ready, "cycle {cycle}: input {i} ready");
                let mut next = m;
                if valid && (m.dropping || is_bad) {
                    next.dropping = !eop;
                    discards += usize::from(is_bad);
                }
                if valid && ready {
                    next.in_packet = !eop;
                    taken_heads += usize::from(head && !is_bad);
                    owned_beats += usize::from(m.in_packet && !m.dropping);
                }
                if reset {
                    next = Input::default();
                }
                model[i] = next;
            }
            assert_eq!(
                s.uut.bad_head.val().to_u64(),
                bad,
                "cycle {cycle}: bad heads"
            );
            assert_eq!(s.uut.offer.val().to_u64(), offer, "cycle {cycle}: offers");
            s.tick();
        }
        assert!(
            discards > 1_000 && taken_heads > 1_000 && owned_beats > 1_000,
            "{discards} discards, {taken_heads} heads taken, {owned_beats} beats in a packet"
        );
    }

    #[test]
    fn xbar_inputs_verilog_lints_clean() {
        let mut uut = XbarInputs::new();
        lint_verilog(&block_verilog(&mut uut, "xbar_inputs"), "xbar_inputs").unwrap();
    }
}
