//! Faults: a malformed TLP injected on a cable is counted and dropped by the receiving
//! chip without disturbing other traffic; a dead receiver stops traffic and the stall
//! detector reports where, instead of hanging.

use pcie_model::beats::{to_beats, Beat};
use pcie_model::tlp::{Addr, Bdf, Tag, Tlp};
use peach2_regmap::csr::{port_reg, Port, PORT_ERRORS};
use peach2_sim::cluster::{Backend, Cluster};
use peach2_sim::scenario::{flows, Kind, Traffic};
use peach2_sim::setup::{bring_up, csr_read_all};
use peach2_sim::topology::Topology;
use peach2_sim::SimError;

fn ring2() -> Cluster {
    let mut c = Cluster::new(Topology::preset("ring2").unwrap(), Backend::Verilated).unwrap();
    bring_up(&mut c).unwrap();
    c
}

/// A 3-DW MWr whose length field says 8 DWs but which carries 2.
fn malformed() -> Vec<Beat> {
    let good = Tlp::mem_write(Bdf(0x100), Tag(0), Addr(0x1000), &[0xab; 8]).unwrap();
    let mut beats = to_beats(&good);
    // DW0 is lane 0 of the first beat; its low 10 bits are the length.
    beats[0].data = (beats[0].data & !0x3ff) | 8;
    beats
}

#[test]
fn malformed_tlp_on_a_cable_is_counted_and_dropped() {
    let mut c = ring2();
    // Cable 0 is n0.E-n1.W; its side 0 sends towards n1.W.
    assert_eq!(c.cables[0].name, "n0.E-n1.W");
    let errors_before = csr_read_all(&mut c, &[(1, port_reg(Port::W, PORT_ERRORS))]).unwrap();
    let mut t = Traffic::new(&c, flows(Kind::Neighbor, 2, 256, Some(60)));
    // Traffic flows, a malformed TLP lands in the middle of it, traffic goes on.
    t.run(&mut c, 300, false).unwrap();
    c.inject(0, 0, malformed()).unwrap();
    t.run(&mut c, 100_000, true).unwrap();
    t.finish();
    assert_eq!(t.summary.errors, 0, "{:?}", t.summary.first_errors);
    assert!(t.done());
    let errors_after = csr_read_all(&mut c, &[(1, port_reg(Port::W, PORT_ERRORS))]).unwrap();
    assert_eq!(errors_after[0], errors_before[0] + 1, "ERRORS[W] of n1");
    assert_eq!(c.cable_end(0, 0).unwrap().tx.injected, 1);
}

#[test]
fn dead_receiver_is_reported_not_hung() {
    let mut c = ring2();
    c.topology.params.stall_cycles = 5_000;
    c.cable_end_mut(0, 1).unwrap().rx.frozen = true;
    let mut t = Traffic::new(&c, flows(Kind::Neighbor, 2, 256, Some(1_000)));
    match t.run(&mut c, 200_000, true) {
        Err(SimError::Stuck { report, idle, .. }) => {
            assert!(idle >= 5_000);
            // The report names the link whose receiver does not take.
            assert!(report.contains("n0.E-n1.W"), "{report}");
            assert!(
                report.contains("head blocked") || report.contains("on the wire"),
                "{report}"
            );
        }
        other => panic!("expected a stall report, got {other:?}"),
    }
    // Traffic in the healthy direction was delivered before the detector fired.
    assert!(t.flows[1].delivered > 0);
}

