//! Cycle-by-cycle driving of rust-hdl blocks for tests, outside the `Simulation`
//! framework (its per-wait thread hand-over is ~15x slower than a direct loop).
//!
//! A test builds its block, wraps it in a [`Stepper`], and per cycle: sets inputs,
//! calls [`Stepper::settle`], samples handshakes, then [`Stepper::tick`]. The stream
//! helpers ([`StreamDriver`], [`StreamMonitor`]) play the two sides of a TLP stream with
//! random idle cycles and random backpressure, obeying the valid/ready rules.

use crate::stream::{PortSink, PortSource, TlpSink, TlpSource};
use rust_hdl::prelude::*;
use std::collections::VecDeque;

/// One beat as seen by tests: the port format of `pcie_model::beats` plus chip metadata.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TestBeat {
    /// Beat data, 4 DW lanes (lane 0 in bits 31:0).
    pub data: u128,
    /// First beat of a TLP.
    pub sop: bool,
    /// Last beat of a TLP.
    pub eop: bool,
    /// Unused lanes in the eop beat.
    pub empty: u8,
    /// Crossbar destination.
    pub dest: u8,
    /// Crossbar source.
    pub src: u8,
    /// Answer with Unsupported Request.
    pub unsupported: bool,
}

// `pcie-model` is a dev-dependency: the unit tests' beats come from it.
#[cfg(test)]
impl From<pcie_model::beats::Beat> for TestBeat {
    /// The beat with no chip metadata (destination, source 0).
    fn from(b: pcie_model::beats::Beat) -> Self {
        Self {
            data: b.data,
            sop: b.sop,
            eop: b.eop,
            empty: b.empty,
            ..Self::default()
        }
    }
}

/// Converts a `u128` into a 128-bit signal value.
pub fn bits128(x: u128) -> Bits<128> {
    let lo: Bits<128> = bit_cast::<128, 64>(Bits::<64>::from(x as u64));
    let hi: Bits<128> = bit_cast::<128, 64>(Bits::<64>::from((x >> 64) as u64));
    lo | (hi << 64)
}

/// Splits a packet of DWs (lane order) into beats with the given metadata.
pub fn packet_beats(dws: &[u32], dest: u8, src: u8, unsupported: bool) -> Vec<TestBeat> {
    assert!(!dws.is_empty(), "a packet has at least one DW");
    let n = dws.len().div_ceil(4);
    (0..n)
        .map(|i| {
            let lanes = &dws[4 * i..dws.len().min(4 * i + 4)];
            let data = lanes
                .iter()
                .enumerate()
                .fold(0u128, |acc, (k, dw)| acc | (u128::from(*dw) << (32 * k)));
            TestBeat {
                data,
                sop: i == 0,
                eop: i == n - 1,
                empty: if i == n - 1 {
                    (4 - lanes.len()) as u8
                } else {
                    0
                },
                dest,
                src,
                unsupported,
            }
        })
        .collect()
}

/// Drives a block's clock and settles its combinational logic.
pub struct Stepper<B: Block> {
    /// The block under test.
    pub uut: B,
    clock: fn(&mut B) -> &mut Signal<In, Clock>,
    /// Rising edges so far.
    pub cycle: u64,
}

impl<B: Block> Stepper<B> {
    /// Wraps `uut`; `clock` selects its clock input.
    pub fn new(mut uut: B, clock: fn(&mut B) -> &mut Signal<In, Clock>) -> Self {
        uut.connect_all();
        let mut s = Self {
            uut,
            clock,
            cycle: 0,
        };
        s.settle();
        s
    }

    /// Propagates combinational logic until nothing changes.
    pub fn settle(&mut self) {
        assert!(
            simulate(&mut self.uut, 10_000),
            "combinational logic did not settle (a loop?)"
        );
    }

