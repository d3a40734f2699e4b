//! The cluster runs in windows of up to the cables' latency, its nodes on any number of
//! threads, and simulates exactly what a sequential simulator does: the reference here
//! is one thread with windows of one cycle (the cables' messages handed over every
//! cycle). Every preset and scenario, on 1, 2, 3 and 5 threads: the same TLPs on every
//! cable at the same cycles, the same deliveries, evaluations and cycle counts, the
//! same chip outputs at the end; fault runs and VCD windows too.

use peach2_sim::cluster::{Backend, Cluster};
use peach2_sim::faults::{self, FaultSpec};
use peach2_sim::pins::{PortDir, PORTS};
use peach2_sim::scenario::{flows, Kind, Traffic};
use peach2_sim::setup::bring_up;
use peach2_sim::topology::Topology;
use std::io::Write;
use std::sync::{Arc, Mutex};

/// A TLP log kept in memory.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<u8>>>);

impl Write for Log {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// How a run is scheduled.
#[derive(Clone, Copy, Debug)]
struct Schedule {
    threads: usize,
    /// Window limit (`None`: the lookahead).
    window: Option<u64>,
}

/// The sequential reference.
const REFERENCE: Schedule = Schedule {
    threads: 1,
    window: Some(1),
};

/// Everything a run leaves behind that must not depend on its schedule.
#[derive(Debug, PartialEq)]
struct Outcome {
    log: Vec<u8>,
    /// Per scenario: cycle at its end, bytes, chunks, errors.
    scenarios: Vec<(u64, u64, u64, u64)>,
    faults: Option<String>,
    evals: (u64, u64),
    outputs: Vec<Vec<u128>>,
}

fn cluster(preset: &str, s: Schedule) -> (Cluster, Log) {
    // Dateline routes: shortest paths round a ring deadlock under all-to-all traffic.
    let topo = Topology::preset(preset)
        .unwrap()
        .with_routing("dateline")
        .unwrap();
    let mut c = Cluster::new(topo, Backend::Verilated).unwrap();
    c.set_threads(s.threads).unwrap();
    assert_eq!(c.threads(), s.threads);
    if let Some(w) = s.window {
        c.set_window_limit(w).unwrap();
    }
    let log = Log::default();
    c.log_tlps(Box::new(log.clone()));
    (c, log)
}

fn outcome(
    mut c: Cluster,
    log: Log,
    scenarios: Vec<(u64, u64, u64, u64)>,
    faults: Option<String>,
) -> Outcome {
    c.finish().unwrap();
    // Every chip's outputs (its raw state bytes also hold the model's own pointers).
    let outputs = c
        .nodes
        .iter()
        .map(|n| {
            (0..PORTS.len())
                .filter(|&p| PORTS[p].dir == PortDir::Out)
                .map(|p| n.chip.get(p))
                .collect()
        })
        .collect();
    let log = std::mem::take(&mut *log.0.lock().unwrap());
    Outcome {
        log,
        scenarios,
        faults,
        evals: (c.evals_done(), c.evals_skipped()),
        outputs,
    }
}

/// Brings `preset` up and runs every scenario in turn, `cycles` each.
fn scenarios(preset: &str, s: Schedule, cycles: u64) -> Outcome {
    let (mut c, log) = cluster(preset, s);
    bring_up(&mut c).unwrap();
    let mut out = Vec::new();
    for kind in [
        Kind::Idle,
        Kind::Neighbor,
        Kind::PingPong,
        Kind::AllToAll,
        Kind::Dma,
    ] {
        let mut t = Traffic::new(&c, flows(kind, c.nodes.len(), 128, None));
        t.run(&mut c, cycles, false).unwrap();
        // What was issued arrives before the next scenario starts.
        for f in &mut t.flows {
            f.limit = Some(f.issued);
        }
        t.run(&mut c, 400_000, true).unwrap();
        t.finish();
        assert_eq!(t.summary.errors, 0, "{:?}", t.summary.first_errors);
        if kind != Kind::Idle {
            assert!(t.summary.bytes_delivered > 0, "{preset} {kind:?}");
        }
        let m = &t.summary;
        out.push((c.cycle, m.bytes_delivered, m.chunks_delivered, m.errors));
    }
    outcome(c, log, out, None)
}

/// Brings `preset` up and runs all-to-all traffic with every kind of fault.
fn fault_run(preset: &str, s: Schedule, cycles: u64) -> Outcome {
    let (mut c, log) = cluster(preset, s);
    bring_up(&mut c).unwrap();
    let mut t = Traffic::new(&c, flows(Kind::AllToAll, c.nodes.len(), 128, None));
    let spec: FaultSpec = "all=2000".parse().unwrap();
    let r = faults::run(&mut c, &mut t, spec, 5, cycles).unwrap();
    assert_eq!(r.silent_corruptions, 0, "{r:?}");
    assert!(r.faults_injected.values().sum::<u64>() > 0, "{r:?}");
    let m = &t.summary;
    let out = vec![(c.cycle, m.bytes_delivered, m.chunks_delivered, m.errors)];
    outcome(c, log, out, Some(serde_json::to_string(&r).unwrap()))
}

/// Brings `preset` up and runs the DMA scenario with every fault the DMA can meet and a
/// malformed TLP kind on the cables.
fn dma_fault_run(preset: &str, s: Schedule, cycles: u64) -> Outcome {
    let (mut c, log) = cluster(preset, s);
    bring_up(&mut c).unwrap();
    let mut t = Traffic::new(&c, flows(Kind::Dma, c.nodes.len(), 256, None));
    let spec: FaultSpec = "readerr=1000,cpltimeout=500,baddesc=1000,malformed=1000"
        .parse()
        .unwrap();
    let r = faults::run(&mut c, &mut t, spec, 9, cycles).unwrap();
    assert_eq!(r.silent_corruptions, 0, "{r:?}");
    assert!(r.flows_affected > 0, "{r:?}");
    let m = &t.summary;
    let out = vec![(c.cycle, m.bytes_delivered, m.chunks_delivered, m.errors)];
    outcome(c, log, out, Some(serde_json::to_string(&r).unwrap()))
}

fn same(what: &str, one: &Outcome, many: &Outcome) {
    assert_eq!(
        (&one.scenarios, &one.faults, one.evals),
        (&many.scenarios, &many.faults, many.evals),
        "{what}"
    );
    let first = one.log.iter().zip(&many.log).position(|(a, b)| a != b);
    assert!(
        one.log == many.log,
        "{what}: TLP logs differ from byte {first:?} (lengths {} and {})",
        one.log.len(),
        many.log.len()
    );
    assert_eq!(one.outputs, many.outputs, "{what}: chip outputs");
}

/// Every schedule of `run` against the reference.
fn every_schedule(preset: &str, run: fn(&str, Schedule, u64) -> Outcome, cycles: u64) {
    let reference = run(preset, REFERENCE, cycles);
    assert!(
        reference.log.len() > 10_000,
        "{preset}: a log worth comparing: {} bytes",
        reference.log.len()
    );
    for threads in [1, 2, 3, 5] {
        let s = Schedule {
            threads,
            window: None,
        };
        same(
            &format!("{preset}, {s:?}"),
            &reference,
            &run(preset, s, cycles),
        );
    }
}

#[test]
fn small_rings_simulate_the_same_on_any_schedule() {
    for preset in ["ring2", "ring3", "ring4", "ring5"] {
        every_schedule(preset, scenarios, 1_500);
    }
}

#[test]
fn large_rings_simulate_the_same_on_any_schedule() {
    for preset in ["ring6", "ring7", "ring8"] {
        every_schedule(preset, scenarios, 1_500);
    }
}

#[test]
fn two_rings_of_eight_simulate_the_same_on_any_schedule() {
    every_schedule("2x8", scenarios, 1_500);
}

#[test]
fn fault_runs_are_the_same_on_any_schedule() {
    every_schedule("ring3", fault_run, 4_000);
    every_schedule("2x8", fault_run, 2_000);
    every_schedule("ring3", dma_fault_run, 8_000);
}

#[test]
fn a_vcd_window_changes_nothing_but_the_window() {
    let dir = std::env::temp_dir().join(format!("peach2-threads-vcd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let traced = |s: Schedule, name: &str| {
        let (mut c, log) = cluster("ring4", s);
        let path = dir.join(name);
        bring_up(&mut c).unwrap();
        let from = c.cycle + 300;
        c.trace_vcd(&[0, 2], from, from + 200, &path).unwrap();
        let mut t = Traffic::new(&c, flows(Kind::AllToAll, 4, 128, None));
        t.run(&mut c, 2_000, false).unwrap();
        let m = &t.summary;
        let o = outcome(
            c,
            log,
            vec![(0, m.bytes_delivered, m.chunks_delivered, m.errors)],
            None,
        );
        (o, std::fs::read(&path).unwrap())
    };
    let (one, vcd_one) = traced(REFERENCE, "ref.vcd");
    assert!(vcd_one.len() > 10_000, "a VCD worth comparing");
    for threads in [1, 3] {
        let s = Schedule {
            threads,
            window: None,
        };
        let (many, vcd) = traced(s, &format!("{threads}.vcd"));
        same(&format!("VCD run, {s:?}"), &one, &many);
        assert!(vcd == vcd_one, "{s:?}: the VCDs differ");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_schedules_are_errors() {
    let mut c = Cluster::new(Topology::preset("ring2").unwrap(), Backend::Verilated).unwrap();
    assert!(c.set_threads(0).is_err());
    assert_eq!(c.threads(), 1);
    assert!(c.set_window_limit(0).is_err());
    let l = c.lookahead();
    assert!(l > 1, "ring2's cables have a latency: {l}");
    let mut none = [(); 2];
    assert!(c.run_window(l + 1, &mut none).is_err());
    assert!(c.run_window(0, &mut none).is_err());
    assert!(c.run_window(1, &mut [(); 3]).is_err());
    assert_eq!(c.cycle, 0, "nothing ran");
    c.run_window(l, &mut none).unwrap();
    assert_eq!(c.cycle, l);
}
