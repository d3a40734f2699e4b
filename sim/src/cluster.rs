//! A cluster: nodes and cables from a [`Topology`], run in windows of cycles.
//!
//! A node's cycle (`node_cycle`) reads and changes only the node: its chip, host, GPUs,
//! N link and its ends of the cables. What crosses a cable (TLPs one way, credits the
//! other) arrives at least the cable's latency after it was sent, so every node can run
//! that many cycles, the cluster's lookahead, without hearing from the others: a window.
//! Between windows the cables' messages are handed over. Within a window the nodes are
//! independent, so with [`Cluster::set_threads`] they run on several threads
//! (`eval_pool`), one synchronisation per window instead of per cycle. A message is
//! handed over before the cycle it arrives at in every case, so the simulation is the
//! same for any thread count and any window length up to the lookahead: one thread runs
//! the same windows.
//!
//! What runs beside the nodes (traffic, scoreboards, fault injection) runs as a
//! [`NodeAgent`] per node, inside the node's window; whatever reads the whole cluster
//! does so between windows ([`Cluster::step`] is a window of one cycle).

use crate::chip::{reset, ChipPorts, VlChip};
use crate::error::SimError;
use crate::eval_pool::EvalPool;
use crate::hdl_chip::HdlChip;
use crate::link::{deliver, Link, LinkEnd, MailReader};
use crate::node::{Gpu, Host, Node};
use crate::node_cycle::{Attached, ChipState, NodeStats};
use crate::partition::Partition;
use crate::topology::{End, SRole, Topology};
use crate::verilated::{VcdTrace, VlContext};
use pcie_model::beats::Beat;
use pcie_model::gpu::GpuEndpoint;
use pcie_model::root_complex::{AddressRange, RootComplex, RootComplexConfig};
use pcie_model::tlp::Bdf;
use std::io::Write;
use std::sync::Arc;

/// Which model the chips run on.
pub use crate::chip::Backend;
pub use crate::node_cycle::NodeAgent;

pub use peach2_regmap::host::{BAR0_BASE, BAR2_BASE};
/// The chip's id in its host's hierarchy.
pub const CHIP_BDF: Bdf = Bdf(peach2_regmap::host::CHIP_BDF);
/// The host root port's requester id.
pub const HOST_RID: Bdf = Bdf(peach2_regmap::host::HOST_RID);
/// Requester id of the root port the GPUs sit behind.
pub const GPU_PORT_RID: Bdf = Bdf(0x0010);
/// 64-bit MMIO window of the GPUs' root port.
pub const GPU_MMIO64: u64 = 0x4000_0000_0000;
/// The longest window of a cluster without cables (its nodes never meet).
const MAX_WINDOW: u64 = 1024;

/// A cable between two chip ports.
pub struct Cable {
    /// Its two ends; each node holds its own end's link state.
    pub ends: [End; 2],
    /// Name for logs: `a.E-b.W`.
    pub name: String,
}

/// The whole simulated cluster.
pub struct Cluster {
    vcd: Option<(VcdTrace, u64, u64)>,
    tlp_log: Option<Box<dyn Write>>,
    /// The nodes.
    pub nodes: Vec<Node>,
    /// The cables.
    pub cables: Vec<Cable>,
    /// The topology it was built from.
    pub topology: Topology,
    /// Cycles since reset ended.
    pub cycle: u64,
    /// The cycle of the last stall check.
    pub(crate) progress_checked: u64,
    /// Windows run so far.
    windows: u64,
    /// The longest window: the shortest cable latency.
    lookahead: u64,
    /// The longest window allowed (at most `lookahead`).
    window_limit: u64,
    ctx: Option<Arc<VlContext>>,
    pool: Option<EvalPool>,
    /// This process's share, when the cluster is spread over processes.
    partition: Option<Partition>,
    /// Per node: this process runs it (all, unless partitioned).
    local: Vec<bool>,
}

fn host_config() -> RootComplexConfig {
    RootComplexConfig {
        requester_id: HOST_RID,
        mmio32: AddressRange {
            base: BAR0_BASE,
            size: 1 << 20,
        },
        mmio64: AddressRange {
            base: BAR2_BASE,
            size: peach2_regmap::address::GLOBAL_SIZE,
        },
        ..RootComplexConfig::default()
    }
}

