//! Naming and writing generated Verilog.

use super::assign_once::assign_once;
use super::mem_init::zero_init_memories;
use super::split::split_comb_blocks;
use crate::chip::Peach2Core;
use rust_hdl::prelude::*;
use std::path::{Path, PathBuf};

/// Module name of the exported core.
pub const CORE_MODULE: &str = "peach2_core";

/// The lint waiver file (`verilator.vlt`), written beside every exported design.
pub const LINT_WAIVERS: &str = include_str!("../../lint/verilator.vlt");

/// Generates Verilog for `uut` with its top module called `name`.
///
/// rust-hdl always calls the top module `top` and every submodule `top$<path>`; this
/// renames both so several designs can live in one build without clashing. Each module's
/// combinational block is split into independent blocks ([`split_comb_blocks`]), which
/// removes false combinational loops and lets simulators evaluate only what changed; then
/// each block assigns a variable once per run ([`assign_once`]), so event-driven
/// simulators see no glitches that could re-trigger blocks forever; and memories power
/// up cleared, as block RAM does ([`zero_init_memories`]).
pub fn block_verilog<B: Block>(uut: &mut B, name: &str) -> String {
    uut.connect_all();
    zero_init_memories(&assign_once(&split_comb_blocks(&rename_top(
        &generate_verilog(uut),
        name,
    ))))
}

/// Replaces the module name `top` (and the `top$` prefix of submodules) by `name`.
pub fn rename_top(verilog: &str, name: &str) -> String {
    let mut out = String::with_capacity(verilog.len() + 1024);
    for line in verilog.lines() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        if let Some(rest) = trimmed.strip_prefix("module top") {
            out.push_str(indent);
            out.push_str("module ");
            out.push_str(name);
            out.push_str(rest);
        } else if let Some(rest) = trimmed.strip_prefix("top$") {
            out.push_str(indent);
            out.push_str(name);
            out.push('$');
            out.push_str(rest);
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// The Verilog of the whole core, top module `peach2_core`. Deterministic: the same
/// design gives the same text.
pub fn core_verilog() -> String {
    let mut core = Peach2Core::new();
    block_verilog(&mut core, CORE_MODULE)
}

/// Files written by [`write_core`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportedCore {
    /// `peach2_core.v`: every module of the core.
    pub verilog: PathBuf,
    /// `peach2_core.vlt`: Verilator lint waivers, each with its reason.
    pub waivers: PathBuf,
    /// `peach2_core.f`: the file list for simulators and synthesis tools.
    pub file_list: PathBuf,
}

/// Writes the core's Verilog, lint waivers and file list into `dir` (created if needed).
pub fn write_core(dir: &Path) -> std::io::Result<ExportedCore> {
    std::fs::create_dir_all(dir)?;
    let verilog = dir.join(format!("{CORE_MODULE}.v"));
    let waivers = dir.join(format!("{CORE_MODULE}.vlt"));
    let file_list = dir.join(format!("{CORE_MODULE}.f"));
    std::fs::write(&verilog, core_verilog())?;
    std::fs::write(&waivers, LINT_WAIVERS)?;
    std::fs::write(&file_list, format!("{CORE_MODULE}.v\n"))?;
    Ok(ExportedCore {
        verilog,
        waivers,
        file_list,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renames_top_and_submodules_only() {
        let v = "module top(a);\n    top$x x(.a(a));\nendmodule\nmodule top$x(a);\n  // top$ in a comment stays\nendmodule\n";
        let r = rename_top(v, "core");
        assert_eq!(
            r,
            "module core(a);\n    core$x x(.a(a));\nendmodule\nmodule core$x(a);\n  // top$ in a comment stays\nendmodule\n"
        );
    }
}
