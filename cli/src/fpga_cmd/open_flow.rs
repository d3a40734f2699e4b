//! `peach2 fpga open-flow`: the wrapper and the core through Verilator, Icarus, the
//! adapters' testbench and Yosys, with a resource report, a timing estimate of the core
//! (LUT depth against what Stratix IV closes at 250 MHz) and its ALM-class resources.

use super::{check_failed, io_failed};
use crate::CliError;
use peach2_rtl::verilog::checks::{
    iverilog_elaborate_set, iverilog_testbench, verilator_lint_set, VerilogSet,
};
use peach2_rtl::verilog::export::{write_core, CORE_MODULE};
use peach2_rtl::verilog::resources::{yosys_resources, BlockResources, DesignResources};
use peach2_rtl::verilog::timing::{
    census_files_lines, yosys_alm, yosys_timing, AlmReport, TimingReport, LEVEL_PS, LUT_PS,
    REGISTER_CLOCK_TO_OUT_PS, REGISTER_SETUP_PS, ROUTING_PS,
};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One of the wrapper's files, embedded so the flow runs from any directory and the
/// report refers to exactly what was checked.
macro_rules! source {
    ($path:literal) => {
        ($path, include_str!(concat!("../../../fpga-build/", $path)))
    };
}
const SOURCES: &[(&str, &str)] = &[
    source!("rtl/peach2_top.v"),
    source!("rtl/peach2_port.v"),
    source!("rtl/hip_connections.vh"),
    source!("rtl/hip_reset.v"),
    source!("rtl/reset_sync.v"),
    source!("rtl/hip_rx_adapter.v"),
    source!("rtl/hip_tx_adapter.v"),
    source!("rtl/hip_tlp_layout.v"),
    source!("rtl/fwft_fifo.v"),
    source!("stubs/altera_ip_stubs.v"),
    source!("tb/hip_adapters_tb.v"),
    source!("tb/hip_adapter_vectors.vh"),
    source!("lint/wrapper.vlt"),
];
const TOP: &str = "peach2_top";
/// The wrapper's files around the adapters.
const PORTS: &[&str] = &[
    "rtl/peach2_top.v",
    "rtl/peach2_port.v",
    "rtl/hip_reset.v",
    "rtl/reset_sync.v",
];
const ADAPTERS: &[&str] = &[
    "rtl/hip_rx_adapter.v",
    "rtl/hip_tx_adapter.v",
    "rtl/hip_tlp_layout.v",
    "rtl/fwft_fifo.v",
];
const STUBS: &str = "stubs/altera_ip_stubs.v";
const TESTBENCH: (&str, &str) = ("tb/hip_adapters_tb.v", "hip_adapters_tb");

/// Resources of the EP4SGX530 (Stratix IV Device Handbook, vol. 1, "Overview for the
/// Stratix IV Device Family", table 1-1). An ALM has two ALUTs and two registers.
struct Capacity;
impl Capacity {
    const ALMS: u64 = 212_480;
    const ALUTS: u64 = 2 * Self::ALMS;
    const REGISTERS: u64 = 2 * Self::ALMS;
    const M9K: u64 = 1_280;
    const M144K: u64 = 64;
    /// M9K and M144K blocks, in bits (20,736 Kbits).
    const BLOCK_RAM_BITS: u64 = (Self::M9K * 9 + Self::M144K * 144) * 1024;
    /// Block RAM plus MLABs (27,376 Kbits).
    const TOTAL_RAM_BITS: u64 = 27_376 * 1024;
}

pub(crate) fn open_flow(out: &Path) -> Result<(), CliError> {
    let mut report = String::new();
    let result = open_flow_steps(out, &mut report);
    if let Err(e) = &result {
        let _ = writeln!(report, "\nFAILED: {e}");
    }
    let path = out.join("report.txt");
    std::fs::create_dir_all(out)
        .and_then(|()| std::fs::write(&path, &report))
        .map_err(|e| io_failed(&path, e))?;
    println!("wrote {}", path.display());
    result
}

/// Prints a step's verdict and records it in the report.
macro_rules! note {
    ($report:expr, $($arg:tt)*) => {{
        let line = format!($($arg)*);
        println!("{line}");
        $report.push_str(&line);
        $report.push('\n');
    }};
}

