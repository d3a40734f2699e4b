//! Chip-level tests of the PEACH2 core: several cores, each with a host model (a
//! pcie-model root complex) on its N port, cabled together (bench in `support`). Hosts
//! enumerate their chips, program them through BAR0 and write through BAR2 as a driver
//! would; the tests check what arrives where, and what the CSRs report.
//!
//! - `csr_access_follows_pcie_byte_order`, `csr_read_completions_keep_unused_lanes_zero`:
//!   BAR0 access from a little-endian host, one node.
//! - `ring_brings_up_and_reports_partners`: the ring A.E-B.W, B.E-C.W, C.E-A.W plus
//!   A.S (RC) to B.S (EP) comes up; partners, roles, C.S down, what enumeration set.
//! - `pio_writes_reach_every_node_through_every_port`: flows over E, W, S, through a
//!   transit node and N to N, each write once, in order, translated, right header format.
//! - `counters_and_errors_are_visible_in_csrs`: exact traffic counters, drops, malformed
//!   TLPs, UR for reads of remote memory.
//! - `miscabling_is_reported`: W to W, S to S (both RC), E to E.
//! - `streams_keep_line_rate`: beats per cycle at the destination N, one and two streams.

mod support;

use pcie_model::beats::bytes_to_beats;
use pcie_model::requester::{RequestError, RequestOutcome};
use pcie_model::tlp::{Addr, CplStatus, Tag, Tlp, TlpKind};
use peach2_regmap::address::{GlobalAddr, Target};
use peach2_regmap::config::{LinkError, LinkState};
use peach2_regmap::csr::{
    port_config as pc, port_reg, Port, CPL_UNEXPECTED, ID, ID_VALUE, NODE_ID, PORT_CONFIG,
    PORT_DROPS, PORT_TLPS_IN, SCRATCH, VERSION_VALUE,
};
use peach2_rtl::harness::Lcg;
use support::fabric::{Fabric, BAR0_BASE, CHIP_BDF, HOST_RID};
use support::flows::{
    check_delivery, check_ports_used, issue, snapshot, Flow, FlowSpec, MIXED_SIZES,
};
use support::scenario::*;
use support::status::Traffic;
use Port::{E, N, S, W};
use Target::{Gpu, Host};

/// Register byte k is address byte k, as for any PCIe function's registers (and as the
/// chip's own config space does it).
#[test]
fn csr_access_follows_pcie_byte_order() {
    let mut f = Fabric::new(&[false], EP_TIMEOUT, CFG_TIMEOUT, 1.0);
    f.enumerate_all(1_000);
    // A little-endian load of ID and VERSION returns the documented values.
    assert_eq!(
        f.csr_read(0, ID, 2),
        [ID_VALUE, VERSION_VALUE],
        "ID, VERSION"
    );
    // A one-byte store to byte 1 of SCRATCH changes register bits 15:8 only.
    f.csr_write(0, SCRATCH, &[0]);
    let h = &mut f.nodes[0].host;
    h.rc.mmio_write(BAR0_BASE + u64::from(SCRATCH) + 1, &[0xAB])
        .unwrap();
    h.pump();
    assert_eq!(
        f.csr_read(0, SCRATCH, 1),
        [0x0000_AB00],
        "SCRATCH after a byte store"
    );
    // A one-byte store of 5 to NODE_ID sets the node id to 5.
    let h = &mut f.nodes[0].host;
    h.rc.mmio_write(BAR0_BASE + u64::from(NODE_ID), &[5])
        .unwrap();
    h.pump();
    assert_eq!(f.csr_read(0, NODE_ID, 1), [5], "NODE_ID after a byte store");
}

