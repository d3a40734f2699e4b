//! A test bench for the [`Crossbar`]: a [`StreamDriver`] on every input and a
//! [`StreamMonitor`] on every output, a record of what was sent, and the delivery check
//! (whole, once, at the right output, in order per flow, never interleaved).
//!
//! Shared by the block tests and the property test (`rtl/tests/xbar_props.rs`).

use super::Crossbar;
use super::INPUTS;
use crate::harness::{packet_beats, Lcg, Stepper, StreamDriver, StreamMonitor, TestBeat};
use crate::stream::NUM_ENDPOINTS;

/// A packet handed to the bench: which input, where to, and its beats.
#[derive(Clone, Debug)]
pub struct Sent {
    /// Input it enters at (endpoint index, or `INPUT_COMPLETIONS`).
    pub src: u8,
    /// Its `dest` field (5..=7 names no endpoint: the crossbar must drop it).
    pub dest: u8,
    /// Its beats, `sop` to `eop`.
    pub beats: Vec<TestBeat>,
}

/// A packet of `len_dw` DWs whose first DW is `id`, so every packet of a run differs.
pub fn tagged_packet(id: u32, src: u8, dest: u8, len_dw: usize, rng: &mut Lcg) -> Vec<TestBeat> {
    let mut dws = vec![id];
    dws.extend((1..len_dw).map(|_| rng.next_u64() as u32));
    packet_beats(&dws, dest, src, id.is_multiple_of(7))
}

/// The crossbar with its six drivers and five monitors.
pub struct XbarBench {
    /// The crossbar, stepped cycle by cycle.
    pub s: Stepper<Crossbar>,
    /// One driver per input.
    pub drivers: Vec<StreamDriver>,
    /// One monitor per output.
    pub monitors: Vec<StreamMonitor>,
    /// Everything pushed into the drivers, in order.
    pub sent: Vec<Sent>,
    /// `dropped` pulses seen, per input.
    pub dropped: [u64; INPUTS],
    /// Beats taken at each input.
    pub beats_in: [u64; INPUTS],
    /// Beats delivered at each output.
    pub beats_out: [u64; NUM_ENDPOINTS],
}

impl XbarBench {
    /// A bench with per-input `valid` and per-output `ready` probabilities; the crossbar
    /// is reset for one cycle.
    pub fn new(p_valid: [f64; INPUTS], p_ready: [f64; NUM_ENDPOINTS], seed: u64) -> Self {
        let mut s = Stepper::new(Crossbar::new(), |u| &mut u.clock);
        s.uut.reset.next = true;
        s.tick();
        s.uut.reset.next = false;
        Self {
            s,
            drivers: (0..INPUTS)
                .map(|i| StreamDriver::new(p_valid[i], seed.wrapping_add(17 * i as u64)))
                .collect(),
            monitors: (0..NUM_ENDPOINTS)
                .map(|j| StreamMonitor::new(p_ready[j], seed.wrapping_add(1000 + 31 * j as u64)))
                .collect(),
            sent: Vec::new(),
            dropped: [0; INPUTS],
            beats_in: [0; INPUTS],
            beats_out: [0; NUM_ENDPOINTS],
        }
    }

    /// Queues a packet at input `src`.
    pub fn send(&mut self, src: u8, dest: u8, beats: Vec<TestBeat>) {
        self.drivers[usize::from(src)].push(beats.iter().copied());
        self.sent.push(Sent { src, dest, beats });
    }

    /// One clock cycle: drive, settle, sample the handshakes and status, tick.
    pub fn step(&mut self) {
        let u = &mut self.s.uut;
        for (d, sink) in self.drivers.iter_mut().zip(u.sinks.iter_mut()) {
            d.drive(sink);
        }
        for (m, source) in self.monitors.iter_mut().zip(u.sources.iter_mut()) {
            m.drive(source);
        }
        self.s.settle();
        let u = &self.s.uut;
        let dropped = u.dropped.val().to_u64();
        for i in 0..INPUTS {
            self.beats_in[i] += u64::from(self.drivers[i].sample(&u.sinks[i]).is_some());
            self.dropped[i] += (dropped >> i) & 1;
        }
        for j in 0..NUM_ENDPOINTS {
            self.beats_out[j] += u64::from(self.monitors[j].sample(&u.sources[j]).is_some());
        }
        self.s.tick();
    }

    /// Nothing left to send, nothing in flight, status idle.
    pub fn idle(&self) -> bool {
        let u = &self.s.uut;
        self.drivers.iter().all(|d| d.pending() == 0)
            && u.sources.iter().all(|s| !s.valid.val())
            && !u.busy.val().any()
    }

    /// Steps until idle (plus one cycle so a last `dropped` pulse is seen); `Err` with
    /// the state if that takes more than `limit` cycles in total.
    pub fn run_until_idle(&mut self, limit: u64) -> Result<(), String> {
        while !self.idle() {
            if self.s.cycle >= limit {
                return Err(format!(
                    "crossbar stalled at cycle {}: pending per input {:?}, busy {:05b}",
                    self.s.cycle,
                    self.drivers.iter().map(|d| d.pending()).collect::<Vec<_>>(),
                    self.s.uut.busy.val().to_u64()
                ));
            }
            self.step();
        }
        self.step();
        Ok(())
    }

    /// Checks what the monitors got against what was sent: every packet with a valid
    /// `dest` arrived whole, exactly once, at output `dest`, in order per (input, output)
    /// flow, without beats of another packet in between; every other packet was dropped
    /// and counted once at its input.
    pub fn check_delivery(&self) -> Result<(), String> {
        for j in 0..NUM_ENDPOINTS {
            let got = &self.monitors[j].packets;
            for src in 0..INPUTS as u8 {
                let want: Vec<&Vec<TestBeat>> = self
                    .sent
                    .iter()
                    .filter(|p| p.src == src && usize::from(p.dest) == j)
                    .map(|p| &p.beats)
                    .collect();
                // A packet's `src` field names its input, so this is the (src, j) flow;
                // an interleaved packet would mix beats and match nothing sent.
                let flow: Vec<&Vec<TestBeat>> = got.iter().filter(|p| p[0].src == src).collect();
                if flow.len() != want.len() {
                    return Err(format!(
                        "flow {src}->{j}: {} packets arrived, {} sent",
                        flow.len(),
                        want.len()
                    ));
                }
                for (k, (g, w)) in flow.iter().zip(&want).enumerate() {
                    if g != w {
                        return Err(format!(
                            "flow {src}->{j}, packet {k}: got {g:x?}, sent {w:x?}"
                        ));
                    }
                }
            }
            if let Some(p) = got.iter().find(|p| usize::from(p[0].src) >= INPUTS) {
                return Err(format!("output {j}: packet from no input: {p:x?}"));
            }
        }
        for i in 0..INPUTS {
            let bad = self
                .sent
                .iter()
                .filter(|p| usize::from(p.src) == i && usize::from(p.dest) >= NUM_ENDPOINTS)
                .count() as u64;
            if self.dropped[i] != bad {
                return Err(format!(
                    "input {i}: {} drops reported, {bad} packets had a bad dest",
                    self.dropped[i]
                ));
            }
        }
        Ok(())
    }
}
