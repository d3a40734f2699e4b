//! Resource figures of a design from Yosys: per module and per top-level block, memory
//! bits counted before memories are mapped, and a flattened total with the latch and
//! combinational-loop checks. The FPGA open flow's report is built from these.

use super::checks::{run_yosys_script, yosys_read_commands, CheckError, VerilogSet};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Cells of one module (its own, not its submodules') after generic synthesis.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CellCounts {
    /// Gates and muxes (`$_AND_`, `$_MUX_`...): everything but storage.
    pub logic: u64,
    /// Flip-flops (`$_DFF*`, `$_SDFF*`...).
    pub flip_flops: u64,
    /// Latches (`$_DLATCH*`...).
    pub latches: u64,
    /// Memories kept as memories (`$mem*` cells).
    pub memories: u64,
    /// Memory bits, counted before synthesis maps anything.
    pub memory_bits: u64,
    /// Instances of other modules of the design, by module.
    pub submodules: BTreeMap<String, u64>,
    /// Instances of black boxes (modules read with `read_verilog -lib`), by module.
    pub black_boxes: BTreeMap<String, u64>,
}

/// Resources of one block: a module and everything below it, over all its instances.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockResources {
    /// Module name as Yosys prints it.
    pub module: String,
    /// Instances of the module in its parent.
    pub instances: u64,
    /// Gates and muxes.
    pub logic: u64,
    /// Flip-flops.
    pub flip_flops: u64,
    /// Memory bits.
    pub memory_bits: u64,
}

/// What Yosys' generic synthesis made of a design, per module and flattened.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DesignResources {
    /// Top module.
    pub top: String,
    /// Each module's own cells, hierarchy kept.
    pub modules: BTreeMap<String, CellCounts>,
    /// The flattened design (memory bits from the hierarchical count).
    pub flat: CellCounts,
    /// The flattened design's `stat`, as printed.
    pub flat_stat: String,
}

impl DesignResources {
    /// Resources of one instance of `module` including its submodules.
    pub fn instance_total(&self, module: &str) -> BlockResources {
        let mut total = BlockResources {
            module: module.to_string(),
            instances: 1,
            ..Default::default()
        };
        if let Some(own) = self.modules.get(module) {
            total.logic = own.logic;
            total.flip_flops = own.flip_flops;
            total.memory_bits = own.memory_bits;
            for (sub, n) in &own.submodules {
                let t = self.instance_total(sub);
                total.logic += n * t.logic;
                total.flip_flops += n * t.flip_flops;
                total.memory_bits += n * t.memory_bits;
            }
        }
        total
    }

    /// The blocks directly inside `parent`, one entry per module, totals over all its
    /// instances there.
    pub fn blocks_of(&self, parent: &str) -> Vec<BlockResources> {
        let Some(own) = self.modules.get(parent) else {
            return Vec::new();
        };
        own.submodules
            .iter()
            .map(|(sub, &n)| {
                let t = self.instance_total(sub);
                BlockResources {
                    module: sub.clone(),
                    instances: n,
                    logic: n * t.logic,
                    flip_flops: n * t.flip_flops,
                    memory_bits: n * t.memory_bits,
                }
            })
            .collect()
    }
}

/// Synthesizes a design with Yosys' generic flow, keeping the hierarchy, and counts
/// its resources per module and flattened. `black_boxes` are read with `-lib`.
/// Memories stay memories (no `memory_map`), so their bits are counted as such. Fails
/// on any latch and on `check -assert` (combinational loops, conflicting or missing
/// drivers) in the flattened netlist. Script, log and `stat` outputs go to `work_dir`.
pub fn yosys_resources(
    set: &VerilogSet,
    black_boxes: &[PathBuf],
    work_dir: &Path,
) -> Result<DesignResources, CheckError> {
    // `tee -o` takes its file name unquoted: the outputs are relative to work_dir.
    let script = format!(
        "{read}\
         proc\n\
         tee -q -o stat_rtl.txt stat\n\
         synth -top {top} -run :fine\n\
         opt -fast -full\ntechmap\nopt -fast\nabc -fast\nopt -fast\n\
         tee -q -o stat_gates.txt stat\n\
         flatten\nopt_clean\n\
         tee -q -o stat_flat.txt stat\n\
         check -assert\n",
        read = yosys_read_commands(set, black_boxes)?,
        top = set.top,
    );
    run_yosys_script(&script, "synth.ys", work_dir)?;
    let read = |name: &str| std::fs::read_to_string(work_dir.join(name));
    let resources = parse_resources(
        &set.top,
        &read("stat_rtl.txt")?,
        &read("stat_gates.txt")?,
        read("stat_flat.txt")?,
    );
    if resources.flat.latches > 0 {
        return Err(CheckError::Rejected {
            tool: "yosys",
            output: format!(
                "{} latch cells inferred\n{}",
                resources.flat.latches, resources.flat_stat
            ),
        });
    }
    Ok(resources)
}

