//! `peach2 bench pingpong`: the paper's ping-pong benchmark through the TCA driver on
//! co-simulated chips; CSV on stdout (or a file), an SVG of the curves, a progress bar
//! on a terminal.

use crate::profile_arg::{profile, DEFAULT_PROFILE};
use crate::CliError;
use clap::{Args, Subcommand, ValueEnum};
use peach2_driver::{NotifyPlace, Placement};
use peach2_sim::scenario::Kind;
use peach2_sim::speed;
use peach2_sim::topology::Topology;
use peach2_sim::SimError;
use peach2_testbench::measured;
use peach2_testbench::pingpong::{self, BenchError, Mem, PingPong, Row};
use peach2_testbench::plot::{self, Series};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

/// Benchmarks on the co-simulated cluster.
#[derive(Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    command: BenchCommand,
}

#[derive(Subcommand)]
enum BenchCommand {
    /// DMA ping-pong between two nodes: latency and bandwidth per size.
    Pingpong(PingPongArgs),
    /// Simulation speed: the raw Verilated core, then clusters under traffic on every
    /// node; one JSON object per line, with the engine's overhead.
    SimSpeed(SimSpeedArgs),
    /// `peach2 run` of a ping-pong program against `bench pingpong`: the cost of
    /// running a program's ranks, in simulated cycles per second.
    RunSpeed(crate::bench_run_speed::RunSpeedArgs),
}

/// Simulation-speed options.
#[derive(Args)]
struct SimSpeedArgs {
    /// Topologies to run (comma separated presets or files).
    #[arg(long, value_delimiter = ',', default_value = "ring2,2x8")]
    topology: Vec<String>,
    /// Traffic on every node: `neighbor`, `alltoall`, `pingpong` or `idle`.
    #[arg(long, default_value = "neighbor")]
    scenario: String,
    /// Routing: `dateline` or `shortest`.
    #[arg(long, default_value = "dateline")]
    routing: String,
    /// Cluster cycles of traffic per topology.
    #[arg(long, default_value_t = 20_000)]
    cycles: u64,
    /// Cycles of the raw core (idle, then random traffic).
    #[arg(long, default_value_t = 200_000)]
    raw_cycles: u64,
    /// Thread counts to run each topology with (comma separated;
    /// default: 1 and this machine's core count).
    #[arg(long, value_delimiter = ',')]
    threads: Vec<usize>,
    /// Model parameters: `ha-pacs` (calibrated) or `default`.
    #[arg(long, default_value = DEFAULT_PROFILE)]
    profile: String,
    /// Runs of each topology and thread count; the fastest is reported (a shared
    /// machine's noise only ever slows a run down).
    #[arg(long, default_value_t = 1)]
    repeat: usize,
}

#[derive(Clone, Copy, ValueEnum)]
enum MemArg {
    Cpu,
    Gpu,
}

#[derive(Clone, Copy, ValueEnum)]
enum DescArg {
    Internal,
    Host,
}

#[derive(Clone, Copy, ValueEnum)]
enum NotifyArg {
    /// The receiver's host memory; the waiting CPU spins on it.
    Host,
    /// The receiving chip's notification store; the waiting CPU reads it over PCIe
    /// (`tcaDMAUseNotifyInternal`).
    Internal,
}

/// Ping-pong options.
#[derive(Args)]
struct PingPongArgs {
    /// A preset (`ring2` .. `ring64`, `2x2` .. `2x32`; `2x8` is the HA-PACS/TCA group) or a
    /// topology file (`.toml`).
    #[arg(long, default_value = "ring2")]
    topology: String,
    /// Routing: `dateline` (deadlock-free) or `shortest` (see `peach2 sim --help`).
    #[arg(long, default_value = "dateline")]
    routing: String,
    /// Node A (index in the topology).
    #[arg(long, default_value_t = 0)]
    src_node: usize,
    /// Node B.
    #[arg(long, default_value_t = 1)]
    dst_node: usize,
    /// Buffer memory; several (comma separated) give several curves.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "cpu")]
    mem: Vec<MemArg>,
    /// Descriptor placement; several (comma separated) give several curves.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "internal")]
    desc: Vec<DescArg>,
    /// Where the receiver's notification lands.
    #[arg(long, value_enum, default_value = "host")]
    notify: NotifyArg,
    /// Sizes: `8..4M` (powers of two) or a list `8,100,1K`.
    #[arg(long, default_value = "8..4M")]
    sizes: String,
    /// Timed rounds per size.
    #[arg(long, default_value_t = 3)]
    iters: u32,
    /// Model parameters: `ha-pacs` (calibrated) or `default`.
    #[arg(long, default_value = DEFAULT_PROFILE)]
    profile: String,
    /// Write the CSV here instead of stdout.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Draw latency and bandwidth curves into this SVG (with `--mem gpu --desc internal
    /// --notify internal`, the real system's measured curve beside the simulated one).
    #[arg(long)]
    plot: Option<PathBuf>,
}

