//! Flows the chip's DMA sends (`--scenario dma`): for each chunk the source CPU fills a
//! staging buffer in host memory, describes it with a chain of two host-memory
//! descriptors (the chunk's halves), starts a channel and polls its `STATUS` until the
//! chain is done or the chip reports why it stopped. A chunk whose chain the chip stops
//! is failed, with the error's cause: the flow is affected, and nothing may go missing
//! without such a report.
//!
//! Faults meant for the DMA ([`DmaFault`]) are armed at a node and hit the next chunk it
//! starts, one at a time: its source reads fail or are lost in host memory, or its
//! second descriptor turns bad right after the start (before the chip fetches it: the
//! first half runs, the chain stops at the second).

use crate::error::SimError;
use crate::node::Node;
use crate::scenario::{may_issue, pattern, Flow};
use crate::setup::{node_csr_write, HOST_WINDOW};
use pcie_model::requester::{RequestHandle, RequestOutcome};
use peach2_regmap::address::GlobalAddr;
use peach2_regmap::dma::{
    channel_reg, flags, status_cause, ChannelState, Descriptor, CAUSE_CODES, CHANNELS, CH_CONTROL,
    CH_DESC_LO, CH_STATUS, CONTROL_HOST, CONTROL_START, CPL_TIMEOUT, DESC_BYTES,
};
use peach2_regmap::host::BAR0_BASE;
use std::collections::VecDeque;

/// Where the channels' staging buffers start in host memory (past the flows' windows).
const STAGE_BASE: u64 = HOST_WINDOW + (512 << 20);
/// Bytes of each channel's staging buffer: the largest DMA chunk.
pub const STAGE_BYTES: u64 = 64 << 10;
/// Where the channels' chains lie in host memory (two descriptors each).
const DESC_AREA: u64 = STAGE_BASE + CHANNELS as u64 * STAGE_BYTES;
/// Bytes of one descriptor in host memory.
const DESC: u64 = DESC_BYTES as u64;
/// Cycles between two reads of a running channel's `STATUS`.
const POLL_CYCLES: u64 = 200;
/// `DMA_CPL_TIMEOUT` the sources set: a lost read stops its chain after 64 us.
pub const CPL_TIMEOUT_CYCLES: u32 = 16_384;
/// Channel count, as an index bound.
const CH: usize = CHANNELS as usize;

/// A fault for the DMA, suffered by the next chunk a node starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DmaFault {
    /// Host memory fails the chunk's source reads (Completer Abort): `CplError`.
    ReadError,
    /// Host memory never answers the chunk's source reads: `CplTimeout`.
    ReadLost,
    /// The chain's second descriptor is overwritten with length 0 after the start:
    /// `ZeroLength`, the first half delivered.
    BadDescriptor,
}

impl DmaFault {
    /// How many kinds there are (the variants, numbered in declaration order).
    pub const KINDS: usize = 3;
}
const _: () = assert!(DmaFault::BadDescriptor as usize + 1 == DmaFault::KINDS);

/// Where a channel stands.
#[derive(Clone, Copy, Debug)]
enum Chan {
    /// No chunk.
    Idle,
    /// Running flow `flow`'s chunk; `STATUS` is read at `poll_at`.
    Busy { flow: usize, poll_at: u64 },
    /// A read of `STATUS` in flight.
    Polling { flow: usize, read: RequestHandle },
}

/// One node's DMA work: its chunks in flight, one per channel, and the faults armed.
#[derive(Clone, Debug)]
pub(crate) struct DmaIssuer {
    /// The flows from this node sent by DMA, by channel (flow `k` of the node on
    /// channel `k % CHANNELS`).
    by_channel: [Vec<usize>; CH],
    /// Whether there is any (checked every cycle).
    sends: bool,
    /// Per channel, the next of its flows to consider.
    next: [usize; CH],
    chans: [Chan; CH],
    /// `DMA_CPL_TIMEOUT` was written.
    set_up: bool,
    /// Faults armed: `(cycle, fault)`, in cycle order.
    pub(crate) armed: VecDeque<(u64, DmaFault)>,
    /// The channel whose chunk carries the fault applied last, until it ends.
    faulted: Option<usize>,
    /// Faults applied, by [`DmaFault`] (in declaration order).
    pub(crate) applied: [u64; DmaFault::KINDS],
    /// Chains the chip stopped, by `ErrorCause` code.
    pub(crate) stopped: [u64; CAUSE_CODES],
}

impl DmaIssuer {
    /// The DMA work of node `node` for `flows`.
    pub(crate) fn new(node: usize, flows: &[Flow]) -> DmaIssuer {
        let mut by_channel: [Vec<usize>; CH] = Default::default();
        let mine = flows
            .iter()
            .enumerate()
            .filter(|(_, f)| f.dma && f.src == node);
        for (k, (i, _)) in mine.enumerate() {
            by_channel[k % CH].push(i);
        }
        DmaIssuer {
            sends: by_channel.iter().any(|c| !c.is_empty()),
            by_channel,
            next: [0; CH],
            chans: [Chan::Idle; CH],
            set_up: false,
            armed: VecDeque::new(),
            faulted: None,
            applied: [0; DmaFault::KINDS],
            stopped: [0; CAUSE_CODES],
        }
    }

    /// Whether this node sends anything by DMA.
    pub(crate) fn active(&self) -> bool {
        self.sends
    }

