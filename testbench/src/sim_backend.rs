//! The driver's backends on a co-simulated cluster.
//!
//! One [`SimSystem`] owns the cluster; every node's driver gets a [`SimDevice`] sharing
//! it. A driver call that needs the hardware moves the whole cluster's clock: an MMIO
//! read runs the cluster from the load through its completion and back to the core, an
//! MMIO write costs the core its store and reaches the root port a leg later while the
//! core goes on ([`crate::posted_stores`]), a poll of host memory costs a cache hit or,
//! once a device wrote the word, a miss. Programs that drive
//! several nodes from one thread (a ping-pong) thus see one consistent clock.
//!
//! Buffers are carved out of each node's host window (`HOST_WINDOW`, 8 GiB) and its
//! GPUs' BARs; the CPU reads and writes them directly in the models' memories.

use crate::cpu_wait::{CpuWait, WaitEnd};
use crate::node_cpu::NodeCpu;
use crate::posted_stores::PostedStore;
use crate::profile::{CpuCosts, HostSoftware, PollCache, Profile};
use pcie_model::requester::RequestHandle;
use peach2_driver::alloc::RangeAlloc;
use peach2_driver::hw::{DmaMemory, Mmio, Region};
use peach2_driver::{MemKind, TcaError};
use peach2_regmap::address::OFFSET_BITS;
use peach2_sim::cluster::{Backend, Cluster, BAR0_BASE, BAR2_BASE};
use peach2_sim::setup::{bring_up, HOST_WINDOW};
use peach2_sim::topology::Topology;
use peach2_sim::SimError;
use std::cell::RefCell;
use std::rc::Rc;

/// Cycles an MMIO read may take before it is reported as lost.
const MMIO_READ_LIMIT: u64 = 100_000;

/// A brought-up cluster with memory pools per node.
pub struct SimSystem {
    /// The cluster.
    pub cluster: Cluster,
    /// CPU costs.
    pub cpu: CpuCosts,
    /// MPI and CUDA costs.
    pub software: HostSoftware,
    /// Each node's CPU beside it: its stores in flight and its wait.
    pub cpus: Vec<NodeCpu>,
    host_heap: Vec<RangeAlloc>,
    gpu_heap: Vec<Vec<RangeAlloc>>,
}

fn sim_err(e: SimError) -> TcaError {
    TcaError::Device(e.to_string())
}

impl SimSystem {
    /// Builds `topology` with `profile`'s parameters on the Verilated chips and brings
    /// it up (enumeration, routes, windows, links ready).
    pub fn new(topology: Topology, profile: &Profile) -> Result<SimSystem, SimError> {
        SimSystem::with_setup(topology, profile, |_| Ok(()))
    }

    /// As [`SimSystem::new`], with `setup` run on the cluster before bring-up (to start
    /// a VCD or a TLP log, or set the thread count).
    pub fn with_setup(
        mut topology: Topology,
        profile: &Profile,
        setup: impl FnOnce(&mut Cluster) -> Result<(), SimError>,
    ) -> Result<SimSystem, SimError> {
        profile.apply(&mut topology)?;
        let mut cluster = Cluster::new(topology, Backend::Verilated)?;
        setup(&mut cluster)?;
        bring_up(&mut cluster)?;
        let host_heap = cluster
            .nodes
            .iter()
            .map(|_| RangeAlloc::new(HOST_WINDOW, 1 << OFFSET_BITS))
            .collect();
        let gpu_heap = cluster
            .nodes
            .iter()
            .map(|n| {
                n.host
                    .gpus
                    .iter()
                    .map(|g| {
                        let (base, size) = g.bar.unwrap_or((0, 0));
                        RangeAlloc::new(base, size)
                    })
                    .collect()
            })
            .collect();
        let cpus = vec![NodeCpu::default(); cluster.nodes.len()];
        Ok(SimSystem {
            cluster,
            cpu: profile.cpu,
            software: profile.software,
            cpus,
            host_heap,
            gpu_heap,
        })
    }

