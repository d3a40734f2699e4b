//! Several PEACH2 cores, each with a host model on its N port, cabled together and
//! stepped one clock at a time.
//!
//! Per cycle: every port's inputs are driven (RX beat from the cable or host queue, TX
//! `ready` from queue room, `link_up`), each chip settles with the clock low, the
//! handshakes are sampled and the beats move, then each chip sees the rising edge. Each
//! chip is its own `Stepper`; nothing combinational crosses between chips.

use super::cable::{Cable, End};
use super::host::Host;
use super::pins::{beat_bytes, drive_rx, rx_ready, set_link_up, set_tx_ready, tx_beat};
use super::status::{PortStatus, Traffic};
use pcie_model::beats::Beat;
use pcie_model::requester::{RequestError, RequestOutcome};
use pcie_model::root_complex::enumeration::EnumeratedDevice;
use pcie_model::root_complex::{AddressRange, RootComplex, RootComplexConfig};
use pcie_model::tlp::{Addr, Bdf, Tag, Tlp};
use peach2_regmap::address::{GlobalAddr, Target, GLOBAL_BASE};
use peach2_regmap::csr::{
    port_reg, route, target_lo, Port, NODE_ID, PORT_STATUS, ROUTE_VALID, TARGET_ENABLE,
};
use peach2_rtl::chip::Peach2Core;
use peach2_rtl::harness::Stepper;
use peach2_rtl::rust_hdl::prelude::*;

pub use peach2_regmap::host::{BAR0_BASE, BAR2_BASE};
/// Bus/device/function of every chip's N port in its host's hierarchy.
pub const CHIP_BDF: Bdf = Bdf(peach2_regmap::host::CHIP_BDF);
/// Requester id of every host's root port.
pub const HOST_RID: Bdf = Bdf(peach2_regmap::host::HOST_RID);
/// Cycles an MMIO read may take before the test fails.
const MMIO_LIMIT: u64 = 400;
/// Idle cycles after which the fabric counts as quiet.
const QUIET_CYCLES: u64 = 32;

/// One node: its chip, the host on its N port, and what crossed each port's pins.
pub struct Node {
    /// The chip.
    pub chip: Stepper<Peach2Core>,
    /// The host on N.
    pub host: Host,
    /// Per port (index order N, E, W, S): TLPs and bytes seen at the pins.
    pub traffic: [Traffic; 4],
    rx_offer: [Option<Beat>; 4],
    tx_ready: [bool; 4],
}

/// The chips, hosts and cables.
pub struct Fabric {
    /// Nodes by index.
    pub nodes: Vec<Node>,
    /// Cables.
    pub cables: Vec<Cable>,
    /// Cycles since reset ended.
    pub cycle: u64,
    last_move: u64,
}

fn host_config() -> RootComplexConfig {
    RootComplexConfig {
        requester_id: HOST_RID,
        mmio32: AddressRange {
            base: BAR0_BASE,
            size: 1 << 20,
        },
        mmio64: AddressRange {
            base: BAR2_BASE,
            size: peach2_regmap::address::GLOBAL_SIZE,
        },
        ..RootComplexConfig::default()
    }
}

impl Fabric {
    /// One node per entry of `s_role_rc` (its S strap), chips with the given endpoint and
    /// config-completion timeouts, hosts whose N receivers are ready with probability
    /// `host_p_ready`. Chips come out of reset; nothing is cabled.
    pub fn new(s_role_rc: &[bool], ep_timeout: u32, cfg_timeout: u32, host_p_ready: f64) -> Self {
        let nodes = s_role_rc
            .iter()
            .enumerate()
            .map(|(i, &rc)| {
                let mut chip =
                    Stepper::new(Peach2Core::with_timeouts(ep_timeout, cfg_timeout), |c| {
                        &mut c.clk
                    });
                chip.uut.s_role_rc.next = rc;
                Node {
                    chip,
                    host: Host::new(
                        RootComplex::new(host_config()).expect("valid host config"),
                        host_p_ready,
                        0x5eed + i as u64,
                    ),
                    traffic: Default::default(),
                    rx_offer: [None; 4],
                    tx_ready: [false; 4],
                }
            })
            .collect();
        let mut f = Self {
            nodes,
            cables: Vec::new(),
            cycle: 0,
            last_move: 0,
        };
        for n in &mut f.nodes {
            n.chip.uut.rst.next = true;
        }
        f.step();
        f.step();
        for n in &mut f.nodes {
            n.chip.uut.rst.next = false;
            n.traffic = Default::default();
        }
        f.cycle = 0;
        f
    }

