//! Runs `peach2 fpga`: the open flow end to end (Verilator, Icarus, the adapter
//! testbench, Yosys synthesis, timing estimate and synth_intel_alm: about eight
//! minutes), and the Quartus command with and without a `quartus_sh` on the PATH.

use peach2_rtl::verilog::timing::{clock_mhz, CORE_DEPTH_CEILING};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn peach2(args: &[&str], path_env: Option<&Path>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_peach2"));
    cmd.args(args);
    if let Some(p) = path_env {
        cmd.env("PATH", p);
    }
    cmd.output().expect("run peach2")
}

fn fresh_dir(label: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("peach2-fpga-{label}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The number after `label` on its line in the report.
fn figure(report: &str, label: &str) -> u64 {
    let line = report
        .lines()
        .find(|l| l.starts_with(label))
        .unwrap_or_else(|| panic!("no line {label:?} in the report"));
    line[label.len()..]
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no number in {line:?}"))
}

/// The report from `title` to the next section.
fn section<'a>(report: &'a str, title: &str) -> &'a str {
    let start = report.find(title).unwrap_or_else(|| panic!("no {title:?}"));
    let rest = &report[start + title.len()..];
    &rest[..rest.find("\n== ").unwrap_or(rest.len())]
}

/// The numbers (instances, logic cells, flip-flops, memory bits) of the table rows
/// whose block name starts with `prefix`.
fn rows(table: &str, prefix: &str) -> Vec<Vec<u64>> {
    table
        .lines()
        .filter(|l| l.starts_with(prefix))
        .filter_map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            let numbers = words.get(words.len().checked_sub(4)?..)?;
            numbers.iter().map(|w| w.parse().ok()).collect()
        })
        .collect()
}

#[test]
fn open_flow_checks_synthesizes_and_reports() {
    let out = fresh_dir("open-flow");
    let run = peach2(&["fpga", "open-flow", "-o", out.to_str().unwrap()], None);
    assert!(
        run.status.success(),
        "{}\n{}",
        text(&run.stdout),
        text(&run.stderr)
    );
    let report = std::fs::read_to_string(out.join("report.txt")).unwrap();
    for section in [
        "== Verilator lint",
        "peach2_top with S_ROLE_RC=0: clean",
        "peach2_top with S_ROLE_RC=1: clean",
        "== Icarus elaboration",
        "peach2_top with S_ROLE_RC=1: elaborates",
        "== The core under Icarus (vvp), against the Verilated core",
        "every output equals the Verilated core's",
        "== Adapter testbench",
        "known answers: 21 Altera beats and 19 core beats match in both directions",
        "\nPASS\n",
        "== Yosys synthesis",
        "check -assert, flattened: no combinational loop",
        "== Per block: the top level",
        "== Per block: the core",
        "== Against the EP4SGX530",
        "== Timing estimate: peach2_core in 6-input LUTs",
        "== ALM-class resources: peach2_core through synth_intel_alm",
    ] {
        assert!(
            report.contains(section),
            "report lacks {section:?}:\n{report}"
        );
    }
    assert!(!report.contains("FAILED"), "{report}");
    assert_eq!(figure(&report, "latches:"), 0);
    let flip_flops = figure(&report, "flip-flops:");
    let logic = figure(&report, "logic cells (gates and muxes):");
    assert!(flip_flops > 1000 && logic > flip_flops, "{report}");

    // Top level: four ports, each with an 8 x 130-bit skid FIFO, a 4 x 132-bit
    // output queue and a 64 x 131-bit store-and-forward FIFO.
    let top = section(&report, "== Per block: the top level");
    let ports: Vec<Vec<u64>> = rows(top, "peach2_port");
    assert_eq!(ports.iter().map(|r| r[0]).sum::<u64>(), 4, "{top}");
    for r in &ports {
        assert_eq!(r[3], r[0] * (8 * 130 + 4 * 132 + 64 * 131), "{top}");
    }
    // The core: every block appears, and the blocks' figures add up to the core's.
    let core = section(&report, "== Per block: the core");
    for block in [
        "completer",
        "egress",
        "regs",
        "xbar",
        "dmac",
        "ports$0",
        "ports$3",
    ] {
        assert!(
            core.lines().any(|l| l.starts_with(block)),
            "no {block} in\n{core}"
        );
    }
    let core_row = &rows(top, "peach2_core")[0];
    let blocks = rows(core, "");
    for column in 1..4 {
        let sum: u64 = blocks.iter().map(|r| r[column]).sum();
        assert_eq!(sum, core_row[column], "column {column}:\n{report}");
    }
    let core_memory = core_row[3];
    // Each port path holds its ingress FIFO's memory.
    assert!(rows(core, "ports$").iter().all(|r| r[3] > 0), "{core}");
    let port_memory: u64 = ports.iter().map(|r| r[3]).sum();
    assert_eq!(figure(&report, "memory bits:"), port_memory + core_memory);
    assert!(report.contains("flip-flops / registers"), "{report}");
    timing_lines_are_consistent(&report);
    over_limit_file_agrees(&report, &out.join("timing/over_limit.txt"));
    // The ALM-class count of the core (Yosys measured 21k LUTs, 5.3k arithmetic cells,
    // 10.9k registers, 80 M10K and 183 MLAB blocks in November 2026).
    let alm = section(&report, "== ALM-class resources");
    let luts = figure(alm, "LUTs (MISTRAL_ALUT2-6, NOT):");
    let arithmetic = figure(alm, "arithmetic cells (MISTRAL_ALUT_ARITH):");
    let registers = figure(alm, "registers (MISTRAL_FF):");
    assert!(luts > 1000 && arithmetic > 100 && registers > 1000, "{alm}");
    assert!(
        figure(alm, "M10K blocks:") > 0 && figure(alm, "MLAB blocks:") > 0,
        "{alm}"
    );
    let _ = std::fs::remove_dir_all(&out);
}

