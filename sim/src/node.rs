//! One node: a chip, a host (root complex with memory and a CPU issuing MMIO) on the
//! chip's N port over a PCIe link, and up to 4 GPUs behind the host's root complex in the
//! same PCIe address space.
//!
//! The host's root complex routes by address and id, as a root complex with a switch
//! would: configuration requests to a GPU's id and memory requests into a GPU's BAR go to
//! the GPU; everything else the CPU sends goes down the N link to the chip. From the
//! chip, writes and reads that hit a GPU BAR go to that GPU (GPUDirect RDMA), the rest to
//! host memory; completions go to whoever asked.

use crate::chip::Chip;
use crate::link::{Link, LinkEnd};
use crate::node_cycle::{Attached, ChipState, NodeStats};
use pcie_model::beats::{tlp_from_beats, to_beats, Beat};
use pcie_model::gpu::GpuEndpoint;
use pcie_model::root_complex::RootComplex;
use pcie_model::time::Cycles;
use pcie_model::tlp::{Bdf, Header, Tlp};
use std::collections::VecDeque;

/// A GPU of a node, with where enumeration put its BAR 1.
pub struct Gpu {
    /// The endpoint model.
    pub endpoint: GpuEndpoint,
    /// Its bus/device/function.
    pub bdf: Bdf,
    /// BAR 1 base and size once enumerated.
    pub bar: Option<(u64, u64)>,
}

/// A memory write the chip delivered to this node (host memory or a GPU).
#[derive(Debug)]
pub struct Delivered {
    /// Cycle its last beat left the N link.
    pub cycle: u64,
    /// The write.
    pub tlp: Tlp,
}

/// The host side of a node.
pub struct Host {
    /// Root complex with host memory; its root port leads to the chip.
    pub rc: RootComplex,
    /// The root port the GPUs sit behind (its own id and MMIO window, so GPU BARs never
    /// overlap the chip's); the CPU enumerates GPUs through it.
    pub gpu_port: RootComplex,
    /// GPUs behind the root complex.
    pub gpus: Vec<Gpu>,
    to_chip: VecDeque<Beat>,
    from_chip: Vec<Beat>,
    /// Writes from the chip, for the scoreboard (drained by the scenario).
    pub delivered: Vec<Delivered>,
    /// TLPs from the chip that do not decode.
    pub undecodable: u64,
    now: u64,
}

impl Host {
    /// A host with its GPUs.
    pub fn new(rc: RootComplex, gpu_port: RootComplex, gpus: Vec<Gpu>) -> Self {
        Self {
            rc,
            gpu_port,
            gpus,
            to_chip: VecDeque::new(),
            from_chip: Vec::new(),
            delivered: Vec::new(),
            undecodable: 0,
            now: 0,
        }
    }

    fn gpu_by_addr(&self, addr: u64) -> Option<usize> {
        self.gpus.iter().position(|g| {
            g.bar
                .is_some_and(|(base, size)| addr >= base && addr - base < size)
        })
    }

    fn route_from_cpu(&mut self, tlp: Tlp) {
        let gpu = match tlp.header() {
            Header::CfgRead(c) | Header::CfgWrite(c) => {
                self.gpus.iter().position(|g| g.bdf == c.target_id)
            }
            _ => tlp.address().and_then(|a| self.gpu_by_addr(a.0)),
        };
        match gpu {
            Some(g) => self.gpus[g].endpoint.receive(tlp),
            None => self.to_chip.extend(to_beats(&tlp)),
        }
    }

    fn route_from_chip(&mut self, now: u64, tlp: Tlp) {
        if tlp.as_completion().is_some() {
            if tlp.requester_id() == self.rc.config().requester_id {
                self.rc.receive(tlp);
            }
            return;
        }
        let gpu = tlp.address().and_then(|a| self.gpu_by_addr(a.0));
        // A poisoned write never reaches memory: the root complex and the GPUs drop it.
        if tlp.kind() == pcie_model::tlp::TlpKind::MWr && !tlp.ep() {
            self.delivered.push(Delivered {
                cycle: now,
                tlp: tlp.clone(),
            });
        }
        match gpu {
            Some(g) => self.gpus[g].endpoint.receive(tlp),
            None => self.rc.receive(tlp),
        }
    }