/// Runs `peach2 bench`.
pub fn run(args: BenchArgs) -> Result<(), CliError> {
    match args.command {
        BenchCommand::Pingpong(a) => pingpong_cmd(a),
        BenchCommand::SimSpeed(a) => sim_speed_cmd(a),
        BenchCommand::RunSpeed(a) => crate::bench_run_speed::run(a),
    }
}

fn label(mem: Mem, desc: Placement) -> String {
    let d = match desc {
        Placement::Internal => "Internal",
        Placement::Host => "Host",
    };
    let m = match mem {
        Mem::Cpu => "CPU",
        Mem::Gpu => "GPU",
    };
    format!("{d} ({m})")
}

fn pingpong_cmd(a: PingPongArgs) -> Result<(), CliError> {
    let topology = Topology::load(&a.topology)
        .and_then(|t| t.with_routing(&a.routing))
        .map_err(|e| CliError::Input(e.to_string()))?;
    let sizes = pingpong::parse_sizes(&a.sizes).map_err(CliError::Input)?;
    let profile = profile(&a.profile)?;
    eprintln!("peach2 bench pingpong: profile {}", profile.name);
    let mut runs = Vec::new();
    for m in &a.mem {
        for d in &a.desc {
            let mem = match m {
                MemArg::Cpu => Mem::Cpu,
                MemArg::Gpu => Mem::Gpu,
            };
            let desc = match d {
                DescArg::Internal => Placement::Internal,
                DescArg::Host => Placement::Host,
            };
            runs.push((mem, desc));
        }
    }
    let bar = std::io::stderr().is_terminal();
    let total = runs.len() * sizes.len();
    let mut results: Vec<(String, Vec<Row>)> = Vec::new();
    for (i, &(mem, desc)) in runs.iter().enumerate() {
        let cfg = PingPong {
            topology: topology.clone(),
            src: a.src_node,
            dst: a.dst_node,
            mem,
            desc,
            notify: match a.notify {
                NotifyArg::Host => NotifyPlace::Host,
                NotifyArg::Internal => NotifyPlace::Chip,
            },
            sizes: sizes.clone(),
            iters: a.iters,
            profile: profile.clone(),
            window_limit: None,
        };
        let name = label(mem, desc);
        let mut progress = |done: usize, _n: usize| {
            if bar {
                let k = i * sizes.len() + done;
                let filled = 30 * k / total;
                eprint!(
                    "\r[{}{}] {k}/{total} {name} {} B   ",
                    "#".repeat(filled),
                    " ".repeat(30 - filled),
                    sizes[done - 1]
                );
            }
        };
        let rows = pingpong::run(&cfg, &mut progress).map_err(|e| match e {
            BenchError::Config(m) => CliError::Input(m),
            other => CliError::Failure(other.to_string()),
        })?;
        results.push((name, rows));
    }
    if bar {
        eprintln!();
    }
    let text = if results.len() == 1 {
        pingpong::csv(&results[0].1)
    } else {
        // Several curves: one more column in front naming the curve.
        let mut s = String::from("series,bytes,latency_us,bandwidth_gb_s\n");
        for (name, rows) in &results {
            for line in pingpong::csv(rows).lines().skip(1) {
                s += &format!("{name},{line}\n");
            }
        }
        s
    };
    match &a.csv {
        Some(p) => std::fs::write(p, &text)
            .map_err(|e| CliError::Failure(format!("write {}: {e}", p.display())))?,
        None => std::io::stdout()
            .write_all(text.as_bytes())
            .map_err(|e| CliError::Failure(e.to_string()))?,
    }
    if let Some(p) = &a.plot {
        let mut series: Vec<Series> = results
            .iter()
            .map(|(label, rows)| Series {
                label: label.clone(),
                rows,
            })
            .collect();
        // The real system was measured in one configuration: draw it beside that curve.
        let measured = measured::gpu_pingpong_rows();
        let real_config = runs.contains(&(Mem::Gpu, Placement::Internal))
            && matches!(a.notify, NotifyArg::Internal);
        if real_config {
            series.push(Series {
                label: "HA-PACS/TCA measured (GPU, internal descriptors and notification)".into(),
                rows: &measured,
            });
        }
        plot::draw(p, &series).map_err(CliError::Failure)?;
    }
    Ok(())
}

