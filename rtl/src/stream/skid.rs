//! A two-entry output register of a TLP stream (`main`, `skid`). The source comes from
//! registers, and so does the sink's `ready` (`!skid_valid`), so no combinational path
//! crosses the block in either direction; the second entry catches the beat already
//! under way when the downstream drops `ready`. A beat taken in cycle t is offered in
//! cycle t+1, and the stream still moves one beat per cycle. The crossbar ends each
//! output in one.
//!
//! In a reset's cycle nothing is taken, and the beat held is offered or not as the
//! reader needs: [`TlpSkid::new`] offers nothing (a reader reset apart from it, like the
//! TX merge behind the link controller's register), [`TlpSkid::reader_reset_with_it`]
//! offers `main` as it is, since its reader is reset at the same edge (as
//! `super::fifo::TlpFifo` does): then the readers' handshakes start at a register, not
//! behind the reset's gate.

use super::{TlpSink, TlpSource, DATA_BITS, ENDPOINT_BITS};
use rust_hdl::prelude::*;

/// A skid buffer of one TLP stream, chip metadata included.
#[derive(LogicBlock)]
pub struct TlpSkid {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: both entries empty and nothing taken; offered in
    /// its cycle: nothing, or `main` (see the module documentation).
    pub reset: Signal<In, Bit>,
    /// Upstream: ready while the `skid` entry is free.
    pub sink: TlpSink,
    /// Downstream: the `main` entry.
    pub source: TlpSource,
    /// The `main` entry holds a beat (offered on `source`).
    main_valid: DFF<Bit>,
    /// `data` of the beat in `main`.
    main_data: DFF<Bits<DATA_BITS>>,
    /// `sop` of the beat in `main`.
    main_sop: DFF<Bit>,
    /// `eop` of the beat in `main`.
    main_eop: DFF<Bit>,
    /// `empty` of the beat in `main`.
    main_empty: DFF<Bits<2>>,
    /// `dest` of the beat in `main`.
    main_dest: DFF<Bits<ENDPOINT_BITS>>,
    /// `src` of the beat in `main`.
    main_src: DFF<Bits<ENDPOINT_BITS>>,
    /// `unsupported` of the beat in `main`.
    main_unsupported: DFF<Bit>,
    /// The `skid` entry holds a beat (taken while `main` was stalled).
    skid_valid: DFF<Bit>,
    /// `data` of the beat in `skid`.
    skid_data: DFF<Bits<DATA_BITS>>,
    /// `sop` of the beat in `skid`.
    skid_sop: DFF<Bit>,
    /// `eop` of the beat in `skid`.
    skid_eop: DFF<Bit>,
    /// `empty` of the beat in `skid`.
    skid_empty: DFF<Bits<2>>,
    /// `dest` of the beat in `skid`.
    skid_dest: DFF<Bits<ENDPOINT_BITS>>,
    /// `src` of the beat in `skid`.
    skid_src: DFF<Bits<ENDPOINT_BITS>>,
    /// `unsupported` of the beat in `skid`.
    skid_unsupported: DFF<Bit>,
    /// A beat comes in this cycle.
    push: Signal<Local, Bit>,
    /// The downstream takes the `main` beat this cycle.
    pop: Signal<Local, Bit>,
    /// All ones while `skid` holds a beat: the data `main` refills from.
    skid_mask: Signal<Local, Bits<DATA_BITS>>,
    /// Offer nothing in a reset's cycle.
    gate_reset: Constant<Bit>,
}

impl TlpSkid {
    /// A skid buffer that offers nothing while reset is high.
    pub fn new() -> Self {
        Self::with_gate(true)
    }

    /// A skid buffer whose reader is reset with it: in a reset's cycle it offers what
    /// `main` holds (the reader takes nothing it keeps), so `source.valid` is a register.
    pub fn reader_reset_with_it() -> Self {
        Self::with_gate(false)
    }

    fn with_gate(gate: bool) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            sink: Default::default(),
            source: Default::default(),
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
            push: Default::default(),
            pop: Default::default(),
            skid_mask: Default::default(),
            gate_reset: Constant::new(gate),
        }
    }
}

