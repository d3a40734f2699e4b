//! Traffic scenarios (CPU PIO writes through BAR2) and the scoreboard that checks every
//! byte is delivered exactly once, in order per flow.
//!
//! A flow sends chunks from its source host to a target (host memory or a GPU) of its
//! destination node. Chunk `seq` goes to offset `(seq * chunk) % window` of the window
//! the flow owns at the destination, and carries a pattern made of (flow, seq), so the
//! scoreboard can tell which chunk arrived, whether it is the next one expected, and
//! whether its bytes are right.

use crate::cluster::{Cluster, BAR2_BASE};
use crate::error::SimError;
use crate::setup::HOST_WINDOW;
use pcie_model::tlp::Addr;
use peach2_regmap::address::{GlobalAddr, Target, GLOBAL_BASE};
use serde::Serialize;
use std::time::Instant;

/// Bytes of each flow's window at its destination (16 windows fit a 256 MiB GPU BAR).
pub const WINDOW: u64 = 16 << 20;

/// One flow of writes.
#[derive(Clone, Debug)]
pub struct Flow {
    /// Source node index.
    pub src: usize,
    /// Destination node index.
    pub dst: usize,
    /// Target at the destination.
    pub target: Target,
    /// Bytes per chunk (one PIO write, split by the host at MPS).
    pub chunk: usize,
    /// Chunks to send (`None`: as many as the run allows).
    pub limit: Option<u64>,
    /// Chunks issued.
    pub issued: u64,
    /// Bytes of the current expected chunk already delivered.
    partial: usize,
    /// Chunks delivered completely.
    pub delivered: u64,
    /// Ping-pong: this flow may issue chunk `k` once flow `.0` delivered `k + .1` chunks.
    pub gate: Option<(usize, u64)>,
}

impl Flow {
    /// A flow of `chunk`-byte writes from `src` to `target` of `dst`.
    pub fn new(src: usize, dst: usize, target: Target, chunk: usize, limit: Option<u64>) -> Self {
        Self {
            src,
            dst,
            target,
            chunk,
            limit,
            issued: 0,
            partial: 0,
            delivered: 0,
            gate: None,
        }
    }

    fn offset(&self, seq: u64) -> u64 {
        self.src as u64 * WINDOW + (seq * self.chunk as u64) % WINDOW
    }
}

/// Byte `i` of chunk `seq` of flow `flow`.
fn pattern(flow: usize, seq: u64, i: usize) -> u8 {
    let h = (seq ^ ((flow as u64) << 40)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (h >> 56) as u8 ^ (i as u8).wrapping_mul(31)
}

/// The named scenarios.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Node 0 and the last node take turns: one chunk each way.
    PingPong,
    /// Every node streams to the next node (its E neighbour in a ring).
    Neighbor,
    /// Every node streams to every other node, round robin.
    AllToAll,
    /// No traffic (what an idle cluster costs to simulate).
    Idle,
}

impl std::str::FromStr for Kind {
    type Err = SimError;
    fn from_str(s: &str) -> Result<Self, SimError> {
        match s {
            "pingpong" => Ok(Kind::PingPong),
            "neighbor" => Ok(Kind::Neighbor),
            "alltoall" => Ok(Kind::AllToAll),
            "idle" => Ok(Kind::Idle),
            _ => Err(SimError::Scenario(format!(
                "unknown scenario {s:?} (pingpong, neighbor, alltoall, idle)"
            ))),
        }
    }
}

/// The flows of scenario `kind` on `nodes` nodes.
pub fn flows(kind: Kind, nodes: usize, chunk: usize, limit: Option<u64>) -> Vec<Flow> {
    let last = nodes - 1;
    match kind {
        Kind::PingPong => {
            let mut a = Flow::new(0, last, Target::Host, chunk, limit);
            let mut b = Flow::new(last, 0, Target::Host, chunk, limit);
            a.gate = Some((1, 0));
            b.gate = Some((0, 1));
            vec![a, b]
        }
        Kind::Neighbor => (0..nodes)
            .map(|s| Flow::new(s, (s + 1) % nodes, Target::Host, chunk, limit))
            .collect(),
        Kind::AllToAll => (0..nodes)
            .flat_map(|s| (0..nodes).filter(move |&d| d != s).map(move |d| (s, d)))
            .map(|(s, d)| Flow::new(s, d, Target::Host, chunk, limit))
            .collect(),
        Kind::Idle => Vec::new(),
    }
}

