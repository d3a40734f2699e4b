//! One PCIe link between two ends (a chip port and a chip port, or a host and a chip's
//! N port), timed as PCIe Gen2 x8 by `pcie_model::link::timing`.
//!
//! Per direction: the sender's hard IP takes beats while its TX buffer has room (so
//! `ready` is known before the chips evaluate: nothing combinational crosses a link).
//! A TLP waits for flow-control credits of the far receiver, then occupies the wire for
//! its wire bytes (framing, sequence number, LCRC) at the raw rate, from its first beat
//! on: the transmitter streams a TLP as its beats come (it computes the LCRC on the way
//! and keeps a copy for replay), as fast as the application hands them over. The
//! receiver checks the LCRC, so the far side's application interface sees a TLP only
//! once all of it has arrived, after the hard-IP and cable latency. The
//! receiver returns credits (UpdateFC) and Acks as DLLPs that take wire time in the
//! opposite direction and arrive after the same latency. A saturated link therefore
//! carries what a real one does and no more.
//!
//! Each end is a [`LinkEnd`]: the sending half of one direction and the receiving half
//! of the other, everything its own port reads or changes. The ends meet only through
//! messages that arrive at least the link's latency after they were sent (TLPs on the
//! wire one way, UpdateFCs the other), kept in the sender's outbox until [`deliver`]
//! moves them to the far end. So the two ends of a cable can be simulated apart for up
//! to that latency: the cluster's lookahead. A link that goes down does so at both ends
//! at the same cycle ([`LinkEnd::go_down`]), with no message between them.

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

/// The sending half of one direction: the TX buffer, the credits the far receiver
/// granted, and the wire's serializer.
#[derive(Debug)]
pub struct TxHalf {
    latency: u64,
    framing_bytes: u32,
    serializer: BandwidthGate,
    tx_fc: FcTransmitter,
    tx_capacity: usize,
    tx_partial: Vec<Beat>,
    /// The cycle the first beat of `tx_partial` came.
    tx_first: u64,
    /// Whole TLPs waiting for the wire: beats, credits, the cycle their first beat came.
    tx_wait: VecDeque<(Vec<Beat>, FcCost, u64)>,
    /// No TLP can have started on the wire before this cycle: the one at the head of
    /// `tx_wait` lacked credits the cycle before.
    tx_blocked_until: u64,
    tx_beats: usize,
    /// UpdateFCs from the far receiver, by arrival cycle (inbox).
    updates: VecDeque<(u64, UpdateFc)>,
    /// TLPs put on the wire, not yet handed to the far end (outbox).
    wire: VecDeque<InFlight>,
    /// TLPs that entered the wire.
    pub tlps: u64,
    /// TLPs put on the wire by [`LinkEnd::inject`].
    pub injected: u64,
}

/// The receiving half of one direction: TLPs arriving, the one offered to the
/// application, and the credits it returns.
#[derive(Debug)]
pub struct RxHalf {
    latency: u64,
    rx_fc: FcReceiver,
    dllps: DllpSchedule,
    /// TLPs from the far end, by arrival cycle (inbox).
    flight: VecDeque<InFlight>,
    rx_cur: Option<(InFlight, usize)>,
    /// UpdateFCs for the far sender, not yet handed over (outbox).
    credits: VecDeque<(u64, UpdateFc)>,
    /// Beats the receiver took.
    pub beats_delivered: u64,
    /// Fault: the receiving hard IP hands nothing to the application (a dead port).
    pub frozen: bool,
}

/// One end of a link: it sends on one direction and receives on the other.
#[derive(Debug)]
pub struct LinkEnd {
    /// The direction this end sends on.
    pub tx: TxHalf,
    /// The direction this end receives on.
    pub rx: RxHalf,
    /// This end sees its data link up.
    pub up: bool,
    /// Times the data link went down here ([`LinkEnd::go_down`]).
    pub downs: u64,
    /// TLPs thrown away here when it went down (sending, on the wire, arriving or
    /// offered).
    pub discarded: u64,
    /// Flow control as link training leaves it: transmitter, receiver, DLLP schedule.
    trained: (FcTransmitter, FcReceiver, DllpSchedule),
}