/// The timing section: a depth, the limit of 6, the worst paths with their names, and
/// a verdict that agrees with the numbers.
fn timing_lines_are_consistent(report: &str) {
    let timing = section(report, "== Timing estimate");
    let head = "timing estimate: worst LUT depth ";
    let summary = timing
        .lines()
        .find_map(|l| l.strip_prefix(head))
        .unwrap_or_else(|| panic!("no {head:?} in\n{timing}"));
    let depth: u32 = summary.split_whitespace().next().unwrap().parse().unwrap();
    assert!(
        summary.contains("(limit 6 for Stratix IV -2 at 250 MHz): "),
        "{summary}"
    );
    let (_, worst) = summary.split_once("250 MHz): ").unwrap();
    let (start, end) = worst.split_once(" -> ").unwrap();
    assert!(!start.is_empty() && !end.is_empty(), "{summary}");
    let paths: Vec<(u32, &str)> = timing
        .lines()
        .filter_map(|l| l.trim().strip_prefix("depth "))
        .map(|l| {
            let (d, path) = l.split_once(": ").unwrap();
            (d.trim().parse().unwrap(), path)
        })
        .collect();
    assert!((1..=5).contains(&paths.len()), "{timing}");
    assert_eq!(paths[0], (depth, worst), "{timing}");
    assert!(
        paths.iter().all(|(d, p)| *d <= depth && p.contains(" -> ")),
        "{timing}"
    );
    // Today's core is over the limit (see README, "Timing"), but no change may make it
    // deeper than the ratchet.
    assert!(
        depth <= CORE_DEPTH_CEILING,
        "the core's worst path is {depth} LUT levels, over the ceiling of \
         {CORE_DEPTH_CEILING} (peach2_rtl::verilog::timing::CORE_DEPTH_CEILING):\n{timing}"
    );
    // The verdict agrees with the depth, and over the limit gives the clock it closes at.
    let verdict = if depth <= 6 {
        "timing estimate: within the limit".to_string()
    } else {
        format!(
            "timing estimate: OVER the limit: {depth} LUT levels, {} more than Stratix IV -2 \
             closes at 250 MHz; this depth closes at about {} MHz",
            depth - 6,
            clock_mhz(depth)
        )
    };
    assert!(timing.contains(&verdict), "{timing}");
    // The census of what is over the limit starts at the worst depth.
    let census = timing.lines().find(|l| l.starts_with("over the limit: "));
    match census {
        Some(line) => assert!(
            depth > 6 && line.contains(&format!("(by depth: {depth}: ")),
            "{timing}"
        ),
        None => assert!(depth <= 6, "{timing}"),
    }
}

/// The file of signals over the limit: one row per signal the census counts, the
/// deepest first at the worst depth, each with a start.
fn over_limit_file_agrees(report: &str, file: &Path) {
    let timing = section(report, "== Timing estimate");
    assert!(
        timing.contains(&format!(
            "every signal over the limit, with its depth: {}",
            file.display()
        )),
        "{timing}"
    );
    let table = std::fs::read_to_string(file).unwrap();
    // depth, bits, then the signal and its deepest path's start (names may hold spaces:
    // "x (enable)").
    let rows: Vec<(&str, &str)> = table
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.trim_start().split_once(' ').unwrap())
        .collect();
    let census = timing
        .lines()
        .find_map(|l| l.strip_prefix("over the limit: "))
        .unwrap_or_else(|| panic!("{timing}"));
    let signals: usize = census
        .split(" path-end bits in ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{census}"));
    assert_eq!(rows.len(), signals, "{table}");
    let worst = timing
        .lines()
        .find_map(|l| l.strip_prefix("timing estimate: worst LUT depth "))
        .and_then(|r| r.split_whitespace().next())
        .unwrap();
    assert_eq!(rows[0].0, worst, "{table}");
    assert!(
        rows.iter().all(|(_, rest)| rest.contains("  <-  ")),
        "{table}"
    );
    // Beside it, every named signal's depth: none deeper than the worst path, and the
    // deepest bucket's signals among them.
    let depths_file = file.with_file_name("signal_depths.txt");
    assert!(
        timing.contains(&format!(
            "every named signal's depth: {}",
            depths_file.display()
        )),
        "{timing}"
    );
    let depths = std::fs::read_to_string(&depths_file).unwrap();
    let named: Vec<(u32, &str)> = depths
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let (d, name) = l.trim_start().split_once("  ").unwrap();
            (d.parse().unwrap(), name)
        })
        .collect();
    let worst: u32 = worst.parse().unwrap();
    assert!(named.len() > 1_000, "{} named signals", named.len());
    assert!(named.iter().all(|&(d, _)| d <= worst), "{depths}");
    assert!(named.iter().any(|&(d, _)| d > 0), "{depths}");
}

