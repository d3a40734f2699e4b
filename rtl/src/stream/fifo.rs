//! A synchronous FIFO of TLP beats, sized in beats by `2^A`, with a block-RAM body.
//!
//! Reads are first-word-fall-through: `source.valid` says a beat is at the head. The RAM
//! has a registered read port, so the read address is the head pointer *after* this
//! cycle's pop, and a slot written in cycle t is read right from cycle t+1 on (its data
//! at t+2): a committed beat is offered once the reader can see its commit a cycle late
//! (`wr_commit`'s register), which is what keeps a just-written slot from being read
//! stale.
//!
//! Two modes. Cut-through ([`TlpFifo::new`]): every beat is committed as it is written,
//! and a beat written in cycle t is offered at t+2. Store-and-forward
//! ([`TlpFifo::whole_packets`]): the reader sees a packet only once its `eop` beat is
//! written, and `discard` drops the packet being written (the write pointer returns to
//! the end of the last whole packet), so a packet found bad before its end never leaves.
//! A packet of two beats or more whose `eop` is written in cycle t is offered at t+1: its
//! first beat, the one the reader needs first, was written in an earlier cycle (`open`).
//! So is a one-beat packet written into a FIFO the reader empties by then: the RAM has
//! read its slot before the write, so the head comes from a copy of the beat written
//! (`bypass`) for that cycle; behind other beats it is read from the RAM as they are. The
//! writer must keep packets shorter than the FIFO (a longer one could never be
//! committed).

use super::{TlpSink, TlpSource, DATA_BITS, META_BITS};
use rust_hdl::prelude::*;

/// FIFO of `2^A` beats; `AP1` must be `A + 1` (pointer with wrap bit).
#[derive(LogicBlock)]
pub struct TlpFifo<const A: usize, const AP1: usize> {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: empties the FIFO. It takes nothing while reset is
    /// high; `source.valid` is a register's output, so in the first reset cycle the head
    /// is still offered (the FIFO's readers are reset with it, and the reset would wait
    /// for a LUT level on every reader's handshake).
    pub reset: Signal<In, Bit>,
    /// Upstream: beats written into the FIFO.
    pub sink: TlpSink,
    /// Upstream: drop the beats of the packet being written (store-and-forward only),
    /// before this cycle's beat, which starts the next packet.
    pub discard: Signal<In, Bit>,
    /// Downstream: beats read from the FIFO.
    pub source: TlpSource,
    /// Number of beats stored (as seen by the writer).
    pub fill: Signal<Out, Bits<AP1>>,
    /// The beats' data, one entry per beat.
    data_ram: RAM<Bits<DATA_BITS>, A>,
    /// The beats' metadata (sop, eop, empty, dest, src, unsupported), beside the data.
    meta_ram: RAM<Bits<META_BITS>, A>,
    /// The write pointer: one past the last beat written and not discarded (with the wrap bit).
    wr_ptr: DFF<Bits<AP1>>,
    /// End of the last committed beat: what the reader may see.
    wr_commit: DFF<Bits<AP1>>,
    /// Store-and-forward: the packet being written has a beat in the RAM from an earlier
    /// cycle (its first), so its commit can be offered the cycle after its `eop`.
    open: DFF<Bit>,
    /// Store-and-forward: this cycle's beat ends a packet whose first beat is in the RAM
    /// already; the head is valid from the next cycle (see the module documentation).
    commit_open: Signal<Local, Bit>,
    /// Store-and-forward: this cycle's beat is a whole packet (`sop` and `eop`).
    commit_one: Signal<Local, Bit>,
    /// This cycle's beat goes where the head is if nothing is popped (`rd_ptr`)...
    lands_at_ptr: Signal<Local, Bit>,
    /// ...and where it is if the head is popped (`rd_ptr + 1`).
    lands_at_step: Signal<Local, Bit>,
    /// The head is the one-beat packet written the cycle before: it is offered from
    /// `by_data` and `by_meta`, since the RAM read its slot before the write.
    bypass: DFF<Bit>,
    /// The beat written last, as it was written.
    by_data: DFF<Bits<DATA_BITS>>,
    /// Its metadata, in `meta_ram`'s layout.
    by_meta: DFF<Bits<META_BITS>>,
    /// The metadata written this cycle.
    meta_in: Signal<Local, Bits<META_BITS>>,
    /// The head: where the next beat is read (with the wrap bit).
    rd_ptr: DFF<Bits<AP1>>,
    /// The FIFO holds `2^A` beats (as the writer sees it).
    full: Signal<Local, Bit>,
    /// A beat is written this cycle.
    push: Signal<Local, Bit>,
    /// The downstream takes the head beat this cycle.
    pop: Signal<Local, Bit>,
    /// A beat is at the head: `rd_ptr` is short of the commit the reader sees, computed a
    /// cycle ahead from the pointers' next values, so `source.valid` comes from a register
    /// (the readers' handshake logic starts there, not behind a pointer compare).
    head_valid: DFF<Bit>,
    /// The head after this cycle's pop: the RAMs' read address.
    rd_next: Signal<Local, Bits<AP1>>,
    /// `rd_ptr + 1`, before the pop chooses it.
    rd_step: Signal<Local, Bits<AP1>>,
    /// A beat will be at the head if this cycle pops: made before the pop is known, so
    /// that `head_valid` waits on the pop for one choice, not for the sum and a compare.
    left_if_pop: Signal<Local, Bit>,
    /// Where this cycle's beat is written: the write pointer, or the commit point after
    /// a discard.
    wr_base: Signal<Local, Bits<AP1>>,
    /// The write pointer after this cycle's beat.
    wr_next: Signal<Local, Bits<AP1>>,
    /// The metadata of the head beat, from `meta_ram`.
    meta_out: Signal<Local, Bits<META_BITS>>,
    /// `2^A`: the pointers of a full FIFO differ in the wrap bit only.
    lap: Constant<Bits<AP1>>,
    /// Store-and-forward mode: commit a packet at its `eop` beat, and obey `discard`.
    whole: Constant<Bit>,
}

