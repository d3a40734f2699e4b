//! Faults injected into a running cluster, reproducible from a seed, and what the chips'
//! counters and the hosts made of them.
//!
//! A [`FaultSpec`] gives each kind a rate in faults per million cycles; `all=R` gives
//! every kind `R`. Each cycle, each kind fires with its rate's chance (drawn for the
//! whole run before it starts, and applied by the node each fault happens at, so a
//! fault run is the same on any number of threads):
//!
//! - `malformed`: a write whose length field says more DWs than it carries enters a
//!   random cable, towards a random end, for the receiving node; the receiving chip must
//!   drop it whole and count it in that port's `ERRORS`;
//! - `unroutable`: a well-formed write to a node the topology does not have (or, in a
//!   16-node cluster, to a reserved target code) enters a random cable; a chip must drop
//!   it and count it in `DROPS`;
//! - `poisoned`: a write with `EP` set, for the start of the receiving node's host window
//!   (where the flows write: a landed one would be a corruption), enters a random cable;
//!   the chip forwards it (it does not look at `EP`) and the root complex must drop it
//!   (its `poisoned_writes`);
//! - `stall`: one direction of a random cable stops taking beats for 200 to 2000 cycles
//!   (a receiver whose buffers are stuck) and then goes on; nothing may be lost;
//! - `overlong`: a write that carries more DWs than its length field says; `ERRORS`;
//! - `badtype`: a TLP whose fmt/type is reserved (fmt 3, type 3); `ERRORS`;
//! - `completion`: a completion nobody asked for (status SC with data, UR or CA, a random
//!   tag) enters a random cable; an endpoint-role port (E, an S strapped `ep`) drops it at
//!   routing, a root-complex port's link controller (W, an S strapped `rc`) finds no
//!   request of its bring-up awaiting it; either counts it in `DROPS`;
//! - `badbe`: a write whose byte enables PCIe forbids (a zero `first_be` or `last_be`, or
//!   holes in them, in an 8-DW write); `ERRORS`;
//! - `config`: a config read from the wrong side, towards a root-complex port (W, an S
//!   strapped `rc`: the side that configures its partner, never configured by it); the
//!   port answers UR and stays ready (`UR_SENT`), and its UR completion, which nobody
//!   asked for, is dropped at the sender's endpoint port (`DROPS`);
//! - `readerr`, `cpltimeout`, `baddesc` (only where the chip's DMA sends, `--scenario
//!   dma`): the next DMA chunk a random sending node starts has its source reads fail in
//!   host memory (Completer Abort), or lost (never answered), or its chain's second
//!   descriptor turned bad (length 0) after the start; the chip stops the chain and its
//!   channel's `STATUS` says why (`CplError`, `CplTimeout`, `ZeroLength`): the flow is
//!   affected, and reported. These count as injected when they hit a chunk;
//! - `linkdown`: a random cable's data link goes down at both ends for 500 to 3000 cycles
//!   (`LinkEnd::go_down`: whatever either end held is thrown away, and counted) and comes
//!   back up; the root-complex side brings its partner up again and traffic resumes. The
//!   hard IPs count the event (`link_down`). The flows whose route crosses that cable
//!   may lose chunks: they are affected, their losses reported by the link going down
//!   (`chunks_lost_on_links`, `tlps_discarded_on_links`); the chips also drop what they
//!   route to a port that is not ready meanwhile (`DROPS`) and count a TLP the outage
//!   cut short (`ERRORS`), so with link-downs those two counters see more than the
//!   other kinds explain. No other fault uses a cable from shortly before it goes down
//!   until well after it is back (a TLP injected into a dying link would be thrown
//!   away, a config read during its bring-up would fail the link).
//!
//! Several kinds share a counter, and a fault may count in two, so what was detected is
//! reported by counter (`errors`, `drops`, `poisoned_writes`, `ur_sent`, and the DMA
//! channels' stops by cause, `dma_cpl_error`, `dma_cpl_timeout`, `dma_zero_length`)
//! beside what each counter should have seen of the injected kinds.
//!
//! The faults come on top of the scenario's flows (they replace none of their TLPs), so
//! every flow must arrive intact: the scenario's scoreboard counts any byte that does
//! not as a silent corruption.

