//! One PCIe link between two ends (a chip port and a chip port, or a host and a chip's
//! N port), timed as PCIe Gen2 x8 by `pcie_model::link::timing`.
//!
//! Per direction: the sender's hard IP takes beats while its TX buffer has room (so
//! `ready` is known before the chips evaluate: nothing combinational crosses a link).
//! A complete TLP waits for flow-control credits of the far receiver, then occupies the
//! wire for its wire bytes (framing, sequence number, LCRC) at the raw rate, and reaches
//! the far side's application interface after the hard-IP and cable latency. The
//! receiver returns credits (UpdateFC) and Acks as DLLPs that take wire time in the
//! opposite direction and arrive after the same latency. A saturated link therefore
//! carries what a real one does and no more.

use crate::error::SimError;
use pcie_model::bandwidth::BandwidthGate;
use pcie_model::beats::{tlp_from_beats, Beat};
use pcie_model::credits::{FcAdvertisement, FcCost, FcReceiver, FcTransmitter, UpdateFc};
use pcie_model::link::timing::{DllpSchedule, LinkTiming, LCRC_BYTES};
use pcie_model::time::Cycles;
use pcie_model::tlp::{FlowClass, Tlp};
use std::collections::VecDeque;

/// A TLP on its way through one direction of a link.
#[derive(Debug)]
struct InFlight {
    /// Cycle from which the receiver sees it.
    arrival: u64,
    beats: Vec<Beat>,
    /// Credits it consumed (`None`: injected on the wire, outside flow control).
    cost: Option<FcCost>,
}

/// A TLP the sender finished handing over, with what the log needs.
#[derive(Debug)]
pub struct Sent {
    /// The beats.
    pub beats: Vec<Beat>,
    /// The TLP, or why it does not decode.
    pub tlp: Result<Tlp, String>,
}

/// One direction of a link.
#[derive(Debug)]
pub struct LinkDir {
    latency: u64,
    framing_bytes: u32,
    serializer: BandwidthGate,
    tx_fc: FcTransmitter,
    rx_fc: FcReceiver,
    dllps: DllpSchedule,
    tx_capacity: usize,
    tx_partial: Vec<Beat>,
    tx_wait: VecDeque<(Vec<Beat>, FcCost)>,
    tx_beats: usize,
    flight: VecDeque<InFlight>,
    rx_cur: Option<(InFlight, usize)>,
    updates: VecDeque<(u64, UpdateFc)>,
    /// TLPs that entered the wire.
    pub tlps: u64,
    /// Beats the receiver took.
    pub beats_delivered: u64,
    /// TLPs put on the wire by [`LinkDir::inject`].
    pub injected: u64,
    /// Fault: the receiving hard IP hands nothing to the application (a dead port).
    pub frozen: bool,
}

impl LinkDir {
    fn new(timing: &LinkTiming, tx_capacity: usize) -> Result<Self, SimError> {
        let adv = FcAdvertisement::endpoint_default();
        let fc = |e: pcie_model::credits::FcError| SimError::Topology(e.to_string());
        let enc = timing.encoding();
        Ok(Self {
            latency: timing.latency_cycles().0,
            framing_bytes: enc.tlp_framing_bytes() + enc.sequence_bytes() + LCRC_BYTES,
            serializer: timing.serializer(),
            tx_fc: FcTransmitter::new(&adv).map_err(fc)?,
            rx_fc: FcReceiver::new(adv).map_err(fc)?,
            dllps: timing.dllp_schedule(),
            tx_capacity,
            tx_partial: Vec::new(),
            tx_wait: VecDeque::new(),
            tx_beats: 0,
            flight: VecDeque::new(),
            rx_cur: None,
            updates: VecDeque::new(),
            tlps: 0,
            beats_delivered: 0,
            injected: 0,
            frozen: false,
        })
    }

    /// The sender may hand over a beat this cycle.
    #[inline]
    pub fn can_accept(&self) -> bool {
        self.tx_beats < self.tx_capacity
    }

    /// The sender hands over `beat`; on its last beat, returns the TLP for the log.
    pub fn accept(&mut self, beat: Beat) -> Option<Sent> {
        self.tx_beats += 1;
        self.tx_partial.push(beat);
        if !beat.eop {
            return None;
        }
        let beats = std::mem::take(&mut self.tx_partial);
        let tlp = tlp_from_beats(&beats).map_err(|e| e.to_string());
        // A TLP the model cannot decode is charged as a posted request of its size.
        let cost = match &tlp {
            Ok(t) => FcCost::of_tlp(t),
            Err(_) => FcCost::new(
                FlowClass::Posted,
                (4 * beats.len() as u32).saturating_sub(16),
            ),
        };
        self.tx_wait.push_back((beats.clone(), cost));
        Some(Sent { beats, tlp })
    }

    /// Puts raw beats on the wire at `now`, outside flow control (a fault injection).
    pub fn inject(&mut self, now: u64, beats: Vec<Beat>) {
        self.injected += 1;
        self.flight.push_back(InFlight {
            arrival: now + self.latency,
            beats,
            cost: None,
        });
    }