impl<const A: usize, const AP1: usize> TlpFifo<A, AP1> {
    /// A cut-through FIFO of `2^A` beats. Panics if `AP1 != A + 1` (a construction-time
    /// design error).
    pub fn new() -> Self {
        Self::with_mode(false)
    }

    /// A store-and-forward FIFO of `2^A` beats with `discard`; packets must be shorter
    /// than `2^A` beats.
    pub fn whole_packets() -> Self {
        Self::with_mode(true)
    }

    fn with_mode(whole: bool) -> Self {
        assert_eq!(AP1, A + 1, "TlpFifo: AP1 must be A + 1");
        assert!((2..=12).contains(&A), "TlpFifo: depth 2^A with A in 2..=12");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            sink: Default::default(),
            discard: Default::default(),
            source: Default::default(),
            fill: Default::default(),
            data_ram: Default::default(),
            meta_ram: Default::default(),
            wr_ptr: Default::default(),
            wr_commit: Default::default(),
            open: Default::default(),
            commit_open: Default::default(),
            commit_one: Default::default(),
            lands_at_ptr: Default::default(),
            lands_at_step: Default::default(),
            bypass: Default::default(),
            by_data: Default::default(),
            by_meta: Default::default(),
            meta_in: Default::default(),
            rd_ptr: Default::default(),
            full: Default::default(),
            push: Default::default(),
            pop: Default::default(),
            head_valid: Default::default(),
            rd_next: Default::default(),
            rd_step: Default::default(),
            left_if_pop: Default::default(),
            wr_base: Default::default(),
            wr_next: Default::default(),
            meta_out: Default::default(),
            lap: Constant::new((1u64 << A).into()),
            whole: Constant::new(whole),
        }
    }
}

