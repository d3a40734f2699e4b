//! Chains on channels: checking and planning a descriptor list with its notifications,
//! placing it, starting a channel and waiting for it (`tcaSetDMAChain`,
//! `tcaStartDMADesc`, `tcaWaitDMAC`). Waiting for notifications is [`crate::notify`].

use crate::chain::{descriptors, write_host, write_internal, Placed, Placement, Step};
use crate::desc::{Copy, DescList, Shape, Wait};
use crate::device::Tca;
use crate::error::TcaError;
use crate::handle::{Handle, MemKind};
use crate::hw::{DmaMemory, Mmio, Region};
use crate::plan::Plan;
use peach2_regmap::dma::{
    channel_reg, ChannelState as HwState, ErrorCause, CHANNELS, CH_CONTROL, CH_COUNT,
    CH_CURRENT_LO, CH_DESC_LO, CH_NOTIFY_RX_LO, CH_NOTIFY_VALUE, CH_STATUS, CONTROL_HOST,
    CONTROL_INDEX_SHIFT, CONTROL_START, DESC_BYTES,
};

/// A chain set on a channel, ready to start any number of times.
#[derive(Debug)]
pub(crate) struct Prepared {
    placed: Placed,
    plan: Plan,
    /// Source memory and destination handle of each edge of the plan.
    edge_ends: Vec<(MemKind, Handle)>,
    /// Source memory of each stage of the plan.
    stage_src: Vec<MemKind>,
    bounce: Option<Region>,
    /// Local allocations the chain reads or writes (refused at start once freed).
    uses: Vec<Handle>,
    descriptors: usize,
    /// The (slot, tag) of this node's own notification when it is the chain's last
    /// step: once a wait has seen it, the channel has finished (see
    /// [`Tca::own_notification_seen`]).
    done_note: Option<(u16, u32)>,
}

/// A notification of a chain being planned.
#[derive(Clone, Copy, Debug)]
struct Note {
    /// Planned copies before it (it follows the last of them).
    after: usize,
    /// Where its tag goes.
    addr: u64,
    /// The tag.
    tag: u32,
    /// It notifies the destination's node (not this node itself).
    rx: bool,
    /// The slot it lands in.
    slot: u16,
}

/// The chain's descriptors: each planned copy followed by its notifications. The first
/// receiver notification that directly follows a copy rides the channel's `NOTIFY_RX`
/// register (no descriptor of its own; returned with the index of its copy); every other
/// one is a write-immediate descriptor.
fn schedule(copies: usize, notes: &[Note]) -> (Vec<Step>, Option<(usize, Note)>) {
    let mut steps = Vec::with_capacity(copies + notes.len());
    let mut rx = None;
    let mut next = notes.iter().peekable();
    for done in 0..=copies {
        if done > 0 {
            steps.push(Step::Copy(done - 1));
        }
        let mut first = true;
        while let Some(n) = next.next_if(|n| n.after == done) {
            if n.rx && rx.is_none() && first && done > 0 {
                rx = Some((steps.len() - 1, *n));
            } else {
                steps.push(Step::Immediate {
                    dst: n.addr,
                    value: n.tag,
                });
            }
            first = false;
        }
    }
    (steps, rx)
}

/// Driver-side state of a channel.
#[derive(Debug, Default)]
pub(crate) struct ChannelState {
    chain: Option<Prepared>,
    running: bool,
}

impl<M: Mmio, D: DmaMemory> Tca<M, D> {
    fn channel(&self, ch: u8) -> Result<usize, TcaError> {
        if u32::from(ch) >= CHANNELS {
            return Err(TcaError::NoChannel(ch));
        }
        Ok(usize::from(ch))
    }

    /// Checks one copy; returns (local source address, destination address).
    fn check_copy(&self, c: &Copy) -> Result<(u64, u64), TcaError> {
        let src = self.local(&c.src)?;
        self.check_dst(&c.dst)?;
        if let Shape::Block {
            width,
            height,
            dst_pitch,
            src_pitch,
        } = c.shape
        {
            if width == 0 || height == 0 {
                return Err(TcaError::BadShape(
                    "width and height must be non-zero".into(),
                ));
            }
            if (height > 1 && (dst_pitch < width || src_pitch < width))
                || height > u64::from(u32::MAX)
            {
                return Err(TcaError::BadShape(format!(
                    "pitches {dst_pitch}/{src_pitch} below width {width}"
                )));
            }
        }
        if c.shape.extent(true) == 0 {
            return Err(TcaError::ZeroSize);
        }
        c.src.check_range(c.src_off, c.shape.extent(false))?;
        c.dst.check_range(c.dst_off, c.shape.extent(true))?;
        let own = self.area.handle.slot_count;
        for (w, count) in [(c.wait, c.dst.slot_count), (c.notify_self, own)] {
            let Some(Wait { slot, tag }) = w else {
                continue;
            };
            if tag == 0 {
                return Err(TcaError::Notification(
                    "tag 0 is what a cleared slot holds; use a non-zero tag".into(),
                ));
            }
            if slot >= count {
                return Err(TcaError::NoSlot(slot, count));
            }
        }
        let dst = if c.dst.node == self.node {
            self.local(&c.dst)? + c.dst_off
        } else {
            c.dst.global_at(c.dst_off)
        };
        Ok((src + c.src_off, dst))
    }