use crate::cluster::{Cluster, NodeAgent};
use crate::dma_flow::DmaFault;
use crate::error::SimError;
use crate::node::Node;
use crate::scenario::{Flow, Traffic};
use crate::setup::csr_read_all;
use crate::topology::{route_cables, SRole};
use pcie_model::beats::{to_beats, Beat};
use pcie_model::tlp::CfgType;
use pcie_model::tlp::{Addr, Bdf, CplStatus, Tag, Tlp};
use peach2_regmap::address::{GlobalAddr, Target, MAX_NODES, TARGET_SHIFT};
use peach2_regmap::csr::{port_reg, Port, PORT_DROPS, PORT_ERRORS, PORT_UR_SENT};
use peach2_regmap::dma::ErrorCause;
use peach2_rtl::harness::Lcg;
use serde::Serialize;
use std::collections::{BTreeMap, VecDeque};
use std::str::FromStr;

/// The kinds of fault, in [`FaultSpec`] order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FaultKind {
    Malformed,
    Unroutable,
    Poisoned,
    Stall,
    Overlong,
    BadType,
    Completion,
    BadBe,
    Config,
    ReadErr,
    CplTimeout,
    BadDesc,
    LinkDown,
}

impl FaultKind {
    const ALL: [FaultKind; KIND_COUNT] = [
        FaultKind::Malformed,
        FaultKind::Unroutable,
        FaultKind::Poisoned,
        FaultKind::Stall,
        FaultKind::Overlong,
        FaultKind::BadType,
        FaultKind::Completion,
        FaultKind::BadBe,
        FaultKind::Config,
        FaultKind::ReadErr,
        FaultKind::CplTimeout,
        FaultKind::BadDesc,
        FaultKind::LinkDown,
    ];

    fn name(self) -> &'static str {
        KINDS[self as usize]
    }

    /// The counters that must each see a fault of this kind once (none: a stall is
    /// survived, not an error).
    fn counters(self) -> &'static [Counter] {
        match self {
            FaultKind::Malformed | FaultKind::Overlong | FaultKind::BadType | FaultKind::BadBe => {
                &[Counter::Errors]
            }
            FaultKind::Unroutable | FaultKind::Completion => &[Counter::Drops],
            FaultKind::Poisoned => &[Counter::PoisonedWrites],
            FaultKind::Config => &[Counter::UrSent, Counter::Drops],
            FaultKind::ReadErr => &[Counter::DmaCplError],
            FaultKind::CplTimeout => &[Counter::DmaCplTimeout],
            FaultKind::BadDesc => &[Counter::DmaZeroLength],
            FaultKind::LinkDown => &[Counter::LinkDown],
            FaultKind::Stall => &[],
        }
    }

    /// The fault the DMA suffers, for the DMA kinds.
    fn dma(self) -> Option<DmaFault> {
        match self {
            FaultKind::ReadErr => Some(DmaFault::ReadError),
            FaultKind::CplTimeout => Some(DmaFault::ReadLost),
            FaultKind::BadDesc => Some(DmaFault::BadDescriptor),
            _ => None,
        }
    }
}

/// What detects faults: the receiving port's `ERRORS`, a chip's `DROPS`, the root
/// complexes' dropped poisoned writes, a port's `UR_SENT`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Counter {
    Errors,
    Drops,
    PoisonedWrites,
    UrSent,
    DmaCplError,
    DmaCplTimeout,
    DmaZeroLength,
    LinkDown,
}