impl<const A: usize, const AP1: usize> Default for TlpFifo<A, AP1> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const A: usize, const AP1: usize> Logic for TlpFifo<A, AP1> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, wr_ptr, wr_commit, open, bypass, by_data, by_meta, rd_ptr, head_valid
        );
        self.data_ram.write_clock.next = self.clock.val();
        self.data_ram.read_clock.next = self.clock.val();
        self.meta_ram.write_clock.next = self.clock.val();
        self.meta_ram.read_clock.next = self.clock.val();

        self.fill.next = self.wr_ptr.q.val() - self.rd_ptr.q.val();
        // Full: the pointers name one slot a lap apart. Compared directly (no
        // subtraction's carry chain before the writer's handshake).
        self.full.next = (self.wr_ptr.q.val() ^ self.rd_ptr.q.val()) == self.lap.val();
        self.sink.ready.next = !self.full.val() && !self.reset.val();
        self.push.next = self.sink.valid.val() && self.sink.ready.val();

        self.source.valid.next = self.head_valid.q.val();
        self.pop.next = self.source.valid.val() && self.source.ready.val();
        self.rd_step.next = self.rd_ptr.q.val() + 1;
        self.rd_next.next = self.rd_ptr.q.val();
        if self.pop.val() {
            self.rd_next.next = self.rd_step.val();
        }

        self.data_ram.write_enable.next = self.push.val();
        self.meta_ram.write_enable.next = self.push.val();
        self.wr_base.next = self.wr_ptr.q.val();
        if self.whole.val() && self.discard.val() {
            self.wr_base.next = self.wr_commit.q.val();
        }
        self.wr_next.next = self.wr_base.val();
        if self.push.val() {
            self.wr_next.next = self.wr_base.val() + 1;
        }
        self.data_ram.write_address.next = self.wr_base.val().get_bits::<A>(0);
        self.meta_ram.write_address.next = self.wr_base.val().get_bits::<A>(0);
        self.data_ram.write_data.next = self.sink.data.val();
        self.meta_in.next = bit_cast::<META_BITS, 1>(self.sink.sop.val().into())
            | (bit_cast::<META_BITS, 1>(self.sink.eop.val().into()) << 1)
            | (bit_cast::<META_BITS, 2>(self.sink.empty.val()) << 2)
            | (bit_cast::<META_BITS, 3>(self.sink.dest.val()) << 4)
            | (bit_cast::<META_BITS, 3>(self.sink.src.val()) << 7)
            | (bit_cast::<META_BITS, 1>(self.sink.unsupported.val().into()) << 10);
        self.meta_ram.write_data.next = self.meta_in.val();
        if self.push.val() {
            self.by_data.d.next = self.sink.data.val();
            self.by_meta.d.next = self.meta_in.val();
        }
        self.data_ram.read_address.next = self.rd_next.val().get_bits::<A>(0);
        self.meta_ram.read_address.next = self.rd_next.val().get_bits::<A>(0);

        self.meta_out.next = self.meta_ram.read_data.val();
        self.source.data.next = self.data_ram.read_data.val();
        if self.bypass.q.val() {
            self.meta_out.next = self.by_meta.q.val();
            self.source.data.next = self.by_data.q.val();
        }
        self.source.sop.next = self.meta_out.val().get_bit(0);
        self.source.eop.next = self.meta_out.val().get_bit(1);
        self.source.empty.next = self.meta_out.val().get_bits::<2>(2);
        self.source.dest.next = self.meta_out.val().get_bits::<3>(4);
        self.source.src.next = self.meta_out.val().get_bits::<3>(7);
        self.source.unsupported.next = self.meta_out.val().get_bit(10);

        self.wr_ptr.d.next = self.wr_next.val();
        if !self.whole.val() || (self.push.val() && self.sink.eop.val()) {
            self.wr_commit.d.next = self.wr_next.val();
        }
        // A discard empties the packet being written; a beat pushed with it starts the
        // next one.
        if self.discard.val() {
            self.open.d.next = false;
        }
        if self.push.val() {
            self.open.d.next = !self.sink.eop.val();
        }
        self.commit_open.next = self.whole.val()
            && self.push.val()
            && self.sink.eop.val()
            && self.open.q.val()
            && !self.discard.val();
        self.commit_one.next =
            self.whole.val() && self.push.val() && self.sink.sop.val() && self.sink.eop.val();
        self.lands_at_ptr.next = self.rd_ptr.q.val() == self.wr_base.val();
        self.lands_at_step.next = self.rd_step.val() == self.wr_base.val();
        self.rd_ptr.d.next = self.rd_next.val();
        // The reader sees a commit a cycle late, so the slot it reads was written at
        // least a cycle before; a packet committed open has its first beat there, and
        // the head (at or before that beat) is then short of the new commit. A one-beat
        // packet that lands at the head is offered from its copy. Each choice is made
        // for both ways of the pop, which chooses last.
        self.left_if_pop.next = self.rd_step.val() != self.wr_commit.q.val();
        self.head_valid.d.next = (self.rd_ptr.q.val() != self.wr_commit.q.val())
            || (self.commit_one.val() && self.lands_at_ptr.val());
        self.bypass.d.next = self.commit_one.val() && self.lands_at_ptr.val();
        if self.pop.val() {
            self.head_valid.d.next =
                self.left_if_pop.val() || (self.commit_one.val() && self.lands_at_step.val());
            self.bypass.d.next = self.commit_one.val() && self.lands_at_step.val();
        }
        if self.commit_open.val() {
            self.head_valid.d.next = true;
        }
        if self.reset.val() {
            self.bypass.d.next = false;
            self.head_valid.d.next = false;
            self.wr_ptr.d.next = 0.into();
            self.wr_commit.d.next = 0.into();
            self.open.d.next = false;
            self.rd_ptr.d.next = 0.into();
        }
    }
}