    /// Wraps the system for sharing between nodes' drivers.
    pub fn shared(self) -> Rc<RefCell<SimSystem>> {
        Rc::new(RefCell::new(self))
    }

    /// Runs `cycles` cycles; a deadlock (traffic in flight, nothing moving) is an error.
    /// Nothing but the cluster and the CPUs' stores in flight act meanwhile, so it runs
    /// in windows (on the cluster's threads).
    pub fn run(&mut self, cycles: u64) -> Result<(), TcaError> {
        let end = self.cluster.cycle + cycles;
        while self.cluster.cycle < end {
            let len = self.cluster.next_window(end - self.cluster.cycle);
            self.run_window(len).map_err(sim_err)?;
        }
        Ok(())
    }

    /// Runs one window of `len` cycles (at most [`Cluster::next_window`]) with each node's
    /// CPU beside it, then checks that traffic in flight moves.
    pub fn run_window(&mut self, len: u64) -> Result<(), SimError> {
        self.cluster.run_window(len, &mut self.cpus)?;
        self.cluster.check_progress(false)
    }

    /// The CPU of `node` stores `data` at MMIO address `addr`, now: the write reaches the
    /// root port one uncached leg later, after the core's earlier stores. Returns what the
    /// store costs the core before it goes on ([`CpuCosts::store`]; the caller spends it).
    /// A store the root port cannot make into writes is an error now.
    pub fn store(&mut self, node: usize, addr: u64, data: &[u8]) -> Result<u64, TcaError> {
        let tlps = self.cluster.nodes[node]
            .host
            .rc
            .mmio_write_tlps(addr, data)
            .map_err(|e| TcaError::Device(e.to_string()))?;
        let due = self.cluster.cycle + self.cpu.uncached_leg;
        self.cpus[node].stores.push(PostedStore { due, tlps });
        Ok(self.cpu.store(data.len()))
    }

    /// The CPU of `node` stores `data` at MMIO address `addr` (see [`SimSystem::store`])
    /// and spends the store's cost.
    fn mmio_write(&mut self, node: usize, addr: u64, data: &[u8]) -> Result<(), TcaError> {
        let cost = self.store(node, addr, data)?;
        self.run(cost)
    }

    /// The CPU of `node` issues a 4-byte read at MMIO address `addr`, now; see
    /// [`CpuWait::read`].
    pub fn issue_read(&mut self, node: usize, addr: u64) -> Result<RequestHandle, TcaError> {
        // The core's earlier stores that reached the root port by now go first.
        let n = &mut self.cluster.nodes[node];
        self.cpus[node].deliver(n, self.cluster.cycle);
        n.host
            .cpu()
            .mmio_read(addr, 4)
            .map_err(|e| TcaError::Device(e.to_string()))
    }

    /// Runs the cluster while the CPU of `node` waits on `wait`, until the core has the
    /// result (`None`: no end within `limit` cycles, or nothing to wait on). While it waits, the cluster runs in
    /// windows as long as the wait lets it (see [`CpuWait::earliest_wake`]).
    pub fn wait(
        &mut self,
        node: usize,
        wait: CpuWait,
        limit: u64,
    ) -> Result<Option<WaitEnd>, TcaError> {
        self.cpus[node].wait = wait;
        let end = self.cluster.cycle.saturating_add(limit);
        loop {
            let now = self.cluster.cycle;
            let cpu = &mut self.cpus[node];
            cpu.wait.check(&mut self.cluster.nodes[node], now);
            if let Some((at, result)) = cpu.wait.take_woken() {
                debug_assert!(at >= now, "a wait's end seen late");
                self.run(at.saturating_sub(now))?;
                return Ok(Some(result));
            }
            if now >= end || !cpu.wait.is_waiting() {
                cpu.wait = CpuWait::default();
                return Ok(None);
            }
            let wake = cpu.wait.earliest_wake(now).min(end);
            let len = self.cluster.next_window(wake - now);
            self.run_window(len).map_err(sim_err)?;
        }
    }

