//! A timing and resource estimate for the FPGA, since Quartus cannot run here.
//!
//! [`yosys_timing`] flattens the design, keeps memories as memories and adders as
//! carry chains, maps the rest to 6-input LUTs and measures the LUT depth of every
//! register-to-register path (see `depth`). [`MAX_LUT_DEPTH`] is the depth a Stratix IV
//! closes at 250 MHz. [`yosys_alm`] runs `synth_intel_alm` for an ALM-class resource
//! count.
//!
//! # The depth limit
//!
//! The delays are Quartus II's for Stratix IV, as the Titan project recorded them in its
//! VPR model of the device (`vtr_flow/arch/titan/stratixiv_arch.timing.xml` in
//! github.com/verilog-to-routing/vtr-verilog-to-routing; Murray et al., "Titan: Enabling
//! Large and Complex Benchmarks in Academic CAD", FPL 2013). A path of `n` LUT levels
//! takes the register's clock-to-output, `n` times a LUT and the routing into it, and
//! the setup of the next register:
//!
//! ```text
//! tCO   =  42 ps (dffeas clock to Q) + 45 ps (register to ALM output)     =  87 ps
//! tSU   =  66 ps (dffeas setup)
//! level = 261 ps (LUT, mean of its inputs) + 25 ps (LUT to ALM output)
//!       + 171 ps (routing into the LAB) + 181 ps (one length-4 wire)      = 638 ps
//! depth = (4000 - 87 - 66) / 638 = 6.03, so 6 levels at 250 MHz
//! ```
//!
//! Assumptions (not in the source): the file does not say which speed grade it was
//! measured on; one length-4 wire per LUT-to-LUT hop is the typical route (Titan
//! measured 116 ps for a row wire, 245 ps for a column wire, 289 ps for a long one);
//! nothing is set aside for clock skew or jitter. The LUT's slowest input takes
//! 402 ps, not 261.

mod depth;

pub use depth::OverSignal;

use super::checks::{run_yosys_script, yosys_read_commands, CheckError, VerilogSet};
use std::path::Path;

/// The core's clock period: 250 MHz.
pub const CLOCK_PERIOD_PS: u32 = 4_000;
/// A register's clock-to-output: `dffeas` T_clock_to_Q (42 ps) plus register to ALM
/// output (45 ps), Titan's Stratix IV model.
pub const REGISTER_CLOCK_TO_OUT_PS: u32 = 42 + 45;
/// A register's setup time: `dffeas` T_setup, Titan's Stratix IV model.
pub const REGISTER_SETUP_PS: u32 = 66;
/// A 6-input LUT: the mean of its inputs' delays to `combout` (261 ps) plus LUT to
/// ALM output (25 ps), Titan's Stratix IV model.
pub const LUT_PS: u32 = 261 + 25;
/// Routing into a LUT: LAB input multiplexer (171 ps) plus one length-4 wire with its
/// driver (181 ps), Titan's Stratix IV model; one wire per hop is an assumption.
pub const ROUTING_PS: u32 = 171 + 181;
/// One level of logic: a LUT and the routing into it.
pub const LEVEL_PS: u32 = LUT_PS + ROUTING_PS;
/// The deepest register-to-register path, in LUT levels, that Stratix IV -2 closes at
/// 250 MHz: (4000 - 87 - 66) / 638 = 6. The module documentation has the derivation.
pub const MAX_LUT_DEPTH: u32 =
    (CLOCK_PERIOD_PS - REGISTER_CLOCK_TO_OUT_PS - REGISTER_SETUP_PS) / LEVEL_PS;
/// The register-to-register time of a path `depth` LUT levels deep, in ps: the
/// register's clock-to-output, `depth` levels, the next register's setup (the module
/// documentation has the figures).
pub const fn path_ps(depth: u32) -> u32 {
    REGISTER_CLOCK_TO_OUT_PS + depth * LEVEL_PS + REGISTER_SETUP_PS
}