fn open_flow_steps(out: &Path, report: &mut String) -> Result<(), CliError> {
    let _ = writeln!(report, "PEACH2 board image: open-tool flow\n");
    let src = out.join("src");
    for (name, text) in SOURCES {
        let path = src.join(name);
        std::fs::create_dir_all(path.parent().unwrap_or(&src))
            .and_then(|()| std::fs::write(&path, text))
            .map_err(|e| io_failed(&path, e))?;
    }
    let core_dir = out.join("core");
    let core = write_core(&core_dir).map_err(|e| io_failed(&core_dir, e))?;
    note!(report, "== Sources\nwrapper: {}", src.display());
    note!(
        report,
        "core: {} (exported from the Rust design)",
        core.verilog.display()
    );

    let files = |names: &[&str]| -> Vec<PathBuf> { names.iter().map(|n| src.join(n)).collect() };
    let mut wrapper_files = files(PORTS);
    wrapper_files.extend(files(ADAPTERS));
    wrapper_files.push(src.join(STUBS));
    wrapper_files.push(core.verilog.clone());
    let wrapper = |s_role_rc: u8| VerilogSet {
        files: wrapper_files.clone(),
        include_dirs: vec![src.join("rtl")],
        top: TOP.to_string(),
        params: vec![("S_ROLE_RC".to_string(), s_role_rc.to_string())],
    };
    let waivers = [core.waivers.clone(), src.join("lint/wrapper.vlt")];

    note!(report, "\n== Verilator lint (--lint-only -Wall)");
    for role in [0, 1] {
        verilator_lint_set(&wrapper(role), &waivers)
            .map_err(|e| check_failed("verilator lint", e))?;
        note!(report, "{TOP} with S_ROLE_RC={role}: clean");
    }
    note!(
        report,
        "waivers: {} (core), {} (wrapper), each with its reason",
        waivers[0].display(),
        waivers[1].display()
    );

    note!(report, "\n== Icarus elaboration (iverilog -g2012 -Wall)");
    for role in [0, 1] {
        iverilog_elaborate_set(&wrapper(role), &out.join("elab"))
            .map_err(|e| check_failed("icarus elaboration", e))?;
        note!(report, "{TOP} with S_ROLE_RC={role}: elaborates");
    }

    note!(
        report,
        "\n== The core under Icarus (vvp), against the Verilated core"
    );
    let r = peach2_sim::icarus::check(&core.verilog, CORE_MODULE, &out.join("core-sim"))
        .map_err(|e| CliError::Failure(e.to_string()))?;
    note!(report, "{}", crate::verilog_cmd::replay_line(&r));

    note!(report, "\n== Adapter testbench (iverilog + vvp)");
    let mut tb_files = files(ADAPTERS);
    tb_files.push(src.join(TESTBENCH.0));
    let tb = VerilogSet {
        files: tb_files,
        include_dirs: vec![src.join("tb")],
        top: TESTBENCH.1.to_string(),
        params: Vec::new(),
    };
    let sim =
        iverilog_testbench(&tb, &out.join("sim")).map_err(|e| check_failed("testbench", e))?;
    for line in sim.lines().filter(|l| !l.trim().is_empty()) {
        note!(report, "{}", line.trim());
    }

    // The three Yosys runs are independent processes of minutes each: they run side by
    // side (one thread waiting on each), and their sections are written in order after.
    // Yosys reads the stand-ins as black boxes (-lib), not as modules.
    let mut synth = wrapper(0);
    synth.files.retain(|f| *f != src.join(STUBS));
    // The estimates are of the core: the wrapper around it is the adapters and hard IP.
    let core_set = VerilogSet {
        files: vec![core.verilog.clone()],
        top: CORE_MODULE.to_string(),
        ..Default::default()
    };
    println!(
        "yosys: synthesizing {TOP}, mapping {CORE_MODULE} to LUTs and through synth_intel_alm, \
         side by side (5-10 minutes on two cores)"
    );
    let (res, timing, alm) = std::thread::scope(|s| {
        let timing = s.spawn(|| yosys_timing(&core_set, &out.join("timing")));
        let alm = s.spawn(|| yosys_alm(&core_set, &out.join("alm")));
        let res = yosys_resources(&synth, &[src.join(STUBS)], &out.join("synth"));
        (res, joined(timing), joined(alm))
    });

    note!(
        report,
        "\n== Yosys synthesis (generic gates; hierarchy kept, then flattened)"
    );
    let res = res.map_err(|e| check_failed("yosys synthesis", e))?;
    synthesis_report(report, &res, &out.join("synth"));

    note!(
        report,
        "\n== Timing estimate: {CORE_MODULE} in 6-input LUTs (Yosys abc -lut 6)"
    );
    let timing = timing.map_err(|e| check_failed("timing estimate", e))?;
    timing_report(report, &timing, &out.join("timing"));

    note!(
        report,
        "\n== ALM-class resources: {CORE_MODULE} through synth_intel_alm -family cyclonev"
    );
    let alm = alm.map_err(|e| check_failed("synth_intel_alm", e))?;
    alm_report(report, &alm, &out.join("alm"));
    Ok(())
}

