//! Runs `peach2 sim`: the JSON summary, the TLP log, the VCD, and input errors.

mod support;

use support::peach2;

fn temp(name: &str) -> std::path::PathBuf {
    support::temp("sim-cli", name)
}

#[test]
fn sim_json_summary_tlp_log_and_vcd() {
    let log = temp("tlps.jsonl");
    let vcd = temp("chips.vcd");
    let out = peach2(&[
        "sim",
        "--topology",
        "ring2",
        "--scenario",
        "neighbor",
        "--cycles",
        "3000",
        "--json",
        "--tlp-log",
        log.to_str().unwrap(),
        "--vcd",
        vcd.to_str().unwrap(),
        "--vcd-chips",
        "1",
        "--vcd-from",
        "100",
        "--vcd-to",
        "200",
        "--threads",
        "2",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in [
        "cycles",
        "wall_s",
        "cycles_per_s",
        "bytes_delivered",
        "errors",
    ] {
        assert!(v.get(key).is_some(), "{key} missing: {v}");
    }
    assert_eq!(v["cycles"], 3000);
    assert_eq!(v["threads"], 2);
    assert_eq!(
        v["profile"], "ha-pacs",
        "the default profile, as bench and run use"
    );
    assert_eq!(v["errors"], 0);
    assert!(v["bytes_delivered"].as_u64().unwrap() > 10_000, "{v}");
    // Every line of the log is a decoded TLP with its cycle, cable and direction; the
    // bring-up config requests (W configures E) and the data writes are there.
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines
        .iter()
        .all(|l| l["cycle"].is_u64() && l["link"].is_string() && l["dir"].is_string()));
    let kinds: Vec<&str> = lines
        .iter()
        .filter_map(|l| l["tlp"]["kind"].as_str())
        .collect();
    assert!(
        kinds.contains(&"CfgRd0") && kinds.contains(&"MWr"),
        "{kinds:?}"
    );
    assert!(lines.iter().any(|l| l["dir"] == "n1.W->n0.E"));
    // The VCD has chip 1's hierarchy and 100 cycles of two edges each.
    let wave = std::fs::read_to_string(&vcd).unwrap();
    assert!(wave.contains("$scope module n1 $end") && !wave.contains("$scope module n0 $end"));
    assert_eq!(wave.lines().filter(|l| l.starts_with('#')).count(), 200);
}

#[test]
fn sim_rejects_bad_input() {
    let out = peach2(&["sim", "--scenario", "broadcast", "--cycles", "10"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = peach2(&["sim", "--threads", "0", "--cycles", "10"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("threads"));
    let out = peach2(&["sim", "--topology", "ring65", "--cycles", "10"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("ring65"));
    let out = peach2(&["sim", "--profile", "fast", "--cycles", "10"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("ha-pacs, default"));
}

#[test]
fn sim_runs_with_the_models_own_defaults_when_asked() {
    let out = peach2(&["sim", "--profile", "default", "--cycles", "2000"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("profile default"),
        "{text}"
    );
}
