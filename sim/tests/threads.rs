//! Chips evaluated on several threads give the very same simulation as on one: the same
//! TLPs on every cable at the same cycles, the same deliveries and evaluations, the same
//! chip outputs at the end.

use peach2_sim::cluster::{Backend, Cluster};
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

/// Everything a run leaves behind that must not depend on the thread count.
#[derive(Debug, PartialEq)]
struct Outcome {
    log: Vec<u8>,
    cycle: u64,
    bytes: u64,
    chunks: u64,
    errors: u64,
    evals: (u64, u64),
    outputs: Vec<Vec<u128>>,
}

fn run(preset: &str, kind: Kind, threads: usize, cycles: u64) -> Outcome {
    let mut c = Cluster::new(Topology::preset(preset).unwrap(), Backend::Verilated).unwrap();
    c.set_threads(threads).unwrap();
    assert_eq!(c.threads(), threads);
    let log = Log::default();
    c.log_tlps(Box::new(log.clone()));
    bring_up(&mut c).unwrap();
    let mut t = Traffic::new(&c, flows(kind, c.nodes.len(), 128, None));
    t.run(&mut c, cycles, false).unwrap();
    c.finish().unwrap();
    assert_eq!(t.summary.errors, 0, "{:?}", t.summary.first_errors);
    assert!(t.summary.bytes_delivered > 0);
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
        cycle: c.cycle,
        bytes: t.summary.bytes_delivered,
        chunks: t.summary.chunks_delivered,
        errors: t.summary.errors,
        evals: (c.evals_done, c.evals_skipped),
        outputs,
    }
}

#[test]
fn two_and_three_threads_simulate_exactly_what_one_does() {
    let one = run("ring4", Kind::AllToAll, 1, 4_000);
    assert!(
        one.log.len() > 10_000,
        "a log worth comparing: {} bytes, {one:?}",
        one.log.len()
    );
    for threads in [2, 3] {
        let many = run("ring4", Kind::AllToAll, threads, 4_000);
        assert_eq!(
            (one.cycle, one.bytes, one.chunks, one.errors, one.evals),
            (many.cycle, many.bytes, many.chunks, many.errors, many.evals),
            "{threads} threads"
        );
        let first = one.log.iter().zip(&many.log).position(|(a, b)| a != b);
        assert!(
            one.log == many.log,
            "{threads} threads: TLP logs differ from byte {first:?}"
        );
        assert_eq!(one.outputs, many.outputs, "{threads} threads: chip outputs");
    }
}

#[test]
fn zero_threads_is_an_error() {
    let mut c = Cluster::new(Topology::preset("ring2").unwrap(), Backend::Verilated).unwrap();
    assert!(c.set_threads(0).is_err());
    assert_eq!(c.threads(), 1);
}
