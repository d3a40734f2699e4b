//! The device: opening it, DMA-able memory and handles, CPU access to buffers, PIO
//! writes and notification slots. Chains and channels are in [`crate::channel`].

use crate::alloc::RangeAlloc;
use crate::channel::ChannelState;
use crate::error::TcaError;
use crate::handle::{Handle, MemKind};
use crate::hw::{DmaMemory, Mmio, Region};
use crate::notify::NotifyPlace;
use peach2_regmap::address::{
    GlobalAddr, Target, GLOBAL_BASE, MAX_NODES, OFFSET_BITS, TRANSLATED_TARGETS,
};
use peach2_regmap::csr::{
    route, target_ctrl, target_hi, target_lo, ID, ID_VALUE, NODE_ID, ROUTE_VALID, TARGET_ENABLE,
};
use peach2_regmap::dma::{CHANNELS, DESC_COUNT};
use peach2_regmap::notify;
use std::collections::HashMap;

/// Receive slots every node offers each sender (`wait_slot` 0..SLOTS), in host memory as
/// in the chip's notification store.
pub const SLOTS: u16 = notify::SLOTS as u16;
/// DWs of the host notification area: the slots of every possible sender (a notification
/// is awaited from a given node, so two senders using one slot number do not overwrite
/// each other).
const AREA_DWS: u64 = MAX_NODES as u64 * SLOTS as u64;

/// A buffer this device allocated, as the CPU and the chip see it locally.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Buffer {
    /// The handle others use to name it.
    pub handle: Handle,
    /// Local bus address of its first byte.
    pub bus_addr: u64,
}

/// Polling limits of waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// PCIe reads of a status register or notification slot before a wait gives up (a
    /// wait on host memory polls [`crate::notify::HOST_POLLS_PER_READ`] times as often).
    pub polls: u64,
}

impl Default for Limits {
    fn default() -> Self {
        // About a second of MMIO polling on a real host; a 4 MiB DMA needs ~1 ms.
        Limits { polls: 1_000_000 }
    }
}

/// An open PEACH2 with its driver state (`tcaInit`).
pub struct Tca<M: Mmio, D: DmaMemory> {
    pub(crate) mmio: M,
    pub(crate) mem: D,
    pub(crate) node: u8,
    /// Local base of each translated target window (host, GPU 0..3), if enabled.
    windows: [Option<u64>; TRANSLATED_TARGETS],
    reachable: [bool; MAX_NODES],
    allocs: HashMap<u64, (MemKind, Region, Handle)>,
    next_id: u64,
    pub(crate) area: Buffer,
    pub(crate) desc_mem: RangeAlloc,
    pub(crate) channels: [ChannelState; CHANNELS as usize],
    /// Where waits look for notifications first ([`crate::notify`]).
    pub(crate) notify_poll: NotifyPlace,
    /// `test_recv` calls that found nothing (every [`crate::notify::NotifyPlace::other_every`]th
    /// also looks at the other place).
    pub(crate) tests_missed: u64,
    /// Wait limits.
    pub limits: Limits,
}

impl<M: Mmio, D: DmaMemory> Tca<M, D> {
    /// Opens the device: checks the ID, reads the node id, the target windows and the
    /// routes the system software programmed, and sets up the notification area.
    pub fn open(mut mmio: M, mem: D) -> Result<Self, TcaError> {
        let id = mmio.read32(ID)?;
        if id != ID_VALUE {
            return Err(TcaError::NotPeach2(id));
        }
        let node = (mmio.read32(NODE_ID)? & (MAX_NODES as u32 - 1)) as u8;
        let mut windows = [None; TRANSLATED_TARGETS];
        for (t, w) in windows.iter_mut().enumerate() {
            let t = t as u32;
            if mmio.read32(target_ctrl(t))? & TARGET_ENABLE != 0 {
                let lo = mmio.read32(target_lo(t))?;
                let hi = mmio.read32(target_hi(t))?;
                *w = Some(u64::from(lo) | (u64::from(hi) << 32));
            }
        }
        let mut reachable = [false; MAX_NODES];
        for (n, r) in reachable.iter_mut().enumerate() {
            *r = n == usize::from(node) || mmio.read32(route(n as u32))? & ROUTE_VALID != 0;
        }
        let mut tca = Tca {
            mmio,
            mem,
            node,
            windows,
            reachable,
            allocs: HashMap::new(),
            next_id: 1,
            area: Buffer {
                handle: Handle {
                    node,
                    kind: MemKind::Host,
                    global: GLOBAL_BASE,
                    size: 0,
                    id: 0,
                    slots: GLOBAL_BASE,
                    slot_count: 0,
                },
                bus_addr: 0,
            },
            desc_mem: RangeAlloc::new(0, u64::from(DESC_COUNT)),
            channels: Default::default(),
            notify_poll: NotifyPlace::Host,
            tests_missed: 0,
            limits: Limits::default(),
        };
        let area = tca.malloc(4 * AREA_DWS, MemKind::Host)?;
        tca.mem.write(
            MemKind::Host,
            area.bus_addr,
            &vec![0; 4 * AREA_DWS as usize],
        )?;
        // The area was allocated before its own address was known: it names itself.
        let mut handle = area.handle;
        handle.slots = handle.global;
        handle.slot_count = SLOTS;
        if let Some(entry) = tca.allocs.get_mut(&handle.id) {
            entry.2 = handle;
        }
        tca.area = Buffer { handle, ..area };
        Ok(tca)
    }