impl Cluster {
    /// Builds the cluster of `topology` with chips on `backend`, out of reset, cables
    /// unplugged, N links up.
    pub fn new(topology: Topology, backend: Backend) -> Result<Self, SimError> {
        let cables_at = topology.validate()?;
        let ctx = match backend {
            Backend::Verilated => Some(VlContext::new()?),
            Backend::RustHdl => None,
        };
        let p = &topology.params;
        let mut nodes = Vec::new();
        for (i, spec) in topology.nodes.iter().enumerate() {
            let mut chip: Box<dyn crate::chip::Chip> = match &ctx {
                Some(c) => Box::new(VlChip::new(c, &spec.name)?),
                None => Box::new(HdlChip::new(&spec.name)?),
            };
            chip.set_s_role_rc(spec.s_role == SRole::Rc);
            reset(chip.as_mut(), 2)?;
            let rc = RootComplex::new(RootComplexConfig {
                read_server: p.host_read,
                max_read_request: p.max_read_request,
                ..host_config()
            })
            .map_err(|e| SimError::Topology(format!("host config: {e}")))?;
            let gpu_port = RootComplex::new(RootComplexConfig {
                requester_id: GPU_PORT_RID,
                mmio32: AddressRange {
                    base: 0xE000_0000,
                    size: 1 << 28,
                },
                mmio64: AddressRange {
                    base: GPU_MMIO64,
                    size: 1 << 36,
                },
                ..host_config()
            })
            .map_err(|e| SimError::Topology(format!("GPU root port config: {e}")))?;
            let gpus = (0..spec.gpus)
                .map(|g| {
                    Ok(Gpu {
                        endpoint: GpuEndpoint::new(p.gpu.clone())
                            .map_err(|e| SimError::Topology(format!("GPU config: {e}")))?,
                        bdf: Bdf(0x0600 + (u16::from(g) << 8)),
                        bar: None,
                    })
                })
                .collect::<Result<Vec<_>, SimError>>()?;
            let mut n_link = Link::new(&p.host_link, p.tx_buffer_beats)?;
            n_link.set_up(true);
            nodes.push(Node {
                name: spec.name.clone(),
                id: i as u8,
                chip,
                host: Host::new(rc, gpu_port, gpus),
                n_link,
                ports: [None, None, None, None],
                state: ChipState::default(),
                stats: NodeStats::default(),
                log: None,
            });
        }
        let mut cables = Vec::new();
        let mut lookahead = MAX_WINDOW;
        for ends in &cables_at {
            let name = format!(
                "{}.{:?}-{}.{:?}",
                nodes[ends[0].node].name, ends[0].port, nodes[ends[1].node].name, ends[1].port
            );
            for (side, e) in ends.iter().enumerate() {
                let far = ends[1 - side];
                let end = LinkEnd::new(&p.cable, p.tx_buffer_beats)?;
                lookahead = lookahead.min(end.latency());
                let dir_name = format!(
                    "{}.{:?}->{}.{:?}",
                    nodes[e.node].name, e.port, nodes[far.node].name, far.port
                );
                nodes[e.node].ports[e.port.index() as usize] = Some(Attached {
                    end,
                    cable_name: name.clone(),
                    dir_name,
                });
            }
            cables.push(Cable { ends: *ends, name });
        }
        if lookahead == 0 {
            return Err(SimError::Topology(
                "cable latency: at least one cycle (nothing crosses a cable within a cycle)".into(),
            ));
        }
        let local = vec![true; nodes.len()];
        Ok(Self {
            vcd: None,
            tlp_log: None,
            nodes,
            cables,
            topology,
            cycle: 0,
            progress_checked: 0,
            windows: 0,
            lookahead,
            window_limit: lookahead,
            ctx,
            pool: None,
            partition: None,
            local,
        })
    }

    /// Traces the internal signals of `chips` (node indices) into a VCD at `path`, for
    /// cycles `from..to`. Verilated backend only.
    pub fn trace_vcd(
        &mut self,
        chips: &[usize],
        from: u64,
        to: u64,
        path: &std::path::Path,
    ) -> Result<(), SimError> {
        if self.ctx.is_none() {
            return Err(SimError::Scenario(
                "--vcd needs the Verilated backend".into(),
            ));
        }
        let mut cores = Vec::new();
        for &n in chips {
            let node = self
                .nodes
                .get(n)
                .ok_or_else(|| SimError::Scenario(format!("no chip {n} to trace")))?;
            let vl = node
                .chip
                .as_verilated()
                .ok_or_else(|| SimError::Scenario("--vcd needs the Verilated backend".into()))?;
            cores.push(vl.core());
        }
        self.vcd = Some((VcdTrace::open(&cores, 99, path)?, from, to));
        for &n in chips {
            self.nodes[n].state.traced = true;
        }
        Ok(())
    }