impl Counter {
    const ALL: [Counter; COUNTERS] = [
        Counter::Errors,
        Counter::Drops,
        Counter::PoisonedWrites,
        Counter::UrSent,
        Counter::DmaCplError,
        Counter::DmaCplTimeout,
        Counter::DmaZeroLength,
        Counter::LinkDown,
    ];

    fn name(self) -> &'static str {
        match self {
            Counter::Errors => "errors",
            Counter::Drops => "drops",
            Counter::PoisonedWrites => "poisoned_writes",
            Counter::UrSent => "ur_sent",
            Counter::DmaCplError => "dma_cpl_error",
            Counter::DmaCplTimeout => "dma_cpl_timeout",
            Counter::DmaZeroLength => "dma_zero_length",
            Counter::LinkDown => "link_down",
        }
    }
}

/// How many counters there are.
const COUNTERS: usize = 8;

/// The kinds' names, in [`FaultSpec`] order.
pub const KINDS: [&str; 13] = [
    "malformed",
    "unroutable",
    "poisoned",
    "stall",
    "overlong",
    "badtype",
    "completion",
    "badbe",
    "config",
    "readerr",
    "cpltimeout",
    "baddesc",
    "linkdown",
];

/// Whether kind `name` hits the DMA (and so needs flows the DMA sends: `--scenario dma`).
pub fn hits_dma(name: &str) -> bool {
    FaultKind::ALL
        .iter()
        .any(|k| k.name() == name && k.dma().is_some())
}

/// How many kinds there are.
const KIND_COUNT: usize = KINDS.len();

/// Rates per kind ([`KINDS`] order), in faults per million cycles.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FaultSpec {
    /// Faults per million cycles, per kind.
    pub rates: [f64; KIND_COUNT],
}

impl FromStr for FaultSpec {
    type Err = SimError;

    /// `all=R` or a comma list of `kind=R` (kinds: [`KINDS`]).
    fn from_str(s: &str) -> Result<Self, SimError> {
        let bad = |why: String| SimError::Scenario(format!("--faults {s:?}: {why}"));
        let mut spec = FaultSpec::default();
        for part in s.split(',').filter(|p| !p.trim().is_empty()) {
            let (kind, rate) = part
                .split_once('=')
                .ok_or_else(|| bad(format!("{part:?} is not KIND=RATE")))?;
            let rate: f64 = rate
                .trim()
                .parse()
                .ok()
                .filter(|r: &f64| r.is_finite() && *r >= 0.0 && *r <= 1e6)
                .ok_or_else(|| {
                    bad(format!(
                        "{rate:?}: a rate in 0..=1000000 per million cycles"
                    ))
                })?;
            match kind.trim() {
                "all" => spec.rates = [rate; KIND_COUNT],
                k => {
                    let i = KINDS.iter().position(|n| *n == k).ok_or_else(|| {
                        bad(format!("unknown kind {k:?} (all, {})", KINDS.join(", ")))
                    })?;
                    spec.rates[i] = rate;
                }
            }
        }
        Ok(spec)
    }
}

/// What a fault does at the node it happens at.
enum Action {
    /// Raw beats enter the wire of the cable at `port`, towards the far node.
    Inject { port: Port, beats: Vec<Beat> },
    /// The receiver at `port` takes nothing until cycle `until`.
    Freeze { port: Port, until: u64 },
    /// The cable at `port` goes down until cycle `until` (at both ends: the fault is
    /// counted at the end that says `count`).
    LinkDown { port: Port, until: u64, count: bool },
}

/// One node's faults, applied beside the node at their cycles.
#[derive(Default)]
struct NodeFaults {
    /// `(cycle, kind, action)`, in cycle order.
    due: VecDeque<(u64, FaultKind, Action)>,
    /// Receivers frozen, until a cycle.
    frozen: Vec<(Port, u64)>,
    /// Cables down at this end, until a cycle.
    down: Vec<(Port, u64)>,
    /// Faults injected per kind.
    injected: [u64; KIND_COUNT],
}

