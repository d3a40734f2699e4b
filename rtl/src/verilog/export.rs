//! Naming and writing generated Verilog.

use rust_hdl::prelude::*;

/// The lint waiver file (`verilator.vlt`), written beside every exported design.
pub const LINT_WAIVERS: &str = include_str!("../../lint/verilator.vlt");

/// Generates Verilog for `uut` with its top module called `name`.
///
/// rust-hdl always calls the top module `top` and every submodule `top$<path>`; this
/// renames both so several designs can live in one build without clashing.
pub fn block_verilog<B: Block>(uut: &mut B, name: &str) -> String {
    uut.connect_all();
    rename_top(&generate_verilog(uut), name)
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
