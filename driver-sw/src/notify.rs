//! Notifications: where they land and how a waiting CPU finds them
//! (`tcaWaitDMARecvDesc`, `tcaTestDMARecvDesc`).
//!
//! A notification is the 4-byte tag a chain writes after a copy's data, on the data's
//! path, into the receiver's entry for (sender node, slot). The entry lives in one of two
//! places, chosen per copy by the sender ([`NotifyPlace`]):
//!
//! - [`NotifyPlace::Host`]: the receiver's notification area in host memory
//!   ([`crate::Tca`] allocates it at open; handles carry its global address). The waiting
//!   CPU spins on its cache line.
//! - [`NotifyPlace::Chip`]: the receiving chip's notification store
//!   ([`peach2_regmap::notify`], `tcaDMAUseNotifyInternal`). The notification never
//!   crosses the receiver's host link; the waiting CPU reads the entry over PCIe.
//!
//! A receiver does not know which place a sender chose, so a wait polls the place where
//! its last notification was found (at first: where this process's own chains send
//! theirs, [`crate::Tca::set_notify_poll`]), and looks at the other place now and then
//! ([`NotifyPlace::other_every`]): rarely enough that the look costs the expected
//! place's waits nothing measurable, often enough that a notification in the other place
//! is found within a fraction of a millisecond. A wait that finds its tag clears the entry, so the same
//! (slot, tag) can be awaited again.

use crate::device::Tca;
use crate::error::TcaError;
use crate::handle::{Handle, MemKind};
use crate::hw::{DmaMemory, Mmio};
use peach2_regmap::address::{GlobalAddr, Target};
use peach2_regmap::notify;

/// Where a copy's notifications land.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum NotifyPlace {
    /// The receiver's host memory.
    #[default]
    Host,
    /// The receiving chip's notification store.
    Chip,
}

impl NotifyPlace {
    fn other(self) -> NotifyPlace {
        match self {
            NotifyPlace::Host => NotifyPlace::Chip,
            NotifyPlace::Chip => NotifyPlace::Host,
        }
    }

    /// A CPU waiting on this place looks at the other once per this many polls. A poll
    /// of host memory is a cache hit of a few nanoseconds, so a look at the chip (a PCIe
    /// read of a microsecond, during which a notification in host memory goes unseen)
    /// comes once per 65536 of them, about every 0.3 ms; a poll of the chip is such a
    /// read, and a look at host memory costs a cache hit, so it comes every 16th.
    pub fn other_every(self) -> u64 {
        match self {
            NotifyPlace::Host => 1 << 16,
            NotifyPlace::Chip => 16,
        }
    }

    /// What a poll of this place weighs against a wait's limit, in host-memory polls.
    fn weight(self) -> u64 {
        match self {
            NotifyPlace::Host => 1,
            NotifyPlace::Chip => HOST_POLLS_PER_READ,
        }
    }
}

/// Polls of a cached host-memory word (a few nanoseconds each) that take as long as one
/// PCIe read of a chip register (about a microsecond): a wait's limit of
/// [`crate::device::Limits::polls`] register reads allows this many times as many host polls.
pub const HOST_POLLS_PER_READ: u64 = 256;

/// Byte offset, in a host notification area of `slot_count` slots per sender, of slot
/// `slot` for notifications from node `sender`.
pub(crate) fn slot_off(sender: u8, slot: u16, slot_count: u16) -> u64 {
    4 * (u64::from(sender) * u64::from(slot_count) + u64::from(slot))
}

impl<M: Mmio, D: DmaMemory> Tca<M, D> {
    /// The address this chip writes for a notification from this node to `slot` of the
    /// node owning `receiver`, landing in `place`.
    pub(crate) fn notify_addr(&self, receiver: &Handle, slot: u16, place: NotifyPlace) -> u64 {
        match place {
            NotifyPlace::Host if receiver.node == self.node => {
                self.area.bus_addr + slot_off(self.node, slot, self.area.handle.slot_count)
            }
            NotifyPlace::Host => receiver.slots + slot_off(self.node, slot, receiver.slot_count),
            NotifyPlace::Chip => {
                let off = notify::internal_offset(u32::from(self.node), u32::from(slot));
                GlobalAddr::new(receiver.node, Target::Internal, off)
                    .expect("node ids come from handles checked against the route table")
                    .to_u64()
            }
        }
    }

    /// Where waits look first ([`NotifyPlace::Host`] at open); the C layer sets it from
    /// the flags of this process's own chains.
    pub fn set_notify_poll(&mut self, place: NotifyPlace) {
        self.notify_poll = place;
    }

    /// Checks a wait's arguments.
    fn check_recv(&self, from: u8, slot: u16, tag: u32) -> Result<(), TcaError> {
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
        Ok(())
    }

    /// Polls the entry of (`from`, `slot`) in `place` up to `polls` times for `tag`; clears
    /// it and returns true once it held it.
    fn poll_place(
        &mut self,
        place: NotifyPlace,
        from: u8,
        slot: u16,
        tag: u32,
        polls: u64,
    ) -> Result<bool, TcaError> {
        let found = match place {
            NotifyPlace::Host => {
                let count = self.area.handle.slot_count;
                let addr = self.area.bus_addr + slot_off(from, slot, count);
                let found = self.mem.poll_until(addr, tag, polls)?;
                if found {
                    self.mem.write(MemKind::Host, addr, &[0; 4])?;
                }
                found
            }
            NotifyPlace::Chip => {
                let off = notify::bar0_offset(u32::from(from), u32::from(slot));
                let found = self.mmio.poll_until(off, tag, polls)?;
                if found {
                    self.mmio.write32(off, 0)?;
                }
                found
            }
        };
        if found {
            self.notify_poll = place;
            if from == self.node {
                self.own_notification_seen(slot, tag);
            }
        }
        Ok(found)
    }

    /// True (and the entry cleared) if slot `slot` holds `tag` from node `from`
    /// (`tcaTestDMARecvDesc`; this node itself for its own chains' notifications). One
    /// poll of the expected place; every [`NotifyPlace::other_every`]th test that misses
    /// also polls the other.
    pub fn test_recv(&mut self, from: u8, slot: u16, tag: u32) -> Result<bool, TcaError> {
        self.check_recv(from, slot, tag)?;
        let first = self.notify_poll;
        if self.poll_place(first, from, slot, tag, 1)? {
            return Ok(true);
        }
        self.tests_missed += 1;
        Ok(self.tests_missed.is_multiple_of(first.other_every())
            && self.poll_place(first.other(), from, slot, tag, 1)?)
    }

    /// Waits until slot `slot` holds `tag` from node `from`, then clears it
    /// (`tcaWaitDMARecvDesc`).
    pub fn wait_recv(&mut self, from: u8, slot: u16, tag: u32) -> Result<(), TcaError> {
        self.check_recv(from, slot, tag)?;
        // The budget is in host-memory polls: a chip poll (a PCIe read) weighs as many.
        let mut left = self.limits.polls.saturating_mul(HOST_POLLS_PER_READ);
        while left > 0 {
            let first = self.notify_poll;
            let n = first.other_every();
            if self.poll_place(first, from, slot, tag, n)?
                || self.poll_place(first.other(), from, slot, tag, 1)?
            {
                return Ok(());
            }
            left = left.saturating_sub(n * first.weight() + first.other().weight());
        }
        Err(TcaError::Timeout(format!(
            "node {from}'s slot {slot} tag {tag:#x}"
        )))
    }
}
