use super::*;
use crate::verilog::checks::scratch_dir;

#[test]
fn limit_follows_from_the_sourced_delays() {
    assert_eq!(LEVEL_PS, 638);
    assert_eq!(
        CLOCK_PERIOD_PS - REGISTER_CLOCK_TO_OUT_PS - REGISTER_SETUP_PS,
        3_847
    );
    assert_eq!(MAX_LUT_DEPTH, 6);
    // Six levels fit the period, seven do not.
    assert_eq!(path_ps(MAX_LUT_DEPTH), 87 + 6 * 638 + 66);
    assert!(path_ps(MAX_LUT_DEPTH) <= CLOCK_PERIOD_PS);
    assert!(path_ps(MAX_LUT_DEPTH + 1) > CLOCK_PERIOD_PS);
    // So the limit's clock is at least the core's, the next level's below it.
    assert!(clock_mhz(MAX_LUT_DEPTH) >= 250 && clock_mhz(MAX_LUT_DEPTH + 1) < 250);
    assert_eq!(
        [6, 7, 8, 9, 10].map(clock_mhz),
        [251, 216, 190, 169, 153],
        "1e6 / (87 + n * 638 + 66), rounded down"
    );
    assert_eq!(CARRY_BITS_PER_LEVEL, 31);
}

/// Registers r0, r1 -> two LUTs -> a 33-bit adder -> register `out` (4 levels); `out`
/// addresses a 32-word memory read without a clock (3 levels of 4:1 muxes) into r2.
const NETLIST: &str = r#"{"modules": {"top": {
  "ports": {"clk": {"direction": "input", "bits": [2]},
            "d": {"direction": "input", "bits": [3, 4]},
            "q": {"direction": "output", "bits": [12]}},
  "cells": {
    "ff0": {"type": "$_DFF_P_", "port_directions": {"C": "input", "D": "input", "Q": "output"},
            "connections": {"C": [2], "D": [3], "Q": [5]}},
    "ff1": {"type": "$_DFF_P_", "port_directions": {"C": "input", "D": "input", "Q": "output"},
            "connections": {"C": [2], "D": [4], "Q": [6]}},
    "lut0": {"type": "$lut", "port_directions": {"A": "input", "Y": "output"},
             "connections": {"A": [5, 6], "Y": [7]}},
    "lut1": {"type": "$lut", "port_directions": {"A": "input", "Y": "output"},
             "connections": {"A": [7, 5], "Y": [8]}},
    "add": {"type": "$alu",
            "port_directions": {"A": "input", "B": "input", "BI": "input", "CI": "input",
                                "X": "output", "Y": "output", "CO": "output"},
            "connections": {"A": [8], "B": [6], "BI": ["0"], "CI": ["0"], "X": [], "CO": [],
                            "Y": [9, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34,
                                  35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51]}},
    "ff2": {"type": "$_DFFE_PP_",
            "port_directions": {"C": "input", "D": "input", "E": "input", "Q": "output"},
            "connections": {"C": [2], "D": [9], "E": [7], "Q": [10]}},
    "mem": {"type": "$mem_v2",
            "parameters": {"MEMID": "\\ram", "RD_PORTS": "1", "ABITS": "1", "WIDTH": "1",
                           "SIZE": "00000000000000000000000000100000", "RD_CLK_ENABLE": "0"},
            "port_directions": {"RD_ADDR": "input", "RD_DATA": "output", "WR_ADDR": "input",
                                "WR_DATA": "input", "WR_EN": "input", "WR_CLK": "input"},
            "connections": {"RD_ADDR": [10], "RD_DATA": [11], "WR_ADDR": ["0"], "WR_DATA": [8],
                            "WR_EN": ["1"], "WR_CLK": [2]}},
    "ff3": {"type": "$_DFF_P_", "port_directions": {"C": "input", "D": "input", "Q": "output"},
            "connections": {"C": [2], "D": [11], "Q": [12]}}},
  "netnames": {
    "r0": {"hide_name": 0, "bits": [5]}, "r1": {"hide_name": 0, "bits": [6]},
    "$abc$7": {"hide_name": 1, "bits": [7]}, "mix": {"hide_name": 0, "bits": [8]},
    "$sum": {"hide_name": 1, "bits": [9]}, "out": {"hide_name": 0, "bits": [10]},
    "$rd": {"hide_name": 1, "bits": [11]},
    "r2": {"hide_name": 0, "bits": [12]}, "q": {"hide_name": 0, "bits": [12]},
    "d": {"hide_name": 0, "bits": [3, 4], "offset": 4}}}}}"#;