/// The fastest clock, in whole MHz (rounded down), that a worst path `depth` LUT levels
/// deep closes at in the same model: 251 at 6 levels, 216 at 7, 169 at 9. How far a core
/// over the limit is from its clock: the hard IP's 128-bit interface needs 250 MHz for
/// the Gen2 x8 rate.
pub const fn clock_mhz(depth: u32) -> u32 {
    1_000_000 / path_ps(depth)
}

/// The deepest the core's tests let its worst path be: 7 levels when last measured
/// (December 4, 2026) plus 2, the spread between netlists of the same logic. Above
/// [`MAX_LUT_DEPTH`], so no promise that the core closes: a ratchet that fails a change
/// making the core deeper than that spread explains, lowered as the core comes down to
/// the limit.
pub const CORE_DEPTH_CEILING: u32 = 9;
/// Carry-chain bits that take as long as one level: a LAB carries 20 bits at 11 ps a
/// bit plus 55 ps mid-LAB and 124 ps out of the LAB (Titan), 399 ps; 638 ps carry 31
/// bits. An adder or comparator of `n` bits counts `1 + (n - 1) / 31` levels.
pub const CARRY_BITS_PER_LEVEL: u32 = LEVEL_PS * 20 / (20 * 11 + 55 + 124);
/// The Yosys techmap that turns `$lt`, `$le`, `$gt` and `$ge` into the sign of a
/// subtraction one bit wider, so that a comparison costs its carry chain, as in an ALM
/// (see the file's comment).
pub const COMPARE_CARRY_MAP: &str = include_str!("timing/compare_carry.v");
/// The name [`yosys_timing`] writes [`COMPARE_CARRY_MAP`] under in its work directory.
pub const COMPARE_CARRY_FILE: &str = "compare_carry.v";
/// The file [`yosys_timing`] lists the signals over the limit in.
pub const OVER_LIMIT_FILE: &str = "over_limit.txt";
/// The file [`yosys_timing`] lists every named signal's depth in.
pub const SIGNAL_DEPTHS_FILE: &str = "signal_depths.txt";
/// The lines that say where [`yosys_timing`], run in `work_dir`, listed the signals over
/// the limit and every named signal's depth (the commands print them under the census).
pub fn census_files_lines(work_dir: &Path) -> String {
    format!(
        "  every signal over the limit, with its depth: {}\n  \
         every named signal's depth: {}",
        work_dir.join(OVER_LIMIT_FILE).display(),
        work_dir.join(SIGNAL_DEPTHS_FILE).display()
    )
}
/// How many of the worst distinct paths a report keeps.
pub const WORST_PATHS: usize = 5;

/// One register-to-register path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimingPath {
    /// LUT levels (carry chains counted as in [`CARRY_BITS_PER_LEVEL`]).
    pub depth: u32,
    /// Where it starts: a register, a memory's read data or an input, by its Verilog
    /// name.
    pub start: String,
    /// Where it ends: a register (with the pin, if not its data), a memory input or an
    /// output.
    pub end: String,
    /// The signals it passes that have Verilog names, from its start, each with its
    /// depth there (the mapping keeps the names of the nets it does not fold into a LUT;
    /// most intermediate ones are gone).
    pub via: Vec<(u32, String)>,
}

impl TimingPath {
    /// `via a (1) > b (4)`, the signals the path passes and their depths; empty when it
    /// passes none with a Verilog name.
    pub fn via_text(&self) -> String {
        if self.via.is_empty() {
            return String::new();
        }
        let steps: Vec<String> = self
            .via
            .iter()
            .map(|(depth, name)| format!("{name} ({depth})"))
            .collect();
        format!("via {}", steps.join(" > "))
    }
}