    /// Cables `a` to `b` (unplugged) with `latency` cycles and room for `capacity` beats
    /// per direction; returns the cable's index.
    pub fn connect(&mut self, a: End, b: End, latency: u64, capacity: usize) -> usize {
        for e in [a, b] {
            assert!(e.port != Port::N, "N belongs to the host");
            assert!(self.attachment(e).is_none(), "{e:?} is cabled already");
        }
        self.cables.push(Cable::new(a, b, latency, capacity));
        self.cables.len() - 1
    }

    /// Plugs every cable: both ends see their link up from the next cycle.
    pub fn plug_all(&mut self) {
        for c in &mut self.cables {
            c.plugged = true;
        }
    }

    fn attachment(&self, end: End) -> Option<(usize, usize)> {
        self.cables
            .iter()
            .enumerate()
            .find_map(|(i, c)| c.side_of(end).map(|s| (i, s)))
    }

    /// One clock cycle of the whole fabric.
    pub fn step(&mut self) {
        let now = self.cycle;
        for n in 0..self.nodes.len() {
            for port in Port::ALL {
                let p = port.index() as usize;
                let (offer, ready, up) = if port == Port::N {
                    let h = &mut self.nodes[n].host;
                    (h.rx_head(), h.decide_ready(), true)
                } else {
                    match self.attachment(End { node: n, port }) {
                        Some((c, side)) if self.cables[c].plugged => {
                            let cable = &self.cables[c];
                            (
                                cable.lanes[1 - side].head(now),
                                cable.lanes[side].has_room(),
                                true,
                            )
                        }
                        _ => (None, false, false),
                    }
                };
                let node = &mut self.nodes[n];
                node.rx_offer[p] = offer;
                node.tx_ready[p] = ready;
                drive_rx(&mut node.chip.uut, port, offer);
                set_tx_ready(&mut node.chip.uut, port, ready);
                set_link_up(&mut node.chip.uut, port, up);
            }
            let chip = &mut self.nodes[n].chip;
            chip.uut.clk.next = Clock { clk: false };
            chip.settle();
        }
        for n in 0..self.nodes.len() {
            for port in Port::ALL {
                let p = port.index() as usize;
                let node = &self.nodes[n];
                let taken = node.rx_offer[p].filter(|_| rx_ready(&node.chip.uut, port));
                let sent = tx_beat(&node.chip.uut, port).filter(|_| node.tx_ready[p]);
                if let Some(b) = taken {
                    self.count_in(n, p, &b);
                    if port == Port::N {
                        self.nodes[n].host.rx_taken();
                    } else {
                        let (c, side) = self.attachment(End { node: n, port }).expect("cabled");
                        self.cables[c].lanes[1 - side].pop();
                    }
                }
                if let Some(b) = sent {
                    self.count_out(n, p, &b);
                    if port == Port::N {
                        self.nodes[n].host.tx_taken(now, b);
                    } else {
                        let (c, side) = self.attachment(End { node: n, port }).expect("cabled");
                        self.cables[c].lanes[side].push(now, b);
                    }
                }
            }
        }
        for node in &mut self.nodes {
            node.chip.uut.clk.next = Clock { clk: true };
            node.chip.settle();
        }
        self.cycle += 1;
        for node in &mut self.nodes {
            node.host.step(self.cycle);
        }
    }