    /// The CPU's DMA work at cycle `now`: collect `STATUS` reads, poll running channels,
    /// start the next chunk on idle ones. `dst_ids[i]` is flow `i`'s destination node id.
    pub(crate) fn step(
        &mut self,
        node: &mut Node,
        now: u64,
        flows: &mut [Flow],
        dst_ids: &[u8],
    ) -> Result<(), SimError> {
        if !self.active() {
            return Ok(());
        }
        if !self.set_up {
            node_csr_write(node, CPL_TIMEOUT, &[CPL_TIMEOUT_CYCLES]).map_err(scenario)?;
            self.set_up = true;
        }
        for ch in 0..CH {
            match self.chans[ch] {
                Chan::Idle => self.start_next(node, now, ch, flows, dst_ids)?,
                Chan::Busy { flow, poll_at } if now >= poll_at => {
                    let addr = BAR0_BASE + u64::from(channel_reg(ch as u32, CH_STATUS));
                    let read = node.host.cpu().mmio_read(addr, 4).map_err(scenario)?;
                    self.chans[ch] = Chan::Polling { flow, read };
                }
                Chan::Busy { .. } => {}
                Chan::Polling { flow, read } => {
                    let Some(r) = node.host.rc.take_result(read) else {
                        continue;
                    };
                    let status = r.as_ref().ok().and_then(RequestOutcome::dword);
                    let status = status.ok_or_else(|| {
                        SimError::Scenario(format!("DMA channel {ch}: STATUS read failed: {r:?}"))
                    })?;
                    self.chans[ch] = match ChannelState::from_status(status) {
                        ChannelState::Done => Chan::Idle,
                        ChannelState::Error => {
                            self.stopped[status_cause(status) as usize] += 1;
                            flows[flow].failed += 1;
                            Chan::Idle
                        }
                        ChannelState::Busy | ChannelState::Idle => Chan::Busy {
                            flow,
                            poll_at: now + POLL_CYCLES,
                        },
                    };
                    if matches!(self.chans[ch], Chan::Idle) && self.faulted == Some(ch) {
                        node.host.rc.heal_reads();
                        self.faulted = None;
                    }
                }
            }
        }
        Ok(())
    }

    /// Starts the next chunk of channel `ch`'s flows that may issue, if any.
    fn start_next(
        &mut self,
        node: &mut Node,
        now: u64,
        ch: usize,
        flows: &mut [Flow],
        dst_ids: &[u8],
    ) -> Result<(), SimError> {
        let list = &self.by_channel[ch];
        let Some(k) = (0..list.len())
            .map(|k| (self.next[ch] + k) % list.len())
            .find(|&k| may_issue(flows, list[k]))
        else {
            return Ok(());
        };
        let i = list[k];
        self.next[ch] = k + 1;
        let f = &flows[i];
        let seq = f.issued;
        let stage = STAGE_BASE + ch as u64 * STAGE_BYTES;
        let data: Vec<u8> = (0..f.chunk).map(|b| pattern(i, seq, b)).collect();
        let dst = GlobalAddr::new(dst_ids[i], f.target, f.offset(seq))
            .map_err(|e| SimError::Scenario(e.to_string()))?
            .to_u64();
        let half = (f.chunk / 2) as u64;
        let chain = DESC_AREA + ch as u64 * 2 * DESC;
        let first = Descriptor {
            src: stage,
            dst,
            length: half as u32,
            next: chain + DESC,
            ..Default::default()
        };
        let mut second = Descriptor {
            src: stage + half,
            dst: dst + half,
            length: (f.chunk as u64 - half) as u32,
            flags: flags::LAST,
            ..Default::default()
        };
        let mem = node.host.rc.host_memory_mut();
        let stored = mem
            .write(stage, &data)
            .and_then(|()| mem.write(chain, &first.to_bytes()))
            .and_then(|()| mem.write(chain + DESC, &second.to_bytes()));
        stored.map_err(|e| SimError::Scenario(format!("DMA staging: {e:?}")))?;
        let desc = [chain as u32, (chain >> 32) as u32];
        node_csr_write(node, channel_reg(ch as u32, CH_DESC_LO), &desc).map_err(scenario)?;
        let control = channel_reg(ch as u32, CH_CONTROL);
        node_csr_write(node, control, &[CONTROL_START | CONTROL_HOST]).map_err(scenario)?;
        if self.faulted.is_none() && self.armed.front().is_some_and(|(at, _)| *at <= now) {
            let (_, fault) = self.armed.pop_front().expect("checked");
            let len = f.chunk as u64;
            match fault {
                DmaFault::ReadError => node.host.rc.fail_reads(stage, len),
                DmaFault::ReadLost => node.host.rc.lose_reads(stage, len),
                DmaFault::BadDescriptor => {
                    second.length = 0;
                    let mem = node.host.rc.host_memory_mut();
                    mem.write(chain + DESC, &second.to_bytes())
                        .map_err(|e| SimError::Scenario(format!("DMA chain: {e:?}")))?;
                }
            }
            self.applied[fault as usize] += 1;
            self.faulted = Some(ch);
        }
        flows[i].issued += 1;
        self.chans[ch] = Chan::Busy {
            flow: i,
            poll_at: now + POLL_CYCLES,
        };
        Ok(())
    }
}

/// A failure of the source CPU's work, as the scenario's error.
fn scenario(e: impl std::fmt::Display) -> SimError {
    SimError::Scenario(e.to_string())
}