#[test]
fn netlist_depths_count_luts_carry_chains_and_unclocked_reads() {
    let r = timing_of_netlist(NETLIST, "top").unwrap();
    let paths: Vec<(u32, &str, &str)> = r
        .paths
        .iter()
        .map(|p| (p.depth, p.start.as_str(), p.end.as_str()))
        .collect();
    assert_eq!(
        paths,
        [
            (4, "r0", "out"),
            (3, "out", "q"),
            (2, "r0", "ram (write data)"),
            (1, "r0", "out (enable)"),
            (0, "d[4]", "r0"),
        ]
    );
    assert_eq!(r.worst_depth, 4);
    // The worst path passes one signal the Verilog named (the LUT before it and the
    // adder's output have made-up names).
    assert_eq!(r.paths[0].via, [(2, "mix".to_string())]);
    assert_eq!(r.paths[0].via_text(), "via mix (2)");
    assert!(r.paths[1].via.is_empty());
    assert_eq!(
        r.path_lines()[..3],
        [
            "depth  4: r0 -> out",
            "          via mix (2)",
            "depth  3: out -> q"
        ]
    );
    assert!(r.over_limit.is_empty() && r.over_limit_line().is_none());
    assert!(r.over_limit_list.is_empty());
    // Every named signal, by name: registers and inputs at 0, `mix` after two LUTs (a
    // bit with two names keeps the shorter: `q`, not `r2`).
    let named = |s: &[(&str, u32)]| -> Vec<(String, u32)> {
        s.iter().map(|&(n, d)| (n.to_string(), d)).collect()
    };
    assert_eq!(
        r.signal_depths,
        named(&[
            ("d", 0),
            ("mix", 2),
            ("out", 0),
            ("q", 0),
            ("r0", 0),
            ("r1", 0)
        ])
    );
    assert!(r
        .signal_depths_table()
        .ends_with("  2  mix\n  0  out\n  0  q\n  0  r0\n  0  r1\n"));
    assert_eq!(
        (r.luts, r.carry_chains, r.flip_flops, r.memories),
        (2, 1, 4, 1)
    );
    assert!(r.within_limit());
    assert_eq!(
        r.summary(),
        "timing estimate: worst LUT depth 4 (limit 6 for Stratix IV -2 at 250 MHz): r0 -> out"
    );
}

