//! The host on a chip's N port: a pcie-model root complex (enumeration, MMIO reads and
//! writes, config requests) plus what a test needs to see on the wire: every TLP it sent,
//! every write the chip delivered (with its header as received), every completion, and
//! anything else the chip should not have sent.

use pcie_model::beats::{tlp_from_beats, to_beats, Beat};
use pcie_model::memory::{payload_byte_enables, SparseMemory};
use pcie_model::root_complex::RootComplex;
use pcie_model::time::Cycles;
use pcie_model::tlp::{Tlp, TlpKind};
use peach2_rtl::harness::Lcg;
use std::collections::VecDeque;

/// A TLP the chip delivered to the host, with when its beats crossed the N port.
#[derive(Clone, Debug)]
pub struct Arrival {
    /// The TLP as decoded from the beats.
    pub tlp: Tlp,
    /// Cycle of its first beat.
    pub first_cycle: u64,
    /// Cycle of its last beat.
    pub last_cycle: u64,
    /// Number of beats.
    pub beats: usize,
}

/// The host model on one N port.
pub struct Host {
    /// The root complex: enumeration, MMIO and config requests, completion matching.
    pub rc: RootComplex,
    to_chip: VecDeque<Beat>,
    partial: Vec<Beat>,
    partial_first: u64,
    /// Every TLP the host sent towards the chip (raw beat injections excluded), in order.
    pub sent: Vec<Tlp>,
    /// Memory writes the chip delivered, in arrival order.
    pub writes: Vec<Arrival>,
    /// Where those writes landed (host and GPU addresses alike), byte enables applied.
    pub landed: SparseMemory,
    /// Completions the chip sent, in arrival order.
    pub completions: Vec<Arrival>,
    /// Anything else the chip sent (or beats that do not decode), described.
    pub unexpected: Vec<String>,
    p_ready: f64,
    rng: Lcg,
    ready: bool,
}

impl Host {
    /// A host whose N-port receiver is ready with probability `p_ready` each cycle.
    pub fn new(rc: RootComplex, p_ready: f64, seed: u64) -> Self {
        Self {
            rc,
            to_chip: VecDeque::new(),
            partial: Vec::new(),
            partial_first: 0,
            sent: Vec::new(),
            writes: Vec::new(),
            landed: SparseMemory::new(),
            completions: Vec::new(),
            unexpected: Vec::new(),
            p_ready,
            rng: Lcg(seed | 1),
            ready: false,
        }
    }

    /// Queues a TLP for the chip.
    pub fn send(&mut self, tlp: Tlp) {
        self.to_chip.extend(to_beats(&tlp));
        self.sent.push(tlp);
    }

    /// Queues raw beats for the chip (for TLPs the model refuses to build).
    pub fn send_raw(&mut self, beats: &[Beat]) {
        self.to_chip.extend(beats.iter().copied());
    }

    /// Beats still waiting to enter the chip.
    pub fn pending_beats(&self) -> usize {
        self.to_chip.len()
    }

    /// Nothing queued either way, nothing outstanding in the root complex.
    pub fn is_idle(&self) -> bool {
        self.to_chip.is_empty() && self.partial.is_empty() && self.rc.is_idle()
    }

    /// The beat presented on N RX this cycle.
    pub fn rx_head(&self) -> Option<Beat> {
        self.to_chip.front().copied()
    }

    /// The chip took the presented beat.
    pub fn rx_taken(&mut self) {
        self.to_chip.pop_front();
    }

    /// Decides N TX `ready` for this cycle.
    pub fn decide_ready(&mut self) -> bool {
        self.ready = self.p_ready >= 1.0 || self.rng.chance(self.p_ready);
        self.ready
    }

    /// A beat left the chip's N TX at cycle `now`.
    pub fn tx_taken(&mut self, now: u64, beat: Beat) {
        if self.partial.is_empty() {
            self.partial_first = now;
        }
        self.partial.push(beat);
        if beat.eop {
            let beats = std::mem::take(&mut self.partial);
            self.deliver(&beats, now);
        }
    }

    fn deliver(&mut self, beats: &[Beat], now: u64) {
        let tlp = match tlp_from_beats(beats) {
            Ok(t) => t,
            Err(e) => {
                self.unexpected
                    .push(format!("cycle {now}: undecodable TLP ({e}): {beats:x?}"));
                return;
            }
        };
        let arrival = Arrival {
            tlp: tlp.clone(),
            first_cycle: self.partial_first,
            last_cycle: now,
            beats: beats.len(),
        };
        match tlp.kind() {
            TlpKind::MWr => {
                let addr = tlp.address().expect("a write has an address").0;
                let enable = payload_byte_enables(
                    tlp.first_be().unwrap_or(0),
                    tlp.last_be().unwrap_or(0),
                    tlp.payload_len(),
                );
                self.landed
                    .write_masked(addr, tlp.data(), &enable)
                    .expect("write inside the 64-bit space");
                self.writes.push(arrival);
            }
            TlpKind::Cpl | TlpKind::CplD => {
                self.rc.receive(tlp);
                self.completions.push(arrival);
            }
            other => self.unexpected.push(format!(
                "cycle {now}: unexpected {other:?} from the chip: {tlp:?}"
            )),
        }
    }

    /// Moves what the root complex wants to send into the queue for the chip.
    pub fn pump(&mut self) {
        while let Some(tlp) = self.rc.pop_to_device() {
            self.send(tlp);
        }
    }

    /// End of cycle: the root complex advances to `now` and queues what it wants to send.
    pub fn step(&mut self, now: u64) {
        self.rc.step(Cycles(now));
        self.pump();
    }

    /// Beats per cycle at which writes arrived over the middle of a stream of them (the
    /// first and last `skip` writes left out, so filling and draining do not count).
    pub fn write_rate(&self, skip: usize) -> f64 {
        let w = &self.writes[skip..self.writes.len() - skip];
        let beats: usize = w.iter().map(|a| a.beats).sum();
        let cycles = w.last().expect("writes to measure").last_cycle - w[0].first_cycle + 1;
        beats as f64 / cycles as f64
    }
}
