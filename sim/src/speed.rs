//! Speed benchmarks of the co-simulation: the raw Verilated core alone, and clusters
//! under traffic, so that the engine's overhead (the ratio of the two) can be measured.

use crate::chip::{reset, Chip, VlChip};
use crate::cluster::{Backend, Cluster};
use crate::scenario::{flows, Kind, Summary, Traffic};
use crate::setup::bring_up;
use crate::stimulus::RandomStimulus;
use crate::topology::Topology;
use crate::verilated::{VlContext, VlCore};
use crate::SimError;
use std::time::Instant;

/// Speed of one Verilated core without a cluster around it.
#[derive(Clone, Copy, Debug)]
pub struct RawSpeed {
    /// Cycles per second with constant inputs.
    pub idle_cycles_per_s: f64,
    /// Cycles per second with random traffic on all four ports and random `ready`.
    pub random_cycles_per_s: f64,
    /// Bytes of model state (what a fixed-point check compares).
    pub state_bytes: usize,
    /// Whether clock edges with unchanged inputs skip Verilator's input region.
    pub clocked_eval: bool,
}

/// Steps one core `cycles` cycles idle, then `cycles` cycles under random traffic.
pub fn raw(cycles: u64) -> Result<RawSpeed, SimError> {
    let ctx = VlContext::new()?;
    let mut chip = VlChip::new(&ctx, "raw")?;
    reset(&mut chip, 2)?;
    let t = Instant::now();
    for _ in 0..cycles {
        chip.settle()?;
        chip.tick()?;
    }
    let idle = cycles as f64 / t.elapsed().as_secs_f64();
    let mut stim = RandomStimulus::new(1);
    let t = Instant::now();
    for _ in 0..cycles {
        stim.drive(&mut chip);
        chip.settle()?;
        stim.sample(&chip);
        chip.tick()?;
    }
    let busy = cycles as f64 / t.elapsed().as_secs_f64();
    Ok(RawSpeed {
        idle_cycles_per_s: idle,
        random_cycles_per_s: busy,
        state_bytes: chip.core().state().len(),
        clocked_eval: VlCore::has_clocked_eval(),
    })
}

/// A cluster's speed run.
#[derive(Clone, Debug)]
pub struct ClusterSpeed {
    /// The scenario's summary (speed, scoreboard).
    pub summary: Summary,
    /// The process's peak resident memory so far, this cluster included (`None` where
    /// `/proc/self/status` does not say).
    pub peak_rss_bytes: Option<u64>,
}

/// The process's peak resident memory (`VmHWM`), where Linux reports it.
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))?
        .trim()
        .strip_suffix("kB")?
        .trim()
        .parse::<u64>()
        .ok()?;
    Some(kb * 1024)
}

/// Brings `topology` up on Verilated chips and runs `kind` traffic (`chunk`-byte PIO
/// writes) for `cycles` cycles, on `threads` threads; the summary has the speed and the
/// scoreboard's verdict.
pub fn cluster(
    topology: Topology,
    kind: Kind,
    chunk: usize,
    cycles: u64,
    threads: usize,
) -> Result<ClusterSpeed, SimError> {
    let mut c = Cluster::new(topology, Backend::Verilated)?;
    c.set_threads(threads)?;
    bring_up(&mut c)?;
    let mut traffic = Traffic::new(&c, flows(kind, c.nodes.len(), chunk, None));
    traffic.run(&mut c, cycles, false)?;
    c.finish()?;
    Ok(ClusterSpeed {
        summary: traffic.summary,
        peak_rss_bytes: peak_rss_bytes(),
    })
}