impl NodeAgent for NodeFaults {
    fn before_cycle(&mut self, node: &mut Node, now: u64) -> Result<(), SimError> {
        self.frozen.retain(|&(port, until)| {
            let thaw = now >= until;
            if thaw {
                set_frozen(node, port, false);
            }
            !thaw
        });
        self.down.retain(|&(port, until)| {
            let back = now >= until;
            if back {
                set_link(node, port, true);
            }
            !back
        });
        while self.due.front().is_some_and(|(at, _, _)| *at <= now) {
            let (_, kind, action) = self.due.pop_front().expect("checked");
            // A link-down is one fault at two ends.
            let counted = !matches!(action, Action::LinkDown { count: false, .. });
            match action {
                Action::Inject { port, beats } => {
                    if let Some(a) = &mut node.ports[port.index() as usize] {
                        a.end.inject(now, beats);
                    }
                }
                Action::Freeze { port, until } => {
                    set_frozen(node, port, true);
                    self.frozen.push((port, until));
                }
                Action::LinkDown { port, until, .. } => {
                    set_link(node, port, false);
                    self.down.push((port, until));
                }
            }
            self.injected[kind as usize] += u64::from(counted);
        }
        Ok(())
    }
}

/// Takes `node`'s end of the cable at `port` down or brings it back up.
fn set_link(node: &mut Node, port: Port, up: bool) {
    if let Some(a) = &mut node.ports[port.index() as usize] {
        if up {
            a.end.go_up();
        } else {
            a.end.go_down();
        }
    }
}

/// Freezes or thaws the receiver of `node`'s cable at `port`.
fn set_frozen(node: &mut Node, port: Port, frozen: bool) {
    if let Some(a) = &mut node.ports[port.index() as usize] {
        a.end.rx.frozen = frozen;
    }
}

/// Cycles before a link goes down in which no other fault uses its cable.
const LINK_QUIET_BEFORE: u64 = 300;
/// Cycles after a link is back in which no other fault uses its cable (its bring-up).
const LINK_QUIET_AFTER: u64 = 3000;

/// The faults of a run: per node, and the cables taken down.
struct Schedule {
    nodes: Vec<NodeFaults>,
    downed: Vec<bool>,
}

/// Draws the faults of a [`FaultSpec`] for a run, node by node.
struct Injector {
    spec: FaultSpec,
    rng: Lcg,
    /// The link-downs' own stream.
    link_rng: Lcg,
    /// TLPs this process's link ends had discarded before the run.
    discarded_before: u64,
    /// The counters before the first fault.
    base: Counts,
}

/// What the chips' counters, the DMA channels' `STATUS` and the hosts say, summed over
/// the cluster, in [`Counter::ALL`] order.
#[derive(Clone, Copy, Debug)]
struct Counts([u64; COUNTERS]);

/// What a fault run found.
#[derive(Clone, Debug, Serialize)]
pub struct FaultReport {
    /// The seed.
    pub seed: u64,
    /// Faults injected, by kind.
    pub faults_injected: BTreeMap<&'static str, u64>,
    /// Faults the chips or hosts counted, by counter (`errors`, `drops`,
    /// `poisoned_writes`, `ur_sent`, `dma_cpl_error`, `dma_cpl_timeout`,
    /// `dma_zero_length`).
    pub faults_detected: BTreeMap<&'static str, u64>,
    /// What each counter should have counted: the injected faults of the kinds it
    /// catches.
    pub faults_expected: BTreeMap<&'static str, u64>,
    /// Flows a fault took chunks from: chunks whose DMA chain the chip stopped (and
    /// reported).
    pub flows_affected: u64,
    /// Flows no fault took TLPs from.
    pub flows_unaffected: u64,
    /// Of those, the flows that arrived whole, in order, byte-exact.
    pub flows_unaffected_intact: u64,
    /// Chunks of flows through a cable that went down that never arrived whole (the
    /// link going down reported them; the flows are affected).
    pub chunks_lost_on_links: u64,
    /// TLPs the data links threw away when they went down.
    pub tlps_discarded_on_links: u64,
    /// Bytes or chunks that arrived wrong, twice or not at all, with no error said.
    pub silent_corruptions: u64,
}

