//! `peach2 fpga quartus`: the core regenerated into the Quartus project and compiled
//! when Quartus is installed.

use super::{io_failed, QuartusArgs, SRole};
use crate::CliError;
use peach2_rtl::verilog::export::write_core;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What to do when Quartus is missing.
const QUARTUS_MISSING: &str = "quartus_sh not found on PATH: install Quartus II 13.1, 14.0 or \
     14.1 Subscription Edition with Stratix IV device support (the free Web Edition does not \
     cover the EP4SGX530, and the IP Compiler for PCI Express that generates the hard IP \
     variants ends with the 14.x releases), then put its quartus/bin directory on PATH";

fn on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

/// Files under `ip/` that peach2.qsf reads and that are not there yet.
fn missing_ip(project: &Path, qsf: &str) -> Vec<PathBuf> {
    qsf.lines()
        .filter(|l| {
            l.trim_start()
                .starts_with("set_global_assignment -name QIP_FILE")
        })
        .filter_map(|l| l.split_whitespace().last())
        .map(|f| project.join(f))
        .filter(|p| !p.is_file())
        .collect()
}

pub(crate) fn quartus(args: &QuartusArgs) -> Result<(), CliError> {
    let project = &args.project;
    let qsf_path = project.join("peach2.qsf");
    if !project.join("peach2.qpf").is_file() || !qsf_path.is_file() {
        return Err(CliError::Input(format!(
            "{} is not the PEACH2 Quartus project (no peach2.qpf and peach2.qsf there); \
             give its directory with --project",
            project.display()
        )));
    }
    let generated = project.join("generated");
    let core = write_core(&generated).map_err(|e| io_failed(&generated, e))?;
    println!("wrote {}", core.verilog.display());
    let role = match args.s_role {
        SRole::Ep => 0,
        SRole::Rc => 1,
    };
    let options = generated.join("build_options.tcl");
    std::fs::write(
        &options,
        format!(
            "# Written by `peach2 fpga quartus`: the S port's hard IP is {}.\n\
             set_parameter -name S_ROLE_RC {role}\n",
            if role == 1 {
                "a root port"
            } else {
                "an endpoint"
            }
        ),
    )
    .map_err(|e| io_failed(&options, e))?;
    println!("wrote {} (S_ROLE_RC={role})", options.display());

    let quartus_sh =
        on_path("quartus_sh").ok_or_else(|| CliError::Failure(QUARTUS_MISSING.into()))?;
    let qsf = std::fs::read_to_string(&qsf_path)
        .map_err(|e| CliError::Failure(format!("cannot read {}: {e}", qsf_path.display())))?;
    let missing = missing_ip(project, &qsf);
    if !missing.is_empty() {
        let list: Vec<String> = missing.iter().map(|p| p.display().to_string()).collect();
        return Err(CliError::Failure(format!(
            "missing Altera IP variants: {}; generate them with MegaWizard as \
             fpga-build/README.md (\"Altera IP variants\") describes",
            list.join(", ")
        )));
    }
    let pins = std::fs::read_to_string(project.join("pins.tcl")).unwrap_or_default();
    let unassigned = pins
        .lines()
        .filter(|l| l.trim_start().starts_with('{') && l.contains(" UNASSIGNED "))
        .count();
    if unassigned > 0 {
        println!(
            "warning: {unassigned} pins still UNASSIGNED in pins.tcl: Quartus will place them"
        );
    }
    println!("running {} --flow compile peach2", quartus_sh.display());
    let status = Command::new(&quartus_sh)
        .args(["--flow", "compile", "peach2"])
        .current_dir(project)
        .status()
        .map_err(|e| CliError::Failure(format!("cannot run {}: {e}", quartus_sh.display())))?;
    if !status.success() {
        return Err(CliError::Failure(format!(
            "quartus_sh --flow compile peach2 failed ({status}); the reports are in {}",
            project.join("output_files").display()
        )));
    }
    println!(
        "bitstream: {}",
        project.join("output_files/peach2.sof").display()
    );
    Ok(())
}