/// A CplD for a 2- or 3-DW CSR read obeys the beat format (unused lanes zero).
#[test]
fn csr_read_completions_keep_unused_lanes_zero() {
    let mut f = Fabric::new(&[false], EP_TIMEOUT, CFG_TIMEOUT, 1.0);
    f.enumerate_all(1_000);
    f.csr_write(0, SCRATCH, &[u32::MAX]);
    // A 4-DW read fills every read lane; the shorter reads after it must not carry the
    // stale ones along in the unused lanes of their last beat.
    for dws in [4, 3, 4, 2] {
        let h = &mut f.nodes[0].host;
        let handle = h.rc.mmio_read(BAR0_BASE + u64::from(ID), 4 * dws).unwrap();
        h.pump();
        let mut result = None;
        f.run_until(100, "CSR read", |f| {
            let h = &mut f.nodes[0].host;
            result = h.rc.take_result(handle);
            result.is_some() || !h.unexpected.is_empty()
        });
        let h = &f.nodes[0].host;
        assert!(h.unexpected.is_empty(), "{dws}-DW read: {:?}", h.unexpected);
        assert!(
            matches!(&result, Some(Ok(RequestOutcome::Read(b))) if b.len() == 4 * dws),
            "{dws}-DW read: {result:?}"
        );
    }
}

#[test]
fn ring_brings_up_and_reports_partners() {
    let mut f = ring3();
    configure_and_plug(&mut f);
    let plugged = f.cycle;
    let st = wait_ready(&mut f, &RING3_PORTS, 2_000);
    println!("ring ready {} cycles after plugging", f.cycle - plugged);
    // (node, port) -> (partner node, partner port); W and A.S are the RC ends.
    let partner = |n: usize, p: Port| match (n, p) {
        (A, E) => (B, W),
        (B, W) => (A, E),
        (B, E) => (C, W),
        (C, W) => (B, E),
        (C, E) => (A, W),
        (A, W) => (C, E),
        (A, S) => (B, S),
        (B, S) => (A, S),
        _ => unreachable!(),
    };
    for (&(n, p), s) in RING3_PORTS.iter().zip(&st) {
        let (pn, pp) = partner(n, p);
        let what = format!("node {n} port {p:?}: {s:?}");
        assert!(s.link_up && s.ready && s.is(LinkState::Ready), "{what}");
        assert_eq!(s.error, LinkError::None, "{what}");
        assert_eq!(s.role_rc, p == W || (n, p) == (A, S), "{what}: role");
        assert!(s.partner_valid, "{what}: partner valid");
        assert_eq!(
            (s.partner_node, s.partner_port),
            (NODE_IDS[pn], pp),
            "{what}: partner"
        );
    }
    let cs = f.port_status(C, S);
    assert!(
        !cs.link_up && !cs.ready && cs.is(LinkState::Down),
        "C.S: {cs:?}"
    );
    assert_eq!(cs.error, LinkError::None, "C.S: {cs:?}");
    for n in [A, B, C] {
        let s = f.port_status(n, N);
        assert!(s.link_up && s.ready && !s.role_rc, "node {n} N: {s:?}");
        // What the host's enumeration programmed: memory, bus master, MPS 256 B, MRRS
        // 512 B, and the id captured from its config writes.
        let cfg = f.csr_read(n, port_reg(N, PORT_CONFIG), 1)[0];
        let want = pc::MEMORY
            | pc::BUS_MASTER
            | (1 << pc::MAX_PAYLOAD_SHIFT)
            | (2 << pc::MAX_READ_REQ_SHIFT)
            | (u32::from(CHIP_BDF.raw()) << pc::DEVICE_ID_SHIFT);
        assert_eq!(cfg, want, "node {n}: PORT_CONFIG[N]");
        // The ring EPs were configured by their RC partners (bus 1, memory, bus master).
        for p in [E].into_iter().chain((n == B).then_some(S)) {
            let cfg = f.csr_read(n, port_reg(p, PORT_CONFIG), 1)[0];
            assert_eq!(
                cfg & 3,
                pc::MEMORY | pc::BUS_MASTER,
                "node {n} {p:?}: {cfg:#x}"
            );
            assert_eq!(
                cfg >> pc::DEVICE_ID_SHIFT,
                0x0100,
                "node {n} {p:?}: {cfg:#x}"
            );
        }
    }
    assert!(f.nodes.iter().all(|n| n.host.unexpected.is_empty()));
    println!("{} cycles", f.cycle);
}