impl TxHalf {
    fn wire_bytes(&self, beats: &[Beat]) -> u64 {
        let dws: usize = beats.iter().map(Beat::used_lanes).sum();
        u64::from(self.framing_bytes) + 4 * dws as u64
    }

    /// Applies the credits that have arrived and moves TLPs onto the wire.
    fn advance(&mut self, now: u64) {
        while let Some((t, _)) = self.updates.front() {
            if *t > now {
                break;
            }
            let (_, u) = self.updates.pop_front().expect("checked");
            // UpdateFCs come from this model's own receiver: always consistent.
            let _ = self.tx_fc.update_fc(&u);
        }
        while let Some((beats, cost, first)) = self.tx_wait.front() {
            if !self.tx_fc.can_send(cost) {
                self.tx_blocked_until = now + 1;
                break;
            }
            let _ = self.tx_fc.try_consume(cost);
            let bytes = self.wire_bytes(beats);
            let start = (*first).max(self.tx_blocked_until);
            // The last beat came at `now` at the latest: it leaves after it (the wire is
            // as fast as the beats, so this only binds when the sender paused mid-TLP).
            let done = self.serializer.reserve(Cycles(start), bytes).0.max(now + 1);
            let (beats, cost, _) = self.tx_wait.pop_front().expect("checked");
            self.tx_beats -= beats.len();
            self.tlps += 1;
            self.wire.push_back(InFlight {
                arrival: done + self.latency,
                beats,
                cost: Some(cost),
            });
        }
    }

    fn occupancy(&self) -> usize {
        self.tx_beats
            + self.tx_partial.len()
            + self.wire.iter().map(|f| f.beats.len()).sum::<usize>()
    }

    /// Why this half is holding traffic, for stall reports.
    pub fn describe(&self) -> String {
        let blocked = self
            .tx_wait
            .front()
            .and_then(|(_, c, _)| self.tx_fc.check(c).err())
            .map_or(String::new(), |b| format!(", head blocked: {b}"));
        format!(
            "{} beats in TX buffer ({} TLPs waiting{blocked}), {} TLPs on the wire not yet handed over",
            self.tx_beats,
            self.tx_wait.len(),
            self.wire.len(),
        )
    }
}

impl RxHalf {
    /// Offers the next arrived TLP to the application.
    fn advance(&mut self, now: u64) {
        if self.rx_cur.is_none() && self.flight.front().is_some_and(|f| f.arrival <= now) {
            let f = self.flight.pop_front().expect("checked");
            if let Some(c) = &f.cost {
                // Credits were checked by the far transmitter against this receiver's
                // advertisement.
                let _ = self.rx_fc.on_receive(c);
            }
            self.rx_cur = Some((f, 0));
        }
    }