/// End-of-run figures (the `--json` summary).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    /// Cluster cycles simulated in the traffic phase.
    pub cycles: u64,
    /// Wall-clock seconds of the traffic phase.
    pub wall_s: f64,
    /// Simulated cycles per wall-clock second.
    pub cycles_per_s: f64,
    /// Payload bytes the scoreboard accepted.
    pub bytes_delivered: u64,
    /// Scoreboard errors (wrong, duplicated, reordered or missing data).
    pub errors: u64,
    /// Chunks delivered per flow.
    pub chunks_delivered: u64,
    /// Share of chip evaluations skipped because the chip was at a fixed point.
    pub evals_skipped_share: f64,
    /// First scoreboard errors, described.
    pub first_errors: Vec<String>,
}

/// Runs traffic and checks it.
pub struct Traffic {
    /// The flows.
    pub flows: Vec<Flow>,
    next_flow: Vec<usize>,
    /// Figures so far.
    pub summary: Summary,
}

impl Traffic {
    /// Traffic of `flows` on `c`.
    pub fn new(c: &Cluster, flows: Vec<Flow>) -> Self {
        Self {
            flows,
            next_flow: vec![0; c.nodes.len()],
            summary: Summary::default(),
        }
    }

    fn error(&mut self, msg: String) {
        self.summary.errors += 1;
        if self.summary.first_errors.len() < 10 {
            self.summary.first_errors.push(msg);
        }
    }

    /// Every flow with a limit has delivered all of it.
    pub fn done(&self) -> bool {
        self.flows
            .iter()
            .all(|f| f.limit.is_some_and(|l| f.delivered >= l))
    }

    fn may_issue(&self, i: usize) -> bool {
        let f = &self.flows[i];
        if f.limit.is_some_and(|l| f.issued >= l) {
            return false;
        }
        match f.gate {
            Some((other, lag)) => self.flows[other].delivered >= f.issued + lag,
            None => true,
        }
    }

    fn issue(&mut self, c: &mut Cluster) -> Result<(), SimError> {
        for n in 0..c.nodes.len() {
            // Keep about two MPS writes queued at the host: a CPU stalls on a full queue.
            if c.nodes[n].host.pending_beats() > 40 {
                continue;
            }
            let count = self.flows.len();
            for k in 0..count {
                let i = (self.next_flow[n] + k) % count;
                if self.flows[i].src != n || !self.may_issue(i) {
                    continue;
                }
                let f = &self.flows[i];
                let g = GlobalAddr::new(c.nodes[f.dst].id, f.target, f.offset(f.issued))
                    .map_err(|e| SimError::Scenario(e.to_string()))?;
                let data: Vec<u8> = (0..f.chunk).map(|b| pattern(i, f.issued, b)).collect();
                c.nodes[n]
                    .host
                    .cpu()
                    .mmio_write(BAR2_BASE + (g.to_u64() - GLOBAL_BASE), &data)
                    .map_err(|e| SimError::Scenario(e.to_string()))?;
                self.flows[i].issued += 1;
                self.next_flow[n] = i + 1;
                break;
            }
        }
        Ok(())
    }

    fn local_base(c: &Cluster, node: usize, t: Target) -> Option<u64> {
        match t {
            Target::Host => Some(HOST_WINDOW),
            Target::Gpu(g) => c.nodes[node]
                .host
                .gpus
                .get(usize::from(g))?
                .bar
                .map(|b| b.0),
            Target::Internal => None,
        }
    }