fn sim_speed_cmd(a: SimSpeedArgs) -> Result<(), CliError> {
    let kind: Kind = a
        .scenario
        .parse()
        .map_err(|e: SimError| CliError::Input(e.to_string()))?;
    if a.cycles == 0 || a.raw_cycles == 0 || a.repeat == 0 {
        return Err(CliError::Input(
            "--cycles, --raw-cycles and --repeat must be positive".into(),
        ));
    }
    let profile = profile(&a.profile)?;
    eprintln!("peach2 bench sim-speed: profile {}", profile.name);
    let topologies = a
        .topology
        .iter()
        .map(|t| {
            let mut t = Topology::load(t)
                .and_then(|t| t.with_routing(&a.routing))
                .map_err(|e| CliError::Input(e.to_string()))?;
            profile
                .apply(&mut t)
                .map_err(|e| CliError::Input(e.to_string()))?;
            Ok(t)
        })
        .collect::<Result<Vec<_>, CliError>>()?;
    let thread_counts = if a.threads.is_empty() {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        if cores > 1 {
            vec![1, cores]
        } else {
            vec![1]
        }
    } else {
        a.threads.clone()
    };
    if thread_counts.contains(&0) {
        return Err(CliError::Input("--threads: at least 1".into()));
    }
    let failed = |e: SimError| CliError::Failure(e.to_string());
    let raw = speed::raw(a.raw_cycles).map_err(failed)?;
    println!(
        "{}",
        serde_json::json!({
            "model": "raw Verilated core",
            "idle_cycles_per_s": raw.idle_cycles_per_s.round(),
            "random_traffic_cycles_per_s": raw.random_cycles_per_s.round(),
            "clocked_eval": raw.clocked_eval,
        })
    );
    for (name, topo) in a.topology.iter().zip(topologies) {
        let nodes = topo.nodes.len();
        let mut single = None;
        for &threads in &thread_counts {
            let mut run =
                speed::cluster(topo.clone(), kind, 256, a.cycles, threads).map_err(failed)?;
            for _ in 1..a.repeat {
                let again =
                    speed::cluster(topo.clone(), kind, 256, a.cycles, threads).map_err(failed)?;
                if again.summary.cycles_per_s > run.summary.cycles_per_s {
                    run = again;
                }
            }
            let s = &run.summary;
            let chip_cycles = s.cycles_per_s * nodes as f64;
            if threads == 1 {
                single = Some(s.cycles_per_s);
            }
            let mut v = serde_json::json!({
                "topology": name,
                "scenario": a.scenario,
                "nodes": nodes,
                "threads": threads,
                "cycles": s.cycles,
                "wall_s": s.wall_s,
                "cycles_per_s": s.cycles_per_s.round(),
                "chip_cycles_per_s": chip_cycles.round(),
                "bytes_delivered": s.bytes_delivered,
                "errors": s.errors,
                "lookahead_cycles": s.lookahead_cycles,
                "syncs_per_cycle": ((s.windows as f64 / s.cycles.max(1) as f64) * 1e4).round() / 1e4,
                // The process's peak so far: run one topology per command to read it
                // for that topology alone.
                "peak_rss_mb": run.peak_rss_bytes.map(|b| (b as f64 / 1e5).round() / 10.0),
                "peak_rss_mb_per_node": run.peak_rss_bytes
                    .map(|b| (b as f64 / nodes as f64 / 1e4).round() / 100.0),
            });
            if threads == 1 {
                // Above 1: the cluster costs more per chip-cycle than the raw core under
                // random traffic (links, hosts, scoreboard).
                v["engine_overhead"] =
                    ((raw.random_cycles_per_s / chip_cycles * 100.0).round() / 100.0).into();
            } else if let Some(one) = single {
                v["speedup_over_1_thread"] =
                    ((s.cycles_per_s / one * 100.0).round() / 100.0).into();
            }
            println!("{v}");
            if s.errors > 0 {
                return Err(CliError::Failure(format!(
                    "scoreboard: {:?}",
                    s.first_errors
                )));
            }
        }
    }
    Ok(())
}