impl Default for TlpSkid {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for TlpSkid {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            main_valid,
            main_data,
            main_sop,
            main_eop,
            main_empty,
            main_dest,
            main_src,
            main_unsupported,
            skid_valid,
            skid_data,
            skid_sop,
            skid_eop,
            skid_empty,
            skid_dest,
            skid_src,
            skid_unsupported
        );
        self.sink.ready.next = !self.skid_valid.q.val() && !self.reset.val();
        self.push.next = self.sink.valid.val() && self.sink.ready.val();
        self.source.valid.next =
            self.main_valid.q.val() && !(self.gate_reset.val() && self.reset.val());
        self.source.data.next = self.main_data.q.val();
        self.source.sop.next = self.main_sop.q.val();
        self.source.eop.next = self.main_eop.q.val();
        self.source.empty.next = self.main_empty.q.val();
        self.source.dest.next = self.main_dest.q.val();
        self.source.src.next = self.main_src.q.val();
        self.source.unsupported.next = self.main_unsupported.q.val();
        self.pop.next = self.source.valid.val() && self.source.ready.val();
        if !self.skid_valid.q.val() {
            // Free, `skid` follows the input: a beat pushed behind a stalled `main` is
            // in it, and only `skid_valid` waits for the push and the pop.
            self.skid_data.d.next = self.sink.data.val();
            self.skid_sop.d.next = self.sink.sop.val();
            self.skid_eop.d.next = self.sink.eop.val();
            self.skid_empty.d.next = self.sink.empty.val();
            self.skid_dest.d.next = self.sink.dest.val();
            self.skid_src.d.next = self.sink.src.val();
            self.skid_unsupported.d.next = self.sink.unsupported.val();
        }
        self.skid_mask.next = 0.into();
        if self.skid_valid.q.val() {
            self.skid_mask.next = !self.skid_mask.val();
        }
        if !self.main_valid.q.val() || self.pop.val() {
            // `main` is free: refill it from `skid` first (that beat is older, and
            // nothing is pushed while `skid` holds one). The data as an AND-OR, not the
            // choice `skid` makes while free: shared, that choice was `skid`'s input
            // too, and its register lost its enable to a level of logic.
            self.main_data.d.next = (self.skid_data.q.val() & self.skid_mask.val())
                | (self.sink.data.val() & !self.skid_mask.val());
            if self.skid_valid.q.val() {
                self.main_valid.d.next = true;
                self.main_sop.d.next = self.skid_sop.q.val();
                self.main_eop.d.next = self.skid_eop.q.val();
                self.main_empty.d.next = self.skid_empty.q.val();
                self.main_dest.d.next = self.skid_dest.q.val();
                self.main_src.d.next = self.skid_src.q.val();
                self.main_unsupported.d.next = self.skid_unsupported.q.val();
                self.skid_valid.d.next = false;
            } else {
                self.main_valid.d.next = self.push.val();
                self.main_sop.d.next = self.sink.sop.val();
                self.main_eop.d.next = self.sink.eop.val();
                self.main_empty.d.next = self.sink.empty.val();
                self.main_dest.d.next = self.sink.dest.val();
                self.main_src.d.next = self.sink.src.val();
                self.main_unsupported.d.next = self.sink.unsupported.val();
            }
        } else if self.push.val() {
            self.skid_valid.d.next = true;
        }
        if self.reset.val() {
            self.main_valid.d.next = false;
            self.skid_valid.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{bits128, Lcg, Stepper};
    use std::collections::VecDeque;

    /// Numbered beats (every field carrying the number) through the buffer with a random
    /// source and random backpressure: every beat comes out once, in order, a cycle after
    /// it went in at the earliest, with all its fields; `ready` is what the held beats
    /// allow (two at most), and with the downstream always ready one beat moves a cycle.
    #[test]
    fn beats_pass_in_order_under_random_flow() {
        for (seed, p_valid, p_ready) in [(1, 0.7, 0.6), (2, 1.0, 0.3), (3, 1.0, 1.0)] {
            let mut s = Stepper::new(TlpSkid::default(), |u| &mut u.clock);
            s.uut.reset.next = true;
            s.tick();
            s.uut.reset.next = false;
            let mut rng = Lcg(seed);
            let (mut next_in, mut next_out) = (0u64, 0u64);
            let mut held: VecDeque<u64> = VecDeque::new();
            let mut offered: Option<u64> = None;
            while next_out < 3_000 {
                assert!(s.cycle < 30_000, "the buffer stalled");
                if offered.is_none() && rng.chance(p_valid) {
                    offered = Some(next_in);
                    next_in += 1;
                }
                let ready = rng.chance(p_ready);
                let n = offered.unwrap_or(0);
                let u = &mut s.uut;
                u.sink.valid.next = offered.is_some();
                u.sink.data.next = n.into();
                u.sink.sop.next = n.is_multiple_of(3);
                u.sink.eop.next = n % 3 == 2;
                u.sink.empty.next = (n % 4).into();
                u.sink.dest.next = (n % 8).into();
                u.sink.src.next = (n / 8 % 8).into();
                u.sink.unsupported.next = n.is_multiple_of(5);
                u.source.ready.next = ready;
                s.settle();
                let u = &s.uut;
                assert_eq!(u.source.valid.val(), !held.is_empty());
                assert_eq!(
                    u.sink.ready.val(),
                    held.len() < 2,
                    "ready from the held beats"
                );
                if let Some(&h) = held.front() {
                    assert_eq!(u.source.data.val().get_bits::<64>(0).to_u64(), h);
                    assert_eq!(
                        (u.source.sop.val(), u.source.eop.val()),
                        (h % 3 == 0, h % 3 == 2)
                    );
                    assert_eq!(u.source.empty.val().to_u64(), h % 4);
                    assert_eq!(u.source.dest.val().to_u64(), h % 8);
                    assert_eq!(u.source.src.val().to_u64(), h / 8 % 8);
                    assert_eq!(u.source.unsupported.val(), h % 5 == 0);
                }
                let pop = !held.is_empty() && ready;
                let push = offered.is_some() && u.sink.ready.val();
                if pop {
                    assert_eq!(held.pop_front(), Some(next_out));
                    next_out += 1;
                }
                if push {
                    held.push_back(offered.take().unwrap());
                }
                s.tick();
            }
            if p_valid == 1.0 && p_ready == 1.0 {
                assert!(s.cycle < 3_010, "one beat a cycle: {} cycles", s.cycle);
            }
        }
    }

    /// A reset's cycle: with both entries full, nothing is taken; `new` offers nothing,
    /// `reader_reset_with_it` the beat in `main`; after the edge both are empty.
    #[test]
    fn a_reset_takes_nothing_and_offers_as_built() {
        for (uut, offers) in [
            (TlpSkid::new(), false),
            (TlpSkid::reader_reset_with_it(), true),
        ] {
            let mut s = Stepper::new(uut, |u| &mut u.clock);
            s.uut.reset.next = true;
            s.tick();
            s.uut.reset.next = false;
            // Two beats in while the downstream waits: both entries full.
            for n in [7u64, 8] {
                s.uut.sink.valid.next = true;
                s.uut.sink.data.next = bits128(u128::from(n));
                s.uut.source.ready.next = false;
                s.settle();
                assert!(s.uut.sink.ready.val(), "beat {n} taken");
                s.tick();
            }
            s.uut.reset.next = true;
            s.uut.source.ready.next = true;
            s.settle();
            assert!(!s.uut.sink.ready.val(), "nothing taken in reset");
            assert_eq!(s.uut.source.valid.val(), offers, "offered in reset");
            if offers {
                assert_eq!(s.uut.source.data.val().to_u128(), 7, "the beat in main");
            }
            s.tick();
            s.uut.reset.next = false;
            s.uut.sink.valid.next = false;
            s.settle();
            assert!(!s.uut.source.valid.val(), "empty after the reset");
            assert!(s.uut.sink.ready.val(), "free after the reset");
        }
    }

    #[test]
    fn skid_verilog_lints_clean() {
        let mut uut = TlpSkid::default();
        let v = crate::verilog::export::block_verilog(&mut uut, "tlp_skid");
        crate::verilog::checks::lint_verilog(&v, "tlp_skid").unwrap();
    }
}