    /// A CPU read of `kind` memory of `node` at bus address `addr` (no time passes).
    pub fn cpu_read(
        &mut self,
        node: usize,
        kind: MemKind,
        addr: u64,
        buf: &mut [u8],
    ) -> Result<(), TcaError> {
        let a = self.mem_addr(node, kind, addr)?;
        self.memory(node, kind)?
            .read(a, buf)
            .map_err(|e| TcaError::Device(format!("{e:?}")))
    }

    /// A CPU write of `kind` memory of `node` at bus address `addr` (no time passes).
    pub fn cpu_write(
        &mut self,
        node: usize,
        kind: MemKind,
        addr: u64,
        data: &[u8],
    ) -> Result<(), TcaError> {
        let a = self.mem_addr(node, kind, addr)?;
        self.memory(node, kind)?
            .write(a, data)
            .map_err(|e| TcaError::Device(format!("{e:?}")))
    }

    /// The allocator of `kind` on `node`.
    fn heap(&mut self, node: usize, kind: MemKind) -> Result<&mut RangeAlloc, TcaError> {
        match kind {
            MemKind::Host => Ok(&mut self.host_heap[node]),
            MemKind::Gpu(g) => self.gpu_heap[node]
                .get_mut(usize::from(g))
                .ok_or(TcaError::NoMemory(kind)),
        }
    }

    /// The model memory of `kind` on `node` (host memory, or a GPU's BAR memory).
    pub fn memory(
        &mut self,
        node: usize,
        kind: MemKind,
    ) -> Result<&mut pcie_model::memory::SparseMemory, TcaError> {
        let host = &mut self.cluster.nodes[node].host;
        match kind {
            MemKind::Host => Ok(host.rc.host_memory_mut()),
            MemKind::Gpu(g) => host
                .gpus
                .get_mut(usize::from(g))
                .and_then(|g| g.endpoint.bar_memory_mut(1))
                .ok_or(TcaError::NoMemory(kind)),
        }
    }

    /// Converts a bus address of `kind` to an address in its model memory.
    pub fn mem_addr(&self, node: usize, kind: MemKind, addr: u64) -> Result<u64, TcaError> {
        match kind {
            MemKind::Host => Ok(addr),
            MemKind::Gpu(g) => {
                let gpu = self.cluster.nodes[node].host.gpus.get(usize::from(g));
                let (base, size) = gpu.and_then(|g| g.bar).ok_or(TcaError::NoMemory(kind))?;
                addr.checked_sub(base)
                    .filter(|o| *o < size)
                    .ok_or_else(|| TcaError::Device(format!("{addr:#x} is outside GPU {g}'s BAR")))
            }
        }
    }
}

/// One node's view of a [`SimSystem`]: implements the driver's traits.
#[derive(Clone)]
pub struct SimDevice {
    sys: Rc<RefCell<SimSystem>>,
    node: usize,
    /// What the core's cache holds of the word it polls.
    polled: PollCache,
}

impl SimDevice {
    /// Node `node` of `sys`.
    pub fn new(sys: &Rc<RefCell<SimSystem>>, node: usize) -> Result<SimDevice, TcaError> {
        if node >= sys.borrow().cluster.nodes.len() {
            return Err(TcaError::Invalid(format!("no node {node} in the cluster")));
        }
        Ok(SimDevice {
            sys: Rc::clone(sys),
            node,
            polled: PollCache::default(),
        })
    }
}

