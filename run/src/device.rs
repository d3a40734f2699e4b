//! The driver's hardware traits for one rank: every register access and memory access
//! is a primitive the [`crate::scheduler`] carries out at the rank's simulated time.
//! Allocation is the rank's own business (its node's host arena and GPU BARs).

use crate::ops::{Done, Op, Request};
use peach2_driver::alloc::RangeAlloc;
use peach2_driver::hw::{DmaMemory, Mmio, Region};
use peach2_driver::{MemKind, TcaError};
use peach2_sim::cluster::{BAR0_BASE, BAR2_BASE};
use peach2_testbench::profile::{CpuCosts, PollCache};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::mpsc::{channel, Sender};

/// A rank's line to the scheduler.
#[derive(Clone)]
pub struct Line {
    rank: usize,
    tx: Sender<Request>,
}

impl Line {
    /// Rank `rank`'s line over `tx`.
    pub fn new(rank: usize, tx: Sender<Request>) -> Line {
        Line { rank, tx }
    }

    /// Asks for `op` and waits for it to be carried out.
    pub fn call(&self, op: Op) -> Done {
        let (reply, rx) = channel();
        let req = Request {
            rank: self.rank,
            op,
            reply,
        };
        if self.tx.send(req).is_err() {
            return Done::Failed("the platform has stopped".into());
        }
        rx.recv()
            .unwrap_or_else(|_| Done::Failed("the platform has stopped".into()))
    }
}

fn device(d: Done) -> Result<Done, TcaError> {
    match d {
        Done::Failed(e) => Err(TcaError::Device(e)),
        d => Ok(d),
    }
}

/// A node's memory pools: its host arena (shared with the rank's process) and its GPUs'
/// BARs.
pub struct Heaps {
    /// Host memory the rank's process maps.
    pub host: RangeAlloc,
    /// Per GPU, its BAR.
    pub gpus: Vec<RangeAlloc>,
}

impl Heaps {
    /// The allocator of `kind`.
    pub fn of(&mut self, kind: MemKind) -> Result<&mut RangeAlloc, TcaError> {
        match kind {
            MemKind::Host => Ok(&mut self.host),
            MemKind::Gpu(g) => self
                .gpus
                .get_mut(usize::from(g))
                .ok_or(TcaError::NoMemory(kind)),
        }
    }
}

/// BAR access of one rank's node.
pub struct RankMmio {
    /// The line to the scheduler.
    pub line: Line,
    /// What the CPU's loads cost (a store's cost is the platform's: `SimSystem::store`).
    pub cpu: CpuCosts,
}

impl RankMmio {
    fn store(&mut self, addr: u64, data: Vec<u8>) -> Result<(), TcaError> {
        device(self.line.call(Op::MmioWrite { addr, data })).map(|_| ())
    }
}

impl Mmio for RankMmio {
    fn read32(&mut self, offset: u32) -> Result<u32, TcaError> {
        let addr = BAR0_BASE + u64::from(offset);
        let leg = self.cpu.uncached_leg;
        match device(self.line.call(Op::MmioRead { addr, leg }))? {
            Done::Word(w) => Ok(w),
            other => Err(TcaError::Device(format!("MMIO read: {other:?}"))),
        }
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<(), TcaError> {
        self.store(BAR0_BASE + u64::from(offset), value.to_le_bytes().to_vec())
    }

    fn write64(&mut self, offset: u32, value: u64) -> Result<(), TcaError> {
        self.store(BAR0_BASE + u64::from(offset), value.to_le_bytes().to_vec())
    }

    fn write_block(&mut self, offset: u32, values: &[u32]) -> Result<(), TcaError> {
        let bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.store(BAR0_BASE + u64::from(offset), bytes)
    }

    fn window_write(&mut self, offset: u64, data: &[u8]) -> Result<(), TcaError> {
        self.store(BAR2_BASE + offset, data.to_vec())
    }
}

/// DMA-able memory of one rank's node.
pub struct RankMemory {
    /// The line to the scheduler.
    pub line: Line,
    /// What a poll costs.
    pub cpu: CpuCosts,
    /// The pools, shared with the rank's CUDA calls.
    pub heaps: Rc<RefCell<Heaps>>,
    /// What the core's cache holds of the word it polls.
    pub polled: PollCache,
}

impl DmaMemory for RankMemory {
    fn kinds(&self) -> Vec<MemKind> {
        let gpus = self.heaps.borrow().gpus.len() as u8;
        std::iter::once(MemKind::Host)
            .chain((0..gpus).map(MemKind::Gpu))
            .collect()
    }

    fn alloc(&mut self, kind: MemKind, size: u64, align: u64) -> Result<Region, TcaError> {
        let mut heaps = self.heaps.borrow_mut();
        let bus_addr = heaps
            .of(kind)?
            .alloc(size, align)
            .map_err(|_| TcaError::OutOfMemory { kind, size })?;
        Ok(Region { bus_addr, size })
    }

    fn free(&mut self, kind: MemKind, region: Region) -> Result<(), TcaError> {
        let mut heaps = self.heaps.borrow_mut();
        heaps
            .of(kind)?
            .free(region.bus_addr, region.size)
            .map_err(|e| TcaError::Invalid(e.to_string()))
    }

    fn read(&mut self, kind: MemKind, addr: u64, buf: &mut [u8]) -> Result<(), TcaError> {
        let len = buf.len();
        match device(self.line.call(Op::MemRead { kind, addr, len }))? {
            Done::Bytes(b) if b.len() == len => {
                buf.copy_from_slice(&b);
                Ok(())
            }
            other => Err(TcaError::Device(format!("memory read: {other:?}"))),
        }
    }

    fn write(&mut self, kind: MemKind, addr: u64, data: &[u8]) -> Result<(), TcaError> {
        let data = data.to_vec();
        device(self.line.call(Op::MemWrite { kind, addr, data })).map(|_| ())
    }

    fn poll_until(&mut self, addr: u64, want: u32, polls: u64) -> Result<bool, TcaError> {
        let op = Op::PollUntil {
            costs: self.cpu,
            addr,
            want,
            polls,
            last: self.polled.last(addr),
        };
        match device(self.line.call(op))? {
            Done::Polled(seen) => {
                // What the cache holds after a wait that gave up is not known here.
                self.polled.set(addr, seen.then_some(want));
                Ok(seen)
            }
            other => Err(TcaError::Device(format!("poll: {other:?}"))),
        }
    }

    /// One poll: the read, then its CPU time (a cache hit or a miss).
    fn poll32(&mut self, addr: u64) -> Result<u32, TcaError> {
        let mut b = [0u8; 4];
        self.read(MemKind::Host, addr, &mut b)?;
        let word = u32::from_le_bytes(b);
        let cost = self.polled.poll(&self.cpu, addr, word);
        device(self.line.call(Op::Cpu(cost)))?;
        Ok(word)
    }
}
