//! The debugging options `peach2 sim` and `peach2 run` share: a VCD window of chip
//! internals (for GTKWave), a log of every TLP on every cable, and the longest window
//! the nodes run apart (1: the sequential reference the parallel runs must equal).

use clap::Args;
use peach2_sim::cluster::Cluster;
use peach2_sim::SimError;
use std::path::PathBuf;

/// Where to trace a cluster.
#[derive(Args, Clone, Debug)]
pub struct TraceArgs {
    /// Write a VCD of the chips' internal signals here.
    #[arg(long)]
    vcd: Option<PathBuf>,
    /// Chips (node indices, comma separated) to trace.
    #[arg(long, value_delimiter = ',', default_value = "0")]
    vcd_chips: Vec<usize>,
    /// First cycle (from reset) of the VCD window.
    #[arg(long, default_value_t = 0)]
    vcd_from: u64,
    /// End cycle (exclusive) of the VCD window.
    #[arg(long, default_value_t = 20_000)]
    vcd_to: u64,
    /// Write every TLP entering a cable here, one JSON line each.
    #[arg(long)]
    tlp_log: Option<PathBuf>,
    /// Longest window, in cycles, the nodes run apart before the cables' messages are
    /// handed over (default and maximum: the shortest cable latency). Results are the
    /// same for any value; 1 runs the cluster one cycle at a time, the sequential
    /// reference to compare a parallel run against.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    window_limit: Option<u64>,
}

impl TraceArgs {
    /// A VCD was asked for.
    pub fn vcd(&self) -> bool {
        self.vcd.is_some()
    }

    /// Starts the traces on `c` (before bring-up, so they cover it). In a process other
    /// than the root of an MPI job (`root` false) the TLP log's lines go to the root,
    /// which writes the file.
    pub fn apply(&self, c: &mut Cluster, root: bool) -> Result<(), SimError> {
        if let Some(w) = self.window_limit {
            c.set_window_limit(w)?;
        }
        if !root {
            if self.tlp_log.is_some() {
                c.log_tlps(Box::new(std::io::sink()));
            }
            return Ok(());
        }
        if let Some(path) = &self.tlp_log {
            let f = std::fs::File::create(path).map_err(|source| SimError::Io {
                path: path.display().to_string(),
                source,
            })?;
            c.log_tlps(Box::new(std::io::BufWriter::new(f)));
        }
        if let Some(path) = &self.vcd {
            c.trace_vcd(&self.vcd_chips, self.vcd_from, self.vcd_to, path)?;
        }
        Ok(())
    }
}