    /// A wait saw this node's own notification (`slot`, `tag`): a running chain whose last
    /// step wrote it has finished, with no `STATUS` read. The chip marks a channel done
    /// two cycles after its last write is granted, and that write reaches a notification
    /// place and a CPU's read of it only later. When several running chains end with the
    /// same notification, it cannot say which one it was, so none is marked.
    pub(crate) fn own_notification_seen(&mut self, slot: u16, tag: u32) {
        let mut ending = self.channels.iter_mut().filter(|c| {
            c.running && c.chain.as_ref().and_then(|p| p.done_note) == Some((slot, tag))
        });
        if let (Some(c), None) = (ending.next(), ending.next()) {
            c.running = false;
        }
    }

    /// Refuses a channel still running its chain (the chip ignores a start then). A chain
    /// that finished without a [`Tca::wait_dmac`] is seen finished here; one that stopped
    /// on an error reports it.
    fn check_idle(&mut self, ch: u8) -> Result<(), TcaError> {
        let c = self.channel(ch)?;
        if self.channels[c].running && self.test_dmac(ch)?.is_none() {
            return Err(TcaError::ChannelBusy(ch));
        }
        Ok(())
    }

    /// Checks every copy of `list` and plans it: what the chip moves, what the CPU stages
    /// and writes by PIO, and the notifications after each copy.
    fn plan_list(&self, list: &DescList) -> Result<(Prepared, Vec<Note>), TcaError> {
        let mut p = Prepared {
            placed: Placed::Nothing,
            plan: Plan::default(),
            edge_ends: Vec::new(),
            stage_src: Vec::new(),
            bounce: None,
            uses: Vec::new(),
            descriptors: 0,
            done_note: None,
        };
        let mut notes = Vec::new();
        let own = self.area.handle;
        for copy in &list.copies {
            let (src, dst) = self.check_copy(copy)?;
            p.uses.push(copy.src);
            if copy.dst.node == self.node {
                p.uses.push(copy.dst);
            }
            let plan = &mut p.plan;
            let (e0, s0) = (plan.edges.len(), plan.stages.len());
            match copy.shape {
                Shape::Linear { len } => plan.copy_1d(dst, src, len),
                Shape::Block {
                    width,
                    height,
                    dst_pitch,
                    src_pitch,
                } => plan.copy_2d(dst, dst_pitch, src, src_pitch, width, height),
            }
            let ends = (copy.src.kind, copy.dst);
            p.edge_ends
                .extend(std::iter::repeat_n(ends, plan.edges.len() - e0));
            p.stage_src
                .extend(std::iter::repeat_n(copy.src.kind, plan.stages.len() - s0));
            // Edges are written before the start, so a copy with no DMA part is complete
            // when the chain reaches its place.
            let after = plan.copies.len();
            for (w, to, rx) in [
                (copy.wait, &copy.dst, true),
                (copy.notify_self, &own, false),
            ] {
                if let Some(w) = w {
                    let addr = self.notify_addr(to, w.slot, copy.place);
                    notes.push(Note {
                        after,
                        addr,
                        tag: w.tag,
                        rx,
                        slot: w.slot,
                    });
                }
            }
        }
        Ok((p, notes))
    }

    /// Room for `n` descriptors of channel `c`'s next chain, the channel's current chain
    /// still held; `true` with it when the new chain fits only in the current chain's
    /// internal descriptors, which it then took.
    fn place(
        &mut self,
        c: usize,
        n: usize,
        placement: Placement,
    ) -> Result<(Placed, bool), TcaError> {
        if n == 0 {
            return Ok((Placed::Nothing, false));
        }
        if placement == Placement::Host {
            let bytes = n as u64 * u64::from(DESC_BYTES);
            let r = self
                .mem
                .alloc(MemKind::Host, bytes, u64::from(DESC_BYTES))?;
            return Ok((Placed::Host(r), false));
        }
        let internal = |first: u64| Placed::Internal {
            first: first as u32,
            count: n as u32,
        };
        if let Ok(first) = self.desc_mem.alloc(n as u64, 1) {
            return Ok((internal(first), false));
        }
        if let Some(Placed::Internal { first, count }) =
            self.channels[c].chain.as_ref().map(|p| p.placed)
        {
            let mut without_old = self.desc_mem.clone();
            if without_old.free(u64::from(first), u64::from(count)).is_ok() {
                if let Ok(at) = without_old.alloc(n as u64, 1) {
                    self.desc_mem = without_old;
                    return Ok((internal(at), true));
                }
            }
        }
        Err(TcaError::DescriptorMemoryFull {
            needed: n,
            free: self.desc_mem.free_total() as usize,
        })
    }

