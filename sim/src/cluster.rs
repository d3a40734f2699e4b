//! A cluster: nodes and cables from a [`Topology`], stepped one core clock at a time.
//!
//! Per cycle, for each chip: its inputs are decided from the links (RX beat = the link's
//! head, TX `ready` = room in the link's TX buffer, `link_up`), it settles, its
//! handshakes are sampled, it sees the rising edge; then beats move into and out of the
//! links, links advance, hosts step. Nothing combinational crosses a link, so the chips'
//! order does not matter.
//!
//! Idle chips cost next to nothing: a Verilated chip whose inputs have not changed for a
//! few cycles is checked for a fixed point (its whole state unchanged by a clock edge);
//! from then on, while its inputs stay the same, its state and outputs cannot change, so
//! it is not evaluated. Any input change wakes it.
//!
//! The chips' evaluations within a cycle are independent, so with
//! [`Cluster::set_threads`] they run on several threads (`eval_pool`); links, hosts and
//! logs stay on the caller's thread, so the simulation is the same for any count.

use crate::chip::{reset, Chip, ChipPorts, VlChip};
use crate::error::SimError;
use crate::eval_pool::EvalPool;
use crate::hdl_chip::HdlChip;
use crate::link::{Link, Sent};
use crate::node::{Gpu, Host, Node};
use crate::topology::{End, SRole, Topology};
use crate::verilated::{VcdTrace, VlContext};
use pcie_model::beats::Beat;
use pcie_model::gpu::GpuEndpoint;
use pcie_model::root_complex::{AddressRange, RootComplex, RootComplexConfig};
use pcie_model::tlp::Bdf;
use peach2_regmap::csr::Port;
use std::io::Write;
use std::sync::Arc;

/// Which model the chips run on.
pub use crate::chip::Backend;

pub use peach2_regmap::host::{BAR0_BASE, BAR2_BASE};
/// The chip's id in its host's hierarchy.
pub const CHIP_BDF: Bdf = Bdf(peach2_regmap::host::CHIP_BDF);
/// The host root port's requester id.
pub const HOST_RID: Bdf = Bdf(peach2_regmap::host::HOST_RID);
/// Requester id of the root port the GPUs sit behind.
pub const GPU_PORT_RID: Bdf = Bdf(0x0010);
/// 64-bit MMIO window of the GPUs' root port.
pub const GPU_MMIO64: u64 = 0x4000_0000_0000;
/// Cycles of unchanged inputs before a chip is checked for a fixed point.
const SLEEP_CHECK_AFTER: u32 = 4;

/// The inputs a chip saw in a cycle (to detect that nothing changed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Inputs {
    pub(crate) rx: [Option<Beat>; 4],
    pub(crate) tx_ready: [bool; 4],
    pub(crate) up: [bool; 4],
}

/// Per-chip stepping state.
#[derive(Default)]
pub(crate) struct ChipState {
    pub(crate) inputs: Inputs,
    pub(crate) rx_taken: [bool; 4],
    pub(crate) tx_sent: [Option<Beat>; 4],
    stable: u32,
    /// `stable` at which the snapshot was taken.
    snap_at: Option<u32>,
    /// `stable` at which the next snapshot is taken (checks back off exponentially
    /// while the chip is busy inside, e.g. counting a timeout).
    next_check: u32,
    asleep: bool,
    /// Evaluated this cycle (not asleep with unchanged inputs).
    wake: bool,
    /// Due for its clock edge this cycle.
    tick: bool,
    traced: bool,
    snapshot: Vec<u8>,
    /// The error of this cycle's evaluation (set on whichever thread ran it).
    error: Option<SimError>,
}

/// One chip's part of a cycle (on any thread): drive its inputs, settle, sample its
/// handshakes, check for a fixed point, and see the edge if `tick_now` (else
/// `st.tick` says whether it is due).
fn eval_chip(chip: &mut dyn Chip, st: &mut ChipState, tick_now: bool) -> Result<(), SimError> {
    let inp = st.inputs;
    for port in Port::ALL {
        let p = port.index() as usize;
        chip.drive_rx(port, inp.rx[p]);
        chip.set_tx_ready(port, inp.tx_ready[p]);
        chip.set_link_up(port, inp.up[p]);
    }
    chip.settle()?;
    for port in Port::ALL {
        let p = port.index() as usize;
        st.rx_taken[p] = inp.rx[p].is_some() && chip.rx_ready(port);
        st.tx_sent[p] = chip.tx_beat(port).filter(|_| inp.tx_ready[p]);
    }
    // Fixed-point check, at the same clock phase: the state after settling in this cycle
    // equals the one after settling in the previous cycle, with the same inputs and no
    // beat moving. Then every later cycle with these inputs is the same too, and the
    // edge can be skipped.
    let quiet = !st.traced
        && st.stable >= SLEEP_CHECK_AFTER
        && !st.rx_taken.iter().any(|t| *t)
        && st.tx_sent.iter().all(Option::is_none);
    if quiet {
        if let Some(s) = chip.state() {
            if st.snap_at.is_some_and(|k| k + 1 == st.stable) && s == st.snapshot.as_slice() {
                st.asleep = true;
                return Ok(());
            }
            if st.stable >= st.next_check {
                st.snapshot.clear();
                st.snapshot.extend_from_slice(s);
                st.snap_at = Some(st.stable);
                st.next_check = st.stable + st.stable.clamp(SLEEP_CHECK_AFTER, 4096);
            }
        }
    }
    st.tick = true;
    if tick_now {
        chip.tick()?;
    }
    Ok(())
}