/// A Yosys run's result from its thread (a panic there is re-raised here: it is a bug).
fn joined<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

fn timing_report(report: &mut String, t: &TimingReport, dir: &Path) {
    note!(report, "{}", t.summary());
    note!(
        report,
        "mapped: {} LUTs, {} carry chains, {} flip-flops, {} memories (Yosys {:.0} s)",
        t.luts,
        t.carry_chains,
        t.flip_flops,
        t.memories,
        t.yosys_seconds
    );
    note!(report, "worst paths, one per start and end signal:");
    for line in t.path_lines() {
        note!(report, "  {line}");
    }
    if let Some(line) = t.over_limit_line() {
        note!(report, "{line}");
        note!(report, "{}", census_files_lines(dir));
    }
    note!(report, "{}", t.verdict());
    let _ = writeln!(
        report,
        "The limit: ({} ps - {REGISTER_CLOCK_TO_OUT_PS} ps clock-to-out - {REGISTER_SETUP_PS} ps setup) / \
         {LEVEL_PS} ps a level\n({LUT_PS} ps LUT + {ROUTING_PS} ps routing), Quartus' Stratix IV \
         delays as the Titan project recorded\nthem (rtl/src/verilog/timing.rs has the sources \
         and assumptions). Paths start at registers, memories' registered read data and\n\
         inputs, and end at register and memory inputs and outputs; an adder counts one\n\
         level per 31 bits of carry chain.\n\
         script, log, stat and netlist: {}",
        peach2_rtl::verilog::timing::CLOCK_PERIOD_PS,
        dir.display()
    );
}

fn alm_report(report: &mut String, a: &AlmReport, dir: &Path) {
    note!(report, "LUTs (MISTRAL_ALUT2-6, NOT): {}", a.luts);
    note!(
        report,
        "arithmetic cells (MISTRAL_ALUT_ARITH): {}",
        a.arithmetic
    );
    note!(report, "registers (MISTRAL_FF): {}", a.flip_flops);
    note!(report, "M10K blocks: {}", a.m10k);
    note!(report, "MLAB blocks: {}", a.mlab);
    note!(report, "DSP blocks: {}", a.dsp);
    note!(report, "(Yosys {:.0} s)", a.yosys_seconds);
    let aluts = a.luts + a.arithmetic;
    for (what, used, have) in [
        ("ALUTs / EP4SGX530 ALUTs", aluts, Capacity::ALUTS),
        (
            "registers / EP4SGX530 registers",
            a.flip_flops,
            Capacity::REGISTERS,
        ),
    ] {
        let ratio = 100.0 * used as f64 / have as f64;
        note!(report, "{what:<32} {used:>8} of {have:>8} = {ratio:5.2}%");
    }
    let _ = writeln!(
        report,
        "Stratix IV is not a synth_intel_alm family; Cyclone V has the same ALM (a\n\
         fracturable 6-input LUT with two adders), so LUTs, arithmetic cells and registers\n\
         carry over. Its block RAM is the 10-Kbit M10K where Stratix IV has the 9-Kbit M9K\n\
         and the M144K; MLABs are 640 bits in both.\n\
         script, log and stat: {}",
        dir.display()
    );
}

/// A readable module name: Yosys' `$paramod\name\P=s32'0101` becomes `name (P=5)`.
fn pretty(module: &str) -> String {
    let Some(rest) = module.strip_prefix("$paramod") else {
        return module.to_string();
    };
    // `$paramod\name\params` or `$paramod$<hash>\name`.
    let hashed = rest.starts_with('$');
    let mut parts = rest.split('\\');
    parts.next();
    let name = parts.next().unwrap_or(module).to_string();
    let params: Vec<String> = parts
        .map(|p| match p.split_once('=') {
            Some((k, v)) => {
                let bits = v.rsplit('\'').next().unwrap_or(v);
                match u64::from_str_radix(bits, 2) {
                    Ok(n) => format!("{k}={n}"),
                    Err(_) => format!("{k}={v}"),
                }
            }
            None => p.to_string(),
        })
        .collect();
    match (params.is_empty(), hashed) {
        (false, _) => format!("{name} ({})", params.join(", ")),
        (true, true) => format!("{name} (parameterized)"),
        (true, false) => name,
    }
}