    /// Writes every TLP that enters a cable to `out`, one JSON line each, in cycle order
    /// (within a cycle, by node and port).
    pub fn log_tlps(&mut self, out: Box<dyn Write>) {
        self.tlp_log = Some(out);
        for n in &mut self.nodes {
            n.log = Some(Vec::new());
        }
    }

    /// Plugs every cable: both ends see their link up from the next cycle.
    pub fn plug_all(&mut self) {
        for n in &mut self.nodes {
            for a in n.ports.iter_mut().flatten() {
                a.end.up = true;
            }
        }
    }

    /// End `side` of cable `cable`.
    pub fn cable_end(&self, cable: usize, side: usize) -> Result<&LinkEnd, SimError> {
        let e = self.end_of(cable, side)?;
        Ok(&self.nodes[e.node].ports[e.port.index() as usize]
            .as_ref()
            .expect("every cable end is attached")
            .end)
    }

    /// End `side` of cable `cable`, to change (between windows).
    pub fn cable_end_mut(&mut self, cable: usize, side: usize) -> Result<&mut LinkEnd, SimError> {
        let e = self.end_of(cable, side)?;
        Ok(&mut self.nodes[e.node].ports[e.port.index() as usize]
            .as_mut()
            .expect("every cable end is attached")
            .end)
    }

    fn end_of(&self, cable: usize, side: usize) -> Result<End, SimError> {
        let c = self
            .cables
            .get(cable)
            .ok_or_else(|| SimError::Scenario(format!("no cable {cable}")))?;
        c.ends
            .get(side)
            .copied()
            .ok_or_else(|| SimError::Scenario(format!("cable {cable}: no side {side}")))
    }

    /// Fault injection: puts raw `beats` on cable `cable`'s wire from end `from_side`,
    /// outside flow control, as if the far hard IP had received them.
    pub fn inject(
        &mut self,
        cable: usize,
        from_side: usize,
        beats: Vec<Beat>,
    ) -> Result<(), SimError> {
        if from_side > 1 || beats.is_empty() {
            return Err(SimError::Scenario(
                "inject: side 0 or 1, at least one beat".into(),
            ));
        }
        let now = self.cycle;
        self.cable_end_mut(cable, from_side)?.inject(now, beats);
        Ok(())
    }

    /// True if anything is buffered in a link or a host (of this process's nodes).
    pub fn in_flight(&self) -> bool {
        self.nodes.iter().enumerate().any(|(i, n)| {
            self.is_local(i)
                && (n.n_link.occupancy() > 0
                    || !n.host.is_idle()
                    || n.ports.iter().flatten().any(|a| a.end.occupancy() > 0))
        })
    }

    /// Cycle of the last beat that moved anywhere, and whether anything is in flight, over
    /// every process.
    pub(crate) fn progress(&self) -> Result<(u64, bool), SimError> {
        let last = self
            .nodes
            .iter()
            .enumerate()
            .filter(|(i, _)| self.is_local(*i))
            .map(|(_, n)| n.stats.last_progress)
            .max()
            .unwrap_or(0);
        let mut v = [last, u64::from(self.in_flight())];
        self.all_reduce(&mut v, true)?;
        Ok((v[0], v[1] != 0))
    }

    /// Spreads the cluster over processes: from now on this process runs only its nodes
    /// of `p` (every process must have simulated the same cycles before). Not with a VCD
    /// window (the traced chips may run elsewhere).
    pub fn set_partition(&mut self, p: Partition) -> Result<(), SimError> {
        if self.vcd.is_some() {
            return Err(SimError::Scenario(
                "a VCD needs every traced chip in one process: run it without mpirun".into(),
            ));
        }
        if self.partition.is_some() {
            return Err(SimError::Scenario(
                "the cluster is already partitioned".into(),
            ));
        }
        self.local = (0..self.nodes.len()).map(|n| p.is_local(n)).collect();
        self.partition = Some(p);
        Ok(())
    }

