//! The fabrics the tests run on, and what a driver does to bring them up: enumerate N,
//! set the node id and the target windows, plug the cables, wait for the ports.

use super::cable::End;
use super::fabric::{Fabric, BAR0_BASE, BAR2_BASE};
use super::status::PortStatus;
use peach2_regmap::csr::Port::{self, E, S, W};
use peach2_regmap::csr::NODE_ID;

/// Node indices of the three-node ring.
pub const A: usize = 0;
/// See [`A`].
pub const B: usize = 1;
/// See [`A`].
pub const C: usize = 2;
/// Node ids the drivers assign (not the indices, and not the reset value 0, so a chip that
/// missed its `NODE_ID` write shows).
pub const NODE_IDS: [u8; 3] = [4, 7, 10];
/// Endpoint configuration timeout of the chips under test, in cycles.
pub const EP_TIMEOUT: u32 = 3000;
/// Config completion timeout of the chips under test, in cycles.
pub const CFG_TIMEOUT: u32 = 300;

/// Local base of node `n`'s host-memory window: below 4 GiB, so writes leave in 3-DW headers.
pub fn host_base(n: usize) -> u64 {
    0x8000_0000 + 0x1000_0000 * n as u64
}

/// Local base of node `n`'s GPU 0 window: above 4 GiB, so writes keep 4-DW headers.
pub fn gpu0_base(n: usize) -> u64 {
    0x38_0000_0000 + 0x10_0000_0000 * n as u64
}

/// Shorthand for a cable end.
pub fn end(node: usize, port: Port) -> End {
    End { node, port }
}

/// A(0), B(1), C(2): A.E-B.W, B.E-C.W, C.E-A.W; A.S (strapped RC) to B.S (EP); C.S open.
/// Cables of different latencies; hosts take N's output with random backpressure.
pub fn ring3() -> Fabric {
    let mut f = Fabric::new(&[true, false, false], EP_TIMEOUT, CFG_TIMEOUT, 0.8);
    f.connect(end(A, E), end(B, W), 12, 24);
    f.connect(end(B, E), end(C, W), 8, 24);
    f.connect(end(C, E), end(A, W), 20, 32);
    f.connect(end(A, S), end(B, S), 16, 24);
    f
}

/// The ring ports of [`ring3`] that have a cable.
pub const RING3_PORTS: [(usize, Port); 8] = [
    (A, E),
    (A, W),
    (A, S),
    (B, E),
    (B, W),
    (B, S),
    (C, E),
    (C, W),
];

/// Hosts enumerate their chips (checking the BARs land where firmware puts them), drivers
/// set node ids and windows, then the cables are plugged. Node ids are set first because
/// bring-up exchanges them: a chip reports its partner's id as of the link coming up.
pub fn configure_and_plug(f: &mut Fabric) {
    for (i, d) in f.enumerate_all(1_000).iter().enumerate() {
        assert_eq!(d.bar(0).map(|b| b.base), Some(BAR0_BASE), "node {i}: BAR0");
        assert_eq!(d.bar(2).map(|b| b.base), Some(BAR2_BASE), "node {i}: BAR2");
        assert_eq!(
            d.bar(2).map(|b| b.size),
            Some(peach2_regmap::address::GLOBAL_SIZE),
            "node {i}: BAR2 size"
        );
    }
    for (n, id) in NODE_IDS.iter().enumerate().take(f.nodes.len()) {
        f.program_node(n, *id, host_base(n), gpu0_base(n));
    }
    f.plug_all();
}

/// Polls `PORT_STATUS` of `ports` through MMIO until all report READY; returns the last
/// statuses read.
pub fn wait_ready(f: &mut Fabric, ports: &[(usize, Port)], limit: u64) -> Vec<PortStatus> {
    let start = f.cycle;
    loop {
        let st: Vec<PortStatus> = ports.iter().map(|&(n, p)| f.port_status(n, p)).collect();
        if st.iter().all(|s| s.ready) {
            return st;
        }
        assert!(
            f.cycle - start < limit,
            "ports not ready after {limit} cycles: {:?}",
            ports.iter().zip(&st).collect::<Vec<_>>()
        );
    }
}

/// [`ring3`], configured, plugged and up.
pub fn ring3_up() -> Fabric {
    let mut f = ring3();
    configure_and_plug(&mut f);
    wait_ready(&mut f, &RING3_PORTS, 2_000);
    f
}

/// Sets `ROUTE` entries: (node, destination node, output port), then reads a register
/// back on each node, as a driver does: a posted CSR write takes effect when the chip's
/// completer executes it, and TLPs behind it may be routed before that.
pub fn set_routes(f: &mut Fabric, routes: &[(usize, usize, Port)]) {
    for &(n, dest, p) in routes {
        f.set_route(n, NODE_IDS[dest], Some(p));
    }
    for (n, id) in NODE_IDS.iter().enumerate() {
        if routes.iter().any(|r| r.0 == n) {
            assert_eq!(f.csr_read(n, NODE_ID, 1), [u32::from(*id)]);
        }
    }
}

/// Two chips cabled into a ring of two (A.E-B.W, B.E-A.W) with cables that never stall,
/// hosts always ready, up and routed (A to B over A.E, B to A over B.E).
pub fn pair_up() -> Fabric {
    let mut f = Fabric::new(&[false, false], EP_TIMEOUT, CFG_TIMEOUT, 1.0);
    f.connect(end(A, E), end(B, W), 10, 64);
    f.connect(end(B, E), end(A, W), 10, 64);
    configure_and_plug(&mut f);
    wait_ready(&mut f, &[(A, E), (A, W), (B, E), (B, W)], 2_000);
    set_routes(&mut f, &[(A, B, E), (B, A, E)]);
    f
}
