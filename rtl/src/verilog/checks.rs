//! The open-source checks of exported Verilog: Verilator lint, Icarus elaboration, Yosys
//! synthesis with a latch check and a resource count.
//!
//! Each check runs the tool as a process and turns its verdict into a [`CheckError`]. The
//! tools are Debian packages (`verilator`, `iverilog`, `yosys`); `scripts/setup.sh`
//! installs them.

use super::export::LINT_WAIVERS;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Why a check failed.
#[derive(Debug)]
pub enum CheckError {
    /// The tool is not on the PATH.
    ToolMissing(&'static str),
    /// The tool ran and rejected the design; its output says why.
    Rejected {
        /// Tool name.
        tool: &'static str,
        /// What it printed.
        output: String,
    },
    /// Writing or reading a file failed.
    Io(std::io::Error),
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckError::ToolMissing(t) => {
                write!(f, "{t} is not installed (run scripts/setup.sh)")
            }
            CheckError::Rejected { tool, output } => {
                write!(f, "{tool} rejected the design:\n{output}")
            }
            CheckError::Io(e) => write!(f, "i/o error: {e}"),
        }
    }
}

impl std::error::Error for CheckError {}

impl From<std::io::Error> for CheckError {
    fn from(e: std::io::Error) -> Self {
        CheckError::Io(e)
    }
}

pub(super) fn run(tool: &'static str, cmd: &mut Command) -> Result<String, CheckError> {
    let out = cmd.output().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => CheckError::ToolMissing(tool),
        _ => CheckError::Io(e),
    })?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if out.status.success() {
        Ok(text)
    } else {
        Err(CheckError::Rejected { tool, output: text })
    }
}

/// `verilator --lint-only -Wall` with the project's waiver file; returns its output.
pub fn verilator_lint(file: &Path, top: &str) -> Result<String, CheckError> {
    let vlt = file.with_extension("vlt");
    if !vlt.exists() {
        std::fs::write(&vlt, LINT_WAIVERS)?;
    }
    run(
        "verilator",
        Command::new("verilator")
            .args(["--lint-only", "-Wall", "--top-module", top])
            .arg(&vlt)
            .arg(file),
    )
}

/// Elaborates the design with Icarus Verilog (`iverilog -g2012`).
pub fn iverilog_elaborate(file: &Path, top: &str) -> Result<String, CheckError> {
    let out = file.with_extension("vvp");
    let r = run(
        "iverilog",
        Command::new("iverilog")
            .args(["-g2012", "-Wall", "-s", top, "-o"])
            .arg(&out)
            .arg(file),
    );
    let _ = std::fs::remove_file(&out);
    r
}

/// What Yosys' generic synthesis made of a design.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SynthReport {
    /// Total cells after `synth -flatten`.
    pub cells: u64,
    /// Flip-flop cells (`$_DFF*`, `$_SDFF*`, `$_DFFE*`...).
    pub flip_flops: u64,
    /// Latch cells (`$_DLATCH*`): must be zero.
    pub latches: u64,
    /// Memory bits kept as memories (`$mem`).
    pub memory_bits: u64,
    /// The `stat` section of the log, as printed.
    pub stat: String,
}

/// Runs Yosys' generic synthesis (`synth -flatten` up to `fine`, memories kept as
/// memories rather than mapped to flip-flops, then gate mapping) and reads its
/// statistics. Fails if any latch is inferred or if `check -assert` finds a combinational
/// loop (the per-bit loop check; Verilator judges loops per variable).
pub fn yosys_synth(file: &Path, top: &str) -> Result<SynthReport, CheckError> {
    let script = format!(
        "read_verilog -sv {}; synth -flatten -top {top} -run :fine; \
         opt -fast -full; techmap; opt -fast; abc -fast; opt -fast; check -assert; stat",
        file.display()
    );
    let log = run("yosys", Command::new("yosys").args(["-q", "-p", &script]))?;
    let log = if log.contains("Number of cells") {
        log
    } else {
        // -q hides stat; run again with the log visible.
        run("yosys", Command::new("yosys").args(["-p", &script]))?
    };
    let report = parse_stat(&log);
    if report.latches > 0 {
        return Err(CheckError::Rejected {
            tool: "yosys",
            output: format!("{} latch cells inferred\n{}", report.latches, report.stat),
        });
    }
    Ok(report)
}

fn parse_stat(log: &str) -> SynthReport {
    // The last "Printing statistics" section is the flattened top.
    let stat = log
        .rsplit_once("Printing statistics.")
        .map(|(_, s)| s)
        .unwrap_or(log)
        .to_string();
    let mut r = SynthReport::default();
    for line in stat.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["Number", "of", "cells:", n] => r.cells = n.parse().unwrap_or(0),
            ["Number", "of", "memory", "bits:", n] => r.memory_bits = n.parse().unwrap_or(0),
            [cell, n] if cell.starts_with("$_") => {
                let n: u64 = n.parse().unwrap_or(0);
                if cell.contains("LATCH") {
                    r.latches += n;
                } else if cell.contains("DFF") {
                    r.flip_flops += n;
                }
            }
            _ => {}
        }
    }
    r.stat = stat;
    r
}