fn block_table(report: &mut String, blocks: &[BlockResources], strip: &str) {
    // Variants Yosys names apart (a parameter given as s32' or 32') print alike: merge.
    let mut rows: Vec<(String, BlockResources)> = Vec::new();
    for b in blocks {
        let name = pretty(&b.module);
        let name = name.strip_prefix(strip).unwrap_or(&name).to_string();
        match rows.iter_mut().find(|(n, _)| *n == name) {
            Some((_, r)) => {
                r.instances += b.instances;
                r.logic += b.logic;
                r.flip_flops += b.flip_flops;
                r.memory_bits += b.memory_bits;
            }
            None => rows.push((name, b.clone())),
        }
    }
    let _ = writeln!(
        report,
        "{:<40} {:>9} {:>12} {:>12} {:>12}",
        "block", "instances", "logic cells", "flip-flops", "memory bits"
    );
    for (name, b) in rows {
        let _ = writeln!(
            report,
            "{name:<40} {:>9} {:>12} {:>12} {:>12}",
            b.instances, b.logic, b.flip_flops, b.memory_bits
        );
    }
}

fn synthesis_report(report: &mut String, res: &DesignResources, dir: &Path) {
    let f = &res.flat;
    note!(report, "logic cells (gates and muxes): {}", f.logic);
    note!(report, "flip-flops: {}", f.flip_flops);
    note!(
        report,
        "memory bits: {} in {} memories",
        f.memory_bits,
        f.memories
    );
    note!(report, "latches: {}", f.latches);
    let boxes: Vec<String> = f
        .black_boxes
        .iter()
        .map(|(m, n)| format!("{m} x{n}"))
        .collect();
    note!(report, "black boxes (Altera IP): {}", boxes.join(", "));
    note!(
        report,
        "check -assert, flattened: no combinational loop, no conflicting or missing driver"
    );
    let _ = writeln!(report, "script, log and stat outputs: {}", dir.display());

    let _ = writeln!(report, "\n== Per block: the top level ({TOP}, S_ROLE_RC=0)");
    block_table(report, &res.blocks_of(TOP), "");
    let _ = writeln!(report, "\n== Per block: the core ({CORE_MODULE})");
    let mut core_blocks = res.blocks_of(CORE_MODULE);
    if let Some(own) = res.modules.get(CORE_MODULE) {
        core_blocks.push(BlockResources {
            module: format!("{CORE_MODULE}$(glue)"),
            instances: 1,
            logic: own.logic,
            flip_flops: own.flip_flops,
            memory_bits: own.memory_bits,
        });
    }
    block_table(report, &core_blocks, &format!("{CORE_MODULE}$"));

    note!(
        report,
        "\n== Against the EP4SGX530 ({} ALMs, {} M9K + {} M144K)",
        Capacity::ALMS,
        Capacity::M9K,
        Capacity::M144K
    );
    let rows = [
        ("flip-flops / registers", f.flip_flops, Capacity::REGISTERS),
        ("logic cells / ALUTs", f.logic, Capacity::ALUTS),
        (
            "memory bits / M9K+M144K bits",
            f.memory_bits,
            Capacity::BLOCK_RAM_BITS,
        ),
        (
            "memory bits / all RAM bits",
            f.memory_bits,
            Capacity::TOTAL_RAM_BITS,
        ),
    ];
    for (what, used, have) in rows {
        let ratio = 100.0 * used as f64 / have as f64;
        note!(report, "{what:<30} {used:>10} of {have:>10} = {ratio:5.2}%");
    }
    let _ = writeln!(
        report,
        "Caveat: Yosys' generic cells are 2-input gates and muxes, not Stratix IV ALMs. An\n\
         ALUT takes up to 6 inputs, so the logic-cell ratio overstates ALUT use several\n\
         times; flip-flops map nearly one to one to registers; memories are counted in\n\
         bits before mapping (a 128-bit-wide memory takes at least four M9Ks whatever its\n\
         depth). The hard IPs, their reconfiguration controllers and the PLL are hard\n\
         blocks and not counted. Quartus' fit report is the real figure."
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paramod_names_are_readable() {
        assert_eq!(
            pretty("$paramod\\peach2_port\\ROLE_RC=s32'00000000000000000000000000000001"),
            "peach2_port (ROLE_RC=1)"
        );
        assert_eq!(
            pretty("$paramod$0f6253c3d19e7c1d107277fdf8c47752dadba185\\fwft_fifo"),
            "fwft_fifo (parameterized)"
        );
        assert_eq!(pretty("peach2_core$rx$0"), "peach2_core$rx$0");
    }

    #[test]
    fn capacity_matches_the_handbook_totals() {
        assert_eq!(Capacity::BLOCK_RAM_BITS / 1024, 20_736);
        assert_eq!(Capacity::ALUTS, 424_960);
    }
}
