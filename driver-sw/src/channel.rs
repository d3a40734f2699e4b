//! Chains on channels: checking and planning a descriptor list, placing it, starting a
//! channel, waiting for it, and waiting for notifications (`tcaSetDMAChain`,
//! `tcaStartDMADesc`, `tcaWaitDMAC`, `tcaWaitDMARecvDesc`, `tcaTestDMARecvDesc`).

use crate::chain::{descriptors, write_host, write_internal, Placed, Placement};
use crate::desc::{Copy, DescList, Shape};
use crate::device::{self_slot_off, slot_off, Tca, SCRATCH_OFF};
use crate::error::TcaError;
use crate::handle::{Handle, MemKind};
use crate::hw::{DmaMemory, Mmio, Region};
use crate::plan::Plan;
use peach2_regmap::dma::{
    channel_reg, flags, ChannelState as HwState, ErrorCause, CHANNELS, CH_CONTROL, CH_COUNT,
    CH_CURRENT_LO, CH_DESC_LO, CH_NOTIFY_RX_LO, CH_NOTIFY_SELF_LO, CH_NOTIFY_VALUE, CH_STATUS,
    CONTROL_HOST, CONTROL_INDEX_SHIFT, CONTROL_START, DESC_BYTES,
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
    /// Value the self slot holds when the notify-self copy is done.
    self_value: Option<u32>,
    descriptors: usize,
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
        if let Some(w) = c.wait {
            if w.tag == 0 {
                return Err(TcaError::Notification(
                    "tag 0 is what a cleared slot holds; use a non-zero tag".into(),
                ));
            }
            if w.slot >= c.dst.slot_count {
                return Err(TcaError::NoSlot(w.slot, c.dst.slot_count));
            }
        }
        let dst = if c.dst.node == self.node {
            self.local(&c.dst)? + c.dst_off
        } else {
            c.dst.global_at(c.dst_off)
        };
        Ok((src + c.src_off, dst))
    }

    /// Address of a slot of the node of `h` as this chip addresses it.
    fn slot_addr(&self, h: &Handle, byte_off: u64) -> u64 {
        if h.node == self.node {
            self.area.bus_addr + byte_off
        } else {
            h.slots + byte_off
        }
    }

    /// Checks and plans `list`, places its descriptors and programs channel `ch`'s
    /// notification registers. The channel can then be started any number of times.
    pub fn set_chain(
        &mut self,
        ch: u8,
        list: &DescList,
        placement: Placement,
    ) -> Result<(), TcaError> {
        let c = self.channel(ch)?;
        if self.channels[c].running {
            return Err(TcaError::ChannelBusy(ch));
        }
        if list.copies.is_empty() {
            return Err(TcaError::EmptyList);
        }
        let mut plan = Plan::default();
        let mut edge_ends = Vec::new();
        let mut stage_src = Vec::new();
        let mut uses = Vec::new();
        let mut notify: Vec<(usize, u32)> = Vec::new();
        let mut rx: Option<(u64, u32)> = None;
        let mut self_at: Option<usize> = None;
        let mut value_base: Option<u32> = None;
        for copy in &list.copies {
            let (src, dst) = self.check_copy(copy)?;
            uses.push(copy.src);
            if copy.dst.node == self.node {
                uses.push(copy.dst);
            }
            let (e0, s0, c0) = (plan.edges.len(), plan.stages.len(), plan.copies.len());
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
            edge_ends.extend(std::iter::repeat_n(ends, plan.edges.len() - e0));
            stage_src.extend(std::iter::repeat_n(copy.src.kind, plan.stages.len() - s0));
            if copy.wait.is_none() && !copy.notify_self {
                continue;
            }
            if plan.copies.len() == c0 {
                // All edges (PIO): a 4-byte copy into the receiver's scratch DW carries
                // the notification, after the edges like any descriptor.
                plan.carrier(self.slot_addr(&copy.dst, SCRATCH_OFF));
            }
            let idx = plan.copies.len() - 1;
            // The chip writes NOTIFY_VALUE + (descriptors done) into the slots.
            let count = idx as u32 + 1;
            if let Some(w) = copy.wait {
                if rx.is_some() {
                    return Err(TcaError::Notification(
                        "one receiver notification per chain (the channel has one NOTIFY_RX register)"
                            .into(),
                    ));
                }
                let off = slot_off(self.node, w.slot, copy.dst.slot_count);
                rx = Some((self.slot_addr(&copy.dst, off), w.tag));
                value_base = Some(w.tag.wrapping_sub(count));
                notify.push((idx, flags::NOTIFY_RX));
            }
            if copy.notify_self {
                if self_at.is_some() {
                    return Err(TcaError::Notification(
                        "one notify-self copy per chain".into(),
                    ));
                }
                self_at = Some(idx);
                notify.push((idx, flags::NOTIFY_SELF));
            }
        }
        let base = value_base.unwrap_or(0);
        let self_value = self_at.map(|i| base.wrapping_add(i as u32 + 1));
        let n = plan.copies.len();
        // Release the previous chain's resources first, so a chain can replace itself.
        if let Some(old) = self.channels[c].chain.take() {
            self.release(old)?;
        }
        let bounce = if plan.bounce_bytes > 0 {
            Some(self.mem.alloc(MemKind::Host, plan.bounce_bytes, 16)?)
        } else {
            None
        };
        let placed = match placement {
            Placement::Internal => {
                let free = self.desc_mem.free_total() as usize;
                self.desc_mem
                    .alloc(n as u64, 1)
                    .map(|first| Placed::Internal {
                        first: first as u32,
                        count: n as u32,
                    })
                    .map_err(|_| TcaError::DescriptorMemoryFull { needed: n, free })
            }
            Placement::Host => {
                let bytes = n as u64 * u64::from(DESC_BYTES);
                self.mem
                    .alloc(MemKind::Host, bytes, u64::from(DESC_BYTES))
                    .map(Placed::Host)
            }
        };
        let placed = match placed {
            Ok(p) => p,
            Err(e) => {
                if let Some(b) = bounce {
                    self.mem.free(MemKind::Host, b)?;
                }
                return Err(e);
            }
        };
        let prepared = Prepared {
            placed,
            plan,
            edge_ends,
            stage_src,
            bounce,
            uses,
            self_value,
            descriptors: n,
        };
        let base_addr = match placed {
            Placed::Internal { first, .. } => u64::from(first),
            Placed::Host(r) => r.bus_addr,
        };
        let descs = descriptors(&prepared.plan, &notify, bounce, placement, base_addr);
        let written = match placed {
            Placed::Internal { first, .. } => write_internal(&mut self.mmio, first, &descs),
            Placed::Host(r) => write_host(&mut self.mem, r, &descs).and_then(|_| {
                self.mmio
                    .write64(channel_reg(u32::from(ch), CH_DESC_LO), r.bus_addr)
            }),
        };
        let programmed = written.and_then(|_| {
            let (rx_addr, _) = rx.unwrap_or((0, 0));
            let reg = |r| channel_reg(u32::from(ch), r);
            self.mmio.write64(reg(CH_NOTIFY_RX_LO), rx_addr)?;
            let self_addr = self.area.bus_addr + self_slot_off(ch);
            self.mmio.write64(reg(CH_NOTIFY_SELF_LO), self_addr)?;
            self.mmio.write32(reg(CH_NOTIFY_VALUE), base)
        });
        if let Err(e) = programmed {
            self.release(prepared)?;
            return Err(e);
        }
        self.channels[c].chain = Some(prepared);
        Ok(())
    }

    fn release(&mut self, p: Prepared) -> Result<(), TcaError> {
        if let Some(b) = p.bounce {
            self.mem.free(MemKind::Host, b)?;
        }
        match p.placed {
            Placed::Internal { first, count } => self
                .desc_mem
                .free(u64::from(first), u64::from(count))
                .map_err(|e| TcaError::Invalid(e.to_string())),
            Placed::Host(r) => self.mem.free(MemKind::Host, r),
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
    /// buffer, writes the edges by PIO, clears the self slot, then one register write.
    pub fn start(&mut self, ch: u8) -> Result<(), TcaError> {
        let c = self.channel(ch)?;
        if self.channels[c].running {
            return Err(TcaError::ChannelBusy(ch));
        }
        let p = self.channels[c].chain.take().ok_or(TcaError::NoChain(ch))?;
        let result = self.launch(ch, &p);
        self.channels[c].chain = Some(p);
        result?;
        self.channels[c].running = true;
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
        if p.self_value.is_some() {
            self.mem.write(
                MemKind::Host,
                self.area.bus_addr + self_slot_off(ch),
                &[0; 4],
            )?;
        }
        let control = match p.placed {
            Placed::Internal { first, .. } => CONTROL_START | (first << CONTROL_INDEX_SHIFT),
            Placed::Host(_) => CONTROL_START | CONTROL_HOST,
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
                let cause = ErrorCause::from_code((status >> 4) & 0xF).unwrap_or(ErrorCause::None);
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

    /// Waits until the notify-self copy of `ch`'s chain is done (a poll of host memory,
    /// cheaper than reading the channel's status over PCIe).
    pub fn wait_self(&mut self, ch: u8) -> Result<(), TcaError> {
        let c = self.channel(ch)?;
        let want = self.channels[c]
            .chain
            .as_ref()
            .and_then(|p| p.self_value)
            .ok_or_else(|| {
                TcaError::Notification(format!("channel {ch}'s chain does not notify self"))
            })?;
        let addr = self.area.bus_addr + self_slot_off(ch);
        if self.mem.poll_until(addr, want, self.limits.polls)? {
            return Ok(());
        }
        Err(TcaError::Timeout(format!(
            "channel {ch}'s self notification"
        )))
    }

    /// The address of slot `slot` for notifications from node `from`, checked.
    fn recv_slot(&self, from: u8, slot: u16, tag: u32) -> Result<u64, TcaError> {
        let count = self.area.handle.slot_count;
        if slot >= count {
            return Err(TcaError::NoSlot(slot, count));
        }
        if tag == 0 {
            return Err(TcaError::Notification(
                "tag 0 is what a cleared slot holds; no notification carries it".into(),
            ));
        }
        if from != self.node && !self.reachable(from) {
            return Err(TcaError::UnknownNode(from));
        }
        Ok(self.area.bus_addr + slot_off(from, slot, count))
    }

    /// True (and the slot cleared) if slot `slot` holds `tag` from node `from`
    /// (`tcaTestDMARecvDesc`; this node itself for its local copies' notifications).
    pub fn test_recv(&mut self, from: u8, slot: u16, tag: u32) -> Result<bool, TcaError> {
        let addr = self.recv_slot(from, slot, tag)?;
        if !self.mem.poll_until(addr, tag, 1)? {
            return Ok(false);
        }
        self.mem.write(MemKind::Host, addr, &[0; 4])?;
        Ok(true)
    }

    /// Waits until slot `slot` holds `tag` from node `from`, then clears it
    /// (`tcaWaitDMARecvDesc`).
    pub fn wait_recv(&mut self, from: u8, slot: u16, tag: u32) -> Result<(), TcaError> {
        let addr = self.recv_slot(from, slot, tag)?;
        if !self.mem.poll_until(addr, tag, self.limits.polls)? {
            return Err(TcaError::Timeout(format!(
                "node {from}'s slot {slot} tag {tag:#x}"
            )));
        }
        self.mem.write(MemKind::Host, addr, &[0; 4])
    }
}