    /// One rising and one falling clock edge.
    pub fn tick(&mut self) {
        (self.clock)(&mut self.uut).next = Clock { clk: true };
        self.settle();
        (self.clock)(&mut self.uut).next = Clock { clk: false };
        self.settle();
        self.cycle += 1;
    }
}

/// Plays the upstream side of a stream: presents queued beats with random idle cycles.
pub struct StreamDriver {
    queue: VecDeque<TestBeat>,
    presenting: Option<TestBeat>,
    /// Probability (0..=1) of presenting a beat in a cycle when one is queued.
    pub p_valid: f64,
    rng: Lcg,
}

impl StreamDriver {
    /// A driver with the given valid probability and random seed.
    pub fn new(p_valid: f64, seed: u64) -> Self {
        Self {
            queue: VecDeque::new(),
            presenting: None,
            p_valid,
            rng: Lcg(seed | 1),
        }
    }

    /// Queues the beats of one packet.
    pub fn push(&mut self, beats: impl IntoIterator<Item = TestBeat>) {
        self.queue.extend(beats);
    }

    /// Beats not yet accepted.
    pub fn pending(&self) -> usize {
        self.queue.len() + usize::from(self.presenting.is_some())
    }

    /// Sets the sink's inputs for this cycle (call before settling).
    pub fn drive(&mut self, port: &mut impl BeatIn) {
        if self.presenting.is_none() && !self.queue.is_empty() && self.rng.chance(self.p_valid) {
            self.presenting = self.queue.pop_front();
        }
        port.put(
            &self.presenting.unwrap_or_default(),
            self.presenting.is_some(),
        );
    }

    /// Samples the handshake after settling; returns the beat that moved, if any.
    pub fn sample(&mut self, port: &impl BeatIn) -> Option<TestBeat> {
        if port.moved() {
            self.presenting.take()
        } else {
            None
        }
    }
}

/// Plays the downstream side of a stream: random `ready`, collects whole packets.
pub struct StreamMonitor {
    /// Probability (0..=1) of `ready` in a cycle.
    pub p_ready: f64,
    rng: Lcg,
    partial: Vec<TestBeat>,
    /// Complete packets received, in order.
    pub packets: VecDeque<Vec<TestBeat>>,
    /// Partial packets the sender told the monitor to drop ([`StreamMonitor::discard`]).
    pub discarded: usize,
    /// Checks that a beat on offer stays on offer, unchanged, until taken (for readers
    /// that act on a beat before taking it).
    pub holds: bool,
    /// The beat on offer and not taken in the last cycle sampled.
    offered: Option<TestBeat>,
}

impl StreamMonitor {
    /// A monitor with the given ready probability and random seed.
    pub fn new(p_ready: f64, seed: u64) -> Self {
        Self {
            p_ready,
            rng: Lcg(seed | 1),
            partial: Vec::new(),
            packets: VecDeque::new(),
            discarded: 0,
            holds: false,
            offered: None,
        }
    }

    /// Drops the packet being received, as a store-and-forward FIFO does on `discard`
    /// (call before [`StreamMonitor::sample`] in the cycle it is asserted).
    pub fn discard(&mut self) {
        if !self.partial.is_empty() {
            self.partial.clear();
            self.discarded += 1;
        }
    }

    /// Sets `ready` for this cycle (call before settling).
    pub fn drive(&mut self, port: &mut impl BeatOut) {
        port.set_ready(self.rng.chance(self.p_ready));
    }

    /// Samples the handshake after settling, checking framing; returns the beat taken.
    pub fn sample(&mut self, port: &impl BeatOut) -> Option<TestBeat> {
        if self.holds {
            if let Some(held) = self.offered.take() {
                assert!(port.offered(), "a beat on offer was withdrawn: {held:x?}");
                assert_eq!(
                    port.beat(),
                    held,
                    "a beat on offer changed before it was taken"
                );
            }
            if port.offered() && !port.moved() {
                self.offered = Some(port.beat());
            }
        }
        if !port.moved() {
            return None;
        }
        let b = port.beat();
        assert_eq!(
            b.sop,
            self.partial.is_empty(),
            "sop must mark exactly the first beat of a packet: {b:x?}"
        );
        self.partial.push(b);
        if b.eop {
            self.packets.push_back(std::mem::take(&mut self.partial));
        }
        Some(b)
    }
}

