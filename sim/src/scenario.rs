//! Traffic scenarios (CPU PIO writes through BAR2, or the chip's DMA: [`crate::dma_flow`])
//! and the scoreboard that checks every byte is delivered exactly once, in order per flow,
//! and that every chunk that did not arrive is one the chip reported failed.
//!
//! A flow sends chunks from its source host to a target (host memory or a GPU) of its
//! destination node. Chunk `seq` goes to offset `(seq * chunk) % window` of the window
//! the flow owns at the destination, and carries a pattern made of (flow, seq), so the
//! scoreboard can tell which chunk arrived, whether it is the next one expected, and
//! whether its bytes are right.

use crate::cluster::{Cluster, NodeAgent, BAR2_BASE};
use crate::dma_flow::{DmaFault, DmaIssuer, STAGE_BYTES};

use crate::error::SimError;
use crate::node::Node;
use crate::setup::HOST_WINDOW;
use pcie_model::tlp::Addr;
use peach2_regmap::address::{GlobalAddr, Target, GLOBAL_BASE};
use peach2_regmap::dma::CAUSE_CODES;
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
    /// Sent by the source chip's DMA instead of the CPU's PIO writes.
    pub dma: bool,
    /// Chunks the source chip reported failed (a DMA chain it stopped).
    pub failed: u64,
    /// Chunks the destination saw skipped: a later chunk began before they were whole.
    pub skipped: u64,
    /// Its route crosses a cable that went down (a fault run): chunks may be lost there.
    pub lossy: bool,
    /// The chunk in progress at the destination lost bytes before `partial`.
    holed: bool,
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
            dma: false,
            failed: 0,
            skipped: 0,
            lossy: false,
            holed: false,
        }
    }

    /// Offset of chunk `seq` in the destination's target.
    pub(crate) fn offset(&self, seq: u64) -> u64 {
        self.src as u64 * WINDOW + (seq * self.chunk as u64) % WINDOW
    }

    /// Chunks accounted for: arrived whole, or reported failed by the chip.
    pub fn settled(&self) -> u64 {
        self.delivered - self.skipped + self.failed
    }

    /// Chunks issued that neither arrived whole nor were reported failed.
    pub fn unaccounted(&self) -> u64 {
        self.issued.saturating_sub(self.settled())
    }
}

/// Whether flow `i` of `flows` may issue its next chunk (its limit, its gate).
pub(crate) fn may_issue(flows: &[Flow], i: usize) -> bool {
    let f = &flows[i];
    if f.limit.is_some_and(|l| f.issued >= l) {
        return false;
    }
    match f.gate {
        Some((other, lag)) => flows[other].delivered >= f.issued + lag,
        None => true,
    }
}

/// Chunks the scoreboard looks ahead for when the expected one does not come (a chunk
/// the chip stopped half way, or those a link lost while it was down).
const SKIP_AHEAD: u64 = 1 << 16;

