//! Deadlock and livelock detection: traffic outstanding, nothing moving for the
//! topology's `stall_cycles`, reported with where every queue stands.

use crate::cluster::Cluster;
use crate::error::SimError;
use peach2_regmap::csr::Port;

impl Cluster {
    /// Where traffic is waiting, for stall reports.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        for (n, node) in self.nodes.iter().enumerate() {
            let st = &self.state[n];
            s += &format!(
                "{} (id {}): host {} beats to send, idle {}; N link: to chip {}; to host {}\n",
                node.name,
                node.id,
                node.host.pending_beats(),
                node.host.is_idle(),
                node.n_link.dirs[0].describe(self.cycle),
                node.n_link.dirs[1].describe(self.cycle)
            );
            for port in Port::ALL {
                let p = port.index() as usize;
                if st.inputs.rx[p].is_some()
                    || st.tx_sent[p].is_some()
                    || !st.inputs.tx_ready[p] && st.inputs.up[p]
                {
                    s += &format!(
                        "  {}.{port:?}: RX offered {} taken {}, TX ready {}\n",
                        node.name,
                        st.inputs.rx[p].is_some(),
                        st.rx_taken[p],
                        st.inputs.tx_ready[p]
                    );
                }
            }
        }
        for c in &self.cables {
            if c.link.occupancy() > 0 {
                for (i, d) in c.link.dirs.iter().enumerate() {
                    s += &format!("cable {} dir {}: {}\n", c.name, i, d.describe(self.cycle));
                }
            }
        }
        s
    }

    /// Reports a stall if traffic is in flight and nothing moved for the topology's
    /// `stall_cycles`.
    pub fn check_progress(&self, pending: bool) -> Result<(), SimError> {
        // Checked every 1024 cycles: finding what is in flight walks every queue.
        if !self.cycle.is_multiple_of(1024) {
            return Ok(());
        }
        let idle = self.cycle - self.last_progress;
        if idle >= self.topology.params.stall_cycles && (pending || self.in_flight()) {
            let mut report = self.describe();
            if !self.in_flight() {
                report.insert_str(
                    0,
                    "traffic is outstanding but nothing is in flight: TLPs were lost or dropped\n",
                );
            }
            return Err(SimError::Stuck {
                cycle: self.cycle,
                idle,
                report,
            });
        }
        Ok(())
    }
}
