//! A small FIFO of TLP beats in registers, for a stream where latency counts: a beat
//! written into an empty FIFO is offered the next cycle (the block-RAM [`super::fifo::TlpFifo`]
//! offers it two cycles on: its RAM reads a cycle late, and a slot is read only the cycle
//! after its write).
//!
//! The head beat is a register of its own (`head_*`), and the reader sees nothing but
//! registers. Behind it, `2^A` registers hold the beats that wait (`body`). The head
//! refills from the oldest of them, or, with none, straight from the input: the choice
//! is made from the body's pointers and the input, and the reader's `ready` only enables
//! the head's registers and steps the read pointer, as a RAM FIFO's read does. Every beat
//! written also goes into the body; one that went straight to the head is stepped over.

use super::{TlpSink, TlpSource, DATA_BITS, META_BITS};
use rust_hdl::prelude::*;

/// A FIFO of `N + 1` beats: the head and `N = 2^A` behind it. `AP1` must be `A + 1`
/// (pointers with a wrap bit).
#[derive(LogicBlock)]
pub struct TlpRegFifo<const N: usize, const A: usize, const AP1: usize> {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: empties the FIFO. It takes nothing while reset is
    /// high; `source.valid` is a register's output, so in the reset's cycle the head is
    /// still offered (its reader is reset with it, as for [`super::fifo::TlpFifo`]).
    pub reset: Signal<In, Bit>,
    /// Upstream: beats written into the FIFO.
    pub sink: TlpSink,
    /// Downstream: the head beat.
    pub source: TlpSource,
    /// Beats stored: the head and the body.
    pub fill: Signal<Out, Bits<AP1>>,
    /// The head holds a beat (`source.valid`).
    head_valid: DFF<Bit>,
    /// The head beat's data.
    head_data: DFF<Bits<DATA_BITS>>,
    /// The head beat's metadata.
    head_meta: DFF<Bits<META_BITS>>,
    /// The body's beats' data.
    body_data: [DFF<Bits<DATA_BITS>>; N],
    /// The body's beats' metadata.
    body_meta: [DFF<Bits<META_BITS>>; N],
    /// Where the next beat is written in the body (with the wrap bit).
    wr_ptr: DFF<Bits<AP1>>,
    /// The body's oldest beat (with the wrap bit).
    rd_ptr: DFF<Bits<AP1>>,
    /// A beat is written this cycle.
    push: Signal<Local, Bit>,
    /// The head is free after this cycle's read: it takes the next beat if there is one.
    refill: Signal<Local, Bit>,
    /// Beats waiting in the body.
    waiting: Signal<Local, Bits<AP1>>,
    /// A beat is there for the head: one waiting in the body, or one coming in.
    next_beat: Signal<Local, Bit>,
    /// The body's oldest beat's data.
    oldest_data: Signal<Local, Bits<DATA_BITS>>,
    /// The body's oldest beat's metadata.
    oldest_meta: Signal<Local, Bits<META_BITS>>,
    /// The input beat's metadata.
    in_meta: Signal<Local, Bits<META_BITS>>,
    /// The body's size, `N` beats.
    depth: Constant<Bits<AP1>>,
}

impl<const N: usize, const A: usize, const AP1: usize> TlpRegFifo<N, A, AP1> {
    /// A FIFO of `N + 1` beats. Panics unless `N = 2^A` with `A` in 1..=4 and `AP1 = A
    /// + 1` (a construction-time design error).
    pub fn new() -> Self {
        assert!(
            (1..=4).contains(&A),
            "TlpRegFifo: a body of 2^A beats with A in 1..=4"
        );
        assert_eq!(N, 1 << A, "TlpRegFifo: N must be 2^A");
        assert_eq!(AP1, A + 1, "TlpRegFifo: AP1 must be A + 1");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            sink: Default::default(),
            source: Default::default(),
            fill: Default::default(),
            head_valid: Default::default(),
            head_data: Default::default(),
            head_meta: Default::default(),
            body_data: array_init::array_init(|_| Default::default()),
            body_meta: array_init::array_init(|_| Default::default()),
            wr_ptr: Default::default(),
            rd_ptr: Default::default(),
            push: Default::default(),
            refill: Default::default(),
            waiting: Default::default(),
            next_beat: Default::default(),
            oldest_data: Default::default(),
            oldest_meta: Default::default(),
            in_meta: Default::default(),
            depth: Constant::new((N as u64).into()),
        }
    }
}