#[test]
fn pio_writes_reach_every_node_through_every_port() {
    let mut f = ring3_up();
    let mut rng = Lcg(0x2545_f491);
    // Phase 1: A reaches C through B (transit W -> E at B); B reaches A over S.
    set_routes(
        &mut f,
        &[
            (A, B, E),
            (A, C, E),
            (B, A, S),
            (B, C, E),
            (C, B, W),
            (C, A, E),
        ],
    );
    let phase1 = [
        FlowSpec::new("A->B host over A.E", (A, B, Host), &[(A, E)]),
        FlowSpec::new("A->C GPU0 via B", (A, C, Gpu(0)), &[(A, E), (B, E)]),
        FlowSpec::new("A->A host (N to N)", (A, A, Host), &[]),
        FlowSpec::new("B->A host over B.S", (B, A, Host), &[(B, S)]),
        FlowSpec::new("B->C GPU0 over B.E", (B, C, Gpu(0)), &[(B, E)]),
        FlowSpec::new("C->B GPU0 over C.W", (C, B, Gpu(0)), &[(C, W)]),
    ];
    let mut flows: Vec<Flow> = phase1
        .iter()
        .enumerate()
        .map(|(i, s)| Flow::new(*s, i as u64, &MIXED_SIZES, &mut rng))
        .collect();
    let before = snapshot(&f);
    issue(&mut f, &mut flows);
    let cycles1 = f.run_until_quiet(4_000, "phase 1 traffic");
    check_ports_used(&f, &before, &flows);

    // Phase 2: the other ways round: A to C directly over W, A and B over S, and C to B
    // through A (transit W -> S at A).
    set_routes(&mut f, &[(A, B, S), (A, C, W), (B, A, W), (C, B, E)]);
    let phase2 = [
        FlowSpec::new("A->B GPU0 over A.S", (A, B, Gpu(0)), &[(A, S)]),
        FlowSpec::new("A->C host over A.W", (A, C, Host), &[(A, W)]),
        FlowSpec::new("B->A GPU0 over B.W", (B, A, Gpu(0)), &[(B, W)]),
        FlowSpec::new("C->B host via A", (C, B, Host), &[(C, E), (A, S)]),
    ];
    let mut flows2: Vec<Flow> = phase2
        .iter()
        .enumerate()
        .map(|(i, s)| Flow::new(*s, (phase1.len() + i) as u64, &MIXED_SIZES, &mut rng))
        .collect();
    let before = snapshot(&f);
    issue(&mut f, &mut flows2);
    let cycles2 = f.run_until_quiet(4_000, "phase 2 traffic");
    check_ports_used(&f, &before, &flows2);
    println!("phase 1: {cycles1} cycles, phase 2: {cycles2} cycles");

    flows.extend(flows2);
    check_delivery(&f, &flows);
    println!("{} cycles", f.cycle);
}

/// Reads `TLPS_IN` .. `BYTES_OUT` of a port (one 4-DW read) and `DROPS`, `ERRORS`,
/// `UR_SENT` (one 3-DW read) and checks them: the traffic counters against what crossed
/// the port's pins, the others against `errors`. Reading N's counters is itself N
/// traffic: each read request is counted in (12 bytes, 3-DW MRd) before the chip reads
/// the registers, its completion out after.
fn check_counters(f: &mut Fabric, n: usize, p: Port, errors: [u32; 3]) {
    let pins = f.nodes[n].traffic[p.index() as usize];
    let want = if p == N {
        Traffic {
            tlps_in: pins.tlps_in + 1,
            bytes_in: pins.bytes_in + 12,
            ..pins
        }
    } else {
        pins
    };
    let got = f.csr_read(n, port_reg(p, PORT_TLPS_IN), 4);
    let got = Traffic {
        tlps_in: got[0].into(),
        bytes_in: got[1].into(),
        tlps_out: got[2].into(),
        bytes_out: got[3].into(),
    };
    assert_eq!(got, want, "node {n} port {p:?}: traffic counters");
    let got = f.csr_read(n, port_reg(p, PORT_DROPS), 3);
    assert_eq!(got, errors, "node {n} port {p:?}: DROPS, ERRORS, UR_SENT");
}

/// A 3-DW MWr to BAR0 `SCRATCH` whose length field says 2 DW but which carries 1: the
/// beats of a 2-DW write cut after the first payload DW.
fn short_csr_write() -> Vec<pcie_model::beats::Beat> {
    let tlp = Tlp::mem_write(
        HOST_RID,
        Tag(0),
        Addr(BAR0_BASE + u64::from(SCRATCH)),
        &[0x5A; 8],
    )
    .unwrap();
    let bytes = tlp.to_bytes();
    assert_eq!(bytes[3], 2, "length field");
    bytes_to_beats(&bytes[..16]).unwrap()
}