    /// The application took the head beat at `now`; a TLP taken completely releases its
    /// credits, returned as DLLPs on `reverse`, this end's own wire.
    fn take(&mut self, now: u64, reverse: &mut BandwidthGate) {
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
            at = reverse.reserve(Cycles(now), u64::from(due.wire_bytes())).0;
        }
        if let Ok(Some(u)) = self.rx_fc.release(&cost) {
            self.credits.push_back((at + self.latency, u));
        }
    }

    fn occupancy(&self) -> usize {
        self.flight.iter().map(|f| f.beats.len()).sum::<usize>()
            + self.rx_cur.as_ref().map_or(0, |(f, i)| f.beats.len() - i)
    }

    /// Why this half is holding traffic, for stall reports.
    pub fn describe(&self, now: u64) -> String {
        format!(
            "{} TLPs arriving, receiver {}",
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

impl LinkEnd {
    /// An end of a link with `timing` and a TX buffer of `tx_capacity` beats, down.
    pub fn new(timing: &LinkTiming, tx_capacity: usize) -> Result<Self, SimError> {
        let adv = FcAdvertisement::endpoint_default();
        let fc = |e: pcie_model::credits::FcError| SimError::Topology(e.to_string());
        let enc = timing.encoding();
        let latency = timing.latency_cycles().0;
        let trained = (
            FcTransmitter::new(&adv).map_err(fc)?,
            FcReceiver::new(adv).map_err(fc)?,
            timing.dllp_schedule(),
        );
        Ok(Self {
            tx: TxHalf {
                latency,
                framing_bytes: enc.tlp_framing_bytes() + enc.sequence_bytes() + LCRC_BYTES,
                serializer: timing.serializer(),
                tx_fc: trained.0.clone(),
                tx_capacity,
                tx_partial: Vec::new(),
                tx_first: 0,
                tx_wait: VecDeque::new(),
                tx_blocked_until: 0,
                tx_beats: 0,
                updates: VecDeque::new(),
                wire: VecDeque::new(),
                tlps: 0,
                injected: 0,
            },
            rx: RxHalf {
                latency,
                rx_fc: trained.1.clone(),
                dllps: trained.2.clone(),
                flight: VecDeque::new(),
                rx_cur: None,
                credits: VecDeque::new(),
                beats_delivered: 0,
                frozen: false,
            },
            up: false,
            downs: 0,
            discarded: 0,
            trained,
        })
    }

    /// The data link goes down at this end (DL_Down): every TLP it holds is thrown away
    /// and counted (the one the sender was handing over, those waiting for credits or on
    /// the wire, those arriving and the one offered), and so are the credit updates on
    /// their way. The far end goes down at the same cycle and throws away its own: what
    /// was sent before is held by one of the two, so nothing sent before the link went
    /// down arrives after.
    pub fn go_down(&mut self) {
        let (tx, rx) = (&mut self.tx, &mut self.rx);
        let held = tx.tx_wait.len()
            + usize::from(!tx.tx_partial.is_empty())
            + tx.wire.len()
            + rx.flight.len()
            + usize::from(rx.rx_cur.is_some());
        self.discarded += held as u64;
        tx.tx_partial.clear();
        tx.tx_wait.clear();
        tx.tx_blocked_until = 0;
        tx.tx_beats = 0;
        tx.wire.clear();
        tx.updates.clear();
        rx.flight.clear();
        rx.rx_cur = None;
        rx.credits.clear();
        self.downs += 1;
        self.up = false;
    }

    /// The data link comes back up (DL_Up): flow control starts over from the
    /// advertisements, as after link training.
    pub fn go_up(&mut self) {
        self.tx.tx_fc = self.trained.0.clone();
        self.rx.rx_fc = self.trained.1.clone();
        self.rx.dllps = self.trained.2.clone();
        self.up = true;
    }

    /// Cycles between a message leaving this end and the far end seeing it, at least.
    pub fn latency(&self) -> u64 {
        self.tx.latency
    }

    /// The sender may hand over a beat this cycle.
    #[inline]
    pub fn can_accept(&self) -> bool {
        self.tx.tx_beats < self.tx.tx_capacity
    }

    /// The sender hands over `beat` at cycle `now`; on its last beat, returns the TLP for
    /// the log.
    pub fn accept(&mut self, now: u64, beat: Beat) -> Option<Sent> {
        let tx = &mut self.tx;
        tx.tx_beats += 1;
        if tx.tx_partial.is_empty() {
            tx.tx_first = now;
        }
        tx.tx_partial.push(beat);
        if !beat.eop {
            return None;
        }
        let beats = std::mem::take(&mut tx.tx_partial);
        let tlp = tlp_from_beats(&beats).map_err(|e| e.to_string());
        // A TLP the model cannot decode is charged as a posted request of its size.
        let cost = match &tlp {
            Ok(t) => FcCost::of_tlp(t),
            Err(_) => FcCost::new(
                FlowClass::Posted,
                (4 * beats.len() as u32).saturating_sub(16),
            ),
        };
        tx.tx_wait.push_back((beats.clone(), cost, tx.tx_first));
        Some(Sent { beats, tlp })
    }

    /// Puts raw beats on the wire at `now`, outside flow control (a fault injection).
    pub fn inject(&mut self, now: u64, beats: Vec<Beat>) {
        self.tx.injected += 1;
        self.tx.wire.push_back(InFlight {
            arrival: now + self.tx.latency,
            beats,
            cost: None,
        });
    }

    /// The beat the receiver sees this cycle.
    #[inline]
    pub fn head(&self) -> Option<Beat> {
        if self.rx.frozen {
            return None;
        }
        self.rx.rx_cur.as_ref().map(|(f, i)| f.beats[*i])
    }

    /// The receiver took the head beat at `now`.
    pub fn take(&mut self, now: u64) {
        self.rx.take(now, &mut self.tx.serializer);
    }

    /// End of cycle `now`: both halves move on.
    pub fn advance(&mut self, now: u64) {
        if !self.tx.updates.is_empty() || !self.tx.tx_wait.is_empty() {
            self.tx.advance(now);
        }
        if !self.rx.flight.is_empty() {
            self.rx.advance(now);
        }
    }

    /// Beats this end holds (sending, leaving, arriving or offered).
    pub fn occupancy(&self) -> usize {
        self.tx.occupancy() + self.rx.occupancy()
    }

    /// Messages wait in this end's outbox.
    pub fn has_mail(&self) -> bool {
        !self.tx.wire.is_empty() || !self.rx.credits.is_empty()
    }
}

/// Hands the messages `from` sent (TLPs, UpdateFCs) to the far end `to`, in order.
pub fn deliver(from: &mut LinkEnd, to: &mut LinkEnd) {
    to.rx.flight.extend(from.tx.wire.drain(..));
    to.tx.updates.extend(from.rx.credits.drain(..));
}

/// Bytes of a message from another process (cable mail, [`LinkEnd::pack_mail`]; TLP
/// log lines): little-endian integers and byte strings read in order.
pub(crate) struct MailReader<'a>(pub(crate) &'a [u8]);

impl MailReader<'_> {
    fn bytes<const N: usize>(&mut self) -> Result<[u8; N], SimError> {
        let (head, rest) = self.0.split_first_chunk::<N>().ok_or_else(Self::short)?;
        self.0 = rest;
        Ok(*head)
    }
    fn short() -> SimError {
        SimError::Transport("a message between processes ends early".into())
    }
    /// The next `n` bytes.
    pub(crate) fn slice(&mut self, n: usize) -> Result<&[u8], SimError> {
        if self.0.len() < n {
            return Err(Self::short());
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }
    pub(crate) fn u8(&mut self) -> Result<u8, SimError> {
        Ok(self.bytes::<1>()?[0])
    }
    pub(crate) fn u32(&mut self) -> Result<u32, SimError> {
        Ok(u32::from_le_bytes(self.bytes()?))
    }
    pub(crate) fn u64(&mut self) -> Result<u64, SimError> {
        Ok(u64::from_le_bytes(self.bytes()?))
    }
    fn class(&mut self) -> Result<FlowClass, SimError> {
        match self.u8()? {
            0 => Ok(FlowClass::Posted),
            1 => Ok(FlowClass::NonPosted),
            2 => Ok(FlowClass::Completion),
            c => Err(SimError::Transport(format!(
                "flow class {c} in a cable message"
            ))),
        }
    }
}

fn class_code(c: FlowClass) -> u8 {
    match c {
        FlowClass::Posted => 0,
        FlowClass::NonPosted => 1,
        FlowClass::Completion => 2,
    }
}

impl LinkEnd {
    /// Moves this end's outbox (TLPs on the wire, UpdateFCs) into `out`, for a far end in
    /// another process ([`LinkEnd::unpack_mail`]).
    pub fn pack_mail(&mut self, out: &mut Vec<u8>) {
        out.extend_from_slice(&(self.tx.wire.len() as u32).to_le_bytes());
        for f in self.tx.wire.drain(..) {
            out.extend_from_slice(&f.arrival.to_le_bytes());
            match f.cost {
                Some(c) => {
                    out.push(1);
                    out.push(class_code(c.class));
                    out.extend_from_slice(&c.header.to_le_bytes());
                    out.extend_from_slice(&c.data.to_le_bytes());
                }
                None => out.push(0),
            }
            out.extend_from_slice(&(f.beats.len() as u32).to_le_bytes());
            for b in f.beats {
                out.extend_from_slice(&b.data.to_le_bytes());
                out.push(u8::from(b.sop) | u8::from(b.eop) << 1);
                out.push(b.empty);
            }
        }
        out.extend_from_slice(&(self.rx.credits.len() as u32).to_le_bytes());
        for (t, u) in self.rx.credits.drain(..) {
            out.extend_from_slice(&t.to_le_bytes());
            out.push(class_code(u.class));
            out.extend_from_slice(&u.header.to_le_bytes());
            out.extend_from_slice(&u.data.to_le_bytes());
        }
    }

    /// Takes the messages a far end packed with [`LinkEnd::pack_mail`] from the front of
    /// `bytes` into this end's inboxes, as [`deliver`] would.
    pub fn unpack_mail(&mut self, bytes: &mut &[u8]) -> Result<(), SimError> {
        let mut r = MailReader(bytes);
        for _ in 0..r.u32()? {
            let arrival = r.u64()?;
            let cost = match r.u8()? {
                0 => None,
                _ => Some(FcCost {
                    class: r.class()?,
                    header: r.u32()?,
                    data: r.u32()?,
                }),
            };
            let n = r.u32()? as usize;
            let mut beats = Vec::with_capacity(n.min(1024));
            for _ in 0..n {
                let data = u128::from_le_bytes(r.bytes()?);
                let flags = r.u8()?;
                beats.push(Beat {
                    data,
                    sop: flags & 1 != 0,
                    eop: flags & 2 != 0,
                    empty: r.u8()?,
                });
            }
            self.rx.flight.push_back(InFlight {
                arrival,
                beats,
                cost,
            });
        }
        for _ in 0..r.u32()? {
            let t = r.u64()?;
            let u = UpdateFc {
                class: r.class()?,
                header: r.u32()?,
                data: r.u32()?,
            };
            self.tx.updates.push_back((t, u));
        }
        *bytes = r.0;
        Ok(())
    }
}

/// A link whose two ends are stepped together (a host's N link): messages cross every
/// cycle.
#[derive(Debug)]
pub struct Link {
    /// End 0 sends on direction 0 and receives direction 1; end 1 the reverse.
    pub ends: [LinkEnd; 2],
}

impl Link {
    /// A link with `timing` and sender TX buffers of `tx_capacity` beats, down.
    pub fn new(timing: &LinkTiming, tx_capacity: usize) -> Result<Self, SimError> {
        Ok(Self {
            ends: [
                LinkEnd::new(timing, tx_capacity)?,
                LinkEnd::new(timing, tx_capacity)?,
            ],
        })
    }

    /// Brings the link up or down at both ends.
    pub fn set_up(&mut self, up: bool) {
        for e in &mut self.ends {
            e.up = up;
        }
    }

    /// End of cycle `now`: both directions move on (credits that arrive this cycle
    /// apply before TLPs leave, TLPs that arrive this cycle are offered).
    pub fn advance(&mut self, now: u64) {
        let [a, b] = &mut self.ends;
        deliver(a, b);
        deliver(b, a);
        a.tx.advance(now);
        b.tx.advance(now);
        deliver(a, b);
        deliver(b, a);
        a.rx.advance(now);
        b.rx.advance(now);
    }

    /// Beats anywhere in the link.
    pub fn occupancy(&self) -> usize {
        self.ends.iter().map(LinkEnd::occupancy).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pcie_model::beats::to_beats;
    use pcie_model::link::timing::TlpShape;
    use pcie_model::tlp::{Addr, Bdf, Tag};
    use peach2_rtl::harness::Lcg;

    fn write(seq: u64, bytes: usize) -> Tlp {
        Tlp::mem_write(
            Bdf(0x100),
            Tag(0),
            Addr(0x1000 + 256 * (seq % 16)),
            &vec![seq as u8; bytes],
        )
        .expect("a valid write")
    }

    #[test]
    fn a_tlp_is_seen_at_the_far_end_its_wire_time_and_the_latency_after_its_first_beat() {
        let timing = LinkTiming::gen2_x8();
        let mut a = LinkEnd::new(&timing, 64).unwrap();
        let mut b = LinkEnd::new(&timing, 64).unwrap();
        let tlp = write(0, 256);
        let beats = to_beats(&tlp);
        let last = beats.len() as u64 - 1;
        // One beat a cycle, from cycle 10: the wire starts with the first.
        for (i, beat) in beats.into_iter().enumerate() {
            a.accept(10 + i as u64, beat);
            a.advance(10 + i as u64);
        }
        deliver(&mut a, &mut b);
        let bytes = timing.tlp_wire_bytes(&TlpShape::of_tlp(&tlp));
        let done = timing.serializer().reserve(Cycles(10), u64::from(bytes)).0;
        assert!(done > 10 + last, "the wire is no faster than the beats");
        let seen = (1..10_000)
            .find(|&now| {
                b.advance(now);
                b.head().is_some()
            })
            .expect("it arrives");
        assert_eq!(seen, done + timing.latency_cycles().0);
        assert!(seen > 10 + last + a.latency(), "never within the lookahead");
    }

    #[test]
    fn a_tlp_that_waited_for_credits_starts_on_the_wire_when_they_come() {
        let timing = LinkTiming::gen2_x8();
        let mut a = LinkEnd::new(&timing, 64).unwrap();
        let mut b = LinkEnd::new(&timing, 64).unwrap();
        a.up = true;
        b.up = true;
        // 4 KiB of posted data credits: sixteen 256-byte writes go, the seventeenth
        // waits until the receiver, which takes nothing before cycle 1000, frees some.
        let tlp = write(16, 256);
        for seq in 0..16 {
            for beat in to_beats(&write(seq, 256)) {
                a.accept(0, beat);
            }
        }
        for beat in to_beats(&tlp) {
            a.accept(0, beat);
        }
        let bytes = u64::from(timing.tlp_wire_bytes(&TlpShape::of_tlp(&tlp)));
        for now in 0..5000 {
            let waiting = !a.tx.tx_wait.is_empty();
            a.advance(now);
            if waiting && a.tx.tx_wait.is_empty() {
                assert!(now > 1000, "it waited for the receiver");
                let arrival = a.tx.wire.back().expect("on the wire").arrival;
                let done = timing.serializer().reserve(Cycles(now), bytes).0;
                assert_eq!(arrival, done + timing.latency_cycles().0);
                return;
            }
            deliver(&mut a, &mut b);
            b.advance(now);
            if now >= 1000 && b.head().is_some() {
                b.take(now);
            }
            deliver(&mut b, &mut a);
        }
        panic!("the seventeenth write never left");
    }

    /// Both ends send random writes and take beats with random `ready`; returns, per
    /// end, `(cycle, beat)` of every beat it took. The ends run apart for `window`
    /// cycles at a time and are handed each other's messages in between.
    fn run(window: u64, cycles: u64) -> [Vec<(u64, Beat)>; 2] {
        let timing = LinkTiming::gen2_x8();
        let mut ends = [
            LinkEnd::new(&timing, 32).unwrap(),
            LinkEnd::new(&timing, 32).unwrap(),
        ];
        let mut rngs = [Lcg(3), Lcg(5)];
        let mut sending: [VecDeque<Beat>; 2] = Default::default();
        let mut seq = [0u64; 2];
        let mut taken: [Vec<(u64, Beat)>; 2] = Default::default();
        let mut from = 0;
        while from < cycles {
            let to = (from + window).min(cycles);
            for e in 0..2 {
                let (end, rng) = (&mut ends[e], &mut rngs[e]);
                for now in from..to {
                    if let Some(b) = end.head().filter(|_| rng.chance(0.6)) {
                        end.take(now);
                        taken[e].push((now, b));
                    }
                    if sending[e].is_empty() && rng.chance(0.3) {
                        seq[e] += 1;
                        let bytes = 4 * (1 + rng.below(64) as usize);
                        sending[e].extend(to_beats(&write(seq[e], bytes)));
                    }
                    if end.can_accept() {
                        if let Some(b) = sending[e].pop_front() {
                            end.accept(now, b);
                        }
                    }
                    end.advance(now);
                }
            }
            let [a, b] = &mut ends;
            deliver(a, b);
            deliver(b, a);
            from = to;
        }
        taken
    }

    #[test]
    fn mail_packed_for_another_process_arrives_as_if_delivered() {
        let timing = LinkTiming::gen2_x8();
        let mk = || LinkEnd::new(&timing, 64).unwrap();
        let (mut a1, mut b1, mut a2, mut b2) = (mk(), mk(), mk(), mk());
        for a in [&mut a1, &mut a2] {
            for seq in 0..3 {
                for beat in to_beats(&write(seq, 4 + 60 * seq as usize)) {
                    a.accept(0, beat);
                }
            }
            a.inject(0, to_beats(&write(9, 8)));
            a.advance(0);
        }
        deliver(&mut a1, &mut b1);
        let mut bytes = Vec::new();
        a2.pack_mail(&mut bytes);
        bytes.extend_from_slice(b"next");
        let mut rest = bytes.as_slice();
        b2.unpack_mail(&mut rest).unwrap();
        assert_eq!(rest, b"next", "exactly its own bytes taken");
        assert_eq!(format!("{:?}", b1.rx.flight), format!("{:?}", b2.rx.flight));
        assert!(!a2.has_mail());
        for cut in 0..bytes.len() - 4 {
            let mut short = &bytes[..cut];
            assert!(mk().unpack_mail(&mut short).is_err(), "cut at {cut}");
        }
    }

    #[test]
    fn ends_run_apart_for_the_latency_see_what_ends_run_in_step_see() {
        let latency = LinkTiming::gen2_x8().latency_cycles().0;
        let reference = run(1, 20_000);
        assert!(
            reference.iter().all(|t| t.len() > 1_000),
            "both ways busy: {} and {} beats",
            reference[0].len(),
            reference[1].len()
        );
        for window in [2, latency / 2, latency] {
            assert!(
                run(window, 20_000) == reference,
                "windows of {window} cycles"
            );
        }
    }

    /// A link that goes down with TLPs everywhere (waiting for credits, on the wire,
    /// arriving, offered) delivers none of them, counts them, and once up carries more
    /// TLPs than the credits it started with: flow control was trained again.
    #[test]
    fn a_link_that_goes_down_drops_what_it_held_and_comes_back_with_fresh_credits() {
        let timing = LinkTiming::gen2_x8();
        let mut a = LinkEnd::new(&timing, 1 << 16).unwrap();
        let mut b = LinkEnd::new(&timing, 1 << 16).unwrap();
        a.up = true;
        b.up = true;
        // More 256-byte writes than the receiver's posted data credits take: some wait.
        let burst = |a: &mut LinkEnd, from: u64| {
            for seq in from..from + 200 {
                for beat in to_beats(&write(seq, 256)) {
                    a.accept(from, beat);
                }
            }
        };
        burst(&mut a, 0);
        let mut taken = 0;
        for now in 0..400 {
            a.advance(now);
            deliver(&mut a, &mut b);
            b.advance(now);
            // The receiver takes only the first TLP's first beat: the rest stays offered.
            if taken == 0 && b.head().is_some() {
                b.take(now);
                taken += 1;
            }
            deliver(&mut b, &mut a);
        }
        assert!(
            !a.tx.tx_wait.is_empty() && !b.rx.flight.is_empty(),
            "TLPs everywhere"
        );
        let held = a.tx.tx_wait.len() + a.tx.wire.len() + b.rx.flight.len() + 1;
        a.go_down();
        b.go_down();
        assert_eq!(a.discarded + b.discarded, held as u64);
        assert_eq!((a.occupancy(), b.occupancy(), a.has_mail()), (0, 0, false));
        a.go_up();
        b.go_up();
        burst(&mut a, 1000);
        let (mut tlps, mut beats) = (0, 0);
        for now in 400..100_000 {
            a.advance(now);
            deliver(&mut a, &mut b);
            b.advance(now);
            if let Some(beat) = b.head() {
                b.take(now);
                // Nothing from before the link went down: not even a fragment.
                assert!(beats > 0 || beat.sop, "a stale fragment");
                beats += 1;
                tlps += u64::from(beat.eop);
            }
            deliver(&mut b, &mut a);
        }
        assert_eq!(tlps, 200, "every TLP sent after the link came back");
    }
}