impl Injector {
    /// An injector of `spec` whose choices follow `seed`, for `c` as it is now.
    fn new(
        spec: FaultSpec,
        seed: u64,
        c: &mut Cluster,
        traffic: &Traffic,
    ) -> Result<Injector, SimError> {
        Ok(Injector {
            spec,
            rng: Lcg(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1),
            link_rng: Lcg((seed ^ 0x6C69_6E6B).wrapping_mul(0xD1B5_4A32_D192_ED03) | 1),
            discarded_before: local_ends(c).map(|e| e.discarded).sum(),
            base: counts(c, traffic)?,
        })
    }

    /// The faults of cycles `c.cycle..c.cycle + cycles`, drawn cycle by cycle (each kind
    /// with its rate's chance, on a random cable and direction, or a random node whose
    /// DMA sends) and handed to the node each happens at: an injection to the sending
    /// node, a stall to the receiving one, a DMA fault armed in `traffic` at the node.
    fn schedule(&mut self, c: &Cluster, traffic: &mut Traffic, cycles: u64) -> Schedule {
        let mut nodes: Vec<NodeFaults> = c.nodes.iter().map(|_| NodeFaults::default()).collect();
        let senders: Vec<usize> = (0..c.nodes.len())
            .filter(|&n| traffic.sends_dma(n))
            .collect();
        let (downed, blocked) = self.link_downs(c, cycles, &mut nodes);
        // An end plays the root-complex role (W, an S strapped `rc`).
        let rc = |e: crate::topology::End| match e.port {
            Port::W => true,
            Port::S => c.topology.nodes[e.node].s_role == SRole::Rc,
            _ => false,
        };
        // Per cable and direction, the cycle its receiver thaws (no second stall before).
        let mut thaw = vec![[0u64; 2]; c.cables.len()];
        for now in c.cycle..c.cycle + cycles {
            for kind in FaultKind::ALL {
                if kind == FaultKind::LinkDown
                    || !self.rng.chance(self.spec.rates[kind as usize] / 1e6)
                {
                    continue;
                }
                if let Some(fault) = kind.dma() {
                    if !senders.is_empty() {
                        let node = senders[self.rng.below(senders.len() as u64) as usize];
                        traffic.arm_dma_fault(node, now, fault);
                    }
                    continue;
                }
                if c.cables.is_empty() {
                    continue;
                }
                let cable = self.rng.below(c.cables.len() as u64) as usize;
                let mut side = self.rng.below(2) as usize;
                if blocked[cable].iter().any(|r| r.contains(&now)) {
                    continue;
                }
                if kind == FaultKind::Config {
                    // Towards the cable's root-complex end.
                    let ends = c.cables[cable].ends;
                    match (rc(ends[0]), rc(ends[1])) {
                        (_, true) => side = 0,
                        (true, false) => side = 1,
                        (false, false) => continue,
                    }
                }
                let (from, to) = (c.cables[cable].ends[side], c.cables[cable].ends[1 - side]);
                if kind == FaultKind::Stall {
                    if now < thaw[cable][side] {
                        continue;
                    }
                    let until = now + 200 + self.rng.below(1800);
                    thaw[cable][side] = until;
                    let a = Action::Freeze {
                        port: to.port,
                        until,
                    };
                    nodes[to.node].due.push_back((now, kind, a));
                } else {
                    let beats = self.tlp(kind, c.nodes[to.node].id, c.nodes.len());
                    let a = Action::Inject {
                        port: from.port,
                        beats,
                    };
                    nodes[from.node].due.push_back((now, kind, a));
                }
            }
        }
        for n in &mut nodes {
            n.due.make_contiguous().sort_by_key(|(at, _, _)| *at);
        }
        Schedule { nodes, downed }
    }

