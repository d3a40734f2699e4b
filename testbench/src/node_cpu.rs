//! A node's CPU beside its node while the cluster runs: the stores it posted, on their
//! way to the root port, and what it waits for. As a [`NodeAgent`] it acts inside the
//! cluster's windows, before each of the node's cycles: a store reaching the root port
//! is handed over at its exact cycle without ending a window, and a wait is watched as
//! [`CpuWait`] says.

use crate::cpu_wait::CpuWait;
use crate::posted_stores::{PostedStore, PostedStores};
use peach2_sim::cluster::NodeAgent;
use peach2_sim::node::Node;
use peach2_sim::SimError;

/// One node's CPU: its stores in flight and its wait.
#[derive(Clone, Debug, Default)]
pub struct NodeCpu {
    /// What the CPU waits on.
    pub wait: CpuWait,
    /// Its posted stores, not yet at the root port.
    pub stores: PostedStores,
}

impl NodeCpu {
    /// Hands `node`'s root port the stores that reached it by cycle `now`.
    pub fn deliver(&mut self, node: &mut Node, now: u64) {
        while let Some(PostedStore { tlps, .. }) = self.stores.pop_due(now) {
            node.host.cpu().send_writes(tlps);
        }
    }
}

impl NodeAgent for NodeCpu {
    fn before_cycle(&mut self, node: &mut Node, now: u64) -> Result<(), SimError> {
        self.deliver(node, now);
        self.wait.check(node, now);
        Ok(())
    }
}
