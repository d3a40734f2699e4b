//! `peach2 cc`: compile and link a TCA program for `peach2 run` (like `mpicc`).

use crate::CliError;
use clap::Args;
use std::process::ExitCode;

/// Compile a C program on the TCA library, MPI and CUDA for the simulated cluster.
#[derive(Args)]
pub struct CcArgs {
    /// Arguments for the C compiler (`$CC`, else `cc`), as given: sources, `-o`, `-I`,
    /// `-D`, `-O`, `-l`... `tca-api.h`, `mpi.h` and `cuda_runtime.h` are on the include
    /// path, and the runtime is linked in unless the arguments only compile (`-c`).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
    args: Vec<String>,
}

/// Runs `peach2 cc`; the compiler's exit status is the command's.
pub fn run(args: CcArgs) -> Result<ExitCode, CliError> {
    let mut cmd =
        peach2_run::cc::command(&args.args).map_err(|e| CliError::Failure(e.to_string()))?;
    let status = cmd
        .status()
        .map_err(|e| CliError::Failure(format!("{}: {e}", peach2_run::cc::compiler())))?;
    Ok(ExitCode::from(
        status.code().unwrap_or(1).clamp(0, 255) as u8
    ))
}