impl<const N: usize, const A: usize, const AP1: usize> Default for TlpRegFifo<N, A, AP1> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize, const A: usize, const AP1: usize> Logic for TlpRegFifo<N, A, AP1> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, head_valid, head_data, head_meta, wr_ptr, rd_ptr);
        for k in 0..N {
            self.body_data[k].clock.next = self.clock.val();
            self.body_data[k].d.next = self.body_data[k].q.val();
            self.body_meta[k].clock.next = self.clock.val();
            self.body_meta[k].d.next = self.body_meta[k].q.val();
        }
        self.waiting.next = self.wr_ptr.q.val() - self.rd_ptr.q.val();
        self.fill.next = self.waiting.val() + bit_cast::<AP1, 1>(self.head_valid.q.val().into());
        self.sink.ready.next = (self.waiting.val() != self.depth.val()) && !self.reset.val();
        self.push.next = self.sink.valid.val() && self.sink.ready.val();

        self.source.valid.next = self.head_valid.q.val();
        self.source.data.next = self.head_data.q.val();
        self.source.sop.next = self.head_meta.q.val().get_bit(0);
        self.source.eop.next = self.head_meta.q.val().get_bit(1);
        self.source.empty.next = self.head_meta.q.val().get_bits::<2>(2);
        self.source.dest.next = self.head_meta.q.val().get_bits::<3>(4);
        self.source.src.next = self.head_meta.q.val().get_bits::<3>(7);
        self.source.unsupported.next = self.head_meta.q.val().get_bit(10);

        // Every beat written goes into the body.
        self.in_meta.next = bit_cast::<META_BITS, 1>(self.sink.sop.val().into())
            | (bit_cast::<META_BITS, 1>(self.sink.eop.val().into()) << 1)
            | (bit_cast::<META_BITS, 2>(self.sink.empty.val()) << 2)
            | (bit_cast::<META_BITS, 3>(self.sink.dest.val()) << 4)
            | (bit_cast::<META_BITS, 3>(self.sink.src.val()) << 7)
            | (bit_cast::<META_BITS, 1>(self.sink.unsupported.val().into()) << 10);
        self.oldest_data.next = self.body_data[0].q.val();
        self.oldest_meta.next = self.body_meta[0].q.val();
        for k in 0..N {
            if self.push.val() && (self.wr_ptr.q.val().get_bits::<A>(0).index() == k) {
                self.body_data[k].d.next = self.sink.data.val();
                self.body_meta[k].d.next = self.in_meta.val();
            }
            if self.rd_ptr.q.val().get_bits::<A>(0).index() == k {
                self.oldest_data.next = self.body_data[k].q.val();
                self.oldest_meta.next = self.body_meta[k].q.val();
            }
        }
        if self.push.val() {
            self.wr_ptr.d.next = self.wr_ptr.q.val() + 1;
        }

        // The head refills from the body's oldest beat, or else from the input; either
        // way that beat leaves the body.
        self.refill.next = !self.head_valid.q.val() || self.source.ready.val();
        self.next_beat.next = (self.waiting.val() != 0) || self.push.val();
        if self.refill.val() {
            self.head_valid.d.next = self.next_beat.val();
            self.head_data.d.next = self.sink.data.val();
            self.head_meta.d.next = self.in_meta.val();
            if self.waiting.val() != 0 {
                self.head_data.d.next = self.oldest_data.val();
                self.head_meta.d.next = self.oldest_meta.val();
            }
            if self.next_beat.val() {
                self.rd_ptr.d.next = self.rd_ptr.q.val() + 1;
            }
        }
        if self.reset.val() {
            self.head_valid.d.next = false;
            self.wr_ptr.d.next = 0.into();
            self.rd_ptr.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{packet_beats, Lcg, Stepper, StreamDriver, StreamMonitor};
    use crate::stream::fifo_tests::full_rate;

    /// Random packets under random idle and backpressure: every packet written comes out
    /// whole and in order, `fill` counts the beats in (nine at most, `ready` below that),
    /// the head is offered whenever a beat is in, and a beat written into a FIFO empty
    /// after that cycle's read is offered the next cycle.
    #[test]
    fn beats_pass_in_order_a_cycle_through() {
        let mut fast = 0;
        for (seed, p_valid, p_ready) in [(1, 0.5, 0.5), (2, 1.0, 0.3), (3, 0.3, 1.0), (4, 1.0, 1.0)]
        {
            let mut s = Stepper::new(TlpRegFifo::<8, 3, 4>::new(), |u| &mut u.clock);
            let mut drv = StreamDriver::new(p_valid, seed);
            let mut mon = StreamMonitor::new(p_ready, seed ^ 0x55);
            let mut rng = Lcg(seed);
            let mut want = Vec::new();
            for p in 0..150u32 {
                let len = 1 + rng.below(40) as usize;
                let dws: Vec<u32> = (0..len).map(|_| rng.next_u64() as u32).collect();
                let beats = packet_beats(&dws, (p % 5) as u8, ((p + 1) % 5) as u8, p % 3 == 0);
                want.push(beats.clone());
                drv.push(beats);
            }
            s.uut.reset.next = true;
            s.tick();
            s.uut.reset.next = false;
            // Beats in the FIFO, per the handshakes seen.
            let mut held = 0u64;
            while mon.packets.len() < want.len() {
                assert!(
                    s.cycle < 40_000,
                    "seed {seed}: stalled at {}",
                    mon.packets.len()
                );
                drv.drive(&mut s.uut.sink);
                mon.drive(&mut s.uut.source);
                s.settle();
                let u = &s.uut;
                assert_eq!(u.fill.val().to_u64(), held, "seed {seed}: fill");
                assert!(held <= 9, "seed {seed}: {held} beats held");
                assert_eq!(u.source.valid.val(), held > 0, "seed {seed}: the head");
                assert_eq!(u.sink.ready.val(), held < 9, "seed {seed}: ready");
                let pushed = drv.sample(&s.uut.sink).is_some();
                let popped = mon.sample(&s.uut.source).is_some();
                s.tick();
                if pushed && held == u64::from(popped) {
                    // Written into a FIFO empty after this cycle's read: offered now.
                    s.settle();
                    assert!(s.uut.source.valid.val(), "seed {seed}: a cycle through");
                    fast += 1;
                }
                held = held + u64::from(pushed) - u64::from(popped);
            }
            for (got, w) in mon.packets.iter().zip(&want) {
                assert_eq!(got, w, "seed {seed}");
            }
        }
        assert!(fast > 100, "{fast} beats went straight through");
    }

    /// With both sides always ready, one beat a cycle, the first a cycle after it went in.
    #[test]
    fn reg_fifo_keeps_full_throughput() {
        let fifo = TlpRegFifo::<8, 3, 4>::new();
        let moved = full_rate(
            fifo,
            |u| &mut u.clock,
            |u| &mut u.sink,
            |u| &mut u.source,
            101,
        );
        assert_eq!(moved, (100, 1));
    }

    #[test]
    fn reg_fifo_verilog_lints_clean() {
        let mut uut = TlpRegFifo::<8, 3, 4>::new();
        let v = crate::verilog::export::block_verilog(&mut uut, "tlp_reg_fifo");
        crate::verilog::checks::lint_verilog(&v, "tlp_reg_fifo").unwrap();
    }
}