/// Builds [`DesignResources`] from three `stat` outputs: after `proc` (memory bits),
/// after generic synthesis with the hierarchy kept, and flattened.
fn parse_resources(top: &str, rtl: &str, gates: &str, flat_stat: String) -> DesignResources {
    let memory_bits: BTreeMap<String, u64> = stat_sections(rtl)
        .into_iter()
        .map(|(m, text)| (m, number_after(&text, "Number of memory bits:")))
        .collect();
    let sections = stat_sections(gates);
    let names: Vec<String> = sections.iter().map(|(m, _)| m.clone()).collect();
    let mut r = DesignResources {
        top: top.to_string(),
        flat: count_cells(&flat_stat, &[]),
        flat_stat,
        ..Default::default()
    };
    for (m, text) in &sections {
        let mut c = count_cells(text, &names);
        c.memory_bits = memory_bits.get(m).copied().unwrap_or(0);
        r.modules.insert(m.clone(), c);
    }
    r.flat.memory_bits = r.instance_total(top).memory_bits;
    r
}

/// Splits `stat` output into per-module sections (`=== name ===` up to the next).
fn stat_sections(text: &str) -> Vec<(String, String)> {
    let mut sections: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if let Some(name) = t.strip_prefix("=== ").and_then(|r| r.strip_suffix(" ===")) {
            sections.push((name.to_string(), String::new()));
        } else if let Some((_, body)) = sections.last_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    sections.retain(|(name, _)| name != "design hierarchy");
    sections
}

fn number_after(text: &str, label: &str) -> u64 {
    text.lines()
        .find_map(|l| l.trim().strip_prefix(label))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0)
}

/// Counts the cell-type lines of one `stat` section; `modules` names the design's
/// modules, so that other non-primitive cells are black boxes.
fn count_cells(text: &str, modules: &[String]) -> CellCounts {
    let mut c = CellCounts::default();
    let mut in_cells = false;
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if let ["Number", "of", "cells:", _] = words.as_slice() {
            in_cells = true;
            continue;
        }
        let [cell, n] = words.as_slice() else {
            if in_cells && !words.is_empty() {
                in_cells = false;
            }
            continue;
        };
        let Ok(n) = n.parse::<u64>() else { continue };
        if !in_cells {
            continue;
        }
        if modules.iter().any(|m| m == cell) {
            *c.submodules.entry(cell.to_string()).or_default() += n;
        } else if cell.starts_with("$mem") {
            c.memories += n;
        } else if cell.starts_with("$_") && cell.contains("LATCH") {
            c.latches += n;
        } else if cell.starts_with("$_") && cell.contains("DFF") {
            c.flip_flops += n;
        } else if cell.starts_with('$') {
            c.logic += n;
        } else {
            *c.black_boxes.entry(cell.to_string()).or_default() += n;
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hierarchical_stat_sums_submodules_and_separates_black_boxes() {
        let gates = "=== top ===\n   Number of cells:                  6\n     $_AND_                          2\n     $_DFF_P_                        1\n     leaf                            2\n     bb                              1\n\n=== leaf ===\n   Number of cells:                  3\n     $_DFFE_PP_                      2\n     $_XOR_                          1\n     $mem_v2                         1\n\n=== design hierarchy ===\n\n   top                               1\n     leaf                            2\n";
        let rtl = "=== top ===\n   Number of memory bits:            0\n=== leaf ===\n   Number of memory bits:          256\n";
        let flat = "=== top ===\n   Number of cells:                 11\n     $_AND_                          2\n     $_DFF_P_                        1\n     $_DFFE_PP_                      4\n     $_DLATCH_P_                     1\n     $_XOR_                          2\n     $mem_v2                         2\n     bb                              1\n";
        let r = parse_resources("top", rtl, gates, flat.to_string());
        let top = &r.modules["top"];
        assert_eq!((top.logic, top.flip_flops), (2, 1));
        assert_eq!(top.black_boxes["bb"], 1);
        assert_eq!(top.submodules["leaf"], 2);
        assert_eq!(r.modules["leaf"].memories, 1);
        let total = r.instance_total("top");
        assert_eq!(
            (total.logic, total.flip_flops, total.memory_bits),
            (4, 5, 512)
        );
        let blocks = r.blocks_of("top");
        assert_eq!(blocks.len(), 1);
        assert_eq!(
            (
                blocks[0].instances,
                blocks[0].logic,
                blocks[0].flip_flops,
                blocks[0].memory_bits
            ),
            (2, 2, 4, 512)
        );
        assert_eq!(
            (
                r.flat.logic,
                r.flat.flip_flops,
                r.flat.latches,
                r.flat.memories,
                r.flat.memory_bits
            ),
            (4, 5, 1, 2, 512)
        );
    }
}