/// A cable between two chip ports.
pub struct Cable {
    /// `ends[i]` sends on `link.dirs[i]`.
    pub ends: [End; 2],
    /// The link.
    pub link: Link,
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
    /// Cycle of the last beat that moved anywhere.
    pub last_progress: u64,
    /// Chip evaluations skipped because the chip was at a fixed point.
    pub evals_skipped: u64,
    /// Chip evaluations done.
    pub evals_done: u64,
    /// `(cable, port side)` of each chip port, per node.
    attach: Vec<[Option<(usize, usize)>; 4]>,
    pub(crate) state: Vec<ChipState>,
    ctx: Option<Arc<VlContext>>,
    pool: Option<EvalPool>,
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
            size: 1 << 40,
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
            n_link.up = true;
            nodes.push(Node {
                name: spec.name.clone(),
                id: i as u8,
                chip,
                host: Host::new(rc, gpu_port, gpus),
                n_link,
            });
        }
        let mut attach = vec![[None; 4]; nodes.len()];
        let mut cables = Vec::new();
        for (ci, ends) in cables_at.iter().enumerate() {
            for (side, e) in ends.iter().enumerate() {
                attach[e.node][e.port.index() as usize] = Some((ci, side));
            }
            let name = format!(
                "{}.{:?}-{}.{:?}",
                nodes[ends[0].node].name, ends[0].port, nodes[ends[1].node].name, ends[1].port
            );
            cables.push(Cable {
                ends: *ends,
                link: Link::new(&p.cable, p.tx_buffer_beats)?,
                name,
            });
        }
        let state = nodes.iter().map(|_| ChipState::default()).collect();
        Ok(Self {
            vcd: None,
            tlp_log: None,
            nodes,
            cables,
            topology,
            cycle: 0,
            last_progress: 0,
            evals_skipped: 0,
            evals_done: 0,
            attach,
            state,
            ctx,
            pool: None,
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
            self.state[n].traced = true;
        }
        Ok(())
    }

    /// Writes every TLP that enters a cable to `out`, one JSON line each.
    pub fn log_tlps(&mut self, out: Box<dyn Write>) {
        self.tlp_log = Some(out);
    }

    /// Plugs every cable: both ends see their link up from the next cycle.
    pub fn plug_all(&mut self) {
        for c in &mut self.cables {
            c.link.up = true;
        }
    }

    /// Fault injection: puts raw `beats` on cable `cable`'s wire from end `from_side`,
    /// outside flow control, as if the far hard IP had received them.
    pub fn inject(
        &mut self,
        cable: usize,
        from_side: usize,
        beats: Vec<Beat>,
    ) -> Result<(), SimError> {
        let c = self
            .cables
            .get_mut(cable)
            .ok_or_else(|| SimError::Scenario(format!("no cable {cable}")))?;
        if from_side > 1 || beats.is_empty() {
            return Err(SimError::Scenario(
                "inject: side 0 or 1, at least one beat".into(),
            ));
        }
        c.link.dirs[from_side].inject(self.cycle, beats);
        Ok(())
    }

    /// True if anything is buffered in a link or a host.
    pub fn in_flight(&self) -> bool {
        self.cables.iter().any(|c| c.link.occupancy() > 0)
            || self
                .nodes
                .iter()
                .any(|n| n.n_link.occupancy() > 0 || !n.host.is_idle())
    }

    fn log(&mut self, cable: usize, side: usize, sent: &Sent) -> Result<(), SimError> {
        let Some(out) = &mut self.tlp_log else {
            return Ok(());
        };
        let c = &self.cables[cable];
        let (from, to) = (c.ends[side], c.ends[1 - side]);
        let dir = format!(
            "{}.{:?}->{}.{:?}",
            self.nodes[from.node].name, from.port, self.nodes[to.node].name, to.port
        );
        let tlp = match &sent.tlp {
            Ok(t) => t.to_json_value(),
            Err(e) => {
                serde_json::json!({ "undecodable": e, "beats": sent.beats.iter().map(|b| b.to_string()).collect::<Vec<_>>() })
            }
        };
        let line =
            serde_json::json!({ "cycle": self.cycle, "link": c.name, "dir": dir, "tlp": tlp });
        writeln!(out, "{line}").map_err(|e| SimError::Io {
            path: "TLP log".into(),
            source: e,
        })
    }

    /// Evaluates the chips on `threads` threads (1: on the caller's only). Results do
    /// not depend on it; only busy clusters gain (a cycle hands work to the other
    /// threads when at least two chips are awake). A VCD window evaluates on one.
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

    /// Threads that evaluate chips.
    pub fn threads(&self) -> usize {
        self.pool.as_ref().map_or(1, EvalPool::threads)
    }

    /// One clock cycle of the whole cluster.
    pub fn step(&mut self) -> Result<(), SimError> {
        let now = self.cycle;
        let mut moved = false;
        let mut awake = 0;
        for n in 0..self.nodes.len() {
            let mut inp = Inputs::default();
            for port in Port::ALL {
                let p = port.index() as usize;
                let link = if port == Port::N {
                    Some((&self.nodes[n].n_link, 1))
                } else {
                    self.attach[n][p].map(|(c, side)| (&self.cables[c].link, side))
                };
                if let Some((l, side)) = link.filter(|(l, _)| l.up) {
                    inp.rx[p] = l.dirs[1 - side].head();
                    inp.tx_ready[p] = l.dirs[side].can_accept();
                    inp.up[p] = true;
                }
            }
            let st = &mut self.state[n];
            st.tick = false;
            st.wake = !(inp == st.inputs && st.asleep);
            if !st.wake {
                self.evals_skipped += 1;
                continue;
            }
            awake += 1;
            if inp == st.inputs {
                st.stable += 1;
            } else {
                st.stable = 0;
                st.asleep = false;
                st.snap_at = None;
                st.next_check = SLEEP_CHECK_AFTER;
            }
            st.inputs = inp;
        }
        // Waveform times in picoseconds: 4 ns per 250 MHz cycle, clock high at half.
        let in_window = self
            .vcd
            .as_ref()
            .is_some_and(|(_, from, to)| (*from..*to).contains(&now));
        // A VCD samples every chip between settling and the edge, so the edges wait.
        let tick_now = !in_window;
        match &self.pool {
            Some(pool) if awake >= 2 => {
                let mut jobs: Vec<_> = self
                    .nodes
                    .iter_mut()
                    .zip(self.state.iter_mut())
                    .filter(|(_, st)| st.wake)
                    .collect();
                pool.for_each_mut(&mut jobs, |(node, st)| {
                    st.error = eval_chip(node.chip.as_mut(), st, tick_now).err();
                });
            }
            _ => {
                for (node, st) in self.nodes.iter_mut().zip(self.state.iter_mut()) {
                    if st.wake {
                        st.error = eval_chip(node.chip.as_mut(), st, tick_now).err();
                    }
                }
            }
        }
        for st in &mut self.state {
            if !st.wake {
                continue;
            }
            if let Some(e) = st.error.take() {
                return Err(e);
            }
            if st.asleep {
                self.evals_skipped += 1;
            } else if tick_now {
                self.evals_done += 1;
            }
        }
        if in_window {
            if let Some((vcd, _, _)) = &mut self.vcd {
                vcd.dump(4000 * now)?;
            }
            for (node, st) in self.nodes.iter_mut().zip(&self.state) {
                if st.tick {
                    node.chip.tick()?;
                    self.evals_done += 1;
                }
            }
            if let Some((vcd, _, _)) = &mut self.vcd {
                vcd.dump(4000 * now + 2000)?;
            }
        }
        // Beats move.
        for n in 0..self.nodes.len() {
            for port in Port::ALL {
                let p = port.index() as usize;
                let (taken, sent) = (self.state[n].rx_taken[p], self.state[n].tx_sent[p]);
                if !taken && sent.is_none() {
                    continue;
                }
                moved = true;
                if port == Port::N {
                    let l = &mut self.nodes[n].n_link;
                    if taken {
                        l.take(0, now);
                    }
                    if let Some(b) = sent {
                        l.dirs[1].accept(b);
                    }
                    continue;
                }
                let (c, side) = self.attach[n][p].expect("a moving port has a cable");
                if taken {
                    self.cables[c].link.take(1 - side, now);
                }
                if let Some(b) = sent {
                    if let Some(s) = self.cables[c].link.dirs[side].accept(b) {
                        self.log(c, side, &s)?;
                    }
                }
            }
        }
        for c in &mut self.cables {
            c.link.advance(now);
        }
        for node in &mut self.nodes {
            moved |= node.host.step(now, &mut node.n_link);
            node.n_link.advance(now);
        }
        if moved {
            self.last_progress = now;
        }
        self.cycle += 1;
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
