//! Deadlock and livelock detection: traffic outstanding, nothing moving for the
//! topology's `stall_cycles`, reported with where every queue stands.

use crate::cluster::Cluster;
use crate::error::SimError;
use peach2_regmap::csr::Port;

impl Cluster {
    /// Where traffic is waiting, for stall reports.
    pub fn describe(&self) -> String {
        let now = self.cycle;
        let mut s = String::new();
        for node in &self.nodes {
            let st = &node.state;
            let [host, chip] = &node.n_link.ends;
            s += &format!(
                "{} (id {}): host {} beats to send, idle {}; N link: to chip {}, {}; to host {}, {}\n",
                node.name,
                node.id,
                node.host.pending_beats(),
                node.host.is_idle(),
                host.tx.describe(),
                chip.rx.describe(now),
                chip.tx.describe(),
                host.rx.describe(now),
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
        for (ci, c) in self.cables.iter().enumerate() {
            for side in 0..2 {
                let Ok(e) = self.cable_end(ci, side) else {
                    continue;
                };
                if e.occupancy() > 0 {
                    s += &format!(
                        "cable {} end {side}: sending {}; receiving {}\n",
                        c.name,
                        e.tx.describe(),
                        e.rx.describe(now)
                    );
                }
            }
        }
        s
    }

    /// Reports a stall if traffic is in flight and nothing moved for the topology's
    /// `stall_cycles`. Looks only at the first call after each multiple of 1024 cycles:
    /// finding what is in flight walks every queue.
    pub fn check_progress(&mut self, pending: bool) -> Result<(), SimError> {
        if self.cycle / 1024 == self.progress_checked / 1024 {
            return Ok(());
        }
        self.progress_checked = self.cycle;
        let (last, in_flight) = self.progress()?;
        let idle = self.cycle - last;
        if idle >= self.topology.params.stall_cycles && (pending || in_flight) {
            let mut report = self.describe();
            if !in_flight {
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
