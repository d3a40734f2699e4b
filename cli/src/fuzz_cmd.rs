//! `peach2 fuzz`: the Verilated core under random and malformed traffic on every port
//! for as long as asked, seed after seed (`peach2_sim::fuzz` has what is checked).

use crate::CliError;
use clap::Args;
use peach2_sim::chip::VlChip;
use peach2_sim::fuzz::{fuzz_chip, FuzzConfig, FuzzError};
use peach2_sim::verilated::VlContext;
use std::time::Instant;

/// Fuzz the chip.
#[derive(Args)]
pub struct FuzzArgs {
    /// First seed (each run is the same for the same seed).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Seeds to run, from `--seed` up.
    #[arg(long, default_value_t = 1)]
    seeds: u64,
    /// Cycles of random traffic per seed.
    #[arg(long, default_value_t = 1_000_000)]
    cycles: u64,
    /// Per cycle and cable port, the chance its link goes down for 50-2000 cycles
    /// (between packets); 0 keeps every link up.
    #[arg(long, default_value_t = 0.0005)]
    link_down: f64,
}

/// Runs `peach2 fuzz`: one line per seed; the first violation ends the run (exit 1)
/// with the seed and cycle that reproduce it.
pub fn run(a: FuzzArgs) -> Result<(), CliError> {
    if a.cycles == 0 || a.seeds == 0 {
        return Err(CliError::Input(
            "--cycles and --seeds must be positive".into(),
        ));
    }
    if !(0.0..=1.0).contains(&a.link_down) {
        return Err(CliError::Input(
            "--link-down: a probability in 0..=1".into(),
        ));
    }
    let ctx = VlContext::new().map_err(|e| CliError::Failure(e.to_string()))?;
    for seed in a.seed..a.seed.saturating_add(a.seeds) {
        let mut chip = VlChip::new(&ctx, "fuzz").map_err(|e| CliError::Failure(e.to_string()))?;
        let cfg = FuzzConfig {
            seed,
            cycles: a.cycles,
            p_link_down: a.link_down,
        };
        let t = Instant::now();
        let r = fuzz_chip(&mut chip, &cfg).map_err(|e| match e {
            FuzzError::Violation { .. } => CliError::Failure(format!("the chip failed: {e}")),
            FuzzError::Sim(e) => CliError::Failure(format!("the simulator failed: {e}")),
        })?;
        let sum = |f: fn(&peach2_sim::fuzz::Counted) -> u32| -> u64 {
            r.counted.iter().map(|c| u64::from(f(c))).sum()
        };
        println!(
            "seed {seed:#x}: ok: {} cycles ({:.1} s), drained in {}; TLPs in {}, out {}, dropped {}, malformed {}; counters add up; a clean write from each of the {} cable ports forwarded afterwards",
            r.cycles,
            t.elapsed().as_secs_f64(),
            r.drain_cycles,
            sum(|c| c.tlps_in),
            sum(|c| c.tlps_out),
            sum(|c| c.drops),
            sum(|c| c.errors),
            r.forwarded_after
        );
    }
    Ok(())
}
