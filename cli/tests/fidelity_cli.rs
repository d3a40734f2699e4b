//! The HA-PACS/TCA profile against the real system's latencies, measured the way the
//! real system was: the TCA team's ping-pong loop (`examples/tca/latency.c`), run
//! unchanged with `peach2 run`, its two ranks waiting at once, minimum of 8 runs.
//! (`testbench/tests/calibration.rs` checks the bandwidths and the per-hop cost through
//! the driver.)

mod support;

use peach2_testbench::measured::{self, GPU_PINGPONG};
use std::path::Path;
use support::{build, peach2, text};

/// `(bytes, min_us)` rows of a `latency` run with `args` on `ring2`.
fn latency(exe: &Path, args: &[&str]) -> Vec<(u64, f64)> {
    latency_on("ring2", exe, args)
}

/// `(bytes, min_us)` rows of a `latency` run with `args` on `topology`.
fn latency_on(topology: &str, exe: &Path, args: &[&str]) -> Vec<(u64, f64)> {
    let mut a = vec!["run", "--topology", topology, "--", exe.to_str().unwrap()];
    a.extend_from_slice(args);
    let out = peach2(&a);
    let stdout = text(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("all data checked, OK"),
        "{stdout}{}",
        text(&out.stderr)
    );
    stdout
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            Some((f.first()?.parse().ok()?, f.get(1)?.parse().ok()?))
        })
        .collect()
}

fn within(got: f64, want: f64, what: &str) {
    let err = (got - want).abs() / want;
    assert!(
        err <= 0.10,
        "{what}: {got:.2} us against the measured {want} us ({:.1} % off)",
        100.0 * err
    );
}

/// Seed 001, figure 2: 2.0 us with descriptors in the chip, 2.2 us in host memory, CPU
/// or GPU memory alike, between adjacent nodes.
#[test]
fn figure_2_latencies() {
    let exe = build("latency");
    for mem in ["gpu", "cpu"] {
        for (desc, want) in [
            ("internal", measured::LATENCY_INTERNAL_DESC_US),
            ("host", measured::LATENCY_HOST_DESC_US),
        ] {
            let rows = latency(&exe, &["-m", mem, "-d", desc, "-t", "20", "8"]);
            assert_eq!(rows.len(), 1, "{rows:?}");
            within(
                rows[0].1,
                want,
                &format!("8 B, {mem} memory, {desc} descriptors"),
            );
        }
    }
}

/// The real library's GPU-to-GPU ping-pong below 32 KiB. The waiting CPUs read their
/// chip's notification store, one PCIe read after another (about 0.9 us each), so a
/// latency is quantised by where the data lands between two reads. From 4 KiB the
/// transfer dominates: within 10 %. Below, every size is within one such read of the
/// real figure; the model's curve rises in steps where the real one stays flat (the
/// README's fidelity table has both).
#[test]
fn the_real_programs_gpu_ping_pong_below_32k() {
    let exe = build("latency");
    let points: Vec<(u64, f64)> = GPU_PINGPONG
        .iter()
        .copied()
        .filter(|&(b, _)| b < 32 << 10)
        .collect();
    let sizes: Vec<String> = points.iter().map(|(b, _)| b.to_string()).collect();
    let mut args = vec!["-t", "20"];
    args.extend(sizes.iter().map(String::as_str));
    let rows = latency(&exe, &args);
    assert_eq!(rows.len(), points.len(), "{rows:?}");
    for (&(bytes, got), &(b, want)) in rows.iter().zip(&points) {
        assert_eq!(bytes, b);
        if bytes >= 4 << 10 {
            within(got, want, &format!("{bytes} B"));
        } else {
            assert!(
                (got - want).abs() < 0.9,
                "{bytes} B: {got:.2} us against the measured {want} us: more than a read apart"
            );
        }
    }
}

/// The experiment of `examples/topologies/ring2-notify-at-last-read.toml` (the README's
/// fidelity section): with notifications leaving at a descriptor's last read request and
/// a 2 KiB read window, the curve is flat up to 2 KiB, as the real one is (the ordered
/// model rises by about 1 us there), and steps at 4 KiB; from 512 B to 16 KiB every
/// size is within 10 % of the real figure.
#[test]
fn notifying_at_the_last_read_gives_the_real_curves_shape() {
    let exe = build("latency");
    let toml = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/topologies/ring2-notify-at-last-read.toml"
    );
    let points: Vec<(u64, f64)> = GPU_PINGPONG
        .iter()
        .copied()
        .filter(|&(b, _)| b == 8 || (512..=16 << 10).contains(&b))
        .collect();
    let sizes: Vec<String> = points.iter().map(|(b, _)| b.to_string()).collect();
    let mut args = vec!["-t", "20"];
    args.extend(sizes.iter().map(String::as_str));
    let rows = latency_on(toml, &exe, &args);
    assert_eq!(rows.len(), points.len(), "{rows:?}");
    let at = |b: u64| rows.iter().find(|r| r.0 == b).expect("measured").1;
    assert!(
        at(2 << 10) - at(8) < 0.7,
        "8 B to 2 KiB rises {:.2} us (real: 0.17)",
        at(2 << 10) - at(8)
    );
    for (&(bytes, got), &(b, want)) in rows.iter().zip(&points) {
        assert_eq!(bytes, b);
        if bytes >= 512 {
            within(got, want, &format!("{bytes} B, notifying at the last read"));
        }
    }
}
