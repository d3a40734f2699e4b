//! Stores on their way from a node's cores to its root port.
//!
//! A core's store to a BAR (an uncached or write-combined mapping) is posted: the core
//! hands it to the uncore and goes on, and the write reaches the root port
//! [`crate::profile::CpuCosts::uncached_leg`] later. Every CPU access to a device travels
//! that same leg, so the stores leave in the order they were issued and before any later
//! load of the same core: one queue per node, in time order, keeps both.

use pcie_model::tlp::Tlp;
use std::collections::VecDeque;

/// A store in flight: it reaches the root port at cycle `due`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PostedStore {
    /// The cycle it reaches the root port.
    pub due: u64,
    /// Its write TLPs, made (and checked) when the core stored.
    pub tlps: Vec<Tlp>,
}

/// The stores in flight of one node, oldest first.
#[derive(Clone, Debug, Default)]
pub struct PostedStores(VecDeque<PostedStore>);

impl PostedStores {
    /// Queues `store`. Stores come in the order of their `due` cycles (every store takes
    /// the same leg, and cores issue in time order).
    pub fn push(&mut self, store: PostedStore) {
        debug_assert!(
            self.0.back().is_none_or(|s| s.due <= store.due),
            "stores queued out of time order"
        );
        self.0.push_back(store);
    }

    /// The cycle the oldest store reaches its root port.
    pub fn next_due(&self) -> Option<u64> {
        self.0.front().map(|s| s.due)
    }

    /// The oldest store, if it is due by cycle `now`.
    pub fn pop_due(&mut self, now: u64) -> Option<PostedStore> {
        if self.next_due()? <= now {
            self.0.pop_front()
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pcie_model::tlp::{Addr, Bdf, Tag};

    fn store(due: u64, addr: u64) -> PostedStore {
        let tlp = Tlp::mem_write(Bdf(0), Tag(0), Addr(addr), &[due as u8; 4]);
        PostedStore {
            due,
            tlps: vec![tlp.unwrap()],
        }
    }

    fn addr(s: PostedStore) -> u64 {
        s.tlps[0].address().unwrap().0
    }

    #[test]
    fn stores_leave_when_due_in_issue_order() {
        let mut q = PostedStores::default();
        q.push(store(10, 0));
        q.push(store(10, 0x40));
        q.push(store(12, 0));
        assert_eq!(q.next_due(), Some(10));
        assert_eq!(q.pop_due(9), None);
        assert_eq!(q.pop_due(10).map(addr), Some(0));
        assert_eq!(q.pop_due(10).map(addr), Some(0x40));
        assert_eq!(q.pop_due(11), None);
        assert_eq!(q.pop_due(20).map(|s| s.due), Some(12));
        assert_eq!(q.next_due(), None);
    }
}