    /// This process runs node `n` (every node, unless partitioned).
    pub fn is_local(&self, n: usize) -> bool {
        self.local[n]
    }

    /// Element-wise sum (or, with `max`, maximum) of `v` over the processes (nothing to
    /// do in one process). Every process calls it at the same point.
    pub fn all_reduce(&self, v: &mut [u64], max: bool) -> Result<(), SimError> {
        match &self.partition {
            Some(p) => p.transport().all_reduce(v, max),
            None => Ok(()),
        }
    }

    /// Every process's `bytes`, in rank order, at the root (elsewhere: none). Every
    /// process calls it at the same point.
    pub fn gather_to_root(&self, bytes: Vec<u8>) -> Result<Vec<Vec<u8>>, SimError> {
        let Some(p) = &self.partition else {
            return Ok(vec![bytes]);
        };
        let t = p.transport();
        let mut out = vec![Vec::new(); t.size()];
        out[0] = bytes;
        let got = t.exchange(&out)?;
        Ok(if t.rank() == 0 { got } else { Vec::new() })
    }

    /// Chip evaluations skipped because the chip was at a fixed point (by this
    /// process's nodes).
    pub fn evals_skipped(&self) -> u64 {
        self.nodes.iter().map(|n| n.stats.evals_skipped).sum()
    }

    /// Chip evaluations done (by this process's nodes).
    pub fn evals_done(&self) -> u64 {
        self.nodes.iter().map(|n| n.stats.evals_done).sum()
    }

    /// Windows run so far: the times the nodes stopped to hand over the cables'
    /// messages (bring-up included).
    pub fn windows(&self) -> u64 {
        self.windows
    }

    /// The cluster is at a sync point: a multiple of the lookahead, where every window
    /// ends whatever the window limit. Decisions about the whole cluster (stop, report a
    /// stall) taken only there are the same on every schedule.
    pub fn at_sync_point(&self) -> bool {
        self.cycle.is_multiple_of(self.lookahead)
    }

    /// The longest window: the shortest cable latency in cycles (a cluster without
    /// cables: 1024).
    pub fn lookahead(&self) -> u64 {
        self.lookahead
    }

    /// Limits windows to `cycles` (at least 1; the lookahead if more). The simulation is
    /// the same for any limit: windows of one cycle hand the cables' messages over every
    /// cycle, as a purely sequential simulator would, which makes them the reference the
    /// windowed runs are checked against.
    pub fn set_window_limit(&mut self, cycles: u64) -> Result<(), SimError> {
        if cycles == 0 {
            return Err(SimError::Scenario("window limit: at least 1 cycle".into()));
        }
        self.window_limit = cycles.min(self.lookahead);
        Ok(())
    }

    /// Runs the nodes on `threads` threads (1: on the caller's only). Results do not
    /// depend on it; windows of one cycle hand work to the other threads only when at
    /// least two chips are awake. A VCD window runs on one.
    pub fn set_threads(&mut self, threads: usize) -> Result<(), SimError> {
        if threads == 0 {
            return Err(SimError::Scenario("threads: at least 1".into()));
        }
        self.pool = if threads == 1 {
            None
        } else {
            Some(EvalPool::new(threads).map_err(|e| SimError::Io {
                path: "evaluation threads".into(),
                source: e,
            })?)
        };
        Ok(())
    }

    /// Threads that run nodes.
    pub fn threads(&self) -> usize {
        self.pool.as_ref().map_or(1, EvalPool::threads)
    }

    /// One clock cycle of the whole cluster.
    pub fn step(&mut self) -> Result<(), SimError> {
        let mut none = vec![(); self.nodes.len()];
        self.run_window(1, &mut none)
    }

    /// The length of the next window, at most `max` cycles (`max` >= 1): up to the next
    /// sync point, cut at the edges of a VCD window, one cycle inside it.
    pub fn next_window(&self, max: u64) -> u64 {
        let to_sync = self.lookahead - self.cycle % self.lookahead;
        let mut len = max.clamp(1, self.window_limit).min(to_sync);
        if let Some((_, from, to)) = &self.vcd {
            let now = self.cycle;
            if (*from..*to).contains(&now) {
                len = 1;
            } else if now < *from {
                len = len.min(from - now);
            }
        }
        len
    }