    /// The CPU's view of the chip's root port, its clock brought up to date (MMIO and
    /// enumeration requests are timed from it).
    pub fn cpu(&mut self) -> &mut RootComplex {
        self.rc.step(Cycles(self.now));
        &mut self.rc
    }

    /// The CPU's view of the GPUs' root port, its clock brought up to date.
    pub fn gpu_cpu(&mut self) -> &mut RootComplex {
        self.gpu_port.step(Cycles(self.now));
        &mut self.gpu_port
    }

    /// Beats waiting to enter the N link.
    pub fn pending_beats(&self) -> usize {
        self.to_chip.len()
    }

    /// Nothing queued, scheduled or outstanding anywhere in the host.
    pub fn is_idle(&self) -> bool {
        self.to_chip.is_empty()
            && self.from_chip.is_empty()
            && self.rc.is_idle()
            && self.gpu_port.is_idle()
            && self.gpus.iter().all(|g| g.endpoint.is_idle())
    }

    /// One cycle at `now`: the host's end of the N link moves one beat each way, then
    /// the root complex and GPUs advance.
    pub fn step(&mut self, now: u64, link: &mut LinkEnd) -> bool {
        // Nothing arriving, nothing to send, nothing scheduled: a step would only move
        // the root complexes' clocks, which `cpu`/`gpu_cpu` do before the CPU acts.
        self.now = now;
        if link.head().is_none() && self.is_idle() {
            return false;
        }
        let mut moved = false;
        if link.up {
            if let Some(b) = link.head() {
                link.take(now);
                moved = true;
                self.from_chip.push(b);
                if b.eop {
                    let beats = std::mem::take(&mut self.from_chip);
                    match tlp_from_beats(&beats) {
                        Ok(tlp) => self.route_from_chip(now, tlp),
                        Err(_) => self.undecodable += 1,
                    }
                }
            }
            if link.can_accept() {
                if let Some(b) = self.to_chip.pop_front() {
                    link.accept(now, b);
                    moved = true;
                }
            }
        }
        self.rc.step(Cycles(now));
        while let Some(tlp) = self.rc.pop_to_device() {
            self.route_from_cpu(tlp);
        }
        self.gpu_port.step(Cycles(now));
        while let Some(tlp) = self.gpu_port.pop_to_device() {
            self.route_from_cpu(tlp);
        }
        for g in 0..self.gpus.len() {
            self.gpus[g].endpoint.step(Cycles(now));
            while let Some(tlp) = self.gpus[g].endpoint.pop_to_host() {
                if tlp.requester_id() == self.gpu_port.config().requester_id {
                    self.gpu_port.receive(tlp);
                } else if tlp.requester_id() == self.rc.config().requester_id {
                    self.rc.receive(tlp);
                } else {
                    self.to_chip.extend(to_beats(&tlp));
                }
            }
        }
        moved
    }
}

/// A node of the cluster.
pub struct Node {
    /// Name (from the topology).
    pub name: String,
    /// Node id programmed into `NODE_ID`.
    pub id: u8,
    /// The chip.
    pub chip: Box<dyn Chip>,
    /// Host and GPUs.
    pub host: Host,
    /// The N link (end 0 host, end 1 chip).
    pub n_link: Link,
    /// The cables at E, W and S (`ports[p]` for the port of index `p`; N is `n_link`).
    pub(crate) ports: [Option<Attached>; 4],
    pub(crate) state: ChipState,
    pub(crate) stats: NodeStats,
    /// TLPs this node sent on cables, `(cycle, log line)`, when the cluster logs them.
    pub(crate) log: Option<Vec<(u64, String)>>,
}