    /// This node's id.
    pub fn node(&self) -> u8 {
        self.node
    }

    /// The register access (for tools that read counters).
    pub fn mmio(&mut self) -> &mut M {
        &mut self.mmio
    }

    /// The memory backend.
    pub fn memory(&mut self) -> &mut D {
        &mut self.mem
    }

    /// True if `node` is this node or has a route.
    pub fn reachable(&self, node: u8) -> bool {
        self.reachable
            .get(usize::from(node))
            .copied()
            .unwrap_or(false)
    }

    /// Allocates `size` bytes of DMA-able memory (`tcaMalloc`), 4 KiB aligned, inside
    /// the chip's window for `kind` so that every node can reach it.
    pub fn malloc(&mut self, size: u64, kind: MemKind) -> Result<Buffer, TcaError> {
        if size == 0 {
            return Err(TcaError::ZeroSize);
        }
        if !self.mem.kinds().contains(&kind) {
            return Err(TcaError::NoMemory(kind));
        }
        let window = self.windows[kind.target().code() as usize];
        let region = self.mem.alloc(kind, size, 4096)?;
        let offset = window.and_then(|w| region.bus_addr.checked_sub(w));
        let global = offset
            .filter(|o| (o + size - 1) >> OFFSET_BITS == 0)
            .and_then(|o| GlobalAddr::new(self.node, kind.target(), o).ok());
        let Some(global) = global else {
            self.mem.free(kind, region)?;
            return Err(TcaError::OutsideWindow {
                kind,
                addr: region.bus_addr,
            });
        };
        let id = self.next_id;
        self.next_id += 1;
        let handle = Handle {
            node: self.node,
            kind,
            global: global.to_u64(),
            size,
            id,
            slots: self.area.handle.slots,
            slot_count: self.area.handle.slot_count,
        };
        self.allocs.insert(id, (kind, region, handle));
        Ok(Buffer {
            handle,
            bus_addr: region.bus_addr,
        })
    }

    /// Frees a buffer. Chains that use it can no longer start.
    pub fn free(&mut self, buf: &Buffer) -> Result<(), TcaError> {
        self.local(&buf.handle)?;
        if buf.handle.id == self.area.handle.id {
            return Err(TcaError::Invalid(
                "the notification area is not freeable".into(),
            ));
        }
        let (kind, region, _) = self.allocs.remove(&buf.handle.id).expect("checked live");
        self.mem.free(kind, region)
    }

    /// The handle of a buffer (`tcaCreateHandle`), to give to other nodes.
    pub fn create_handle(&self, buf: &Buffer) -> Result<Handle, TcaError> {
        self.local(&buf.handle)?;
        Ok(buf.handle)
    }

    /// The local bus address of a live handle of this node.
    pub(crate) fn local(&self, h: &Handle) -> Result<u64, TcaError> {
        match self.allocs.get(&h.id) {
            Some((_, region, own)) if h.node == self.node && own == h => Ok(region.bus_addr),
            _ => Err(TcaError::ForeignHandle {
                id: h.id,
                node: h.node,
            }),
        }
    }

    /// Checks a handle used as a destination: this node's live allocation, or another
    /// reachable node's.
    pub(crate) fn check_dst(&self, h: &Handle) -> Result<(), TcaError> {
        if h.node == self.node {
            return self.local(h).map(|_| ());
        }
        if !self.reachable(h.node) {
            return Err(TcaError::UnknownNode(h.node));
        }
        Ok(())
    }

    /// CPU write into a buffer of this node.
    pub fn write(&mut self, buf: &Buffer, offset: u64, data: &[u8]) -> Result<(), TcaError> {
        let addr = self.local(&buf.handle)?;
        buf.handle.check_range(offset, data.len() as u64)?;
        self.mem.write(buf.handle.kind, addr + offset, data)
    }

    /// CPU read from a buffer of this node.
    pub fn read(&mut self, buf: &Buffer, offset: u64, out: &mut [u8]) -> Result<(), TcaError> {
        let addr = self.local(&buf.handle)?;
        buf.handle.check_range(offset, out.len() as u64)?;
        self.mem.read(buf.handle.kind, addr + offset, out)
    }

    /// PIO write of `data` at `offset` of a (remote or local) buffer through BAR2: no
    /// DMA, byte-exact, ordered before any later chain start of this node.
    pub fn pio_write(&mut self, dst: &Handle, offset: u64, data: &[u8]) -> Result<(), TcaError> {
        if data.is_empty() {
            return Err(TcaError::ZeroSize);
        }
        self.check_dst(dst)?;
        dst.check_range(offset, data.len() as u64)?;
        self.put(dst, dst.global_at(offset), data)
    }

    /// Writes `data` at global address `global` inside `dst`: by the CPU for this
    /// node's memory, through the BAR2 window for another node's.
    pub(crate) fn put(&mut self, dst: &Handle, global: u64, data: &[u8]) -> Result<(), TcaError> {
        if dst.node == self.node {
            let addr = self.local(dst)? + (global - dst.global);
            return self.mem.write(dst.kind, addr, data);
        }
        self.mmio.window_write(global - GLOBAL_BASE, data)
    }

    /// Window of `target`, for tests and tools.
    pub fn window(&self, target: Target) -> Option<u64> {
        self.windows.get(target.code() as usize).copied().flatten()
    }
}
