//! `peach2 fpga`: build the board image (fpga-build/).
//!
//! `open-flow` checks the FPGA wrapper with the core using the open tools (Verilator
//! lint, Icarus elaboration, the adapters' testbench, Yosys synthesis) and writes a
//! resource report; `quartus` regenerates the core's Verilog into the Quartus project
//! and compiles it when Quartus is installed.

mod open_flow;
mod quartus;

use crate::CliError;
use clap::{Args, Subcommand, ValueEnum};
use open_flow::open_flow;
use peach2_rtl::verilog::checks::CheckError;
use quartus::quartus;
use std::path::{Path, PathBuf};

/// Build the PEACH2 board image: open-tool checks, or the Quartus compile.
#[derive(Args)]
pub struct FpgaArgs {
    #[command(subcommand)]
    command: FpgaCommand,
}

#[derive(Subcommand)]
enum FpgaCommand {
    /// Lint, elaborate, simulate and synthesize the board image (wrapper + core) with
    /// Verilator, Icarus and Yosys; write report.txt with the resource figures.
    OpenFlow(OpenFlowArgs),
    /// Regenerate the core's Verilog into the Quartus project and compile it with
    /// `quartus_sh --flow compile peach2`.
    Quartus(QuartusArgs),
}

#[derive(Args)]
struct OpenFlowArgs {
    /// Output directory (created if missing): sources, tool outputs, report.txt.
    #[arg(short = 'o', long = "out", default_value = "out/fpga-open-flow")]
    out: PathBuf,
}

#[derive(Args)]
pub(crate) struct QuartusArgs {
    /// The Quartus project directory (holds peach2.qpf).
    #[arg(long, default_value = "fpga-build/quartus")]
    pub(crate) project: PathBuf,
    /// Role of the S port's hard IP in this image (fixed at build time).
    #[arg(long = "s-role", value_enum, default_value_t = SRole::Ep)]
    pub(crate) s_role: SRole,
}

/// The S port's role: the hard IP variant the image instantiates.
#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum SRole {
    /// Endpoint.
    Ep,
    /// Root port.
    Rc,
}

/// Runs `peach2 fpga`.
pub fn run(args: FpgaArgs) -> Result<(), CliError> {
    match args.command {
        FpgaCommand::OpenFlow(a) => open_flow(&a.out),
        FpgaCommand::Quartus(a) => quartus(&a),
    }
}

/// Why the flow stopped: the one-line error, and what to put in the report.
pub(crate) fn check_failed(step: &str, e: CheckError) -> CliError {
    match e {
        CheckError::ToolMissing(_) | CheckError::Io(_) => CliError::Failure(format!("{step}: {e}")),
        CheckError::Rejected { tool, output } => {
            eprintln!("{output}");
            CliError::Failure(format!(
                "{step}: {tool} rejected the design (its output is above)"
            ))
        }
    }
}

pub(crate) fn io_failed(what: &Path, e: std::io::Error) -> CliError {
    CliError::Failure(format!("cannot write {}: {e}", what.display()))
}