    fn wire_bytes(&self, beats: &[Beat]) -> u64 {
        let dws: usize = beats.iter().map(Beat::used_lanes).sum();
        u64::from(self.framing_bytes) + 4 * dws as u64
    }

    /// Moves TLPs onto the wire (credits permitting) and into the receiver's view.
    fn advance(&mut self, now: u64) {
        if self.updates.is_empty() && self.tx_wait.is_empty() && self.flight.is_empty() {
            return;
        }
        while let Some((t, _)) = self.updates.front() {
            if *t > now {
                break;
            }
            let (_, u) = self.updates.pop_front().expect("checked");
            // UpdateFCs come from this model's own receiver: always consistent.
            let _ = self.tx_fc.update_fc(&u);
        }
        while let Some((beats, cost)) = self.tx_wait.front() {
            if !self.tx_fc.can_send(cost) {
                break;
            }
            let _ = self.tx_fc.try_consume(cost);
            let bytes = self.wire_bytes(beats);
            let done = self.serializer.reserve(Cycles(now), bytes).0;
            let (beats, cost) = self.tx_wait.pop_front().expect("checked");
            self.tx_beats -= beats.len();
            self.tlps += 1;
            self.flight.push_back(InFlight {
                arrival: done + self.latency,
                beats,
                cost: Some(cost),
            });
        }
        if self.rx_cur.is_none() && self.flight.front().is_some_and(|f| f.arrival <= now) {
            let f = self.flight.pop_front().expect("checked");
            if let Some(c) = &f.cost {
                // Credits were checked by the transmitter side of this same model.
                let _ = self.rx_fc.on_receive(c);
            }
            self.rx_cur = Some((f, 0));
        }
    }

    /// The beat the receiver sees this cycle.
    #[inline]
    pub fn head(&self) -> Option<Beat> {
        if self.frozen {
            return None;
        }
        self.rx_cur.as_ref().map(|(f, i)| f.beats[*i])
    }

    /// The receiver took the head beat at `now`. Returns the wire bytes of the DLLPs it
    /// owes the other direction when a TLP has been taken completely.
    fn take(&mut self, now: u64, reverse_gate: &mut BandwidthGate) {
        self.beats_delivered += 1;
        let Some((f, i)) = &mut self.rx_cur else {
            return;
        };
        *i += 1;
        if *i < f.beats.len() {
            return;
        }
        let (f, _) = self.rx_cur.take().expect("checked");
        let Some(cost) = f.cost else {
            return;
        };
        let due = self.dllps.on_tlp();
        let mut at = now;
        if due.wire_bytes() > 0 {
            at = reverse_gate
                .reserve(Cycles(now), u64::from(due.wire_bytes()))
                .0;
        }
        if let Ok(Some(u)) = self.rx_fc.release(&cost) {
            self.updates.push_back((at + self.latency, u));
        }
    }

    /// Beats buffered or in flight in this direction.
    pub fn occupancy(&self) -> usize {
        self.tx_beats
            + self.tx_partial.len()
            + self.flight.iter().map(|f| f.beats.len()).sum::<usize>()
            + self.rx_cur.as_ref().map_or(0, |(f, i)| f.beats.len() - i)
    }

    /// Why this direction is holding traffic, for stall reports.
    pub fn describe(&self, now: u64) -> String {
        let blocked = self
            .tx_wait
            .front()
            .and_then(|(_, c)| self.tx_fc.check(c).err())
            .map_or(String::new(), |b| format!(", head blocked: {b}"));
        format!(
            "{} beats in TX buffer ({} TLPs waiting{blocked}), {} TLPs on the wire, receiver {}",
            self.tx_beats,
            self.tx_wait.len(),
            self.flight.len(),
            match &self.rx_cur {
                Some((f, i)) => format!(
                    "offered beat {i} of {} since cycle {} (not taken)",
                    f.beats.len(),
                    f.arrival.min(now)
                ),
                None => "idle".to_string(),
            }
        )
    }
}

/// A link: `dirs[0]` carries traffic from end 0 to end 1, `dirs[1]` back.
#[derive(Debug)]
pub struct Link {
    /// The two directions.
    pub dirs: [LinkDir; 2],
    /// Both ends see their data link up.
    pub up: bool,
}

impl Link {
    /// A link with `timing` and sender TX buffers of `tx_capacity` beats, down.
    pub fn new(timing: &LinkTiming, tx_capacity: usize) -> Result<Self, SimError> {
        Ok(Self {
            dirs: [
                LinkDir::new(timing, tx_capacity)?,
                LinkDir::new(timing, tx_capacity)?,
            ],
            up: false,
        })
    }

    /// The receiver at the end of direction `dir` took the head beat at `now`.
    pub fn take(&mut self, dir: usize, now: u64) {
        let [a, b] = &mut self.dirs;
        let (d, r) = if dir == 0 { (a, b) } else { (b, a) };
        d.take(now, &mut r.serializer);
    }

    /// End of cycle `now`: both directions move on.
    pub fn advance(&mut self, now: u64) {
        for d in &mut self.dirs {
            d.advance(now);
        }
    }

    /// Beats anywhere in the link.
    pub fn occupancy(&self) -> usize {
        self.dirs.iter().map(LinkDir::occupancy).sum()
    }
}
