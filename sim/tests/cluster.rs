//! Clusters end to end: bring-up as software does it, PIO traffic through 1, 2 and
//! several hops with a scoreboard (every byte once, in order per flow), to host memory
//! and GPU memory.

use peach2_regmap::address::Target;
use peach2_sim::cluster::{Backend, Cluster};
use peach2_sim::scenario::{flows, Flow, Kind, Traffic};
use peach2_sim::setup::bring_up;
use peach2_sim::topology::Topology;

fn up(preset: &str) -> Cluster {
    let mut c = Cluster::new(Topology::preset(preset).unwrap(), Backend::Verilated).unwrap();
    let t = bring_up(&mut c).unwrap();
    println!(
        "{preset}: links ready {t} cycles after plugging (cycle {})",
        c.cycle
    );
    c
}

fn run_checked(c: &mut Cluster, flows: Vec<Flow>, limit: u64) -> Traffic {
    let mut t = Traffic::new(c, flows);
    t.run(c, limit, true).unwrap();
    // Let the last writes drain, then every issued chunk must have arrived.
    t.finish();
    println!("{:?}", t.summary);
    assert_eq!(t.summary.errors, 0, "{:?}", t.summary.first_errors);
    assert!(t.done(), "not done in {limit} cycles");
    t
}

#[test]
fn ring2_neighbor_and_pingpong() {
    let mut c = up("ring2");
    let t = run_checked(&mut c, flows(Kind::Neighbor, 2, 256, Some(40)), 100_000);
    assert_eq!(t.summary.bytes_delivered, 2 * 40 * 256);
    let t = run_checked(&mut c, flows(Kind::PingPong, 2, 64, Some(10)), 100_000);
    assert_eq!(t.summary.chunks_delivered, 20);
}

#[test]
fn ring4_alltoall_through_two_hops_to_host_and_gpu() {
    let mut c = up("ring4");
    let topo = c.topology.clone();
    assert_eq!(topo.hops(0, 2).unwrap(), Some(2));
    let mut fl = flows(Kind::AllToAll, 4, 128, Some(6));
    // Same pairs to GPU 0 memory as well.
    fl.extend(
        flows(Kind::AllToAll, 4, 256, Some(3))
            .into_iter()
            .map(|f| Flow::new(f.src, f.dst, Target::Gpu(0), f.chunk, f.limit)),
    );
    run_checked(&mut c, fl, 200_000);
    // The GPU memory holds what was written into it.
    assert!(c
        .nodes
        .iter()
        .all(|n| n.host.gpus[0].endpoint.counters().writes_accepted > 0));
}

#[test]
fn group_2x8_alltoall_crosses_rings() {
    let mut c = up("2x8");
    let topo = c.topology.clone();
    assert_eq!(topo.hops(0, 8).unwrap(), Some(1), "S to S");
    assert_eq!(topo.hops(0, 9).unwrap(), Some(2), "via S, then the ring");
    assert_eq!(topo.hops(0, 12).unwrap(), Some(5), "S, then 4 ring hops");
    run_checked(&mut c, flows(Kind::AllToAll, 16, 64, Some(2)), 300_000);
}

#[test]
fn every_ring_preset_delivers_neighbor_and_farthest_traffic() {
    for n in 3..=8usize {
        let mut c = up(&format!("ring{n}"));
        let mut fl = flows(Kind::Neighbor, n, 128, Some(4));
        // Farthest node: n/2 hops (into GPU memory: a window of its own).
        fl.push(Flow::new(0, n / 2, Target::Gpu(0), 256, Some(4)));
        assert_eq!(c.topology.hops(0, n / 2).unwrap(), Some(n / 2));
        run_checked(&mut c, fl, 100_000);
    }
}

/// The largest presets the global address allows (64 nodes, four times the real 16-node
/// group): on the ring every node writes to every other, so every `ROUTE` entry and node
/// id is used, over up to 63 hops; on the two rings, one node to all and all to one.
#[test]
fn sixty_four_nodes_carry_all_to_all_between_every_pair() {
    for preset in ["ring64", "2x32"] {
        let topo = Topology::preset(preset).unwrap().with_dateline().unwrap();
        let mut c = Cluster::new(topo, Backend::Verilated).unwrap();
        bring_up(&mut c).unwrap();
        // ring64: the dateline sends node 0 the long way round to its W neighbour;
        // 2x32: S to node 32, then the 31 cables of ring B that are not its wrap-around.
        let far = if preset == "ring64" { 63 } else { 32 };
        assert_eq!(c.topology.hops(0, 63).unwrap(), Some(far), "{preset}");
        let fl: Vec<Flow> = if preset == "ring64" {
            flows(Kind::AllToAll, 64, 64, Some(1))
        } else {
            // From node 0 to every node and from every node to node 63.
            (1..64)
                .map(|d| Flow::new(0, d, Target::Host, 64, Some(1)))
                .chain((0..63).map(|s| Flow::new(s, 63, Target::Gpu(0), 64, Some(1))))
                .collect()
        };
        let want = fl.len() as u64;
        let t = run_checked(&mut c, fl, 400_000);
        assert_eq!(t.summary.chunks_delivered, want, "{preset}");
    }
}