    /// The link-downs of cycles `c.cycle..c.cycle + cycles`, drawn from their own stream
    /// (the other kinds draw the same with or without them) and handed to both ends'
    /// nodes; returns the cables taken down, and per cable the cycles no other fault may
    /// use it.
    fn link_downs(
        &mut self,
        c: &Cluster,
        cycles: u64,
        nodes: &mut [NodeFaults],
    ) -> (Vec<bool>, Vec<Vec<std::ops::Range<u64>>>) {
        let mut downed = vec![false; c.cables.len()];
        let mut blocked = vec![Vec::new(); c.cables.len()];
        let rate = self.spec.rates[FaultKind::LinkDown as usize] / 1e6;
        if c.cables.is_empty() || rate == 0.0 {
            return (downed, blocked);
        }
        let mut free = vec![0u64; c.cables.len()];
        for now in c.cycle..c.cycle + cycles {
            if !self.link_rng.chance(rate) {
                continue;
            }
            let cable = self.link_rng.below(c.cables.len() as u64) as usize;
            if now < free[cable] {
                continue;
            }
            let until = now + 500 + self.link_rng.below(2500);
            free[cable] = until + LINK_QUIET_AFTER;
            downed[cable] = true;
            blocked[cable].push(now.saturating_sub(LINK_QUIET_BEFORE)..until + LINK_QUIET_AFTER);
            for (k, end) in c.cables[cable].ends.iter().enumerate() {
                let a = Action::LinkDown {
                    port: end.port,
                    until,
                    count: k == 0,
                };
                nodes[end.node].due.push_back((now, FaultKind::LinkDown, a));
            }
        }
        (downed, blocked)
    }

    /// A fault TLP of `kind` (not a stall) entering node `to` of a cluster of `nodes`.
    fn tlp(&mut self, kind: FaultKind, to: u8, nodes: usize) -> Vec<Beat> {
        let offset = 64 * self.rng.below(1 << 16);
        let mut addr = GlobalAddr::new(to, Target::Host, offset)
            .expect("fields in range")
            .to_u64();
        if kind == FaultKind::Unroutable {
            addr = if nodes < MAX_NODES {
                let absent = nodes as u64 + self.rng.below((MAX_NODES - nodes) as u64);
                GlobalAddr::new(absent as u8, Target::Host, offset)
                    .expect("fields in range")
                    .to_u64()
            } else {
                // Target code 6 is reserved.
                (addr & !(7 << TARGET_SHIFT)) | (6 << TARGET_SHIFT)
            };
        }
        let data: Vec<u8> = (0..32).map(|_| self.rng.next_u64() as u8).collect();
        let mut tlp =
            Tlp::mem_write(Bdf(0x0100), Tag(0), Addr(addr), &data).expect("a valid write");
        if kind == FaultKind::Poisoned {
            tlp = tlp.with_ep(true);
        }
        if kind == FaultKind::Config {
            let register = 4 * self.rng.below(64) as u16;
            tlp = Tlp::cfg_read(
                CfgType::Type0,
                Bdf(0x0100),
                Tag(0x42),
                Bdf(0x0200),
                register,
                0xF,
            )
            .expect("a valid config read");
        }
        if kind == FaultKind::Completion {
            let status = [CplStatus::Sc, CplStatus::Ur, CplStatus::Ca][self.rng.below(3) as usize];
            let data: &[u8] = if status == CplStatus::Sc {
                &data[..4]
            } else {
                &[]
            };
            tlp = Tlp::completion(
                Bdf(0x0100),
                status,
                Bdf(0x0200),
                Tag(self.rng.below(256) as u8),
                4,
                0,
                data,
            )
            .expect("a valid completion");
        }
        let mut beats = to_beats(&tlp);
        // DW0 is lane 0 of the first beat (wire byte 0, fmt/type, in bits 31:24); its low
        // 10 bits are the length.
        match kind {
            // Says 16 DWs, carries 8.
            FaultKind::Malformed => beats[0].data = (beats[0].data & !0x3ff) | 16,
            // Says 4 DWs, carries 8.
            FaultKind::Overlong => beats[0].data = (beats[0].data & !0x3ff) | 4,
            // fmt 3 (4-DW header with data), type 3: reserved.
            FaultKind::BadType => beats[0].data = (beats[0].data & !(0xff << 24)) | (0x63 << 24),
            // DW1 is lane 1: `last_be` in bits 39:36, `first_be` in 35:32. An 8-DW write
            // whose `last_be` is 0 or leaves holes (0110, 1100), or whose `first_be` is 0
            // or does not enable up to its DW's end (0101, 0011).
            FaultKind::BadBe => {
                let be = [0x0F, 0x6F, 0xCF, 0xF0, 0xF5, 0xF3][self.rng.below(6) as usize];
                beats[0].data = (beats[0].data & !(0xff << 32)) | (be << 32);
            }
            _ => {}
        }
        beats
    }