/// A copy of the Quartus project's settings in a scratch directory.
fn scratch_project(label: &str) -> PathBuf {
    let dir = fresh_dir(label);
    let quartus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fpga-build/quartus");
    for f in ["peach2.qpf", "peach2.qsf", "pins.tcl"] {
        std::fs::copy(quartus.join(f), dir.join(f)).unwrap();
    }
    dir
}

#[test]
fn quartus_without_quartus_regenerates_and_says_what_to_install() {
    let project = scratch_project("no-quartus");
    let empty_path = fresh_dir("empty-path");
    let run = peach2(
        &[
            "fpga",
            "quartus",
            "--project",
            project.to_str().unwrap(),
            "--s-role",
            "rc",
        ],
        Some(&empty_path),
    );
    assert_eq!(run.status.code(), Some(1), "{run:?}");
    let err = text(&run.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("error: quartus_sh not found on PATH: install Quartus II"),
        "{err}"
    );
    assert!(err.contains("Stratix IV"), "{err}");
    let core = std::fs::read_to_string(project.join("generated/peach2_core.v")).unwrap();
    assert!(core.contains("module peach2_core("));
    let options = std::fs::read_to_string(project.join("generated/build_options.tcl")).unwrap();
    assert!(
        options.contains("set_parameter -name S_ROLE_RC 1"),
        "{options}"
    );
    let _ = std::fs::remove_dir_all(&project);
    let _ = std::fs::remove_dir_all(&empty_path);
}

#[test]
fn quartus_checks_ip_variants_then_runs_the_compile_flow() {
    let project = scratch_project("fake-quartus");
    // A stand-in quartus_sh that records how it was called.
    let bin = fresh_dir("fake-bin");
    let fake = bin.join("quartus_sh");
    std::fs::write(&fake, "#!/bin/sh\necho \"$PWD $*\" > called.txt\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let args = ["fpga", "quartus", "--project", project.to_str().unwrap()];
    let run = peach2(&args, Some(&bin));
    assert_eq!(run.status.code(), Some(1), "{run:?}");
    let err = text(&run.stderr);
    for ip in [
        "peach2_hip_ep.qip",
        "peach2_hip_rc.qip",
        "altpcie_reconfig_4sgx.qip",
        "peach2_aux_pll.qip",
    ] {
        assert!(err.contains(ip), "{err}");
    }
    assert!(!project.join("called.txt").exists());

    std::fs::create_dir_all(project.join("ip")).unwrap();
    for ip in [
        "peach2_hip_ep",
        "peach2_hip_rc",
        "altpcie_reconfig_4sgx",
        "peach2_aux_pll",
    ] {
        std::fs::write(project.join(format!("ip/{ip}.qip")), "").unwrap();
    }
    let run = peach2(&args, Some(&bin));
    assert!(run.status.success(), "{run:?}");
    let out = text(&run.stdout);
    assert!(out.contains("73 pins still UNASSIGNED"), "{out}");
    let called = std::fs::read_to_string(project.join("called.txt")).unwrap();
    assert!(
        called.trim_end().ends_with("--flow compile peach2"),
        "{called}"
    );
    let options = std::fs::read_to_string(project.join("generated/build_options.tcl")).unwrap();
    assert!(
        options.contains("set_parameter -name S_ROLE_RC 0"),
        "{options}"
    );
    let _ = std::fs::remove_dir_all(&project);
    let _ = std::fs::remove_dir_all(&bin);
}

#[test]
fn quartus_rejects_a_directory_that_is_not_the_project() {
    let dir = fresh_dir("not-a-project");
    let run = peach2(
        &["fpga", "quartus", "--project", dir.to_str().unwrap()],
        None,
    );
    assert_eq!(run.status.code(), Some(2), "{run:?}");
    let err = text(&run.stderr);
    assert!(err.contains("is not the PEACH2 Quartus project"), "{err}");
    assert!(!dir.join("generated").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
