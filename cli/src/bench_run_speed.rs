//! `peach2 bench run-speed`: what running a program costs over the chips' own cost. A
//! ping-pong program built with `peach2 cc` runs under `peach2 run`, and the driver's
//! ping-pong (`peach2 bench pingpong`) runs the same sizes on the same cluster; both
//! print the simulated cycles per wall-clock second (bring-up included in both).

use crate::CliError;
use clap::Args;
use peach2_driver::{NotifyPlace, Placement};
use peach2_run::{Outcome, RunConfig};
use peach2_sim::topology::Topology;
use peach2_testbench::pingpong::{self, Mem, PingPong};
use peach2_testbench::profile::Profile;
use std::path::PathBuf;
use std::time::Instant;

/// Program-run speed options.
#[derive(Args)]
pub struct RunSpeedArgs {
    /// The ping-pong program (built from `examples/tca/pingpong.c` with `peach2 cc`); it
    /// gets `-i ITERS` and the sizes as its arguments.
    #[arg(long)]
    program: PathBuf,
    /// Sizes in bytes (comma separated).
    #[arg(long, value_delimiter = ',', default_value = "8,256,4096,65536,262144")]
    sizes: Vec<u64>,
    /// Timed rounds per size, of both.
    #[arg(long, default_value_t = 8)]
    iters: u32,
    /// A preset or a topology file.
    #[arg(long, default_value = "ring2")]
    topology: String,
}

/// Runs `peach2 bench run-speed`.
pub fn run(a: RunSpeedArgs) -> Result<(), CliError> {
    let topology = Topology::load(&a.topology)
        .and_then(|t| t.with_routing("dateline"))
        .map_err(|e| CliError::Input(e.to_string()))?;
    let profile = Profile::ha_pacs();
    let mut args = vec!["-i".to_string(), a.iters.to_string()];
    args.extend(a.sizes.iter().map(u64::to_string));
    let t = Instant::now();
    let report = peach2_run::run(
        RunConfig {
            topology: topology.clone(),
            profile: profile.clone(),
            ranks: Some(2),
            threads: 1,
            program: a.program.clone(),
            args,
            stall_ms: 20.0,
            setup: Box::new(|_| Ok(())),
        },
        Box::new(std::io::sink()),
        Box::new(std::io::stderr()),
    )
    .map_err(|e| CliError::Failure(e.to_string()))?;
    let run_wall = t.elapsed().as_secs_f64();
    if report.outcome != Outcome::Success {
        return Err(CliError::Failure(format!(
            "{}: {:?}",
            a.program.display(),
            report.outcome
        )));
    }
    let cfg = PingPong {
        topology,
        src: 0,
        dst: 1,
        mem: Mem::Gpu,
        desc: Placement::Internal,
        // As the program: notifications in the receiving chip.
        notify: NotifyPlace::Chip,
        sizes: a.sizes.clone(),
        iters: a.iters,
        profile,
        window_limit: None,
    };
    let t = Instant::now();
    let (_, bench_cycles) = pingpong::run_counted(&cfg, &mut |_, _| {})
        .map_err(|e| CliError::Failure(e.to_string()))?;
    let bench_wall = t.elapsed().as_secs_f64();
    let run_rate = report.total_cycles as f64 / run_wall;
    let bench_rate = bench_cycles as f64 / bench_wall;
    println!(
        "peach2 run {}: {} cycles in {run_wall:.2} s: {run_rate:.0} cycles/s",
        a.program.display(),
        report.total_cycles
    );
    println!(
        "peach2 bench pingpong (GPU, internal, notify internal): {bench_cycles} cycles in {bench_wall:.2} s: {bench_rate:.0} cycles/s"
    );
    println!(
        "peach2 run / bench pingpong: {:.2} (goal: at least 0.90)",
        run_rate / bench_rate
    );
    Ok(())
}
