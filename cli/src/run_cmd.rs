//! `peach2 run`: run a program built with `peach2 cc` on the simulated cluster, one rank
//! per node (like `mpirun`).

use crate::profile_arg::{profile, DEFAULT_PROFILE};
use crate::trace_args::TraceArgs;
use crate::CliError;
use clap::Args;
use pcie_model::time::{Clock, Cycles};
use peach2_run::{Outcome, RunConfig, RunError};
use peach2_sim::topology::Topology;
use std::path::PathBuf;
use std::process::ExitCode;

/// Run a TCA program on the simulated cluster.
#[derive(Args)]
pub struct RunArgs {
    /// A preset (`ring2` .. `ring64`, `2x2` .. `2x32`; `2x8` is the HA-PACS/TCA group) or a
    /// topology file (`.toml`).
    #[arg(long, default_value = "ring2")]
    topology: String,
    /// Ranks: 1 up to the number of nodes (default: one per node).
    #[arg(long)]
    np: Option<usize>,
    /// Model parameters: `ha-pacs` (calibrated) or `default`.
    #[arg(long, default_value = DEFAULT_PROFILE)]
    profile: String,
    /// Routing: `dateline` or `shortest` (see `peach2 sim --help`).
    #[arg(long, default_value = "dateline")]
    routing: String,
    /// Threads that evaluate the chips (the results are the same for any count).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Simulated milliseconds with every rank waiting and none making progress before
    /// the run stops with a report of what each rank waits in.
    #[arg(long, default_value_t = 20.0)]
    stall_ms: f64,
    /// Print the simulation's figures (cycles, speed) on stderr at the end.
    #[arg(long)]
    summary: bool,
    #[command(flatten)]
    trace: TraceArgs,
    /// The program and its arguments.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
    command: Vec<String>,
}

fn input(e: impl ToString) -> CliError {
    CliError::Input(e.to_string())
}

/// Runs `peach2 run`; the exit status is the first failing rank's, 0 when every rank
/// returned 0.
pub fn run(args: RunArgs) -> Result<ExitCode, CliError> {
    let profile = profile(&args.profile)?;
    if !args.stall_ms.is_finite() || args.stall_ms <= 0.0 {
        return Err(input("--stall-ms: a positive number of milliseconds"));
    }
    let topology = Topology::load(&args.topology)
        .and_then(|t| t.with_routing(&args.routing))
        .map_err(input)?;
    let (program, rest) = args
        .command
        .split_first()
        .ok_or_else(|| input("no program"))?;
    let trace = args.trace.clone();
    let cfg = RunConfig {
        topology,
        profile,
        ranks: args.np,
        threads: args.threads,
        program: PathBuf::from(program),
        args: rest.to_vec(),
        stall_ms: args.stall_ms,
        setup: Box::new(move |c| trace.apply(c, true)),
    };
    let report = peach2_run::run(
        cfg,
        Box::new(std::io::stdout()),
        Box::new(std::io::stderr()),
    )
    .map_err(|e| match e {
        RunError::Config(_) => input(e),
        _ => CliError::Failure(e.to_string()),
    })?;
    if args.summary {
        eprintln!(
            "peach2 run: profile {}, {} cycles ({:.1} us simulated) in {:.2} s, {:.0} cycles/s, {} windows ({:.1} cycles each)",
            args.profile,
            report.cycles,
            Clock::CORE_250MHZ.micros(Cycles(report.cycles)),
            report.wall_s,
            report.cycles as f64 / report.wall_s,
            report.windows,
            report.cycles as f64 / report.windows.max(1) as f64
        );
    }
    match report.outcome {
        Outcome::Success => Ok(ExitCode::SUCCESS),
        Outcome::RankFailed { rank, code, why } => {
            eprintln!("peach2 run: rank {rank} {why}");
            Ok(ExitCode::from(code.clamp(1, 255) as u8))
        }
        Outcome::Stalled(report) => {
            eprintln!("peach2 run: the ranks are stuck: {report}");
            Ok(ExitCode::from(3))
        }
        Outcome::Error(e) => Err(CliError::Failure(e)),
    }
}