    fn check(&mut self, c: &mut Cluster) {
        for n in 0..c.nodes.len() {
            let arrivals = std::mem::take(&mut c.nodes[n].host.delivered);
            for a in arrivals {
                let addr = a.tlp.address().map_or(0, Addr::raw);
                let data = a.tlp.data();
                let hit = self.flows.iter().position(|f| {
                    f.dst == n
                        && Self::local_base(c, n, f.target)
                            .is_some_and(|b| addr.wrapping_sub(b) / WINDOW == f.src as u64)
                });
                let Some(i) = hit else {
                    self.error(format!(
                        "cycle {}: node {n}: write at {addr:#x} belongs to no flow",
                        a.cycle
                    ));
                    continue;
                };
                let f = &self.flows[i];
                let base = Self::local_base(c, n, f.target).unwrap_or(0);
                let want = base + f.offset(f.delivered) + f.partial as u64;
                let ok_data = data.len() <= f.chunk - f.partial
                    && data
                        .iter()
                        .enumerate()
                        .all(|(k, b)| *b == pattern(i, f.delivered, f.partial + k));
                if addr != want || !ok_data || f.delivered >= f.issued {
                    let msg = format!(
                        "cycle {}: flow {i} ({}->{}): write of {} B at {addr:#x}, expected chunk {} at {want:#x} (data {})",
                        a.cycle, f.src, f.dst, data.len(), f.delivered,
                        if ok_data { "right" } else { "wrong" }
                    );
                    self.error(msg);
                    continue;
                }
                let f = &mut self.flows[i];
                f.partial += data.len();
                self.summary.bytes_delivered += data.len() as u64;
                if f.partial == f.chunk {
                    f.partial = 0;
                    f.delivered += 1;
                    self.summary.chunks_delivered += 1;
                }
            }
        }
    }

    /// Runs `cycles` cycles (or, with `until_done`, until every limited flow has been
    /// delivered, at most `cycles`), checking progress. Fills the summary.
    pub fn run(&mut self, c: &mut Cluster, cycles: u64, until_done: bool) -> Result<(), SimError> {
        self.run_with(c, cycles, until_done, &mut |_| Ok(()))
    }

    /// [`Traffic::run`] with `each_cycle` called before every cluster step (fault
    /// injection).
    pub fn run_with(
        &mut self,
        c: &mut Cluster,
        cycles: u64,
        until_done: bool,
        each_cycle: &mut dyn FnMut(&mut Cluster) -> Result<(), SimError>,
    ) -> Result<(), SimError> {
        let (start, t, s0, d0) = (c.cycle, Instant::now(), c.evals_skipped, c.evals_done);
        let mut result = Ok(());
        while c.cycle - start < cycles && !(until_done && self.done()) {
            self.issue(c)?;
            if let Err(e) = each_cycle(c).and_then(|()| c.step()) {
                result = Err(e);
                break;
            }
            self.check(c);
            if let Err(e) =
                c.check_progress(!self.done() && self.flows.iter().any(|f| f.issued > f.delivered))
            {
                result = Err(e);
                break;
            }
        }
        let s = &mut self.summary;
        s.cycles = c.cycle - start;
        s.wall_s = t.elapsed().as_secs_f64();
        s.cycles_per_s = s.cycles as f64 / s.wall_s.max(1e-9);
        let (sk, dn) = (c.evals_skipped - s0, c.evals_done - d0);
        s.evals_skipped_share = sk as f64 / (sk + dn).max(1) as f64;
        result
    }

    /// After the run: chunks issued but never delivered count as errors.
    pub fn finish(&mut self) {
        let missing: Vec<String> = self
            .flows
            .iter()
            .enumerate()
            .filter(|(_, f)| f.delivered != f.issued)
            .map(|(i, f)| {
                format!(
                    "flow {i} ({}->{}): {} of {} chunks delivered",
                    f.src, f.dst, f.delivered, f.issued
                )
            })
            .collect();
        for m in missing {
            self.error(m);
        }
    }
}