/// The LUT depth of a design's register-to-register paths after mapping to 6-input LUTs.
#[derive(Clone, Debug, PartialEq)]
pub struct TimingReport {
    /// Top module.
    pub top: String,
    /// The deepest path's depth.
    pub worst_depth: u32,
    /// The worst [`WORST_PATHS`] paths, one per pair of start and end signals (bit
    /// indices aside), deepest first.
    pub paths: Vec<TimingPath>,
    /// The path ends deeper than [`MAX_LUT_DEPTH`], per depth, deepest first: `(depth,
    /// register or memory input bits, distinct signals)`. How much is left to do, where
    /// the worst path alone says little (the mapping's noise is about two levels).
    pub over_limit: Vec<(u32, usize, usize)>,
    /// The distinct signals with a path end deeper than [`MAX_LUT_DEPTH`] (fewer than the
    /// sum of `over_limit`'s: a signal deep at two depths is there twice), each with its
    /// deepest path and its bits over the limit, deepest first, then by name
    /// ([`TimingReport::over_limit_table`] writes them out).
    pub over_limit_list: Vec<OverSignal>,
    /// Every signal whose Verilog name the mapping kept, with the depth at which its
    /// deepest bit arrives (0: a register's output or an input), by name
    /// ([`TimingReport::signal_depths_table`] writes them out): where a path stands
    /// before a register, which the path lists name only for the worst paths.
    pub signal_depths: Vec<(String, u32)>,
    /// 6-input LUTs after mapping.
    pub luts: u64,
    /// Adders and comparators kept as carry chains.
    pub carry_chains: u64,
    /// Flip-flops.
    pub flip_flops: u64,
    /// Memories kept as memories.
    pub memories: u64,
    /// How long Yosys took, in seconds.
    pub yosys_seconds: f64,
}

impl TimingReport {
    /// Whether the worst path fits [`MAX_LUT_DEPTH`].
    pub fn within_limit(&self) -> bool {
        self.worst_depth <= MAX_LUT_DEPTH
    }

    /// The one-line verdict: the worst depth, the limit and the worst path.
    pub fn summary(&self) -> String {
        let path = self
            .paths
            .first()
            .map_or_else(String::new, |p| format!(": {} -> {}", p.start, p.end));
        format!(
            "timing estimate: worst LUT depth {} (limit {MAX_LUT_DEPTH} for Stratix IV -2 at 250 MHz){path}",
            self.worst_depth
        )
    }