    /// Thaws what `nodes` froze and reports on `traffic`'s flows after its run.
    fn finish(
        &mut self,
        c: &mut Cluster,
        traffic: &Traffic,
        nodes: &mut [NodeFaults],
        seed: u64,
    ) -> Result<FaultReport, SimError> {
        let mut injected = [0; KIND_COUNT];
        for (n, f) in nodes.iter_mut().enumerate() {
            for (port, _) in f.frozen.drain(..) {
                set_frozen(&mut c.nodes[n], port, false);
            }
            for (port, _) in f.down.drain(..) {
                set_link(&mut c.nodes[n], port, true);
            }
            for (k, i) in injected.iter_mut().zip(f.injected) {
                *k += i;
            }
        }
        // Each process applied its own nodes' faults.
        c.all_reduce(&mut injected, false)?;
        // The DMA faults count where they hit a chunk.
        let (applied, _) = traffic.dma_counts(c)?;
        for kind in FaultKind::ALL {
            if let Some(fault) = kind.dma() {
                injected[kind as usize] = applied[fault as usize];
            }
        }
        let (base, now) = (self.base, counts(c, traffic)?);
        let detected: [u64; COUNTERS] = std::array::from_fn(|i| now.0[i] - base.0[i]);
        let by_counter =
            |v: [u64; COUNTERS]| Counter::ALL.map(Counter::name).into_iter().zip(v).collect();
        let (affected, unaffected): (Vec<&Flow>, Vec<&Flow>) = traffic
            .flows
            .iter()
            .partition(|f| f.failed > 0 || (f.lossy && f.unaccounted() > 0));
        let mut discarded =
            [local_ends(c).map(|e| e.discarded).sum::<u64>() - self.discarded_before];
        c.all_reduce(&mut discarded, false)?;
        let expected = Counter::ALL.map(|counter| {
            FaultKind::ALL
                .iter()
                .filter(|k| k.counters().contains(&counter))
                .map(|k| injected[*k as usize])
                .sum()
        });
        Ok(FaultReport {
            seed,
            faults_injected: FaultKind::ALL
                .map(FaultKind::name)
                .into_iter()
                .zip(injected)
                .collect(),
            faults_detected: by_counter(detected),
            faults_expected: by_counter(expected),
            flows_affected: affected.len() as u64,
            flows_unaffected: unaffected.len() as u64,
            flows_unaffected_intact: unaffected
                .iter()
                .filter(|f| f.delivered == f.issued && f.skipped == 0)
                .count() as u64,
            chunks_lost_on_links: traffic
                .flows
                .iter()
                .filter(|f| f.lossy)
                .map(Flow::unaccounted)
                .sum(),
            tlps_discarded_on_links: discarded[0],
            silent_corruptions: traffic.summary.errors,
        })
    }
}