/// Shortest-path routing on a ring has a cyclic buffer dependency: all-to-all traffic
/// on 8 nodes fills every E-going link and stops. The detector reports it (naming the
/// full links and the blocked credits); dateline routing runs the same traffic through.
#[test]
fn ring_deadlock_is_detected_and_dateline_routing_avoids_it() {
    let mut topo = Topology::preset("ring8").unwrap();
    topo.params.stall_cycles = 5_000;
    let mut c = Cluster::new(topo.clone(), Backend::Verilated).unwrap();
    bring_up(&mut c).unwrap();
    let mut t = Traffic::new(&c, flows(Kind::AllToAll, 8, 256, Some(40)));
    match t.run(&mut c, 400_000, true) {
        Err(SimError::Stuck { report, .. }) => {
            assert!(report.contains("n7.E-n0.W"), "{report}");
            assert!(report.contains("no Data credit for Posted"), "{report}");
        }
        other => panic!("expected the ring to deadlock, got {other:?}"),
    }
    let mut c = Cluster::new(topo.with_dateline().unwrap(), Backend::Verilated).unwrap();
    bring_up(&mut c).unwrap();
    let mut t = Traffic::new(&c, flows(Kind::AllToAll, 8, 256, Some(40)));
    t.run(&mut c, 400_000, true).unwrap();
    t.finish();
    assert_eq!(t.summary.errors, 0, "{:?}", t.summary.first_errors);
    assert!(t.done());
    // The wrap-around cable carried bring-up only: no data TLP was routed over it.
    assert!(
        c.cable_end(7, 0).unwrap().tx.tlps < 10,
        "{}",
        c.cable_end(7, 0).unwrap().tx.tlps
    );
}

/// A fault campaign (`peach2 sim --faults`): every kind injected during all-to-all
/// traffic on a 4-node ring; each bad TLP (truncated, over-long, reserved type,
/// forbidden byte enables, unroutable, an unexpected completion, poisoned, a config read
/// from the wrong side) is detected by exactly the counters that should see it, stalls
/// delay without losing anything, and every flow arrives whole and byte-exact.
#[test]
fn a_fault_campaign_is_detected_kind_by_kind_and_every_flow_arrives_intact() {
    use peach2_sim::faults::{self, FaultSpec};
    let mut topo = Topology::preset("ring4").unwrap();
    topo = topo.with_dateline().unwrap();
    let mut c = Cluster::new(topo, Backend::Verilated).unwrap();
    bring_up(&mut c).unwrap();
    let mut t = Traffic::new(&c, flows(Kind::AllToAll, 4, 256, None));
    // Link-downs have their own test: they add drops and cut TLPs short.
    let spec: FaultSpec = "all=300,linkdown=0".parse().unwrap();
    let r = faults::run(&mut c, &mut t, spec, 7, 60_000).unwrap();
    println!("{r:?}");
    // The DMA's kinds need DMA flows (the next test).
    for kind in faults::KINDS {
        let n = r.faults_injected[kind];
        if faults::hits_dma(kind) || kind == "linkdown" {
            assert_eq!(n, 0, "{kind}: {r:?}");
        } else {
            assert!(n > 3, "{kind}: {r:?}");
        }
    }
    for counter in ["errors", "drops", "poisoned_writes", "ur_sent"] {
        assert!(r.faults_expected[counter] > 3, "{counter}: {r:?}");
        assert_eq!(
            r.faults_detected[counter], r.faults_expected[counter],
            "{counter}: {r:?}"
        );
    }
    assert_eq!(r.silent_corruptions, 0, "{:?}", t.summary.first_errors);
    assert_eq!(r.flows_unaffected_intact, r.flows_unaffected);
    assert_eq!(r.flows_unaffected, 12);
    assert!(t.flows.iter().all(|f| f.delivered > 10), "{:?}", t.flows);
    // Bad specifications are refused with a reason.
    for bad in ["all", "nosuch=1", "malformed=-1", "stall=x"] {
        assert!(bad.parse::<FaultSpec>().is_err(), "{bad}");
    }
}