/// A fresh scratch directory for one check run.
pub fn scratch_dir(label: &str) -> Result<PathBuf, CheckError> {
    let dir = std::env::temp_dir().join(format!(
        "peach2-{label}-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// Writes `verilog` as `<name>.v` in a scratch directory, lints it with Verilator and
/// elaborates it with Icarus (which also refuses SystemVerilog keywords as names, where
/// Verilator accepts some, `global` for one): the per-block check every block's tests
/// run. Returns Verilator's output.
pub fn lint_verilog(verilog: &str, name: &str) -> Result<String, CheckError> {
    let dir = scratch_dir(name)?;
    let file = dir.join(format!("{name}.v"));
    std::fs::write(&file, verilog)?;
    let r =
        verilator_lint(&file, name).and_then(|lint| iverilog_elaborate(&file, name).map(|_| lint));
    let _ = std::fs::remove_dir_all(&dir);
    r
}

/// A set of Verilog files read together: several files, include directories, a top
/// module and parameter overrides of that top.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VerilogSet {
    /// Source files, in the order the tools read them.
    pub files: Vec<PathBuf>,
    /// Directories searched by `` `include ``.
    pub include_dirs: Vec<PathBuf>,
    /// Top module.
    pub top: String,
    /// Parameter overrides of the top module, name and value.
    pub params: Vec<(String, String)>,
}

/// Yosys commands that read a [`VerilogSet`] (and `black_boxes` as `-lib` modules) and
/// elaborate its top with the set's parameters.
pub(super) fn yosys_read_commands(
    set: &VerilogSet,
    black_boxes: &[PathBuf],
) -> Result<String, CheckError> {
    // Yosys runs in a work directory, so every path is made absolute.
    let quote = |p: &PathBuf| -> Result<String, CheckError> {
        Ok(format!(" \"{}\"", std::path::absolute(p)?.display()))
    };
    let mut script = String::from("read_verilog -sv");
    for dir in &set.include_dirs {
        script.push_str(&format!(" -I{}", quote(dir)?));
    }
    for file in &set.files {
        script.push_str(&quote(file)?);
    }
    script.push('\n');
    if !black_boxes.is_empty() {
        script.push_str("read_verilog -lib");
        for file in black_boxes {
            script.push_str(&quote(file)?);
        }
        script.push('\n');
    }
    for (name, value) in &set.params {
        script.push_str(&format!("chparam -set {name} {value} {}\n", set.top));
    }
    script.push_str(&format!("hierarchy -check -top {}\n", set.top));
    if !set.params.is_empty() {
        // chparam derives a new top ($paramod...); give it back its name.
        script.push_str(&format!("rename -top {}\n", set.top));
    }
    Ok(script)
}

/// Runs a Yosys `script` saved as `name` in `work_dir` (its log beside it, `name.log`);
/// returns the seconds it took. Outputs the script names with `tee -o` are relative to
/// `work_dir`.
pub(super) fn run_yosys_script(
    script: &str,
    name: &str,
    work_dir: &Path,
) -> Result<f64, CheckError> {
    std::fs::create_dir_all(work_dir)?;
    std::fs::write(work_dir.join(name), script)?;
    let started = std::time::Instant::now();
    run(
        "yosys",
        Command::new("yosys")
            .args(["-q", "-l", &format!("{name}.log"), "-s", name])
            .current_dir(work_dir),
    )?;
    Ok(started.elapsed().as_secs_f64())
}

/// `verilator --lint-only -Wall` over a [`VerilogSet`] with the given waiver files.
pub fn verilator_lint_set(set: &VerilogSet, waivers: &[PathBuf]) -> Result<String, CheckError> {
    let mut cmd = Command::new("verilator");
    cmd.args(["--lint-only", "-Wall", "--top-module", &set.top]);
    for dir in &set.include_dirs {
        cmd.arg(format!("-I{}", dir.display()));
    }
    for (name, value) in &set.params {
        cmd.arg(format!("-G{name}={value}"));
    }
    run("verilator", cmd.args(waivers).args(&set.files))
}

fn iverilog_compile(set: &VerilogSet, out: &Path) -> Result<String, CheckError> {
    let mut cmd = Command::new("iverilog");
    // Generated modules carry no `timescale; none of them has delays.
    cmd.args(["-g2012", "-Wall", "-Wno-timescale", "-s", &set.top, "-o"])
        .arg(out);
    for dir in &set.include_dirs {
        cmd.arg(format!("-I{}", dir.display()));
    }
    for (name, value) in &set.params {
        cmd.arg(format!("-P{}.{name}={value}", set.top));
    }
    run("iverilog", cmd.args(&set.files))
}

/// Elaborates a [`VerilogSet`] with Icarus Verilog; the compiled file goes to `out_dir`.
pub fn iverilog_elaborate_set(set: &VerilogSet, out_dir: &Path) -> Result<String, CheckError> {
    std::fs::create_dir_all(out_dir)?;
    iverilog_compile(set, &out_dir.join(format!("{}.vvp", set.top)))
}

/// Compiles a self-checking testbench with Icarus and runs it with `vvp`. It passes
/// only if `vvp` exits 0 and prints a line `PASS`; returns what it printed.
pub fn iverilog_testbench(set: &VerilogSet, out_dir: &Path) -> Result<String, CheckError> {
    std::fs::create_dir_all(out_dir)?;
    let compiled = out_dir.join(format!("{}.vvp", set.top));
    iverilog_compile(set, &compiled)?;
    let output = run("vvp", Command::new("vvp").arg("-n").arg(&compiled))?;
    if output.lines().any(|l| l.trim() == "PASS") {
        Ok(output)
    } else {
        Err(CheckError::Rejected {
            tool: "vvp",
            output: format!("the testbench did not print PASS\n{output}"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_parsing_counts_flops_latches_and_memory() {
        let log = "Printing statistics.\n\n=== top ===\n   Number of cells:                 12\n     $_DFF_P_                        3\n     $_DLATCH_P_                     1\n     $_SDFFE_PP0P_                   2\n   Number of memory bits:         2048\n";
        let r = parse_stat(log);
        assert_eq!(
            (r.cells, r.flip_flops, r.latches, r.memory_bits),
            (12, 5, 1, 2048)
        );
    }
}
