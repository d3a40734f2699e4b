//! The chip fuzzed: [`RandomStimulus`] on all four ports (valid and malformed TLPs of
//! every kind, random idle and `ready`, DMA programs whose reads the host answers late,
//! failed or never, links going down between packets) for as long as asked, under a
//! monitor that checks what a user relies on:
//!
//! - every TLP the chip sends is well framed and decodes (it never forwards garbage);
//! - after the traffic stops, the chip drains: nothing left in flight, no TX for a while
//!   (no hang, no livelock), within [`DRAIN_LIMIT`] cycles;
//! - its counters add up: `TLPS_IN`/`BYTES_IN` and `TLPS_OUT`/`BYTES_OUT` of every port
//!   equal what the monitor saw cross that port, and `DROPS + ERRORS <= TLPS_IN`;
//! - it still forwards: once the host has set it up again (random traffic rewrote its
//!   registers), a clean write into each cable port leaves by the routed port unchanged.
//!
//! Errors of the simulator itself (a Verilator fatal) come back as [`FuzzError::Sim`].

use crate::chip::{reset, Chip, ChipPorts};
use crate::error::SimError;
use crate::stimulus::{setup_tlps, window_base, RandomStimulus};
use pcie_model::beats::{tlp_from_beats, to_beats, Beat};
use pcie_model::tlp::{Addr, Bdf, Tag, Tlp, TlpKind};
use peach2_regmap::address::{GlobalAddr, Target};
use peach2_regmap::csr::{
    port_reg, Port, PORT_BYTES_IN, PORT_BYTES_OUT, PORT_DROPS, PORT_ERRORS, PORT_TLPS_IN,
    PORT_TLPS_OUT,
};
use peach2_regmap::host::{BAR0_BASE, HOST_RID};

/// Cycles the chip gets to drain after the traffic stops.
pub const DRAIN_LIMIT: u64 = 200_000;
/// Cycles without a TX beat (longer than the stimulus's completion timeout) that count
/// as drained.
const QUIET: u64 = 4_000;
/// Cycles without any beat taken or sent, while the stimulus offers traffic, that count
/// as a stopped chip.
const STOPPED: u64 = 20_000;
/// Cycles a register read or a forwarded write may take.
const ANSWER_LIMIT: u64 = 5_000;

/// One fuzz run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FuzzConfig {
    /// The stimulus's seed (the run is the same for the same seed).
    pub seed: u64,
    /// Cycles of random traffic.
    pub cycles: u64,
    /// Per cycle and cable port, the chance its link goes down (between packets).
    pub p_link_down: f64,
}

/// What crossed one port, as the monitor saw it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Seen {
    /// TLPs the chip took on RX.
    pub tlps_in: u64,
    /// Bytes of the beats it took.
    pub bytes_in: u64,
    /// TLPs it sent on TX.
    pub tlps_out: u64,
    /// Bytes of the beats it sent.
    pub bytes_out: u64,
}

/// One port's counters as the chip reported them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counted {
    /// `TLPS_IN`.
    pub tlps_in: u32,
    /// `BYTES_IN`.
    pub bytes_in: u32,
    /// `TLPS_OUT`.
    pub tlps_out: u32,
    /// `BYTES_OUT`.
    pub bytes_out: u32,
    /// `DROPS`.
    pub drops: u32,
    /// `ERRORS`.
    pub errors: u32,
}

/// What a run that kept every invariant did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FuzzReport {
    /// Cycles of random traffic.
    pub cycles: u64,
    /// Cycles the chip took to drain.
    pub drain_cycles: u64,
    /// Per port (N, E, W, S), what the monitor saw during traffic and drain.
    pub seen: [Seen; 4],
    /// Per port, the chip's counters read after the drain.
    pub counted: [Counted; 4],
    /// Clean writes forwarded after the traffic.
    pub forwarded_after: usize,
}

