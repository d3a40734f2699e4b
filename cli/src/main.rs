//! `peach2`: the command line of the PEACH2 project.
//!
//! Each subcommand lives in its own module with an `Args` type and a
//! `run(args) -> Result<(), CliError>` function; `main` only dispatches and turns
//! a [`CliError`] into a one-line message on stderr and an exit code.

mod bench_cmd;
mod bench_run_speed;
mod cc_cmd;
mod fpga_cmd;
mod fuzz_cmd;
mod processes;
mod profile_arg;
mod run_cmd;
mod sim_cmd;
mod tlp_cmd;
mod trace_args;
mod verilog_cmd;

use std::fmt;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Design, build and debug PEACH2, the FPGA PCIe router of the TCA clusters.
#[derive(Parser)]
#[command(name = "peach2", version, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Decode, encode and frame PCIe TLPs.
    Tlp(tlp_cmd::TlpArgs),
    /// Export the chip to Verilog and check it with Verilator, Icarus and Yosys.
    Verilog(verilog_cmd::VerilogArgs),
    /// Build the board image: open-tool checks with a resource report, or Quartus.
    Fpga(fpga_cmd::FpgaArgs),
    /// Simulate a cluster of chips, hosts and GPUs under traffic.
    Sim(sim_cmd::SimArgs),
    /// Benchmarks through the TCA driver on co-simulated chips (the paper's figures).
    Bench(bench_cmd::BenchArgs),
    /// Compile a C program on the TCA library, MPI and CUDA for `peach2 run` (like mpicc).
    Cc(cc_cmd::CcArgs),
    /// Run a program built with `peach2 cc` on the simulated cluster (like mpirun).
    Run(run_cmd::RunArgs),
    /// Fuzz the Verilated chip with random and malformed traffic on every port.
    Fuzz(fuzz_cmd::FuzzArgs),
}

/// Why a subcommand failed.
#[derive(Debug)]
pub enum CliError {
    /// The user's input is wrong (a malformed TLP, bad JSON, bad hex): exit code 2.
    Input(String),
    /// The command could not do its work (I/O and the like): exit code 1.
    Failure(String),
}

impl CliError {
    /// The process exit code for this error.
    fn exit_code(&self) -> ExitCode {
        match self {
            CliError::Input(_) => ExitCode::from(2),
            CliError::Failure(_) => ExitCode::from(1),
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let message = match self {
            CliError::Input(m) | CliError::Failure(m) => m,
        };
        // One line, whatever the underlying error printed.
        f.write_str(&message.split_whitespace().collect::<Vec<_>>().join(" "))
    }
}

fn main() -> ExitCode {
    // clap itself exits with code 2 on usage errors.
    let cli = Cli::parse();
    // Only `peach2 sim` spreads a cluster over the processes of an MPI job; any other
    // command would run once per process.
    let result = if !matches!(cli.command, Command::Sim(_)) && processes::in_job() {
        Err(CliError::Input(
            "started by mpirun with several processes: only `peach2 sim` runs over processes"
                .into(),
        ))
    } else {
        Ok(())
    };
    let result = result.and_then(|()| match cli.command {
        Command::Tlp(args) => tlp_cmd::run(args).map(|()| None),
        Command::Verilog(args) => verilog_cmd::run(args).map(|()| None),
        Command::Sim(args) => sim_cmd::run(args).map(|()| None),
        Command::Fpga(args) => fpga_cmd::run(args).map(|()| None),
        Command::Bench(args) => bench_cmd::run(args).map(|()| None),
        Command::Cc(args) => cc_cmd::run(args).map(Some),
        Command::Run(args) => run_cmd::run(args).map(Some),
        Command::Fuzz(args) => fuzz_cmd::run(args).map(|()| None),
    });
    match result {
        Ok(code) => code.unwrap_or(ExitCode::SUCCESS),
        Err(e) => {
            eprintln!("error: {e}");
            e.exit_code()
        }
    }
}
