//! `peach2 cc` and `peach2 run`: TCA programs in C, built and run unchanged on the
//! co-simulated cluster; their output, determinism, failures and bad arguments.

mod support;

use std::path::Path;
use std::process::Output;
use support::{build, peach2, temp, text};

fn run(args: &[&str], exe: &Path, prog_args: &[&str]) -> Output {
    let mut a: Vec<&str> = vec!["run"];
    a.extend_from_slice(args);
    a.push("--");
    a.push(exe.to_str().unwrap());
    a.extend_from_slice(prog_args);
    peach2(&a)
}

#[test]
fn hello_runs_and_its_output_is_the_same_every_time() {
    let exe = build("hello");
    let first = run(&["--topology", "ring2"], &exe, &[]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    let out = text(&first.stdout);
    assert!(
        out.contains("rank 1 got \"hello from rank 0\" after 1.47 us"),
        "{out}"
    );
    assert!(
        out.contains("rank 0 of 2 done\nrank 1 of 2 done\n"),
        "{out}"
    );
    let second = run(&["--topology", "ring2"], &exe, &[]);
    assert_eq!(text(&second.stdout), out, "a second run prints the same");
    // Two threads evaluating the chips: the same simulation.
    let threads = run(&["--topology", "ring2", "--threads", "2"], &exe, &[]);
    assert_eq!(text(&threads.stdout), out);
}

#[test]
fn cc_passes_compile_only_and_errors_through() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/tca/hello.c");
    let obj = temp("run-cli", "hello.o");
    let out = peach2(&[
        "cc",
        "-c",
        "-o",
        obj.to_str().unwrap(),
        src.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(obj.exists());
    let bad = temp("run-cli", "bad.c");
    std::fs::write(&bad, "int main(void) { return undeclared; }\n").unwrap();
    let out = peach2(&["cc", "-o", "/dev/null", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "the compiler's status");
    assert!(text(&out.stderr).contains("undeclared"));
}

#[test]
fn bad_run_arguments_are_errors_not_hangs() {
    let exe = build("hello");
    for (args, what) in [
        (vec!["--topology", "ring2", "--np", "5"], "--np 5"),
        (vec!["--topology", "ring65"], "unknown preset"),
        (vec!["--profile", "fast"], "unknown profile"),
        (vec!["--stall-ms", "0"], "--stall-ms"),
    ] {
        let out = run(&args, &exe, &[]);
        assert_eq!(out.status.code(), Some(2), "{what}: {}", text(&out.stderr));
        assert!(text(&out.stderr).starts_with("error: "), "{what}");
    }
    let out = peach2(&["run", "--", "/nonexistent/program"]);
    assert_eq!(out.status.code(), Some(2));
    // A program not built with `peach2 cc` never connects: a clear error.
    let out = peach2(&["run", "--topology", "ring2", "--", "/bin/true"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("peach2 cc"),
        "{}",
        text(&out.stderr)
    );
}

/// Runs example `name` and checks it succeeded; returns its stdout.
fn example(name: &str, args: &[&str], prog_args: &[&str]) -> String {
    let exe = build(name);
    let out = run(args, &exe, prog_args);
    assert!(
        out.status.success(),
        "{name}: {:?}\n{}\n{}",
        out.status,
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

#[test]
fn the_examples_check_their_data_and_print_their_timings() {
    // GPU-to-GPU ping-pong with the flags the real benchmark used.
    let out = example(
        "pingpong",
        &["--topology", "ring2"],
        &["-i", "2", "8", "4096"],
    );
    assert!(out.contains("latency"), "{out}");
    // 2-D halo exchange with block-stride descriptors on a ring of 4.
    let out = example("halo2d", &["--topology", "ring4"], &[]);
    assert!(out.contains("per step"), "{out}");
    // On a ring of 8 a neighbour runs a step ahead: with one slot pair for both parities
    // its next notification overwrote one not yet seen, and the run stalled.
    let out = example(
        "halo2d",
        &["--topology", "ring8", "--stall-ms", "1"],
        &["6", "3"],
    );
    assert!(out.contains("every halo cell checked"), "{out}");
    // PIO stores with a flag written last.
    let out = example("pio", &["--topology", "ring2"], &[]);
    assert!(out.contains("us"), "{out}");
    // Chains of descriptors in host memory against internal ones.
    let out = example("hostdesc", &["--topology", "ring2"], &[]);
    assert!(out.contains("us"), "{out}");
    // Bad calls return the library's error codes.
    let out = example("errors", &["--topology", "ring2"], &[]);
    assert!(out.contains("50 of 50"), "{out}");
}

#[test]
fn the_older_descriptor_api_moves_checked_data_and_refuses_bad_calls() {
    // Internal-memory entries (omni's 2014 form) and a host-memory table with a
    // block-stride entry (the 2018 benchmark's form), both ways between the two ranks;
    // the program checks every byte and exits non-zero on any mismatch.
    let out = example("oldapi", &["--topology", "ring2"], &[]);
    assert!(out.contains("oldapi: OK"), "{out}");
    assert!(out.contains("us per exchange"), "{out}");
    // One of its bad calls: a chain from an internal slot never set.
    assert!(
        out.contains("oldapi: tcaSetDMAChainInt(2, 900), slot never set: invalid value\n"),
        "{out}"
    );
}

/// 16 ranks on the real group, and 24 on a ring: there a sender runs an iteration ahead
/// of a receiver still waiting for it, which stalled the program while both parities'
/// notifications shared a slot.
#[test]
fn allgather_over_dma_on_the_2x8_group_and_a_ring_of_24() {
    for topology in ["2x8", "ring24"] {
        let out = example("allgather", &["--topology", topology], &[]);
        assert!(
            out.contains("every gathered buffer checked on every rank, OK"),
            "{topology}: {out}"
        );
    }
}

#[test]
fn a_failing_rank_ends_the_run_with_its_status() {
    let exe = build("crash");
    let out = run(&["--topology", "ring2"], &exe, &[]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("peach2 run: rank 1 exited with status 3"),
        "{err}"
    );
}

#[test]
fn ranks_waiting_on_what_never_comes_are_reported_not_hung() {
    let exe = build("deadlock");
    let out = run(&["--topology", "ring4", "--stall-ms", "1"], &exe, &[]);
    assert_eq!(out.status.code(), Some(3));
    let err = text(&out.stderr);
    assert!(err.contains("the ranks are stuck"), "{err}");
    for r in 0..4 {
        assert!(
            err.contains(&format!(
                "rank {r}: tcaWaitDMARecvDesc(node {}'s handle",
                (r + 1) % 4
            )),
            "{err}"
        );
    }
}

/// The cycles a `--summary` line reports.
fn summary_cycles(stderr: &str) -> u64 {
    let line = stderr
        .lines()
        .find(|l| l.starts_with("peach2 run: profile"))
        .unwrap_or_else(|| panic!("no summary in {stderr}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "cycles").expect("cycles");
    words[at - 1].parse().expect("a cycle count")
}

/// `--window-limit 1` runs the cluster one cycle at a time, the sequential reference: a
/// program run in windows, on any number of threads, prints the same, takes the same
/// cycles and puts the same TLPs on the cables, cycle for cycle.
#[test]
fn programs_run_in_windows_and_on_threads_as_cycle_by_cycle() {
    // Notifications in the chip (BAR0 reads) and in host memory (polls); the `default`
    // profile's CPU costs nothing to reach the root port, so a read's completion bounds
    // windows to one cycle past it (a window one cycle longer fails this test).
    let programs = [
        ("pingpong", "ring2", "ha-pacs"),
        ("pingpong", "ring2", "default"),
        ("allgather", "2x2", "ha-pacs"),
        ("halo2d", "ring4", "ha-pacs"),
    ];
    for (name, topology, profile) in programs {
        let exe = build(name);
        let mut reference = None;
        let schedules: [&[&str]; 4] = [
            &["--threads", "1", "--window-limit", "1"],
            &["--threads", "1"],
            &["--threads", "2"],
            &["--threads", "3"],
        ];
        for schedule in schedules {
            let log = temp(
                "run-cli",
                &format!("{name}{profile}{}.tlp", schedule.concat()),
            );
            let mut args = vec!["--topology", topology, "--profile", profile];
            args.extend_from_slice(&["--summary", "--tlp-log"]);
            args.push(log.to_str().unwrap());
            args.extend_from_slice(schedule);
            let out = run(&args, &exe, &[]);
            let err = text(&out.stderr);
            assert!(out.status.success(), "{name} {schedule:?}: {err}");
            let got = (
                text(&out.stdout),
                summary_cycles(&err),
                std::fs::read(&log).unwrap(),
            );
            assert!(got.2.len() > 1000, "{name}: a TLP log");
            match &reference {
                None => reference = Some(got),
                Some(r) => {
                    assert_eq!(r.0, got.0, "{name} {schedule:?}: output");
                    assert_eq!(r.1, got.1, "{name} {schedule:?}: cycles");
                    assert!(r.2 == got.2, "{name} {schedule:?}: TLP logs differ");
                }
            }
        }
    }
}