/// Why a fuzz run failed.
#[derive(Debug, thiserror::Error)]
pub enum FuzzError {
    /// The simulator failed.
    #[error(transparent)]
    Sim(#[from] SimError),
    /// The chip broke an invariant.
    #[error("seed {seed:#x}, cycle {cycle}: {what}")]
    Violation {
        /// The run's seed.
        seed: u64,
        /// When.
        cycle: u64,
        /// What.
        what: String,
    },
}

/// The monitor: counts what crosses each port and checks the chip's TX framing.
struct Monitor {
    seed: u64,
    cycle: u64,
    seen: [Seen; 4],
    tx: [Vec<Beat>; 4],
    /// The last TX beat's cycle.
    last_tx: u64,
    /// The last cycle a beat moved in or out.
    last_move: u64,
}

/// Bytes of a beat as the chip's byte counters count them: `empty` of any beat, not only
/// of an EOP beat (`Beat::used_lanes`), since the random RX beats may break the rule.
fn beat_bytes(b: &Beat) -> u64 {
    4 * (4 - u64::from(b.empty))
}

impl Monitor {
    fn violation(&self, what: String) -> FuzzError {
        FuzzError::Violation {
            seed: self.seed,
            cycle: self.cycle,
            what,
        }
    }

    /// Records this cycle's handshakes (after the chip settled): `offered` and `ready`
    /// per port are what the harness drives. Returns the TLPs completed on TX.
    fn observe(
        &mut self,
        chip: &dyn Chip,
        offered: [Option<Beat>; 4],
        ready: [bool; 4],
    ) -> Result<Vec<(Port, Tlp)>, FuzzError> {
        let mut done = Vec::new();
        for (i, port) in Port::ALL.into_iter().enumerate() {
            if let Some(b) = offered[i].filter(|_| chip.rx_ready(port)) {
                self.seen[i].tlps_in += u64::from(b.sop);
                self.seen[i].bytes_in += beat_bytes(&b);
                self.last_move = self.cycle;
            }
            let Some(b) = chip.tx_beat(port).filter(|_| ready[i]) else {
                continue;
            };
            self.last_tx = self.cycle;
            self.last_move = self.cycle;
            self.seen[i].bytes_out += beat_bytes(&b);
            if b.sop != self.tx[i].is_empty() {
                return Err(self.violation(format!(
                    "{port:?} TX: a beat with sop={} {} a packet",
                    b.sop,
                    if b.sop { "inside" } else { "outside" }
                )));
            }
            self.tx[i].push(b);
            if b.eop {
                let beats = std::mem::take(&mut self.tx[i]);
                self.seen[i].tlps_out += 1;
                let tlp = tlp_from_beats(&beats).map_err(|e| {
                    self.violation(format!("{port:?} TX: the chip sent a malformed TLP: {e}"))
                })?;
                done.push((port, tlp));
            }
        }
        Ok(done)
    }
}

/// The harness around one chip: drives its inputs directly once the stimulus is done.
struct Harness<'a> {
    chip: &'a mut dyn Chip,
    mon: Monitor,
    /// Beats to offer per port.
    queue: [std::collections::VecDeque<Beat>; 4],
}

