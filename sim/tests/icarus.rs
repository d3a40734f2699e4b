//! The exported core simulates in an event-driven simulator: Icarus Verilog replays the
//! random stimulus recorded from the Verilated core (every port, DMA with completions,
//! malformed TLPs) and produces the same outputs, cycle for cycle.
//!
//! Length: `PEACH2_ICARUS_CYCLES` (default 4 000 cycles).

use peach2_rtl::verilog::export::{write_core, CORE_MODULE};
use peach2_sim::icarus::{record, replay, CHECK_SEED};
use std::time::Duration;

fn cycles() -> u64 {
    std::env::var("PEACH2_ICARUS_CYCLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4_000)
}

#[test]
fn icarus_replays_the_verilated_core() {
    let dir = std::env::temp_dir().join(format!("peach2-icarus-{}", std::process::id()));
    let files = write_core(&dir).unwrap();
    let n = cycles();
    let v = record(CHECK_SEED, n).unwrap();
    let r = replay(
        &files.verilog,
        CORE_MODULE,
        &dir.join("replay"),
        &v,
        Duration::from_secs(600),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    println!(
        "{} cycles in {:.1} s under Icarus; {:?}",
        r.cycles, r.sim_seconds, r.exercised
    );
    assert_eq!(r.cycles as u64, n + 2, "reset cycles and the stimulus");
    // Traffic went in and out of every port, and the DMA read host memory.
    let ex = r.exercised;
    for p in 0..4 {
        assert!(ex.beats_in[p] > n / 10, "port {p}: {ex:?}");
        assert!(ex.beats_out[p] > n / 100, "port {p}: {ex:?}");
    }
    assert!(ex.host_reads > 0, "{ex:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