    /// Checks and plans `list`, places its descriptors and programs channel `ch`'s
    /// notification registers. The channel can then be started any number of times. The
    /// channel's current chain stays until the new one is placed, so a placement that
    /// fails leaves the channel as it was.
    pub fn set_chain(
        &mut self,
        ch: u8,
        list: &DescList,
        placement: Placement,
    ) -> Result<(), TcaError> {
        let c = self.channel(ch)?;
        self.check_idle(ch)?;
        if list.copies.is_empty() {
            return Err(TcaError::EmptyList);
        }
        let (mut prepared, notes) = self.plan_list(list)?;
        let (steps, rx) = schedule(prepared.plan.copies.len(), &notes);
        // The chip writes NOTIFY_VALUE + (descriptors done) to NOTIFY_RX.
        let base = rx.map_or(0, |(i, n)| n.tag.wrapping_sub(i as u32 + 1));
        prepared.descriptors = steps.len();
        prepared.done_note = match steps.last() {
            Some(&Step::Immediate { dst, value }) => notes
                .iter()
                .find(|n| !n.rx && n.addr == dst && n.tag == value)
                .map(|n| (n.slot, n.tag)),
            _ => None,
        };
        if prepared.plan.bounce_bytes > 0 {
            let b = self
                .mem
                .alloc(MemKind::Host, prepared.plan.bounce_bytes, 16)?;
            prepared.bounce = Some(b);
        }
        let old_internal_freed = match self.place(c, steps.len(), placement) {
            Ok((placed, freed)) => {
                prepared.placed = placed;
                freed
            }
            Err(e) => {
                self.release(prepared, false)?;
                return Err(e);
            }
        };
        let base_addr = match prepared.placed {
            Placed::Internal { first, .. } => u64::from(first),
            Placed::Host(r) => r.bus_addr,
            Placed::Nothing => 0,
        };
        let rx_at = rx.map(|(i, _)| i);
        let descs = descriptors(
            &prepared.plan,
            &steps,
            rx_at,
            prepared.bounce,
            placement,
            base_addr,
        );
        let written = match prepared.placed {
            Placed::Nothing => Ok(()),
            Placed::Internal { first, .. } => write_internal(&mut self.mmio, first, &descs),
            Placed::Host(r) => write_host(&mut self.mem, r, &descs).and_then(|_| {
                self.mmio
                    .write64(channel_reg(u32::from(ch), CH_DESC_LO), r.bus_addr)
            }),
        };
        let programmed = written.and_then(|_| {
            let rx_addr = rx.map_or(0, |(_, n)| n.addr);
            let reg = |r| channel_reg(u32::from(ch), r);
            self.mmio.write64(reg(CH_NOTIFY_RX_LO), rx_addr)?;
            self.mmio.write32(reg(CH_NOTIFY_VALUE), base)
        });
        // The channel's registers are the new chain's now (or half written): the old
        // chain goes either way.
        if let Some(old) = self.channels[c].chain.take() {
            self.release(old, old_internal_freed)?;
        }
        if let Err(e) = programmed {
            self.release(prepared, false)?;
            return Err(e);
        }
        self.channels[c].chain = Some(prepared);
        Ok(())
    }

    /// Frees what `p` holds; its internal descriptors only if `internal_freed` is false.
    fn release(&mut self, p: Prepared, internal_freed: bool) -> Result<(), TcaError> {
        if let Some(b) = p.bounce {
            self.mem.free(MemKind::Host, b)?;
        }
        match p.placed {
            Placed::Internal { .. } if internal_freed => Ok(()),
            Placed::Internal { first, count } => self
                .desc_mem
                .free(u64::from(first), u64::from(count))
                .map_err(|e| TcaError::Invalid(e.to_string())),
            Placed::Host(r) => self.mem.free(MemKind::Host, r),
            Placed::Nothing => Ok(()),
        }
    }

    /// Descriptors of the chain set on `ch` (after planning).
    pub fn chain_len(&self, ch: u8) -> Result<usize, TcaError> {
        let c = self.channel(ch)?;
        self.channels[c]
            .chain
            .as_ref()
            .map(|p| p.descriptors)
            .ok_or(TcaError::NoChain(ch))
    }