#[test]
fn netlist_rejects_loops_and_unknown_cells() {
    let looped = NETLIST.replace(r#""A": [5, 6], "Y": [7]"#, r#""A": [8, 6], "Y": [7]"#);
    let err = timing_of_netlist(&looped, "top").unwrap_err().to_string();
    assert!(err.contains("combinational loop"), "{err}");
    let unknown = NETLIST.replace(r#""type": "$lut""#, r#""type": "$pmux""#);
    let err = timing_of_netlist(&unknown, "top").unwrap_err().to_string();
    assert!(err.contains("$pmux is not modelled"), "{err}");
}

/// Writes `verilog` and measures it; `None` (and a note) if Yosys is not installed.
fn measure(verilog: &str, top: &str) -> Option<TimingReport> {
    let dir = scratch_dir(&format!("timing-{top}")).unwrap();
    let file = dir.join(format!("{top}.v"));
    std::fs::write(&file, verilog).unwrap();
    let set = VerilogSet {
        files: vec![file],
        top: top.to_string(),
        ..Default::default()
    };
    let r = yosys_timing(&set, &dir);
    if let Ok(r) = &r {
        let table = std::fs::read_to_string(dir.join(OVER_LIMIT_FILE)).unwrap();
        assert_eq!(
            table,
            r.over_limit_table(),
            "the file is the report's table"
        );
        let depths = std::fs::read_to_string(dir.join(SIGNAL_DEPTHS_FILE)).unwrap();
        assert_eq!(
            depths,
            r.signal_depths_table(),
            "the file is the report's depths"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    installed(r)
}

/// A Yosys run's result; `None` (and a note) if Yosys is not installed.
fn installed<T>(r: Result<T, CheckError>) -> Option<T> {
    match r {
        Err(CheckError::ToolMissing(tool)) => {
            eprintln!("skipped: {tool} is not installed (scripts/setup.sh installs it)");
            None
        }
        r => Some(r.unwrap()),
    }
}

/// A register of 7 bits, their XOR (two LUT levels: 7 inputs do not fit one) into a
/// second register, whose 7 bits XORed with the first's go to the output register
/// (the 14 inputs need two levels too).
const XOR_STAGES: &str = "
module xor_stages(input clk, input [6:0] d, output reg y);
  reg [6:0] src;
  reg [6:0] mid;
  always @(posedge clk) begin
    src <= d;
    mid <= {mid[5:0], ^src};
    y <= ^(mid ^ src);
  end
endmodule
";

#[test]
fn yosys_measures_a_known_depth_with_verilog_names() {
    let Some(r) = measure(XOR_STAGES, "xor_stages") else {
        return;
    };
    assert_eq!(r.worst_depth, 2, "{r:?}");
    assert!(r.within_limit());
    assert_eq!(r.flip_flops, 15, "{r:?}");
    let worst = &r.paths[0];
    assert_eq!(worst.depth, 2);
    assert!(
        worst.start.starts_with("src[") || worst.start.starts_with("mid["),
        "{worst:?}"
    );
    assert!(worst.end == "y" || worst.end == "mid[0]", "{worst:?}");
    // Both stages are reported, each once.
    let ends: Vec<&str> = r
        .paths
        .iter()
        .filter(|p| p.depth == 2)
        .map(|p| p.end.as_str())
        .collect();
    assert!(ends.contains(&"y") && ends.contains(&"mid[0]"), "{r:?}");
    assert!(r.check_limit().is_ok());
    assert_eq!(
        r.verdict(),
        "timing estimate: within the limit (2 <= 6 LUT levels)"
    );
}

/// Two 64-bit additions with an XOR between them: 3 + 1 + 3 = 7 levels, one more than
/// Stratix IV closes at 250 MHz.
const DEEP: &str = "
module deep(input clk, input [63:0] a, input [63:0] b, input [63:0] c, input [63:0] d,
            output reg [63:0] y);
  reg [63:0] ra, rb, rc, rd;
  always @(posedge clk) begin
    ra <= a; rb <= b; rc <= c; rd <= d;
    y <= ((ra + rb) ^ rc) + rd;
  end
endmodule
";

#[test]
fn a_deeper_design_is_reported_over_the_limit() {
    let Some(r) = measure(DEEP, "deep") else {
        return;
    };
    assert_eq!(r.worst_depth, 7, "{r:?}");
    assert_eq!(r.carry_chains, 2, "{r:?}");
    assert!(!r.within_limit());
    let worst = &r.paths[0];
    assert!(
        worst.start.starts_with("ra[") || worst.start.starts_with("rb["),
        "{worst:?}"
    );
    assert!(worst.end.starts_with("y["), "{worst:?}");
    // Only the sum's upper bits are 7 deep; all of them end in one signal, y.
    let [(7, bits, 1)] = r.over_limit[..] else {
        panic!("{:?}", r.over_limit);
    };
    assert!((1..=64).contains(&bits), "{bits}");
    assert_eq!(
        r.over_limit_line().unwrap(),
        format!("over the limit: {bits} path-end bits in 1 signal (by depth: 7: {bits} in 1)")
    );
    let [y] = &r.over_limit_list[..] else {
        panic!("{:?}", r.over_limit_list);
    };
    assert_eq!((y.signal.as_str(), y.bits, y.worst.depth), ("y", bits, 7));
    assert_eq!(y.worst, r.paths[0]);
    let table = r.over_limit_table();
    let rows: Vec<&str> = table.lines().filter(|l| !l.starts_with('#')).collect();
    let via = if worst.via.is_empty() {
        String::new()
    } else {
        format!("  {}", worst.via_text())
    };
    assert_eq!(
        rows,
        [format!("  7 {bits:>5}  y  <-  {}{via}", worst.start)],
        "{table}"
    );
    // The path's named signals come in order of depth, each shallower than its end.
    assert!(
        worst.via.windows(2).all(|w| w[0].0 <= w[1].0)
            && worst.via.iter().all(|(d, _)| (1..=7).contains(d)),
        "{worst:?}"
    );
    assert_eq!(
        r.verdict(),
        "timing estimate: OVER the limit: 7 LUT levels, 1 more than Stratix IV -2 closes at 250 MHz; \
         this depth closes at about 216 MHz (4619 ps a path)"
    );
    let err = r.check_limit().unwrap_err().to_string();
    assert!(err.contains("worst LUT depth 7 (limit 6"), "{err}");
    assert!(err.contains("exceeds the limit of 6 LUT levels"), "{err}");
}

#[test]
fn alm_stat_counts_luts_arithmetic_registers_and_rams() {
    let stat = "   Number of cells:              37488\n     MISTRAL_ALUT2                2198\n     MISTRAL_ALUT6                4306\n     MISTRAL_ALUT_ARITH           5302\n     MISTRAL_FF                  10927\n     MISTRAL_M10K                   80\n     MISTRAL_MLAB                  183\n     MISTRAL_NOT                    10\n     MISTRAL_MUL27X27                2\n";
    let r = parse_alm_stat(stat);
    assert_eq!(
        (r.luts, r.arithmetic, r.flip_flops, r.m10k, r.mlab, r.dsp),
        (2198 + 4306 + 10, 5302, 10927, 80, 183, 2)
    );
}

/// 32-bit comparisons between registers: unsigned `>=` and `<`, signed `<=`.
const COMPARES: &str = "
module compares(input clk, input [31:0] a, input [31:0] b, output reg ge, output reg lt,
                output reg sle);
  reg [31:0] ra, rb;
  always @(posedge clk) begin
    ra <= a; rb <= b;
    ge <= ra >= rb;
    lt <= ra < rb;
    sle <= $signed(ra) <= $signed(rb);
  end
endmodule
";

#[test]
fn a_comparison_costs_its_carry_chain() {
    let Some(r) = measure(COMPARES, "compares") else {
        return;
    };
    // A 33-bit chain (2 levels) and a LUT for the result's sense; Yosys' own mapping of
    // `>=` measured 5.
    assert_eq!(r.worst_depth, 3, "{r:?}");
    assert!(r.carry_chains >= 2, "{r:?}");
}

/// Every comparison, signed and unsigned, of operands of different widths.
const COMPARE_ALL: &str = "
module compare_all(input [7:0] a, input [4:0] b, input signed [7:0] sa,
                   input signed [4:0] sb, input [2:0] u, input [2:0] v, output [9:0] y);
  assign y = {a < b, a <= b, a > b, a >= b, sa < sb, sa <= sb, sa > sb, sa >= sb,
              u < v, u >= v};
endmodule
";

#[test]
fn the_comparison_map_is_what_yosys_means_by_a_comparison() {
    let dir = scratch_dir("timing-compare-map").unwrap();
    std::fs::write(dir.join("compare_all.v"), COMPARE_ALL).unwrap();
    std::fs::write(dir.join(COMPARE_CARRY_FILE), COMPARE_CARRY_MAP).unwrap();
    // A SAT proof that the mapped comparisons (`gate`, mapped before `gold` is read, so
    // the map touches it alone) equal Yosys' own: `sat -verify` fails the script
    // otherwise, as the `select`s do if either side is not what it should be.
    let script = format!(
        "read_verilog compare_all.v\nproc\n\
         techmap -map {COMPARE_CARRY_FILE} t:$lt t:$le t:$gt t:$ge\nopt\n\
         rename compare_all gate\n\
         read_verilog compare_all.v\nproc\nrename compare_all gold\n\
         select -assert-count 10 gold/t:$lt gold/t:$le gold/t:$gt gold/t:$ge\n\
         select -assert-none gate/t:$lt gate/t:$le gate/t:$gt gate/t:$ge\n\
         miter -equiv -flatten -make_assert gold gate miter\n\
         sat -verify -prove-asserts miter\n"
    );
    let r = crate::verilog::checks::run_yosys_script(&script, "equiv.ys", &dir);
    let log = std::fs::read_to_string(dir.join("equiv.ys.log")).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    if installed(r).is_some() {
        assert!(log.contains("SUCCESS"), "{log}");
    }
}