impl Mmio for SimDevice {
    fn read32(&mut self, offset: u32) -> Result<u32, TcaError> {
        let mut sys = self.sys.borrow_mut();
        let n = self.node;
        let leg = sys.cpu.uncached_leg;
        sys.run(leg)?;
        let h = sys.issue_read(n, BAR0_BASE + u64::from(offset))?;
        match sys.wait(n, CpuWait::read(h, leg), MMIO_READ_LIMIT)? {
            Some(WaitEnd::Read(r)) => {
                r.map_err(|e| TcaError::Device(format!("BAR0+{offset:#x}: {e}")))
            }
            Some(other) => unreachable!("a read ends as a read: {other:?}"),
            None => Err(TcaError::Device(format!(
                "MMIO read at BAR0+{offset:#x}: no completion within {MMIO_READ_LIMIT} cycles\n{}",
                sys.cluster.describe()
            ))),
        }
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<(), TcaError> {
        self.sys.borrow_mut().mmio_write(
            self.node,
            BAR0_BASE + u64::from(offset),
            &value.to_le_bytes(),
        )
    }

    fn write64(&mut self, offset: u32, value: u64) -> Result<(), TcaError> {
        self.sys.borrow_mut().mmio_write(
            self.node,
            BAR0_BASE + u64::from(offset),
            &value.to_le_bytes(),
        )
    }

    fn write_block(&mut self, offset: u32, values: &[u32]) -> Result<(), TcaError> {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.sys
            .borrow_mut()
            .mmio_write(self.node, BAR0_BASE + u64::from(offset), &bytes)
    }

    fn window_write(&mut self, offset: u64, data: &[u8]) -> Result<(), TcaError> {
        self.sys
            .borrow_mut()
            .mmio_write(self.node, BAR2_BASE + offset, data)
    }
}

impl DmaMemory for SimDevice {
    fn kinds(&self) -> Vec<MemKind> {
        let sys = self.sys.borrow();
        let gpus = sys.cluster.nodes[self.node].host.gpus.len() as u8;
        std::iter::once(MemKind::Host)
            .chain((0..gpus).map(MemKind::Gpu))
            .collect()
    }

    fn alloc(&mut self, kind: MemKind, size: u64, align: u64) -> Result<Region, TcaError> {
        let mut sys = self.sys.borrow_mut();
        let heap = sys.heap(self.node, kind)?;
        let bus_addr = heap
            .alloc(size, align)
            .map_err(|_| TcaError::OutOfMemory { kind, size })?;
        Ok(Region { bus_addr, size })
    }

    fn free(&mut self, kind: MemKind, region: Region) -> Result<(), TcaError> {
        let mut sys = self.sys.borrow_mut();
        let heap = sys.heap(self.node, kind)?;
        heap.free(region.bus_addr, region.size)
            .map_err(|e| TcaError::Invalid(e.to_string()))
    }

    fn read(&mut self, kind: MemKind, addr: u64, buf: &mut [u8]) -> Result<(), TcaError> {
        self.sys.borrow_mut().cpu_read(self.node, kind, addr, buf)
    }

    fn write(&mut self, kind: MemKind, addr: u64, data: &[u8]) -> Result<(), TcaError> {
        self.sys.borrow_mut().cpu_write(self.node, kind, addr, data)
    }

    /// The whole loop beside the node: the cluster runs in windows meanwhile, each poll
    /// at the cycle [`DmaMemory::poll32`]'s loop would make it.
    fn poll_until(&mut self, addr: u64, want: u32, polls: u64) -> Result<bool, TcaError> {
        if polls == 0 {
            return Ok(false);
        }
        let mut sys = self.sys.borrow_mut();
        let now = sys.cluster.cycle;
        let wait = CpuWait::poll(sys.cpu, addr, want, polls, self.polled.last(addr), now);
        match sys.wait(self.node, wait, u64::MAX)? {
            Some(WaitEnd::Polled { seen, last }) => {
                self.polled.set(addr, Some(last));
                Ok(seen)
            }
            Some(WaitEnd::Read(Err(e))) => Err(e),
            other => unreachable!("a poll ends as a poll: {other:?}"),
        }
    }

    fn poll32(&mut self, addr: u64) -> Result<u32, TcaError> {
        let mut b = [0u8; 4];
        self.read(MemKind::Host, addr, &mut b)?;
        let word = u32::from_le_bytes(b);
        let cost = self.polled.poll(&self.sys.borrow().cpu, addr, word);
        self.sys.borrow_mut().run(cost)?;
        Ok(word)
    }
}