impl Harness<'_> {
    /// One cycle with every TX ready, every link up and the queued beats offered; the TLPs
    /// the chip sent.
    fn cycle(&mut self) -> Result<Vec<(Port, Tlp)>, FuzzError> {
        let offered: [Option<Beat>; 4] = std::array::from_fn(|i| self.queue[i].front().copied());
        for (i, port) in Port::ALL.into_iter().enumerate() {
            self.chip.drive_rx(port, offered[i]);
            self.chip.set_tx_ready(port, true);
            self.chip.set_link_up(port, true);
        }
        self.chip.settle()?;
        let done = self.mon.observe(&*self.chip, offered, [true; 4])?;
        for (i, port) in Port::ALL.into_iter().enumerate() {
            if offered[i].is_some() && self.chip.rx_ready(port) {
                self.queue[i].pop_front();
            }
        }
        self.chip.tick()?;
        self.mon.cycle += 1;
        Ok(done)
    }

    /// Sends `tlps` into N and waits until the chip took them.
    fn host_writes(&mut self, tlps: &[Tlp]) -> Result<(), FuzzError> {
        for t in tlps {
            self.queue[0].extend(to_beats(t));
        }
        for _ in 0..ANSWER_LIMIT {
            if self.queue[0].is_empty() {
                return Ok(());
            }
            self.cycle()?;
        }
        Err(self
            .mon
            .violation("N RX does not take the host's setup writes".into()))
    }

    /// Reads the BAR0 register at `offset` from N; the value, with what the monitor had
    /// seen when the chip took the read (its own counts at that moment).
    fn csr_read(&mut self, offset: u32, tag: u8) -> Result<(u32, [Seen; 4]), FuzzError> {
        let mrd = Tlp::mem_read(
            Bdf(HOST_RID),
            Tag(tag),
            Addr(BAR0_BASE + u64::from(offset)),
            4,
        )
        .expect("a valid read");
        self.queue[0].extend(to_beats(&mrd));
        let mut snapshot = None;
        for _ in 0..ANSWER_LIMIT {
            let done = self.cycle()?;
            if snapshot.is_none() && self.queue[0].is_empty() {
                snapshot = Some(self.mon.seen);
            }
            for (port, tlp) in done {
                let ours = port == Port::N
                    && tlp.kind() == TlpKind::CplD
                    && tlp.tag() == Tag(tag)
                    && tlp.data().len() == 4;
                if ours {
                    let d = tlp.data();
                    let v = u32::from_le_bytes([d[0], d[1], d[2], d[3]]);
                    return Ok((v, snapshot.expect("the read was taken before its answer")));
                }
            }
        }
        Err(self
            .mon
            .violation(format!("no completion for the read of BAR0+{offset:#x}")))
    }
}

/// Fuzzes `chip` as `cfg` says; see the module documentation for what is checked.
pub fn fuzz_chip(chip: &mut dyn Chip, cfg: &FuzzConfig) -> Result<FuzzReport, FuzzError> {
    // The stimulus uses odd seeds only: every fuzz seed gets one of its own.
    let stim_seed = (cfg.seed << 1) | 1;
    let mut stim = RandomStimulus::new(stim_seed);
    stim.p_link_down = cfg.p_link_down;
    chip.set_s_role_rc(stim_seed & 2 != 0);
    reset(chip, 2)?;
    let mut mon = Monitor {
        seed: cfg.seed,
        cycle: 0,
        seen: Default::default(),
        tx: Default::default(),
        last_tx: 0,
        last_move: 0,
    };
    // Traffic, then the drain: no new TLPs, links back up, the host still answers.
    loop {
        if mon.cycle == cfg.cycles {
            stim.generate = false;
            stim.p_link_down = 0.0;
        }
        let stopped = mon.cycle < cfg.cycles && mon.cycle - mon.last_move > STOPPED;
        if stopped || mon.cycle >= cfg.cycles + DRAIN_LIMIT {
            let rx_ready = Port::ALL.map(|p| chip.rx_ready(p));
            let what = if stopped {
                format!(
                    "the chip stopped: no beat in or out since cycle {}",
                    mon.last_move
                )
            } else {
                format!("the chip did not drain in {DRAIN_LIMIT} cycles")
            };
            return Err(mon.violation(format!(
                "{what}: last TX at cycle {}, RX ready {rx_ready:?} (N, E, W, S), stimulus idle: {}; seen {:?}",
                mon.last_tx,
                stim.idle(),
                mon.seen
            )));
        }
        stim.drive(chip);
        chip.settle()?;
        let offered = Port::ALL.map(|p| stim.offered(p));
        let ready = Port::ALL.map(|p| stim.tx_ready(p));
        mon.observe(&*chip, offered, ready)?;
        stim.sample(chip);
        chip.tick()?;
        mon.cycle += 1;
        let quiet = mon.cycle.saturating_sub(mon.last_tx.max(cfg.cycles)) >= QUIET;
        if mon.cycle > cfg.cycles && stim.idle() && quiet {
            break;
        }
    }
    let drain_cycles = mon.cycle - cfg.cycles;
    let mut h = Harness {
        chip,
        mon,
        queue: Default::default(),
    };
    let counted = read_counters(&mut h)?;
    let forwarded_after = forward_after(&mut h)?;
    Ok(FuzzReport {
        cycles: cfg.cycles,
        drain_cycles,
        seen: h.mon.seen,
        counted,
        forwarded_after,
    })
}