    /// Runs `len` cycles, `len` at most [`Cluster::next_window`]'s, with `agents[i]`
    /// beside node `i`.
    pub fn run_window<A: NodeAgent>(&mut self, len: u64, agents: &mut [A]) -> Result<(), SimError> {
        if len == 0 || len > self.next_window(len) || agents.len() != self.nodes.len() {
            return Err(SimError::Scenario(format!(
                "a window of {len} cycles with {} agents: 1..={} cycles, one agent per node",
                agents.len(),
                self.next_window(len)
            )));
        }
        let (from, to) = (self.cycle, self.cycle + len);
        let traced = self
            .vcd
            .as_ref()
            .is_some_and(|(_, a, b)| (*a..*b).contains(&from));
        let result = if traced {
            self.traced_cycle(agents)
        } else {
            let local = &self.local;
            let awake = self
                .nodes
                .iter()
                .zip(local)
                .filter(|(n, l)| **l && !n.state.asleep)
                .count();
            match &self.pool {
                Some(pool) if len > 1 || awake >= 2 => {
                    let mut jobs: Vec<_> = self
                        .nodes
                        .iter_mut()
                        .zip(agents.iter_mut())
                        .zip(local)
                        .filter(|(_, l)| **l)
                        .map(|((n, a), _)| (n, a, Ok(())))
                        .collect();
                    // In node order: each thread runs the same nodes every window.
                    pool.for_each_mut(&mut jobs, |(n, a, r)| *r = n.run_window(*a, from, to));
                    jobs.into_iter().try_for_each(|(_, _, r)| r)
                }
                _ => self
                    .nodes
                    .iter_mut()
                    .zip(agents.iter_mut())
                    .zip(local)
                    .filter(|(_, l)| **l)
                    .try_for_each(|((n, a), _)| n.run_window(a, from, to)),
            }
        };
        self.cycle = to;
        self.windows += 1;
        // Every process takes part in the exchange, also one that failed (the others
        // would wait for it), and all of them stop at the same window.
        let exchanged = self.exchange(result.is_err());
        result?;
        exchanged?;
        self.write_log()
    }

    /// One cycle inside the VCD window: every chip settles, the VCD samples, the edges
    /// come, the VCD samples again (waveform times in picoseconds: 4 ns per 250 MHz
    /// cycle, clock high at half).
    fn traced_cycle<A: NodeAgent>(&mut self, agents: &mut [A]) -> Result<(), SimError> {
        let now = self.cycle;
        for (n, a) in self.nodes.iter_mut().zip(agents.iter_mut()) {
            a.before_cycle(n, now)?;
            n.eval(false)?;
        }
        if let Some((vcd, _, _)) = &mut self.vcd {
            vcd.dump(4000 * now)?;
        }
        for n in &mut self.nodes {
            n.tick_deferred()?;
        }
        if let Some((vcd, _, _)) = &mut self.vcd {
            vcd.dump(4000 * now + 2000)?;
        }
        for (n, a) in self.nodes.iter_mut().zip(agents.iter_mut()) {
            n.finish_cycle(now);
            a.after_cycle(n, now);
        }
        Ok(())
    }

    /// Hands every cable's messages to the far end: in this process, or packed for the
    /// process that runs it (all processes swap theirs in one exchange per window).
    /// Every message starts with whether its sender `failed` this window.
    fn exchange(&mut self, failed: bool) -> Result<(), SimError> {
        let Some(ranks) = self.partition.as_ref().map(|p| p.transport().size()) else {
            for ci in 0..self.cables.len() {
                self.deliver_within(ci);
            }
            return Ok(());
        };
        let mut out = vec![vec![u8::from(failed)]; ranks];
        for ci in 0..self.cables.len() {
            let [a, b] = self.cables[ci].ends;
            match (self.is_local(a.node), self.is_local(b.node)) {
                (true, true) => self.deliver_within(ci),
                (false, false) => {}
                (a_here, _) => {
                    let (near, far) = if a_here { (a, b) } else { (b, a) };
                    let p = self.partition.as_ref().expect("partitioned");
                    let msg = &mut out[p.owner(far.node)];
                    msg.extend_from_slice(&(ci as u32).to_le_bytes());
                    self.nodes[near.node].ports[near.port.index() as usize]
                        .as_mut()
                        .expect("every cable end is attached")
                        .end
                        .pack_mail(msg);
                }
            }
        }
        let p = self.partition.as_ref().expect("partitioned");
        for (rank, msg) in p.transport().exchange(&out)?.into_iter().enumerate() {
            let Some((&status, mut rest)) = msg.split_first() else {
                return Err(SimError::Transport(format!(
                    "an empty message from process {rank}"
                )));
            };
            if status != 0 {
                return Err(SimError::Transport(format!(
                    "process {rank} failed at cycle {} (its own output says why)",
                    self.cycle
                )));
            }
            while !rest.is_empty() {
                let ci = MailReader(rest).u32()? as usize;
                rest = &rest[4..];
                let c = self.cables.get(ci).ok_or_else(|| {
                    SimError::Transport(format!("a message for cable {ci}, which is not there"))
                })?;
                let Some(e) = c.ends.into_iter().find(|e| self.is_local(e.node)) else {
                    return Err(SimError::Transport(format!(
                        "a message for cable {ci}, which has no end here"
                    )));
                };
                self.nodes[e.node].ports[e.port.index() as usize]
                    .as_mut()
                    .expect("every cable end is attached")
                    .end
                    .unpack_mail(&mut rest)?;
            }
        }
        Ok(())
    }

