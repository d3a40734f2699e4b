//! `peach2 sim`: run a simulated PEACH2 cluster (Verilated chips, host and GPU models,
//! Gen2 x8 cables) under a traffic scenario; optional VCD of chip internals and a JSON
//! log of every TLP on every cable; a JSON summary for benchmarks. Under `mpirun -np K`
//! the cluster's nodes are spread over the K processes; rank 0 prints and logs, the
//! same as one process would.

use crate::processes;
use crate::profile_arg::{profile, DEFAULT_PROFILE};
use crate::trace_args::TraceArgs;
use crate::CliError;
use clap::Args;
use pcie_model::time::Clock;
use peach2_sim::cluster::{Backend, Cluster};
use peach2_sim::faults::{self, FaultSpec};
use peach2_sim::partition::{Partition, Transport};
use peach2_sim::scenario::{flows, Kind, Traffic};
use peach2_sim::setup::bring_up;
use peach2_sim::topology::Topology;
use peach2_sim::SimError;
use std::rc::Rc;
use std::time::Instant;

/// Simulate a cluster under traffic.
#[derive(Args)]
pub struct SimArgs {
    /// A preset (`ring2` .. `ring64`, `2x2` .. `2x32`; `2x8` is the HA-PACS/TCA group) or a
    /// topology file (`.toml`).
    #[arg(long, default_value = "ring2")]
    topology: String,
    /// Traffic: `pingpong`, `neighbor`, `alltoall` (CPU PIO writes through BAR2), `dma`
    /// (every node's DMA to the next node, chains of two host-memory descriptors a
    /// chunk) or `idle`.
    #[arg(long, default_value = "neighbor")]
    scenario: String,
    /// Cluster cycles of traffic to simulate (after bring-up).
    #[arg(long, default_value_t = 100_000)]
    cycles: u64,
    /// Bytes per PIO write, or per DMA chain (`dma`: a multiple of 16).
    #[arg(long, default_value_t = 256)]
    chunk: usize,
    /// Routing: `dateline` (routes avoid each ring's wrap-around cable: deadlock-free)
    /// or `shortest` (both ways round a ring; rings can deadlock under all-to-all
    /// traffic, as the chip has no virtual channels).
    #[arg(long, default_value = "dateline")]
    routing: String,
    /// Model parameters of links, hosts and GPUs: `ha-pacs` (calibrated) or `default`
    /// (the models' own defaults).
    #[arg(long, default_value = DEFAULT_PROFILE)]
    profile: String,
    /// Chip model: `verilated` or `rust-hdl` (slow; for cross-checks).
    #[arg(long, default_value = "verilated")]
    backend: String,
    /// Print the summary as one JSON object.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    trace: TraceArgs,
    /// Threads that run the nodes, window by window (results are the same for any
    /// count; busy clusters run faster on more cores).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Inject faults during the traffic: `all=R` or `KIND=R,...` with R faults per
    /// million cycles; kinds `malformed`, `unroutable`, `poisoned`, `stall`, `overlong`,
    /// `badtype`, `completion`, `badbe`, `config`, `linkdown`, and for the DMA
    /// (`--scenario dma`) `readerr`, `cpltimeout`, `baddesc` (see `sim/src/faults.rs`). The flows then drain and the summary says what the chips
    /// and hosts detected and whether every flow arrived intact.
    #[arg(long)]
    faults: Option<String>,
    /// Seed of the fault injection (the same seed, the same faults).
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

fn sim_error(e: SimError) -> CliError {
    match e {
        SimError::Topology(_) | SimError::Scenario(_) => CliError::Input(e.to_string()),
        _ => CliError::Failure(e.to_string()),
    }
}

/// Runs `peach2 sim`. In an MPI job, a failure in any process ends the job.
pub fn run(args: SimArgs) -> Result<(), CliError> {
    let job = processes::job()?;
    // The job outlives the cluster that shares it, to end the job after a failure.
    match run_in(args, job.clone()) {
        Err(e) if job.is_some() => processes::abort_job(&e),
        r => r,
    }
}

fn run_in(args: SimArgs, job: Option<Rc<dyn Transport>>) -> Result<(), CliError> {
    let kind: Kind = args.scenario.parse().map_err(sim_error)?;
    let backend = match args.backend.as_str() {
        "verilated" => Backend::Verilated,
        "rust-hdl" => Backend::RustHdl,
        b => {
            return Err(CliError::Input(format!(
                "unknown backend {b:?} (verilated, rust-hdl)"
            )))
        }
    };
    if args.chunk == 0 || !args.chunk.is_multiple_of(4) || args.chunk > 4096 {
        return Err(CliError::Input(format!(
            "--chunk {}: 4..=4096, a multiple of 4",
            args.chunk
        )));
    }
    let spec: Option<FaultSpec> = args
        .faults
        .as_deref()
        .map(str::parse)
        .transpose()
        .map_err(sim_error)?;
    let profile = profile(&args.profile)?;
    let mut topology = Topology::load(&args.topology)
        .and_then(|t| t.with_routing(&args.routing))
        .map_err(sim_error)?;
    profile.apply(&mut topology).map_err(sim_error)?;
    if job.is_some() && args.trace.vcd() {
        return Err(CliError::Input(
            "--vcd under mpirun: a VCD needs its chips in one process; run without mpirun".into(),
        ));
    }
    let root = job.as_ref().is_none_or(|j| j.rank() == 0);
    let processes = job.as_ref().map_or(1, |j| j.size());
    let t0 = Instant::now();
    let mut c = Cluster::new(topology, backend).map_err(sim_error)?;
    c.set_threads(args.threads).map_err(sim_error)?;
    args.trace.apply(&mut c, root).map_err(sim_error)?;
    // Every process brings the whole cluster up (the same simulation everywhere), then
    // runs its own nodes.
    let ready = bring_up(&mut c).map_err(sim_error)?;
    if let Some(job) = job {
        let p = Partition::blocks(c.nodes.len(), Box::new(job)).map_err(sim_error)?;
        c.set_partition(p).map_err(sim_error)?;
    }
    let setup_s = t0.elapsed().as_secs_f64();
    let mut traffic = Traffic::new(&c, flows(kind, c.nodes.len(), args.chunk, None));
    let run = match spec {
        None => traffic.run(&mut c, args.cycles, false).map(|()| None),
        Some(spec) => faults::run(&mut c, &mut traffic, spec, args.seed, args.cycles).map(Some),
    };
    c.finish().map_err(sim_error)?;
    let faults = run.map_err(sim_error)?;
    if !root {
        return Ok(());
    }
    let s = &traffic.summary;
    if args.json {
        let v = serde_json::json!({
            "topology": args.topology,
            "scenario": args.scenario,
            "profile": profile.name,
            "nodes": c.nodes.len(),
            "threads": c.threads(),
            "processes": processes,
            "cycles": s.cycles,
            "wall_s": s.wall_s,
            "cycles_per_s": s.cycles_per_s,
            "bytes_delivered": s.bytes_delivered,
            "errors": s.errors,
            "chunks_delivered": s.chunks_delivered,
            "chunks_failed": s.chunks_failed,
            "chunks_lost": s.chunks_lost,
            "evals_skipped_share": s.evals_skipped_share,
            "lookahead_cycles": s.lookahead_cycles,
            "windows": s.windows,
            "setup_cycles": c.cycle - s.cycles,
            "links_ready_after_plug_cycles": ready,
            "setup_wall_s": setup_s,
            "first_errors": s.first_errors,
            "faults": faults,
        });
        println!("{v}");
    } else {
        println!(
            "{} nodes, {}, profile {}: {} cycles in {:.2} s ({:.0} cycles/s), {} bytes delivered ({:.2} GB/s at {} MHz), {} errors",
            c.nodes.len(),
            args.scenario,
            profile.name,
            s.cycles,
            s.wall_s,
            s.cycles_per_s,
            s.bytes_delivered,
            s.bytes_delivered as f64 / s.cycles.max(1) as f64 * (Clock::CORE_250MHZ.hz() as f64 / 1e9),
            Clock::CORE_250MHZ.hz() / 1_000_000,
            s.errors
        );
        if let Some(f) = &faults {
            println!(
                "faults (seed {}): injected {}; detected {} (expected {}); flows intact {} of {}; silent corruptions {}",
                f.seed,
                serde_json::json!(f.faults_injected),
                serde_json::json!(f.faults_detected),
                serde_json::json!(f.faults_expected),
                f.flows_unaffected_intact,
                f.flows_unaffected,
                f.silent_corruptions
            );
        }
    }
    if s.errors > 0 {
        return Err(CliError::Failure(format!(
            "scoreboard: {:?}",
            s.first_errors
        )));
    }
    Ok(())
}