    /// What is queued where, for failure messages.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        for (i, n) in self.nodes.iter().enumerate() {
            s += &format!(
                "node {i}: host {} beats to send, {} TLPs sent, {} writes and {} completions \
                 received, unexpected {:?}; pins {:?}\n",
                n.host.pending_beats(),
                n.host.sent.len(),
                n.host.writes.len(),
                n.host.completions.len(),
                n.host.unexpected,
                n.traffic
            );
        }
        for c in &self.cables {
            s += &format!(
                "cable {:?}-{:?}: {} and {} beats in flight\n",
                c.ends[0],
                c.ends[1],
                c.lanes[0].len(),
                c.lanes[1].len()
            );
        }
        s
    }

    fn count_in(&mut self, n: usize, p: usize, b: &Beat) {
        let t = &mut self.nodes[n].traffic[p];
        t.tlps_in += u64::from(b.sop);
        t.bytes_in += beat_bytes(b);
        self.last_move = self.cycle;
    }

    fn count_out(&mut self, n: usize, p: usize, b: &Beat) {
        let t = &mut self.nodes[n].traffic[p];
        t.tlps_out += u64::from(b.sop);
        t.bytes_out += beat_bytes(b);
        self.last_move = self.cycle;
    }

    /// Steps until `done` holds; fails the test after `limit` cycles. Returns the cycles run.
    pub fn run_until(
        &mut self,
        limit: u64,
        what: &str,
        mut done: impl FnMut(&mut Fabric) -> bool,
    ) -> u64 {
        let start = self.cycle;
        while !done(self) {
            assert!(
                self.cycle - start < limit,
                "{what}: not done within {limit} cycles (at cycle {})\n{}",
                self.cycle,
                self.describe()
            );
            self.step();
        }
        self.cycle - start
    }

    /// Steps until every host is idle, every cable is empty and no beat has moved for a
    /// while.
    pub fn run_until_quiet(&mut self, limit: u64, what: &str) -> u64 {
        self.run_until(limit, what, |f| {
            f.nodes.iter().all(|n| n.host.is_idle())
                && f.cables
                    .iter()
                    .all(|c| c.lanes.iter().all(|l| l.len() == 0))
                && f.cycle - f.last_move >= QUIET_CYCLES
        })
    }

    /// Every host enumerates its chip's N port (all at once); returns what they found.
    pub fn enumerate_all(&mut self, limit: u64) -> Vec<EnumeratedDevice> {
        for n in &mut self.nodes {
            n.host
                .rc
                .start_enumeration(CHIP_BDF)
                .expect("no enumeration running");
            n.host.pump();
        }
        self.run_until(limit, "enumeration", |f| {
            f.nodes
                .iter()
                .all(|n| n.host.rc.enumeration_result().is_some())
        });
        self.nodes
            .iter()
            .enumerate()
            .map(|(i, n)| match n.host.rc.enumeration_result() {
                Some(Ok(d)) => d.clone(),
                other => panic!("node {i}: enumeration failed: {other:?}"),
            })
            .collect()
    }

    /// Posted MMIO write of `values` (consecutive registers) at BAR0 offset `offset`.
    pub fn csr_write(&mut self, node: usize, offset: u32, values: &[u32]) {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let h = &mut self.nodes[node].host;
        h.rc.mmio_write(BAR0_BASE + u64::from(offset), &bytes)
            .expect("MMIO write issued");
        h.pump();
    }

    /// MMIO read of `len` bytes at `addr`; waits for the answer.
    pub fn mmio_read(
        &mut self,
        node: usize,
        addr: u64,
        len: usize,
    ) -> Result<RequestOutcome, RequestError> {
        let h = &mut self.nodes[node].host;
        let handle = h.rc.mmio_read(addr, len).expect("MMIO read issued");
        h.pump();
        let mut result = None;
        self.run_until(MMIO_LIMIT, "MMIO read", |f| {
            result = f.nodes[node].host.rc.take_result(handle);
            result.is_some()
        });
        result.expect("loop ends with a result")
    }

    /// MMIO read of `count` consecutive registers from BAR0 offset `offset`.
    pub fn csr_read(&mut self, node: usize, offset: u32, count: usize) -> Vec<u32> {
        match self.mmio_read(node, BAR0_BASE + u64::from(offset), 4 * count) {
            Ok(RequestOutcome::Read(bytes)) if bytes.len() == 4 * count => bytes
                .chunks(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
            other => panic!("node {node}: CSR read of {count} at {offset:#x}: {other:?}"),
        }
    }

    /// `PORT_STATUS` of `port` of `node`, read through MMIO.
    pub fn port_status(&mut self, node: usize, port: Port) -> PortStatus {
        PortStatus::decode(self.csr_read(node, port_reg(port, PORT_STATUS), 1)[0])
    }

    /// What a driver does after enumeration: node id and the host and GPU 0 windows.
    pub fn program_node(&mut self, node: usize, node_id: u8, host_base: u64, gpu0_base: u64) {
        self.csr_write(node, NODE_ID, &[u32::from(node_id)]);
        for (t, base) in [(Target::Host, host_base), (Target::Gpu(0), gpu0_base)] {
            let code = t.code() as u32;
            self.csr_write(
                node,
                target_lo(code),
                &[base as u32, (base >> 32) as u32, TARGET_ENABLE],
            );
        }
    }

    /// Sets `ROUTE[dest]` of `node` to `port` (`None`: invalid).
    pub fn set_route(&mut self, node: usize, dest: u8, port: Option<Port>) {
        let v = port.map_or(0, |p| ROUTE_VALID | p.index());
        self.csr_write(node, route(u32::from(dest)), &[v]);
    }

    /// The address a host uses to reach global address `g` through its BAR2.
    pub fn pio_address(g: GlobalAddr) -> u64 {
        BAR2_BASE + (g.to_u64() - GLOBAL_BASE)
    }

    /// The host of `node` writes `data` to global address `g` through BAR2 (one MWr).
    pub fn pio_write(&mut self, node: usize, g: GlobalAddr, data: &[u8]) -> Tlp {
        let tlp = Tlp::mem_write(HOST_RID, Tag(0), Addr(Self::pio_address(g)), data)
            .expect("a valid PIO write");
        self.nodes[node].host.send(tlp.clone());
        tlp
    }
}