/// Reads every port's counters and checks them against the monitor.
fn read_counters(h: &mut Harness) -> Result<[Counted; 4], FuzzError> {
    let mut counted = [Counted::default(); 4];
    let mut wrong = Vec::new();
    let mut tag = 0u8;
    for (i, port) in Port::ALL.into_iter().enumerate() {
        let mut read = |h: &mut Harness, reg| {
            tag = tag.wrapping_add(1);
            h.csr_read(port_reg(port, reg), tag)
        };
        let (tlps_in, at) = read(h, PORT_TLPS_IN)?;
        check(&mut wrong, port, "TLPS_IN", tlps_in, at[i].tlps_in);
        let (bytes_in, at) = read(h, PORT_BYTES_IN)?;
        check(&mut wrong, port, "BYTES_IN", bytes_in, at[i].bytes_in);
        let (tlps_out, at) = read(h, PORT_TLPS_OUT)?;
        check(&mut wrong, port, "TLPS_OUT", tlps_out, at[i].tlps_out);
        let (bytes_out, at) = read(h, PORT_BYTES_OUT)?;
        check(&mut wrong, port, "BYTES_OUT", bytes_out, at[i].bytes_out);
        let (drops, _) = read(h, PORT_DROPS)?;
        let (errors, _) = read(h, PORT_ERRORS)?;
        if u64::from(drops) + u64::from(errors) > u64::from(tlps_in) {
            wrong.push(format!(
                "{port:?}: DROPS {drops} + ERRORS {errors} > TLPS_IN {tlps_in}"
            ));
        }
        counted[i] = Counted {
            tlps_in,
            bytes_in,
            tlps_out,
            bytes_out,
            drops,
            errors,
        };
    }
    if wrong.is_empty() {
        Ok(counted)
    } else {
        Err(h
            .mon
            .violation(format!("the counters do not add up: {}", wrong.join("; "))))
    }
}

fn check(wrong: &mut Vec<String>, port: Port, name: &str, counted: u32, seen: u64) {
    // The counters are 32 bits wide and wrap.
    if u64::from(counted) != seen & u64::from(u32::MAX) {
        wrong.push(format!("{port:?}: {name} {counted}, seen {seen}"));
    }
}

/// Sets the chip up again and sends a clean write into each cable port for this node's
/// host memory: each must leave N with its address moved into the host window and its
/// data unchanged. (Writes between cable ports would need the partners' bring-up, which
/// a lone chip does not get: the chip drops what it would route to a port not brought
/// up.)
fn forward_after(h: &mut Harness) -> Result<usize, FuzzError> {
    h.host_writes(&setup_tlps())?;
    // The chip is node 3 (`setup_tlps`).
    let cases = [Port::E, Port::W, Port::S];
    for (k, &from) in cases.iter().enumerate() {
        let offset = 0x4000 + 0x100 * k as u64;
        let global = GlobalAddr::new(3, Target::Host, offset)
            .expect("fields in range")
            .to_u64();
        let local = window_base(Target::Host.code() as u32) + offset;
        let data: Vec<u8> = (0..64).map(|i| (i * 7 + k) as u8).collect();
        let mwr = Tlp::mem_write(Bdf(0x0100), Tag(0), Addr(global), &data).expect("a valid write");
        h.queue[from.index() as usize].extend(to_beats(&mwr));
        let mut arrived = false;
        for _ in 0..ANSWER_LIMIT {
            let done = h.cycle()?;
            arrived = done.iter().any(|(p, t)| {
                *p == Port::N
                    && t.kind() == TlpKind::MWr
                    && t.address() == Some(Addr(local))
                    && t.data() == data.as_slice()
            });
            if arrived {
                break;
            }
        }
        if !arrived {
            return Err(h.mon.violation(format!(
                "after the traffic, a clean write from {from:?} to this node's host memory did not leave N"
            )));
        }
    }
    Ok(cases.len())
}
