//! Runs `peach2 bench pingpong`: CSV columns, the SVG, several curves, input errors.

mod support;

use support::peach2;

fn temp(name: &str) -> std::path::PathBuf {
    support::temp("bench-cli", name)
}

#[test]
fn pingpong_prints_csv_and_draws_the_figure() {
    let svg = temp("pp.svg");
    let out = peach2(&[
        "bench",
        "pingpong",
        "--sizes",
        "8..64",
        "--iters",
        "1",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = String::from_utf8(out.stdout).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("bytes,latency_us,bandwidth_gb_s"));
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|f| f.parse().unwrap()).collect())
        .collect();
    assert_eq!(
        rows.iter().map(|r| r[0]).collect::<Vec<_>>(),
        [8.0, 16.0, 32.0, 64.0]
    );
    for r in &rows {
        assert!((1.0..3.0).contains(&r[1]), "latency {r:?}");
        let bw = r[0] / (r[1] * 1e3);
        assert!(
            (r[2] - bw).abs() < 0.002,
            "bandwidth is bytes / latency: {r:?}"
        );
    }
    let svg = std::fs::read_to_string(svg).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("Internal (CPU)"));
}

#[test]
fn several_curves_get_a_series_column() {
    let csv = temp("pp.csv");
    let out = peach2(&[
        "bench",
        "pingpong",
        "--sizes",
        "16",
        "--iters",
        "1",
        "--mem",
        "cpu,gpu",
        "--desc",
        "internal,host",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "series,bytes,latency_us,bandwidth_gb_s");
    let series: Vec<&str> = lines[1..]
        .iter()
        .map(|l| l.split(',').next().unwrap())
        .collect();
    assert_eq!(
        series,
        [
            "Internal (CPU)",
            "Host (CPU)",
            "Internal (GPU)",
            "Host (GPU)"
        ]
    );
}

#[test]
fn bad_arguments_exit_2_with_one_line() {
    for args in [
        &["bench", "pingpong", "--sizes", "0"][..],
        &["bench", "pingpong", "--sizes", "64..8"],
        &["bench", "pingpong", "--src-node", "1", "--dst-node", "1"],
        &["bench", "pingpong", "--dst-node", "5"],
        &["bench", "pingpong", "--profile", "nope"],
        &["bench", "pingpong", "--topology", "ring65"],
        &["bench", "pingpong", "--mem", "tpu"],
        &["bench", "pingpong", "--iters", "0"],
        &["bench", "pingpong", "--routing", "random"],
    ] {
        let out = peach2(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !err.trim().is_empty() && !err.contains("panicked"),
            "{args:?}: {err}"
        );
    }
}

/// With the chips notifying at their last read, the ping-pong (which sends back the
/// buffer it received) returns stale data, and the error says why.
#[test]
fn notifying_at_the_last_read_breaks_the_data_check_and_says_so() {
    let toml = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/topologies/ring2-notify-at-last-read.toml"
    );
    let out = peach2(&[
        "bench",
        "pingpong",
        "--topology",
        toml,
        "--mem",
        "gpu",
        "--notify",
        "internal",
        "--sizes",
        "8",
        "--iters",
        "2",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    // Not bad input (exit 2): the run failed.
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("8-byte transfer") && err.contains("NOTIFY_AT_LAST_READ"),
        "{err}"
    );
}

#[test]
fn sim_speed_reports_raw_core_and_clusters() {
    let out = peach2(&[
        "bench",
        "sim-speed",
        "--topology",
        "ring2,ring4",
        "--cycles",
        "2000",
        "--raw-cycles",
        "2000",
        "--threads",
        "1,2",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5);
    assert!(lines[0]["random_traffic_cycles_per_s"].as_f64().unwrap() > 0.0);
    for (l, (nodes, threads)) in lines[1..].iter().zip([(2, 1), (2, 2), (4, 1), (4, 2)]) {
        assert_eq!(
            (l["nodes"].as_u64(), l["threads"].as_u64()),
            (Some(nodes), Some(threads))
        );
        assert_eq!(l["cycles"], 2000);
        assert_eq!(l["errors"], 0);
        assert!(l["bytes_delivered"].as_u64().unwrap() > 0, "{l}");
        let figure = if threads == 1 {
            "engine_overhead"
        } else {
            "speedup_over_1_thread"
        };
        assert!(l[figure].as_f64().unwrap() > 0.0, "{l}");
    }
    // The thread count changes the speed, never the simulation.
    assert_eq!(lines[1]["bytes_delivered"], lines[2]["bytes_delivered"]);
    assert_eq!(lines[3]["bytes_delivered"], lines[4]["bytes_delivered"]);
    for bad in [
        &["bench", "sim-speed", "--scenario", "storm"][..],
        &["bench", "sim-speed", "--topology", "ring1"],
        &["bench", "sim-speed", "--cycles", "0"],
        &["bench", "sim-speed", "--threads", "0"],
    ] {
        assert_eq!(peach2(bad).status.code(), Some(2), "{bad:?}");
    }
}
