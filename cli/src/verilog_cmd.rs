//! `peach2 verilog`: export the chip to Verilog, and check it with the open tools.

use crate::CliError;
use clap::Args;
use peach2_rtl::verilog::checks::{
    iverilog_elaborate, verilator_lint, yosys_synth, CheckError, VerilogSet,
};
use peach2_rtl::verilog::export::{write_core, CORE_MODULE};
use peach2_rtl::verilog::timing::{census_files_lines, yosys_timing, TimingReport};
use peach2_sim::icarus::{self, ReplayReport};
use std::path::{Path, PathBuf};

/// Export the PEACH2 core to Verilog (`peach2_core.v`, lint waivers, file list).
#[derive(Args)]
pub struct VerilogArgs {
    /// Output directory (created if missing).
    #[arg(short = 'o', long = "out", default_value = "out/verilog")]
    out: PathBuf,
    /// Also run the open checks: Verilator lint (-Wall), Icarus elaboration and a
    /// chip-level Icarus simulation compared with the Verilated core, Yosys synthesis
    /// (fails on any latch) with a resource summary, and a timing estimate: the LUT
    /// depth of the worst register-to-register paths against what Stratix IV closes at
    /// 250 MHz.
    #[arg(long)]
    check: bool,
    /// Only the timing estimate (a few minutes; `--check` includes it): for a designer
    /// shortening paths, who wants the depths and nothing else.
    #[arg(long, conflicts_with = "check")]
    timing: bool,
}

fn check_failed(e: CheckError) -> CliError {
    match e {
        CheckError::ToolMissing(_) | CheckError::Io(_) => CliError::Failure(e.to_string()),
        CheckError::Rejected { tool, output } => {
            eprintln!("{output}");
            CliError::Failure(format!("{tool} rejected the design (its output is above)"))
        }
    }
}

/// The verdict line of an Icarus replay.
pub(crate) fn replay_line(r: &ReplayReport) -> String {
    format!(
        "icarus: {} cycles of random traffic on all four ports (DMA, malformed TLPs) replayed: every output equals the Verilated core's ({:.1} s)",
        r.cycles, r.sim_seconds
    )
}

/// Runs `peach2 verilog`.
pub fn run(args: VerilogArgs) -> Result<(), CliError> {
    let files = write_core(&args.out)
        .map_err(|e| CliError::Failure(format!("cannot write {}: {e}", args.out.display())))?;
    println!("wrote {}", files.verilog.display());
    println!("wrote {}", files.waivers.display());
    println!("wrote {}", files.file_list.display());
    let core = VerilogSet {
        files: vec![files.verilog.clone()],
        top: CORE_MODULE.to_string(),
        ..Default::default()
    };
    if args.timing {
        println!("yosys: the timing estimate (a few minutes)");
        let t = yosys_timing(&core, &args.out.join("timing")).map_err(check_failed)?;
        print_timing(&t, &args.out.join("timing"));
        return Ok(());
    }
    if !args.check {
        return Ok(());
    }
    verilator_lint(&files.verilog, CORE_MODULE).map_err(check_failed)?;
    println!(
        "verilator --lint-only -Wall: clean (waivers: {})",
        files.waivers.display()
    );
    iverilog_elaborate(&files.verilog, CORE_MODULE).map_err(check_failed)?;
    println!("iverilog -g2012: elaborates");
    let r = icarus::check(&files.verilog, CORE_MODULE, &args.out.join("icarus"))
        .map_err(|e| CliError::Failure(e.to_string()))?;
    println!("{}", replay_line(&r));
    // Two independent Yosys processes of minutes each: side by side.
    println!("yosys: synthesis and the timing estimate, side by side (a few minutes)");
    let (r, t) = std::thread::scope(|s| {
        let timing = s.spawn(|| yosys_timing(&core, &args.out.join("timing")));
        let synth = yosys_synth(&files.verilog, CORE_MODULE);
        let timing = timing
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (synth, timing)
    });
    let r = r.map_err(check_failed)?;
    // Memories stay memories here; `peach2 fpga open-flow` reports their bits per block.
    println!(
        "yosys synth: {} cells, {} flip-flops (memories kept as RAM), {} latches, no combinational loop",
        r.cells, r.flip_flops, r.latches
    );
    print_timing(&t.map_err(check_failed)?, &args.out.join("timing"));
    Ok(())
}

/// The timing estimate: the worst depth and paths, what is over the limit (and the file
/// that lists it, in `dir`), the verdict.
fn print_timing(t: &TimingReport, dir: &Path) {
    println!("{}", t.summary());
    for line in t.path_lines() {
        println!("  {line}");
    }
    if let Some(line) = t.over_limit_line() {
        println!("{line}");
        println!("{}", census_files_lines(dir));
    }
    // Reported, not enforced: today's core is over the limit (see README, "Timing").
    println!("{}", t.verdict());
}