/// An input stream of a block under test, driven by a [`StreamDriver`].
pub trait BeatIn {
    /// Presents `b` (with `valid`).
    fn put(&mut self, b: &TestBeat, valid: bool);
    /// A beat moves at the next edge.
    fn moved(&self) -> bool;
}

/// An output stream of a block under test, taken by a [`StreamMonitor`].
pub trait BeatOut {
    /// Drives `ready`.
    fn set_ready(&mut self, ready: bool);
    /// A beat moves at the next edge.
    fn moved(&self) -> bool;
    /// A beat is on offer (`valid`).
    fn offered(&self) -> bool;
    /// The beat on the bus.
    fn beat(&self) -> TestBeat;
}

impl BeatIn for TlpSink {
    fn put(&mut self, b: &TestBeat, valid: bool) {
        self.valid.next = valid;
        self.data.next = bits128(b.data);
        self.sop.next = b.sop;
        self.eop.next = b.eop;
        self.empty.next = u64::from(b.empty).into();
        self.dest.next = u64::from(b.dest).into();
        self.src.next = u64::from(b.src).into();
        self.unsupported.next = b.unsupported;
    }
    fn moved(&self) -> bool {
        self.valid.val() && self.ready.val()
    }
}

impl BeatIn for PortSink {
    fn put(&mut self, b: &TestBeat, valid: bool) {
        self.valid.next = valid;
        self.data.next = bits128(b.data);
        self.sop.next = b.sop;
        self.eop.next = b.eop;
        self.empty.next = u64::from(b.empty).into();
    }
    fn moved(&self) -> bool {
        self.valid.val() && self.ready.val()
    }
}

impl BeatOut for TlpSource {
    fn set_ready(&mut self, ready: bool) {
        self.ready.next = ready;
    }
    fn moved(&self) -> bool {
        self.valid.val() && self.ready.val()
    }
    fn offered(&self) -> bool {
        self.valid.val()
    }
    fn beat(&self) -> TestBeat {
        TestBeat {
            data: self.data.val().to_u128(),
            sop: self.sop.val(),
            eop: self.eop.val(),
            empty: self.empty.val().to_u64() as u8,
            dest: self.dest.val().to_u64() as u8,
            src: self.src.val().to_u64() as u8,
            unsupported: self.unsupported.val(),
        }
    }
}

impl BeatOut for PortSource {
    fn set_ready(&mut self, ready: bool) {
        self.ready.next = ready;
    }
    fn moved(&self) -> bool {
        self.valid.val() && self.ready.val()
    }
    fn offered(&self) -> bool {
        self.valid.val()
    }
    fn beat(&self) -> TestBeat {
        TestBeat {
            data: self.data.val().to_u128(),
            sop: self.sop.val(),
            eop: self.eop.val(),
            empty: self.empty.val().to_u64() as u8,
            ..TestBeat::default()
        }
    }
}

/// The register bits four byte enables cover (enable k: bits 8k+7..8k), as tests model a
/// write.
pub fn byte_mask(be: u64) -> u32 {
    (0..4)
        .filter(|k| be >> k & 1 == 1)
        .fold(0, |m, k| m | 0xFF << (8 * k))
}

/// A tiny deterministic generator, so block tests need no RNG dependency.
#[derive(Clone, Debug)]
pub struct Lcg(pub u64);

impl Lcg {
    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let x = self.0;
        (x ^ (x >> 29)).wrapping_mul(0xbf58476d1ce4e5b9) ^ (x >> 32)
    }

    /// A value in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p && p > 0.0
    }
}