    /// Hands the messages of cable `ci`, both of whose ends are here, to the far ends.
    fn deliver_within(&mut self, ci: usize) {
        let [a, b] = self.cables[ci].ends;
        let (pa, pb) = (a.port.index() as usize, b.port.index() as usize);
        let (x, y) = if a.node == b.node {
            let Ok([x, y]) = self.nodes[a.node].ports.get_disjoint_mut([pa, pb]) else {
                unreachable!("validated: a port has one cable");
            };
            (x, y)
        } else {
            let Ok([m, n]) = self.nodes.get_disjoint_mut([a.node, b.node]) else {
                unreachable!("two nodes");
            };
            (&mut m.ports[pa], &mut n.ports[pb])
        };
        let (Some(x), Some(y)) = (x, y) else {
            unreachable!("every cable end is attached");
        };
        if x.end.has_mail() {
            deliver(&mut x.end, &mut y.end);
        }
        if y.end.has_mail() {
            deliver(&mut y.end, &mut x.end);
        }
    }

    /// Writes the nodes' TLP log lines of the last window, by cycle, then node (the
    /// root writes every process's).
    fn write_log(&mut self) -> Result<(), SimError> {
        if self.tlp_log.is_none() {
            return Ok(());
        }
        let mut lines: Vec<(u64, usize, String)> = Vec::new();
        for (i, n) in self.nodes.iter_mut().enumerate() {
            if let Some(log) = &mut n.log {
                lines.extend(log.drain(..).map(|(c, l)| (c, i, l)));
            }
        }
        if self.partition.is_some() {
            let mut bytes = Vec::new();
            for (c, i, l) in &lines {
                bytes.extend_from_slice(&c.to_le_bytes());
                bytes.extend_from_slice(&(*i as u32).to_le_bytes());
                bytes.extend_from_slice(&(l.len() as u32).to_le_bytes());
                bytes.extend_from_slice(l.as_bytes());
            }
            lines.clear();
            for msg in self.gather_to_root(bytes)? {
                let mut r = MailReader(&msg);
                while !r.0.is_empty() {
                    let (c, i, n) = (r.u64()?, r.u32()? as usize, r.u32()? as usize);
                    lines.push((c, i, String::from_utf8_lossy(r.slice(n)?).into_owned()));
                }
            }
        }
        let Some(out) = &mut self.tlp_log else {
            return Ok(());
        };
        // Stable: a node's lines of one cycle stay in port order.
        lines.sort_by_key(|(c, i, _)| (*c, *i));
        for (_, _, l) in lines {
            writeln!(out, "{l}").map_err(|e| SimError::Io {
                path: "TLP log".into(),
                source: e,
            })?;
        }
        Ok(())
    }

    /// Flushes and closes the VCD and the TLP log.
    pub fn finish(&mut self) -> Result<(), SimError> {
        if let Some((vcd, _, _)) = &mut self.vcd {
            vcd.close()?;
        }
        if let Some(out) = &mut self.tlp_log {
            out.flush().map_err(|e| SimError::Io {
                path: "TLP log".into(),
                source: e,
            })?;
        }
        Ok(())
    }
}