/// The DMA under faults (`--scenario dma`): chunks whose source reads fail or are lost in
/// host memory, or whose chain's second descriptor turns bad, are stopped by the chip,
/// which says why in the channel's `STATUS`; each such chunk is reported failed, the
/// channel goes on with the next chunk, and everything else arrives byte-exact.
#[test]
fn dma_faults_stop_their_chunks_with_the_cause_and_nothing_else_is_lost() {
    use peach2_sim::faults::{self, FaultSpec};
    let topo = Topology::preset("ring4").unwrap().with_dateline().unwrap();
    let mut c = Cluster::new(topo, Backend::Verilated).unwrap();
    bring_up(&mut c).unwrap();
    let mut t = Traffic::new(&c, flows(Kind::Dma, 4, 4096, None));
    let spec: FaultSpec = "readerr=100,cpltimeout=40,baddesc=100,stall=40"
        .parse()
        .unwrap();
    let r = faults::run(&mut c, &mut t, spec, 3, 150_000).unwrap();
    println!("{r:?}");
    for kind in ["readerr", "cpltimeout", "baddesc"] {
        assert!(r.faults_injected[kind] >= 3, "{kind}: {r:?}");
    }
    for counter in ["dma_cpl_error", "dma_cpl_timeout", "dma_zero_length"] {
        assert_eq!(
            r.faults_detected[counter], r.faults_expected[counter],
            "{counter}: {r:?}"
        );
    }
    let stopped: u64 = ["readerr", "cpltimeout", "baddesc"]
        .iter()
        .map(|k| r.faults_injected[*k])
        .sum();
    assert_eq!(
        t.summary.chunks_failed, stopped,
        "one failed chunk per fault"
    );
    assert_eq!(r.silent_corruptions, 0, "{:?}", t.summary.first_errors);
    assert_eq!(r.flows_affected, 4, "{r:?}");
    // Every channel went on after its errors.
    assert!(
        t.flows.iter().all(|f| f.delivered - f.skipped > 20),
        "{:?}",
        t.flows
    );
}

/// Links going down during traffic (`linkdown`): both ends throw away what they held,
/// the root-complex side brings its partner up again, and traffic goes on. Only flows
/// whose route crosses a cable that went down may lose chunks (they are affected, their
/// losses reported); every other flow arrives whole, the other faults are detected as
/// before, and afterwards every cabled port is ready and a clean transfer passes.
#[test]
fn links_that_go_down_lose_only_what_crossed_them_and_traffic_goes_on() {
    use peach2_regmap::csr::{port_status, PORT_STATUS};
    use peach2_sim::faults::{self, FaultSpec};
    let topo = Topology::preset("ring4").unwrap().with_dateline().unwrap();
    let mut c = Cluster::new(topo, Backend::Verilated).unwrap();
    bring_up(&mut c).unwrap();
    let mut t = Traffic::new(&c, flows(Kind::AllToAll, 4, 256, None));
    let spec: FaultSpec = "linkdown=50,malformed=200,poisoned=200".parse().unwrap();
    let r = faults::run(&mut c, &mut t, spec, 11, 100_000).unwrap();
    println!("{r:?}");
    assert!(r.faults_injected["linkdown"] >= 3, "{r:?}");
    for counter in ["link_down", "poisoned_writes"] {
        assert_eq!(
            r.faults_detected[counter], r.faults_expected[counter],
            "{counter}: {r:?}"
        );
    }
    // The chips also drop what they route to a port that is down, and count a TLP the
    // outage cut short.
    for counter in ["errors", "drops"] {
        assert!(
            r.faults_detected[counter] >= r.faults_expected[counter],
            "{counter}: {r:?}"
        );
    }
    assert!(r.tlps_discarded_on_links > 0, "{r:?}");
    assert!(r.flows_affected > 0, "{r:?}");
    assert_eq!(r.flows_unaffected_intact, r.flows_unaffected, "{r:?}");
    assert_eq!(r.silent_corruptions, 0, "{:?}", t.summary.first_errors);
    assert_eq!(t.summary.chunks_lost, r.chunks_lost_on_links);
    // Every chunk lost (one TLP each) has its reason counted: a chip dropped it, routing
    // to a port that was down, or a link end threw it away going down.
    let extra_drops = r.faults_detected["drops"] - r.faults_expected["drops"];
    assert_eq!(
        r.chunks_lost_on_links,
        extra_drops + r.tlps_discarded_on_links,
        "{r:?}"
    );
    // Every ring port is ready again, and carries traffic.
    let ports = [Port::E, Port::W];
    let reads: Vec<(usize, u32)> = (0..4)
        .flat_map(|n| ports.map(|p| (n, port_reg(p, PORT_STATUS))))
        .collect();
    let status = csr_read_all(&mut c, &reads).unwrap();
    assert!(
        status.iter().all(|s| s & port_status::READY != 0),
        "{status:x?}"
    );
    let mut clean = Traffic::new(&c, flows(Kind::AllToAll, 4, 256, Some(20)));
    clean.run(&mut c, 400_000, true).unwrap();
    clean.finish();
    assert_eq!(clean.summary.errors, 0, "{:?}", clean.summary.first_errors);
    assert!(clean.done());
}