/// Byte `i` of chunk `seq` of flow `flow`.
pub(crate) fn pattern(flow: usize, seq: u64, i: usize) -> u8 {
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
    /// Every node's DMA streams to the next node (chains in host memory, 2 descriptors
    /// a chunk; [`crate::dma_flow`]).
    Dma,
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
            "dma" => Ok(Kind::Dma),
            _ => Err(SimError::Scenario(format!(
                "unknown scenario {s:?} (pingpong, neighbor, alltoall, dma, idle)"
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
        Kind::Dma => (0..nodes)
            .map(|s| Flow {
                dma: true,
                ..Flow::new(s, (s + 1) % nodes, Target::Host, chunk, limit)
            })
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
    /// The cluster's lookahead: the longest window its nodes run apart, in cycles.
    pub lookahead_cycles: u64,
    /// Windows run: the times the nodes synchronised.
    pub windows: u64,
    /// Chunks whose DMA chain the source chip stopped (each reported by its `STATUS`).
    pub chunks_failed: u64,
    /// Chunks of flows through a cable that went down that never arrived whole.
    pub chunks_lost: u64,
}

/// Runs traffic and checks it.
pub struct Traffic {
    /// The flows.
    pub flows: Vec<Flow>,
    /// Per node, the flow it considers first for its next chunk.
    next_flow: Vec<usize>,
    /// Figures so far.
    pub summary: Summary,
    /// Each node's DMA channels, kept from run to run (chunks stay in flight).
    dma: Vec<DmaIssuer>,
}

/// One node's part of the traffic, run beside the node: its CPU issues the flows that
/// leave the node, and its scoreboard checks the flows that arrive there. It holds a
/// copy of every flow and changes the issue side of its own flows (`issued`) and the
/// delivery side (`delivered`, `partial`) of the flows into its node only.
struct NodeTraffic {
    node: usize,
    flows: Vec<Flow>,
    /// Node id of each flow's destination.
    dst_ids: Vec<u8>,
    next_flow: usize,
    /// The node's DMA channels.
    dma: DmaIssuer,
    bytes_delivered: u64,
    chunks_delivered: u64,
    errors: u64,
    /// The first errors, with their cycle.
    first_errors: Vec<(u64, String)>,
}

impl NodeTraffic {
    fn error(&mut self, cycle: u64, msg: String) {
        self.errors += 1;
        if self.first_errors.len() < 10 {
            self.first_errors
                .push((cycle, format!("cycle {cycle}: {msg}")));
        }
    }

    fn local_base(node: &Node, t: Target) -> Option<u64> {
        match t {
            Target::Host => Some(HOST_WINDOW),
            Target::Gpu(g) => node.host.gpus.get(usize::from(g))?.bar.map(|b| b.0),
            Target::Internal => None,
        }
    }
}

impl NodeAgent for NodeTraffic {
    /// The CPU writes the next chunk of one of its PIO flows, round robin, and tends
    /// its DMA channels.
    fn before_cycle(&mut self, node: &mut Node, now: u64) -> Result<(), SimError> {
        self.dma.step(node, now, &mut self.flows, &self.dst_ids)?;
        // Keep about two MPS writes queued at the host: a CPU stalls on a full queue.
        if node.host.pending_beats() > 40 {
            return Ok(());
        }
        let count = self.flows.len();
        for k in 0..count {
            let i = (self.next_flow + k) % count;
            let f = &self.flows[i];
            if f.src != self.node || f.dma || !may_issue(&self.flows, i) {
                continue;
            }
            let f = &self.flows[i];
            let g = GlobalAddr::new(self.dst_ids[i], f.target, f.offset(f.issued))
                .map_err(|e| SimError::Scenario(e.to_string()))?;
            let data: Vec<u8> = (0..f.chunk).map(|b| pattern(i, f.issued, b)).collect();
            node.host
                .cpu()
                .mmio_write(BAR2_BASE + (g.to_u64() - GLOBAL_BASE), &data)
                .map_err(|e| SimError::Scenario(e.to_string()))?;
            self.flows[i].issued += 1;
            self.next_flow = i + 1;
            break;
        }
        Ok(())
    }

    /// The scoreboard takes what the host received.
    fn after_cycle(&mut self, node: &mut Node, _now: u64) {
        let n = self.node;
        for a in std::mem::take(&mut node.host.delivered) {
            let addr = a.tlp.address().map_or(0, Addr::raw);
            let data = a.tlp.data();
            let hit = self.flows.iter().position(|f| {
                f.dst == n
                    && Self::local_base(node, f.target)
                        .is_some_and(|b| addr.wrapping_sub(b) / WINDOW == f.src as u64)
            });
            let Some(i) = hit else {
                self.error(
                    a.cycle,
                    format!("node {n}: write at {addr:#x} belongs to no flow"),
                );
                continue;
            };
            let f = &self.flows[i];
            let base = Self::local_base(node, f.target).unwrap_or(0);
            let want = base + f.offset(f.delivered) + f.partial as u64;
            let fits = |seq: u64, at: usize| {
                data.len() <= f.chunk - at
                    && data
                        .iter()
                        .enumerate()
                        .all(|(k, b)| *b == pattern(i, seq, at + k))
            };
            let mut ok_data = fits(f.delivered, f.partial);
            if addr != want || !ok_data {
                // A later part of this chunk or of a later one: what lies between was cut
                // short or lost (a chain the chip stopped, which its source must have
                // reported failed, or what a link lost going down; `Traffic::finish`
                // checks), and a chunk entered after its start does not arrive whole.
                let later = (0..=SKIP_AHEAD).find_map(|k| {
                    let seq = f.delivered + k;
                    let at = addr.checked_sub(base + f.offset(seq))? as usize;
                    let past = k > 0 || at > f.partial;
                    (past && at < f.chunk && fits(seq, at)).then_some((seq, at))
                });
                if let Some((seq, at)) = later {
                    let f = &mut self.flows[i];
                    if seq > f.delivered {
                        // The chunk in progress and those after it, up to this one.
                        f.skipped += seq - f.delivered;
                        f.delivered = seq;
                        f.holed = false;
                    }
                    f.holed |= at > f.partial;
                    f.partial = at;
                    ok_data = true;
                }
            }
            let f = &self.flows[i];
            let want = base + f.offset(f.delivered) + f.partial as u64;
            // A chunk delivered twice or never sent does not match the next one expected
            // (its address or pattern differ); `Traffic::finish` compares the counts.
            if addr != want || !ok_data {
                let msg = format!(
                    "flow {i} ({}->{}): write of {} B at {addr:#x}, expected chunk {} at {want:#x} (data {})",
                    f.src, f.dst, data.len(), f.delivered,
                    if ok_data { "right" } else { "wrong" }
                );
                self.error(a.cycle, msg);
                continue;
            }
            let f = &mut self.flows[i];
            f.partial += data.len();
            self.bytes_delivered += data.len() as u64;
            if f.partial == f.chunk {
                f.partial = 0;
                f.delivered += 1;
                if f.holed {
                    f.skipped += 1;
                    f.holed = false;
                } else {
                    self.chunks_delivered += 1;
                }
            }
        }
    }
}

impl Traffic {
    /// Traffic of `flows` on `c`.
    pub fn new(c: &Cluster, flows: Vec<Flow>) -> Self {
        let dma = (0..c.nodes.len())
            .map(|node| DmaIssuer::new(node, &flows))
            .collect();
        Self {
            flows,
            next_flow: vec![0; c.nodes.len()],
            summary: Summary::default(),
            dma,
        }
    }

    /// Arms `fault` at node `node` from cycle `at` on: the next DMA chunk the node starts
    /// then suffers it. Whether a node sends by DMA: [`Traffic::sends_dma`].
    pub fn arm_dma_fault(&mut self, node: usize, at: u64, fault: DmaFault) {
        self.dma[node].armed.push_back((at, fault));
    }

    /// Whether node `node` has flows the DMA sends.
    pub fn sends_dma(&self, node: usize) -> bool {
        self.dma.get(node).is_some_and(DmaIssuer::active)
    }

    /// Over the cluster: the DMA faults applied, by [`DmaFault`], and the chains the
    /// chips stopped, by `ErrorCause` code.
    pub fn dma_counts(
        &self,
        c: &Cluster,
    ) -> Result<([u64; DmaFault::KINDS], [u64; CAUSE_CODES]), SimError> {
        let mut v = [0u64; DmaFault::KINDS + CAUSE_CODES];
        let local = self.dma.iter().enumerate().filter(|(n, _)| c.is_local(*n));
        for (_, d) in local {
            for (k, x) in d.applied.iter().chain(&d.stopped).enumerate() {
                v[k] += x;
            }
        }
        c.all_reduce(&mut v, false)?;
        let mut applied = [0; DmaFault::KINDS];
        let mut stopped = [0; CAUSE_CODES];
        applied.copy_from_slice(&v[..DmaFault::KINDS]);
        stopped.copy_from_slice(&v[DmaFault::KINDS..]);
        Ok((applied, stopped))
    }

    fn error(&mut self, msg: String) {
        self.summary.errors += 1;
        if self.summary.first_errors.len() < 10 {
            self.summary.first_errors.push(msg);
        }
    }

    /// Every flow with a limit has delivered all of it.
    pub fn done(&self) -> bool {
        Self::all_done(&self.flows)
    }

    fn all_done(flows: &[Flow]) -> bool {
        flows
            .iter()
            .all(|f| f.limit.is_some_and(|l| f.settled() >= l))
    }

    /// Each node's part, from the flows as they stand.
    fn split(&self, c: &Cluster) -> Result<Vec<NodeTraffic>, SimError> {
        let n = c.nodes.len();
        for (i, f) in self.flows.iter().enumerate() {
            if f.src >= n || f.dst >= n {
                return Err(SimError::Scenario(format!(
                    "flow {i}: nodes {}->{} in a cluster of {n}",
                    f.src, f.dst
                )));
            }
            if f.dma && (!f.chunk.is_multiple_of(16) || f.chunk as u64 > STAGE_BYTES) {
                return Err(SimError::Scenario(format!(
                    "flow {i}: a DMA chunk of {} bytes: a multiple of 16, at most {STAGE_BYTES}",
                    f.chunk
                )));
            }
            // The source must see the gate's deliveries without waiting for other nodes.
            if let Some((g, _)) = f.gate {
                if self.flows.get(g).is_none_or(|o| o.dst != f.src) {
                    return Err(SimError::Scenario(format!(
                        "flow {i}: its gate must be a flow into its source node {}",
                        f.src
                    )));
                }
            }
        }
        let dst_ids: Vec<u8> = self.flows.iter().map(|f| c.nodes[f.dst].id).collect();
        Ok((0..n)
            .map(|node| NodeTraffic {
                node,
                dma: self.dma[node].clone(),
                flows: self.flows.clone(),
                dst_ids: dst_ids.clone(),
                next_flow: self.next_flow[node],
                bytes_delivered: 0,
                chunks_delivered: 0,
                errors: 0,
                first_errors: Vec::new(),
            })
            .collect())
    }

    /// The flows as the nodes' parts have them: issued at the source, delivered at the
    /// destination, whichever process runs each.
    fn gather(c: &Cluster, flows: &mut [Flow], parts: &[&NodeTraffic]) -> Result<(), SimError> {
        let n = flows.len();
        let mut v = vec![0u64; 6 * n];
        for (i, f) in flows.iter().enumerate() {
            if c.is_local(f.src) {
                let g = &parts[f.src].flows[i];
                v[i] = g.issued;
                v[3 * n + i] = g.failed;
            }
            if c.is_local(f.dst) {
                let g = &parts[f.dst].flows[i];
                v[n + i] = g.delivered;
                v[2 * n + i] = g.partial as u64;
                v[4 * n + i] = g.skipped;
                v[5 * n + i] = u64::from(g.holed);
            }
        }
        c.all_reduce(&mut v, false)?;
        for (i, f) in flows.iter_mut().enumerate() {
            f.issued = v[i];
            f.delivered = v[n + i];
            f.partial = v[2 * n + i] as usize;
            f.failed = v[3 * n + i];
            f.skipped = v[4 * n + i];
            f.holed = v[5 * n + i] != 0;
        }
        Ok(())
    }

    /// Runs `cycles` cycles (or, with `until_done`, until every limited flow has been
    /// delivered, at most `cycles`; checked at the cluster's sync points), checking
    /// progress. Fills the summary.
    pub fn run(&mut self, c: &mut Cluster, cycles: u64, until_done: bool) -> Result<(), SimError> {
        let mut none = vec![(); c.nodes.len()];
        self.run_with(c, cycles, until_done, &mut none)
    }

    /// [`Traffic::run`] with `extra[i]` beside node `i`, acting after the traffic (fault
    /// injection).
    pub fn run_with<A: NodeAgent>(
        &mut self,
        c: &mut Cluster,
        cycles: u64,
        until_done: bool,
        extra: &mut [A],
    ) -> Result<(), SimError> {
        let (start, t, s0, d0) = (c.cycle, Instant::now(), c.evals_skipped(), c.evals_done());
        let parts = self.split(c)?;
        let mut agents: Vec<(NodeTraffic, &mut A)> = parts.into_iter().zip(extra).collect();
        let mut flows = self.flows.clone();
        let mut result = Ok(());
        let mut windows = 0;
        let mut stop = false;
        while c.cycle - start < cycles && !stop {
            let len = c.next_window(cycles - (c.cycle - start));
            windows += 1;
            if let Err(e) = c.run_window(len, &mut agents) {
                result = Err(e);
                break;
            }
            if !c.at_sync_point() {
                continue;
            }
            let parts: Vec<&NodeTraffic> = agents.iter().map(|(p, _)| p).collect();
            if let Err(e) = Self::gather(c, &mut flows, &parts) {
                result = Err(e);
                break;
            }
            stop = until_done && Self::all_done(&flows);
            // Chunks a link lost never come: flows that may lose some do not keep a
            // drain waiting once nothing is left in flight.
            let pending = flows.iter().any(|f| !f.lossy && f.unaccounted() > 0);
            if until_done && !stop && !pending && flows.iter().any(|f| f.lossy) {
                match c.progress() {
                    Ok((_, in_flight)) => stop = !in_flight,
                    Err(e) => {
                        result = Err(e);
                        break;
                    }
                }
            }
            if let Err(e) = c.check_progress(pending) {
                result = Err(e);
                break;
            }
        }
        let parts: Vec<&NodeTraffic> = agents.iter().map(|(p, _)| p).collect();
        Self::gather(c, &mut flows, &parts)?;
        self.flows = flows;
        let mut sums = [0u64; 5];
        let mut errors: Vec<(u64, usize, String)> = Vec::new();
        for (p, _) in agents.into_iter().filter(|(p, _)| c.is_local(p.node)) {
            self.next_flow[p.node] = p.next_flow;
            self.dma[p.node] = p.dma;
            sums[0] += p.bytes_delivered;
            sums[1] += p.chunks_delivered;
            sums[2] += p.errors;
            errors.extend(p.first_errors.into_iter().map(|(cy, m)| (cy, p.node, m)));
        }
        sums[3] = c.evals_skipped() - s0;
        sums[4] = c.evals_done() - d0;
        c.all_reduce(&mut sums, false)?;
        let [bytes, chunks, errs, sk, dn] = sums;
        self.summary.bytes_delivered += bytes;
        self.summary.chunks_delivered += chunks;
        self.summary.errors += errs;
        let mine = serde_json::to_vec(&errors).expect("plain data");
        errors.clear();
        for theirs in c.gather_to_root(mine)? {
            let v: Vec<(u64, usize, String)> = serde_json::from_slice(&theirs)
                .map_err(|e| SimError::Transport(format!("scoreboard errors: {e}")))?;
            errors.extend(v);
        }
        errors.sort_by_key(|(cy, n, _)| (*cy, *n));
        let room = 10 - self.summary.first_errors.len().min(10);
        self.summary
            .first_errors
            .extend(errors.into_iter().take(room).map(|(_, _, m)| m));
        let s = &mut self.summary;
        s.cycles = c.cycle - start;
        s.wall_s = t.elapsed().as_secs_f64();
        s.cycles_per_s = s.cycles as f64 / s.wall_s.max(1e-9);
        s.evals_skipped_share = sk as f64 / (sk + dn).max(1) as f64;
        s.lookahead_cycles = c.lookahead();
        s.windows = windows;
        s.chunks_failed = self.flows.iter().map(|f| f.failed).sum();
        s.chunks_lost = self
            .flows
            .iter()
            .filter(|f| f.lossy)
            .map(Flow::unaccounted)
            .sum();
        result
    }

    /// After the run: chunks issued but neither delivered whole nor reported failed
    /// count as errors.
    pub fn finish(&mut self) {
        let missing: Vec<String> = self
            .flows
            .iter()
            .enumerate()
            .filter(|(_, f)| !f.lossy && (f.settled() != f.issued || f.skipped > f.failed))
            .map(|(i, f)| {
                format!(
                    "flow {i} ({}->{}): {} of {} chunks delivered whole, {} reported failed",
                    f.src,
                    f.dst,
                    f.delivered - f.skipped,
                    f.issued,
                    f.failed
                )
            })
            .collect();
        for m in missing {
            self.error(m);
        }
    }
}