#[test]
fn counters_and_errors_are_visible_in_csrs() {
    let mut f = ring3_up();
    let mut rng = Lcg(0x9e37_79b9);
    // B has no route to C: A's writes to C die at B.W.
    set_routes(&mut f, &[(A, B, E), (A, C, E), (B, A, S), (C, B, W)]);
    let sizes = &MIXED_SIZES[..8];
    let mut flows = vec![
        Flow::new(
            FlowSpec::new("A->B host", (A, B, Host), &[(A, E)]),
            0,
            sizes,
            &mut rng,
        ),
        Flow::new(
            FlowSpec::new("B->A GPU0", (B, A, Gpu(0)), &[(B, S)]),
            1,
            sizes,
            &mut rng,
        ),
        Flow::new(
            FlowSpec::new("C->B host", (C, B, Host), &[(C, W)]),
            2,
            sizes,
            &mut rng,
        ),
    ];
    issue(&mut f, &mut flows);

    let g = |node: usize, t: Target, off: u64| GlobalAddr::new(NODE_IDS[node], t, off).unwrap();
    // Dropped at A.N: a node without a route, an address outside BAR0 (32-bit) and one
    // outside BAR2 (64-bit).
    f.pio_write(A, GlobalAddr::new(12, Host, 0x40).unwrap(), &[1; 16]);
    for addr in [0xE000_0000, 0x2000_0000_0000] {
        let tlp = Tlp::mem_write(HOST_RID, Tag(0), Addr(addr), &[2; 8]).unwrap();
        f.nodes[A].host.send(tlp);
    }
    // Dropped at B.W (no route to C there) and at B.N (GPU 1's window is disabled).
    f.pio_write(A, g(C, Host, 0x80), &[3; 32]);
    f.pio_write(C, g(B, Gpu(1), 0x80), &[4; 32]);
    // Malformed at A.N.
    f.nodes[A].host.send_raw(&short_csr_write());
    f.run_until_quiet(3_000, "traffic and bad TLPs");

    // A PIO read to a remote node: the chip answers UR to the host's request.
    let addr = Fabric::pio_address(g(B, Host, 0x100));
    assert_eq!(
        f.mmio_read(A, addr, 8),
        Err(RequestError::UnsupportedRequest)
    );
    let host = &f.nodes[A].host;
    let mrd = host.sent.last().unwrap();
    assert_eq!((mrd.kind(), mrd.header_len_dw()), (TlpKind::MRd, 4));
    let cpl = &host.completions.last().unwrap().tlp;
    assert_eq!(cpl.kind(), TlpKind::Cpl, "{cpl:?}");
    assert_eq!(cpl.status(), Some(CplStatus::Ur), "{cpl:?}");
    assert_eq!(cpl.tag(), mrd.tag(), "{cpl:?}");
    assert_eq!(cpl.requester_id(), HOST_RID, "{cpl:?}");
    assert_eq!(cpl.completer_id(), Some(CHIP_BDF), "{cpl:?}");

    // Traffic still flows after the bad TLPs.
    f.csr_write(A, SCRATCH, &[0x1234_5678]);
    assert_eq!(f.csr_read(A, SCRATCH, 1), [0x1234_5678]);
    let mut more = vec![Flow::new(
        FlowSpec::new("A->B GPU0 after errors", (A, B, Gpu(0)), &[(A, E)]),
        3,
        sizes,
        &mut rng,
    )];
    issue(&mut f, &mut more);
    f.run_until_quiet(2_000, "traffic after errors");
    flows.extend(more);
    check_delivery(&f, &flows);

    for n in [A, B, C] {
        for p in Port::ALL {
            let errors = match (n, p) {
                (A, N) => [3, 1, 1],
                (B, N) => [1, 0, 0],
                (B, W) => [1, 0, 0],
                _ => [0, 0, 0],
            };
            check_counters(&mut f, n, p, errors);
        }
        assert_eq!(
            f.csr_read(n, CPL_UNEXPECTED, 1),
            [0],
            "node {n}: CPL_UNEXPECTED"
        );
    }
    println!("{} cycles", f.cycle);
}