    /// The worst paths, one line each, then the signals each passes, a line each.
    pub fn path_lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for p in &self.paths {
            lines.push(format!("depth {:>2}: {} -> {}", p.depth, p.start, p.end));
            if !p.via.is_empty() {
                lines.push(format!("          {}", p.via_text()));
            }
        }
        lines
    }

    /// The path ends over the limit, in one line: `None` when there are none.
    pub fn over_limit_line(&self) -> Option<String> {
        if self.over_limit.is_empty() {
            return None;
        }
        let bits: usize = self.over_limit.iter().map(|(_, bits, _)| bits).sum();
        let signals = self.over_limit_list.len();
        let per_depth: Vec<String> = self
            .over_limit
            .iter()
            .map(|(d, bits, sigs)| format!("{d}: {bits} in {sigs}"))
            .collect();
        let plural = if signals == 1 { "" } else { "s" };
        Some(format!(
            "over the limit: {bits} path-end bits in {signals} signal{plural} (by depth: {})",
            per_depth.join(", ")
        ))
    }

    /// Every signal over the limit, a line each (deepest first, then by name): depth,
    /// bits over the limit, the signal, the start of its deepest path and the named
    /// signals it passes. Two runs' tables diff into what a change shortened or
    /// lengthened, where the totals move with the mapping's noise.
    pub fn over_limit_table(&self) -> String {
        let mut out = format!(
            "# Signals with register-to-register paths deeper than {MAX_LUT_DEPTH} LUT levels.\n\
             # depth  bits  signal  <-  start of its deepest path  [via the named signals it passes (their depth)]\n"
        );
        for o in &self.over_limit_list {
            let via = o.worst.via_text();
            let sep = if via.is_empty() { "" } else { "  " };
            out.push_str(&format!(
                "{:>3} {:>5}  {}  <-  {}{sep}{via}\n",
                o.worst.depth, o.bits, o.signal, o.worst.start
            ));
        }
        out
    }

    /// Every named signal's depth, a line each, by name: `depth signal`.
    pub fn signal_depths_table(&self) -> String {
        let mut out = String::from(
            "# The depth (LUT levels) at which each named signal's deepest bit arrives.\n",
        );
        for (signal, depth) in &self.signal_depths {
            out.push_str(&format!("{depth:>3}  {signal}\n"));
        }
        out
    }

    /// Whether the worst path fits the limit, in words.
    pub fn verdict(&self) -> String {
        if self.within_limit() {
            format!(
                "timing estimate: within the limit ({} <= {MAX_LUT_DEPTH} LUT levels)",
                self.worst_depth
            )
        } else {
            format!(
                "timing estimate: OVER the limit: {} LUT levels, {} more than Stratix IV -2 closes at 250 MHz; \
                 this depth closes at about {} MHz ({} ps a path)",
                self.worst_depth,
                self.worst_depth - MAX_LUT_DEPTH,
                clock_mhz(self.worst_depth),
                path_ps(self.worst_depth)
            )
        }
    }

    /// Fails, with the worst paths, if the worst path is deeper than [`MAX_LUT_DEPTH`].
    pub fn check_limit(&self) -> Result<(), CheckError> {
        if self.within_limit() {
            return Ok(());
        }
        Err(CheckError::Rejected {
            tool: "timing estimate",
            output: format!(
                "{} exceeds the limit of {MAX_LUT_DEPTH} LUT levels\n{}",
                self.summary(),
                self.path_lines().join("\n")
            ),
        })
    }
}

/// Maps a design to 6-input LUTs with Yosys and measures the LUT depth of its
/// register-to-register paths. The script (`timing.ys`), its log, `stat`, netlist
/// (`timing.json`) and the signals over the limit (`over_limit.txt`,
/// [`TimingReport::over_limit_table`]) go to `work_dir`.
///
/// Generic `synth -run :fine` keeps memories as `$mem_v2` cells and adders and
/// comparators as `$alu` cells (the carry chains of the ALMs; comparisons first become
/// the sign of a subtraction, [`COMPARE_CARRY_MAP`]); the rest is mapped to gates and
/// then by `abc -lut 6` to LUTs, which needs nothing but Yosys' own ABC. The `abc9`
/// route of `synth_intel_alm` maps to real ALM cells but takes twice as long
/// ([`yosys_alm`] counts those).
pub fn yosys_timing(set: &VerilogSet, work_dir: &Path) -> Result<TimingReport, CheckError> {
    std::fs::create_dir_all(work_dir)?;
    std::fs::write(work_dir.join(COMPARE_CARRY_FILE), COMPARE_CARRY_MAP)?;
    let script = format!(
        "{read}synth -flatten -top {top} -run :coarse\n\
         proc\nflatten\n\
         techmap -map {COMPARE_CARRY_FILE} t:$lt t:$le t:$gt t:$ge\n\
         synth -flatten -top {top} -run coarse:fine\n\
         opt -fast -full\n\
         # Everything but the adders to gates; twice, for the cells the first pass makes.\n\
         techmap t:$alu %n\ntechmap t:$alu %n\nopt -fast\n\
         abc -lut 6\nopt_clean\n\
         tee -q -o timing_stat.txt stat\n\
         write_json timing.json\n",
        read = yosys_read_commands(set, &[])?,
        top = set.top,
    );
    let seconds = run_yosys_script(&script, "timing.ys", work_dir)?;
    let json = std::fs::read_to_string(work_dir.join("timing.json"))?;
    let mut report = timing_of_netlist(&json, &set.top)?;
    report.yosys_seconds = seconds;
    std::fs::write(work_dir.join(OVER_LIMIT_FILE), report.over_limit_table())?;
    std::fs::write(
        work_dir.join(SIGNAL_DEPTHS_FILE),
        report.signal_depths_table(),
    )?;
    Ok(report)
}