    /// Starts channel `ch` (`tcaStartDMADesc`): stages unaligned sources into the bounce
    /// buffer, writes the edges by PIO, then one register write (none for a chain the
    /// PIO writes carried out entirely).
    pub fn start(&mut self, ch: u8) -> Result<(), TcaError> {
        let c = self.channel(ch)?;
        self.check_idle(ch)?;
        let p = self.channels[c].chain.take().ok_or(TcaError::NoChain(ch))?;
        let result = self.launch(ch, &p);
        let dma = !matches!(p.placed, Placed::Nothing);
        self.channels[c].chain = Some(p);
        result?;
        self.channels[c].running = dma;
        Ok(())
    }

    fn launch(&mut self, ch: u8, p: &Prepared) -> Result<(), TcaError> {
        for h in &p.uses {
            self.local(h)?;
        }
        for (s, kind) in p.plan.stages.iter().zip(&p.stage_src) {
            let mut buf = vec![0u8; s.len as usize];
            self.mem.read(*kind, s.src, &mut buf)?;
            let b = p.bounce.expect("stages have a bounce buffer");
            self.mem
                .write(MemKind::Host, b.bus_addr + s.bounce_off, &buf)?;
        }
        for (e, (kind, dst)) in p.plan.edges.iter().zip(&p.edge_ends) {
            let mut buf = vec![0u8; e.len as usize];
            self.mem.read(*kind, e.src, &mut buf)?;
            if dst.node == self.node {
                self.mem.write(dst.kind, e.dst, &buf)?;
            } else {
                self.put(dst, e.dst, &buf)?;
            }
        }
        let control = match p.placed {
            Placed::Internal { first, .. } => CONTROL_START | (first << CONTROL_INDEX_SHIFT),
            Placed::Host(_) => CONTROL_START | CONTROL_HOST,
            Placed::Nothing => return Ok(()),
        };
        self.mmio
            .write32(channel_reg(u32::from(ch), CH_CONTROL), control)
    }

    /// Channel state now; an error stop becomes [`TcaError::Dma`]. `Some(count)` once
    /// the chain finished.
    pub fn test_dmac(&mut self, ch: u8) -> Result<Option<u32>, TcaError> {
        let c = self.channel(ch)?;
        let reg = |r| channel_reg(u32::from(ch), r);
        let status = self.mmio.read32(reg(CH_STATUS))?;
        match HwState::from_status(status) {
            HwState::Busy => Ok(None),
            HwState::Idle if self.channels[c].running => Ok(None),
            HwState::Idle | HwState::Done => {
                self.channels[c].running = false;
                Ok(Some(self.mmio.read32(reg(CH_COUNT))?))
            }
            HwState::Error => {
                self.channels[c].running = false;
                let cause = ErrorCause::from_status(status).unwrap_or(ErrorCause::None);
                let descriptor = self.mmio.read64(reg(CH_CURRENT_LO))?;
                Err(TcaError::Dma {
                    channel: ch,
                    cause,
                    descriptor,
                })
            }
        }
    }

    /// Waits until channel `ch` finished its chain (`tcaWaitDMAC`); returns the
    /// descriptors done.
    pub fn wait_dmac(&mut self, ch: u8) -> Result<u32, TcaError> {
        for _ in 0..self.limits.polls {
            if let Some(n) = self.test_dmac(ch)? {
                return Ok(n);
            }
        }
        Err(TcaError::Timeout(format!("channel {ch}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(after: usize, addr: u64, rx: bool) -> Note {
        Note {
            after,
            addr,
            tag: addr as u32,
            rx,
            slot: 0,
        }
    }

    fn imm(addr: u64) -> Step {
        Step::Immediate {
            dst: addr,
            value: addr as u32,
        }
    }

    #[test]
    fn the_first_receiver_notification_after_a_copy_takes_the_register() {
        // Ping-pong: one copy, its receiver's notification and its self notification.
        let (steps, rx) = schedule(1, &[note(1, 10, true), note(1, 11, false)]);
        assert_eq!(steps, [Step::Copy(0), imm(11)]);
        assert_eq!(rx.map(|(i, n)| (i, n.addr)), Some((0, 10)));
        // Two receivers: the second rides a write-immediate after its own copy.
        let (steps, rx) = schedule(2, &[note(1, 10, true), note(2, 20, true)]);
        assert_eq!(steps, [Step::Copy(0), Step::Copy(1), imm(20)]);
        assert_eq!(rx.map(|(i, _)| i), Some(0));
    }

    #[test]
    fn notifications_without_a_copy_before_them_are_write_immediates() {
        // A PIO-only copy first, then a self notification before the receiver's.
        let notes = [note(0, 5, true), note(1, 6, false), note(1, 7, true)];
        let (steps, rx) = schedule(1, &notes);
        assert_eq!(steps, [imm(5), Step::Copy(0), imm(6), imm(7)]);
        assert!(rx.is_none());
        assert_eq!(schedule(0, &[]).0, []);
    }
}