#[test]
fn miscabling_is_reported() {
    const EP_SHORT: u32 = 600;
    // Two chips cabled W to W (both RC), E to E (both EP), and S to S with both S ports
    // strapped RC.
    let mut f = Fabric::new(&[true, true], EP_SHORT, 150, 1.0);
    f.connect(end(0, W), end(1, W), 10, 16);
    f.connect(end(0, E), end(1, E), 14, 16);
    f.connect(end(0, S), end(1, S), 6, 16);
    configure_and_plug(&mut f);
    let plugged = f.cycle;
    let ports = [(0, W), (1, W), (0, S), (1, S), (0, E), (1, E)];
    let mut last = Vec::new();
    while f.cycle - plugged < u64::from(EP_SHORT) + 300 {
        last = ports
            .iter()
            .map(|&(n, p)| f.port_status(n, p))
            .collect::<Vec<_>>();
        for (&(n, p), s) in ports.iter().zip(&last) {
            assert!(
                s.link_up && !s.ready,
                "node {n} {p:?} at cycle {}: {s:?}",
                f.cycle
            );
            if p == E && f.cycle - plugged < u64::from(EP_SHORT) {
                assert_eq!(
                    s.error,
                    LinkError::None,
                    "node {n} E before the timeout: {s:?}"
                );
            }
        }
    }
    for (&(n, p), s) in ports.iter().zip(&last) {
        if p == E {
            assert_eq!(s.error, LinkError::NotConfigured, "node {n} {p:?}: {s:?}");
            assert!(s.is(LinkState::Identify), "node {n} {p:?}: {s:?}");
        } else {
            assert!(
                matches!(
                    s.error,
                    LinkError::PartnerNotEndpoint | LinkError::ConfigInRcRole
                ),
                "node {n} {p:?}: {s:?}"
            );
            assert!(
                s.is(LinkState::Failed) && s.role_rc,
                "node {n} {p:?}: {s:?}"
            );
        }
    }
    assert!(f.nodes.iter().all(|n| n.host.unexpected.is_empty()));
    println!("{} cycles", f.cycle);
}

#[test]
fn streams_keep_line_rate() {
    let mut f = pair_up();
    let mut rng = Lcg(0x51ed_270b);
    let full = [(0, 256); 200];
    // One long stream, A to B's host memory (3-DW headers at B's N: the egress realigns).
    let mut flows = vec![Flow::new(
        FlowSpec::new("A->B host, 200 x 64 DW", (A, B, Host), &[(A, E)]),
        0,
        &full,
        &mut rng,
    )];
    issue(&mut f, &mut flows);
    let cycles = f.run_until_quiet(5_000, "long stream");
    let one = f.nodes[B].host.write_rate(20);
    check_delivery(&f, &flows);

    // Two disjoint streams at once: A to B's GPU over A.E, B to A's host over B.E.
    let half = [(0, 256); 100];
    let mut both = vec![
        Flow::new(
            FlowSpec::new("A->B GPU0", (A, B, Gpu(0)), &[(A, E)]),
            1,
            &half,
            &mut rng,
        ),
        Flow::new(
            FlowSpec::new("B->A host", (B, A, Host), &[(B, E)]),
            2,
            &half,
            &mut rng,
        ),
    ];
    for n in [A, B] {
        f.nodes[n].host.writes.clear();
    }
    issue(&mut f, &mut both);
    let cycles2 = f.run_until_quiet(3_000, "two streams");
    let to_b = f.nodes[B].host.write_rate(10);
    let to_a = f.nodes[A].host.write_rate(10);
    println!(
        "line rate: one stream {one:.3} beats/cycle ({cycles} cycles); \
         two disjoint streams {to_b:.3} (A->B GPU) and {to_a:.3} (B->A host) ({cycles2} cycles)"
    );
    check_delivery(&f, &both);
    for (what, rate) in [("one stream", one), ("A->B", to_b), ("B->A", to_a)] {
        assert!(rate >= 0.99, "{what}: {rate:.3} beats/cycle");
    }
    println!("{} cycles", f.cycle);
}
