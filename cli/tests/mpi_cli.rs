//! `mpirun -np K peach2 sim ...`: the cluster spread over K processes simulates what one
//! process does (the same summary, the same TLP log byte for byte, fault reports
//! included), and a failure in any process ends the job with its message.

#![cfg(feature = "mpi")]

mod support;

use serde_json::Value;
use std::process::{Command, Output};
use support::peach2;

fn temp(name: &str) -> std::path::PathBuf {
    support::temp("mpi-cli", name)
}

/// `mpirun --oversubscribe -np <np> peach2 <args>` (as root too: CI runs as root).
fn mpirun(np: usize, args: &[&str]) -> Output {
    Command::new("mpirun")
        .args(["--oversubscribe", "-np", &np.to_string()])
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .arg(env!("CARGO_BIN_EXE_peach2"))
        .args(args)
        .output()
        .expect("run mpirun (scripts/setup.sh installs Open MPI)")
}

/// The JSON summary without what depends on the machine or the process count.
fn summary(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut v: Value = serde_json::from_slice(&out.stdout).expect("one JSON summary");
    let m = v.as_object_mut().unwrap();
    for k in ["wall_s", "cycles_per_s", "setup_wall_s", "processes"] {
        assert!(m.remove(k).is_some(), "{k} in the summary");
    }
    v
}

/// `args` in one process and under `mpirun -np` 2 and 4: the same summary and TLP log.
fn same_on_every_process_count(name: &str, args: &[&str]) {
    let run = |np: usize| {
        let log = temp(&format!("{name}-{np}.jsonl"));
        let mut a: Vec<&str> = args.to_vec();
        a.extend(["--json", "--tlp-log", log.to_str().unwrap()]);
        let out = if np == 1 { peach2(&a) } else { mpirun(np, &a) };
        let s = summary(&out);
        (s, std::fs::read(&log).unwrap())
    };
    let (one, log_one) = run(1);
    assert!(log_one.len() > 10_000, "{name}: a log worth comparing");
    for np in [2, 4] {
        let (many, log) = run(np);
        assert_eq!(one, many, "{name}: summary with {np} processes");
        let first = log_one.iter().zip(&log).position(|(a, b)| a != b);
        assert!(
            log_one == log,
            "{name}, {np} processes: TLP logs differ from byte {first:?} (lengths {} and {})",
            log_one.len(),
            log.len()
        );
    }
}

#[test]
fn two_rings_of_eight_with_faults_simulate_the_same_over_processes() {
    same_on_every_process_count(
        "2x8",
        &[
            "sim",
            "--topology",
            "2x8",
            "--scenario",
            "alltoall",
            "--cycles",
            "6000",
            "--chunk",
            "128",
            "--faults",
            "all=1000",
            "--seed",
            "3",
        ],
    );
}

#[test]
fn an_odd_ring_split_unevenly_simulates_the_same_over_processes() {
    same_on_every_process_count(
        "ring5",
        &[
            "sim",
            "--topology",
            "ring5",
            "--scenario",
            "neighbor",
            "--cycles",
            "8000",
        ],
    );
}

#[test]
fn dma_with_its_faults_simulates_the_same_over_processes() {
    same_on_every_process_count(
        "dma",
        &[
            "sim",
            "--topology",
            "ring4",
            "--scenario",
            "dma",
            "--chunk",
            "1024",
            "--cycles",
            "30000",
            "--faults",
            "readerr=300,cpltimeout=100,baddesc=300,malformed=300",
            "--seed",
            "4",
        ],
    );
}

#[test]
fn a_failure_in_any_process_ends_the_job_with_its_message() {
    let vcd = temp("x.vcd");
    let out = mpirun(
        2,
        &[
            "sim",
            "--topology",
            "ring2",
            "--cycles",
            "100",
            "--vcd",
            vcd.to_str().unwrap(),
        ],
    );
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("a VCD needs its chips in one process"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = mpirun(2, &["bench", "sim-speed", "--topology", "ring2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("only `peach2 sim` runs over processes"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = mpirun(3, &["sim", "--topology", "ring2", "--cycles", "100"]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("3 processes for 2 nodes"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