/// `ERRORS`, `DROPS` and `UR_SENT` of every port of every chip, the hosts' dropped
/// poisoned writes, and the DMA chains `traffic`'s sources saw the chips stop, by cause.
fn counts(c: &mut Cluster, traffic: &Traffic) -> Result<Counts, SimError> {
    let regs = [PORT_ERRORS, PORT_DROPS, PORT_UR_SENT];
    let mut reads = Vec::new();
    for n in 0..c.nodes.len() {
        for p in Port::ALL {
            reads.extend(regs.map(|r| (n, port_reg(p, r))));
        }
    }
    let v = csr_read_all(c, &reads)?;
    let mut poisoned = [c
        .nodes
        .iter()
        .enumerate()
        .filter(|(i, _)| c.is_local(*i))
        .map(|(_, n)| n.host.rc.counters().poisoned_writes)
        .sum()];
    c.all_reduce(&mut poisoned, false)?;
    let sum = |k: usize| {
        v.iter()
            .skip(k)
            .step_by(regs.len())
            .map(|&x| u64::from(x))
            .sum()
    };
    let (_, stopped) = traffic.dma_counts(c)?;
    let stops = |cause: ErrorCause| stopped[cause as usize];
    // Both ends of a cable see it go down.
    let mut downs = [local_ends(c).map(|e| e.downs).sum::<u64>()];
    c.all_reduce(&mut downs, false)?;
    Ok(Counts([
        sum(0),
        sum(1),
        poisoned[0],
        sum(2),
        stops(ErrorCause::CplError),
        stops(ErrorCause::CplTimeout),
        stops(ErrorCause::ZeroLength),
        downs[0] / 2,
    ]))
}

/// The cable ends of this process's nodes.
fn local_ends(c: &Cluster) -> impl Iterator<Item = &crate::link::LinkEnd> {
    c.nodes
        .iter()
        .enumerate()
        .filter(|(i, _)| c.is_local(*i))
        .flat_map(|(_, n)| n.ports.iter().flatten())
        .map(|a| &a.end)
}

/// Cycles the flows get to drain after the traffic of a fault run.
pub const DRAIN_CYCLES: u64 = 2_000_000;

/// Runs `traffic` on `c` for `cycles` cycles with the faults of `spec` (seeded by
/// `seed`), then stops issuing and lets every chunk issued arrive (within
/// [`DRAIN_CYCLES`]; one that does not is a scoreboard error), and reports. The caller
/// finishes the cluster (its logs and traces), as after [`Traffic::run`].
pub fn run(
    c: &mut Cluster,
    traffic: &mut Traffic,
    spec: FaultSpec,
    seed: u64,
    cycles: u64,
) -> Result<FaultReport, SimError> {
    let mut inj = Injector::new(spec, seed, c, traffic)?;
    let Schedule { mut nodes, downed } = inj.schedule(c, traffic, cycles);
    // The flows whose route crosses a cable that goes down may lose chunks on it.
    let (cables, routes) = (c.topology.validate()?, c.topology.routes()?);
    for f in &mut traffic.flows {
        let crossed = route_cables(&cables, &routes, f.src, f.dst).unwrap_or_default();
        f.lossy = crossed.iter().any(|&k| downed[k]);
    }
    let run = traffic.run_with(c, cycles, false, &mut nodes);
    let run = run.and_then(|()| {
        // Faults stop with the traffic (stalls still end when due); what was issued
        // drains.
        for f in &mut traffic.flows {
            f.limit = Some(f.issued);
        }
        let s = &traffic.summary;
        let (ran, wall, windows) = (s.cycles, s.wall_s, s.windows);
        let drained = traffic.run_with(c, DRAIN_CYCLES, true, &mut nodes);
        let s = &mut traffic.summary;
        s.cycles += ran;
        s.wall_s += wall;
        s.windows += windows;
        s.cycles_per_s = s.cycles as f64 / s.wall_s.max(1e-9);
        drained
    });
    run?;
    traffic.finish();
    inj.finish(c, traffic, &mut nodes, seed)
}