/// The timing report of module `top` in a LUT-mapped Yosys JSON netlist.
pub fn timing_of_netlist(json: &str, top: &str) -> Result<TimingReport, CheckError> {
    let a = depth::analyse(json, top, WORST_PATHS, MAX_LUT_DEPTH)?;
    Ok(TimingReport {
        top: top.to_string(),
        worst_depth: a.worst,
        paths: a.paths,
        over_limit: a.over,
        over_limit_list: a.over_list,
        signal_depths: a.named,
        luts: a.counts.luts,
        carry_chains: a.counts.carry_chains,
        flip_flops: a.counts.flip_flops,
        memories: a.counts.memories,
        yosys_seconds: 0.0,
    })
}

/// What `synth_intel_alm -family cyclonev` made of a design. Stratix IV is not one of
/// its families; Cyclone V has the same ALM (a fracturable 6-input LUT, two adders, four
/// registers per ALM in Cyclone V against two in Stratix IV), so LUTs, adders and
/// flip-flops carry over; its block RAM is the M10K where Stratix IV has M9K and M144K.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AlmReport {
    /// LUT cells (`MISTRAL_ALUT2`..`6`, `MISTRAL_NOT`).
    pub luts: u64,
    /// Arithmetic cells (`MISTRAL_ALUT_ARITH`): one adder bit with its LUTs each.
    pub arithmetic: u64,
    /// Flip-flops (`MISTRAL_FF`).
    pub flip_flops: u64,
    /// 10-Kbit block RAMs (`MISTRAL_M10K`).
    pub m10k: u64,
    /// 640-bit LUT RAMs (`MISTRAL_MLAB`).
    pub mlab: u64,
    /// DSP blocks (`MISTRAL_MUL*`).
    pub dsp: u64,
    /// The `stat` output, as printed.
    pub stat: String,
    /// How long Yosys took, in seconds.
    pub yosys_seconds: f64,
}

/// Runs `synth_intel_alm -family cyclonev` (flattened, no I/O pads or clock buffers,
/// which belong to the board wrapper) and counts its cells. The script
/// (`alm.ys`), its log and `stat` go to `work_dir`. About four minutes for the core.
pub fn yosys_alm(set: &VerilogSet, work_dir: &Path) -> Result<AlmReport, CheckError> {
    let script = format!(
        "{read}synth_intel_alm -family cyclonev -top {top} -noiopad -noclkbuf\n\
         tee -q -o alm_stat.txt stat\n",
        read = yosys_read_commands(set, &[])?,
        top = set.top,
    );
    let seconds = run_yosys_script(&script, "alm.ys", work_dir)?;
    let mut report = parse_alm_stat(&std::fs::read_to_string(work_dir.join("alm_stat.txt"))?);
    report.yosys_seconds = seconds;
    Ok(report)
}

fn parse_alm_stat(stat: &str) -> AlmReport {
    let mut r = AlmReport {
        stat: stat.to_string(),
        ..Default::default()
    };
    for line in stat.lines() {
        let [cell, n] = line.split_whitespace().collect::<Vec<_>>()[..] else {
            continue;
        };
        let Ok(n) = n.parse::<u64>() else { continue };
        match cell {
            "MISTRAL_ALUT_ARITH" => r.arithmetic += n,
            "MISTRAL_NOT" => r.luts += n,
            "MISTRAL_FF" => r.flip_flops += n,
            "MISTRAL_M10K" => r.m10k += n,
            "MISTRAL_MLAB" => r.mlab += n,
            c if c.starts_with("MISTRAL_ALUT") => r.luts += n,
            c if c.starts_with("MISTRAL_MUL") => r.dsp += n,
            _ => {}
        }
    }
    r
}

#[cfg(test)]
mod tests;
