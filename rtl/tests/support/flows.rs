//! PIO write flows: a host writes a series of buffers through BAR2 to one target of one
//! node, then a notification word; the receiving host must see every write exactly once,
//! in order, at the translated local address, with the header format the address needs.

use super::fabric::Fabric;
use super::scenario::{gpu0_base, host_base, NODE_IDS};
use super::status::Traffic;
use pcie_model::tlp::Tlp;
use peach2_regmap::address::{GlobalAddr, Target};
use peach2_regmap::csr::Port;
use peach2_rtl::harness::Lcg;

/// Bytes of target window each flow owns.
pub const REGION: u64 = 0x10_0000;
/// Offset of the notification word inside a flow's region (its own page).
const NOTIFY_OFFSET: u64 = REGION - 0x1000;

/// Who writes where, and the ring ports the writes must leave through on the way.
#[derive(Clone, Copy, Debug)]
pub struct FlowSpec {
    /// For messages.
    pub name: &'static str,
    /// Sending node.
    pub src: usize,
    /// Receiving node.
    pub dst: usize,
    /// Target inside the receiving node.
    pub target: Target,
    /// (node, ring port) the flow's TLPs leave through, in order.
    pub hops: &'static [(usize, Port)],
}

impl FlowSpec {
    /// `name`: `src` writes to `target` of `dst`, leaving through `hops`.
    pub fn new(
        name: &'static str,
        (src, dst, target): (usize, usize, Target),
        hops: &'static [(usize, Port)],
    ) -> Self {
        Self {
            name,
            src,
            dst,
            target,
            hops,
        }
    }
}

/// One flow of PIO writes.
#[derive(Debug)]
pub struct Flow {
    /// For messages.
    pub name: &'static str,
    /// Sending node.
    pub src: usize,
    /// Receiving node.
    pub dst: usize,
    /// Target inside the receiving node.
    pub target: Target,
    /// Ring ports on the way.
    pub hops: &'static [(usize, Port)],
    /// Offset of the flow's region in the target window.
    pub region: u64,
    /// (offset in the target window, bytes), notification last.
    pub writes: Vec<(u64, Vec<u8>)>,
    /// The TLPs the sender issued, in order.
    pub sent: Vec<Tlp>,
}

/// The sizes a flow writes: (byte skew inside the first DW, bytes), 1 to 64 DW and some
/// byte-granular ones.
pub const MIXED_SIZES: [(u64, usize); 14] = [
    (0, 4),
    (0, 8),
    (1, 2),
    (0, 12),
    (0, 64),
    (3, 6),
    (0, 256),
    (0, 20),
    (2, 29),
    (0, 128),
    (0, 4),
    (0, 252),
    (0, 44),
    (1, 255),
];

impl Flow {
    /// A flow from `src` to `target` of `dst`, in region `index` of the window: the writes
    /// of `sizes` laid out one after another (a gap DW between them, none crossing 4 KiB),
    /// then a 4-byte notification.
    pub fn new(spec: FlowSpec, index: u64, sizes: &[(u64, usize)], rng: &mut Lcg) -> Self {
        let name = spec.name;
        let region = index * REGION;
        let mut cursor = region;
        let mut writes = Vec::new();
        for &(skew, len) in sizes {
            let mut addr = cursor + skew;
            if addr % 4096 + len as u64 > 4096 {
                addr = (addr | 0xFFF) + 1 + skew;
            }
            let data = (0..len).map(|_| rng.next_u64() as u8).collect();
            writes.push((addr, data));
            cursor = (addr + len as u64).div_ceil(4) * 4 + 4;
            assert!(
                cursor < region + NOTIFY_OFFSET,
                "flow {name} overflows its region"
            );
        }
        let marker = 0xC0DE_0000 | (index as u32) << 8 | writes.len() as u32;
        writes.push((region + NOTIFY_OFFSET, marker.to_le_bytes().to_vec()));
        Self {
            name,
            src: spec.src,
            dst: spec.dst,
            target: spec.target,
            hops: spec.hops,
            region,
            writes,
            sent: Vec::new(),
        }
    }

    /// Global address of `offset` in this flow's target.
    pub fn global(&self, offset: u64) -> GlobalAddr {
        GlobalAddr::new(NODE_IDS[self.dst], self.target, offset).expect("valid global address")
    }

    /// Local address at the destination of `offset` in this flow's target.
    pub fn local(&self, offset: u64) -> u64 {
        let base = match self.target {
            Target::Host => host_base(self.dst),
            Target::Gpu(0) => gpu0_base(self.dst),
            t => panic!("flows go to host or GPU 0, not {t:?}"),
        };
        base + offset
    }

    fn owns(&self, local: u64) -> bool {
        (self.local(self.region)..self.local(self.region + REGION)).contains(&local)
    }
}

/// Every sender issues its flows' writes, round robin over its flows.
pub fn issue(f: &mut Fabric, flows: &mut [Flow]) {
    let most = flows.iter().map(|fl| fl.writes.len()).max().unwrap_or(0);
    for i in 0..most {
        for fl in flows.iter_mut() {
            if let Some((offset, data)) = fl.writes.get(i) {
                let tlp = f.pio_write(fl.src, fl.global(*offset), data);
                fl.sent.push(tlp);
            }
        }
    }
}

/// Checks what every host received against `flows`: each write exactly once, in order
/// per flow, at its translated address, 3-DW header below 4 GiB and 4-DW above, payload,
/// byte enables, requester id and tag unchanged; the bytes in the destination's memory;
/// no stray writes and nothing unexpected at any host.
pub fn check_delivery(f: &Fabric, flows: &[Flow]) {
    for (n, node) in f.nodes.iter().enumerate() {
        assert!(
            node.host.unexpected.is_empty(),
            "node {n}: {:?}",
            node.host.unexpected
        );
        let mut next = vec![0usize; flows.len()];
        for a in &node.host.writes {
            let addr = a.tlp.address().expect("a write has an address").0;
            let k = flows
                .iter()
                .position(|fl| fl.dst == n && fl.owns(addr))
                .unwrap_or_else(|| panic!("node {n}: stray write at {addr:#x}: {:?}", a.tlp));
            let fl = &flows[k];
            let i = next[k];
            let sent = fl.sent.get(i).unwrap_or_else(|| {
                panic!("flow {}: write {i} at {addr:#x} is one too many", fl.name)
            });
            let (offset, _) = fl.writes[i];
            let want = fl.local(offset & !3);
            let what = format!("flow {} write {i} at node {n}", fl.name);
            assert_eq!(
                addr, want,
                "{what}: address (out of order or mistranslated)"
            );
            let hdr = if want < 1 << 32 { 3 } else { 4 };
            assert_eq!(a.tlp.header_len_dw(), hdr, "{what}: header format");
            assert_eq!(a.tlp.data(), sent.data(), "{what}: payload");
            assert_eq!(a.tlp.first_be(), sent.first_be(), "{what}: first BE");
            assert_eq!(a.tlp.last_be(), sent.last_be(), "{what}: last BE");
            assert_eq!(
                a.tlp.requester_id(),
                sent.requester_id(),
                "{what}: requester id"
            );
            assert_eq!(a.tlp.tag(), sent.tag(), "{what}: tag");
            next[k] += 1;
        }
        for (k, fl) in flows.iter().enumerate().filter(|(_, fl)| fl.dst == n) {
            assert_eq!(next[k], fl.writes.len(), "flow {}: writes missing", fl.name);
            for (offset, data) in &fl.writes {
                let got = node.host.landed.read_vec(fl.local(*offset), data.len());
                assert_eq!(
                    got.expect("inside the address space"),
                    *data,
                    "flow {}: bytes at {offset:#x}",
                    fl.name
                );
            }
        }
    }
}

/// Per node and port, the pin counts now (to compare before and after a run).
pub fn snapshot(f: &Fabric) -> Vec<[Traffic; 4]> {
    f.nodes.iter().map(|n| n.traffic).collect()
}

/// Checks that between `before` and now, every ring port sent exactly the TLPs of the
/// flows whose hops include it (so the routes took the ports they should).
pub fn check_ports_used(f: &Fabric, before: &[[Traffic; 4]], flows: &[Flow]) {
    for (n, node) in f.nodes.iter().enumerate() {
        for port in [Port::E, Port::W, Port::S] {
            let p = port.index() as usize;
            let want: usize = flows
                .iter()
                .filter(|fl| fl.hops.contains(&(n, port)))
                .map(|fl| fl.sent.len())
                .sum();
            let got = node.traffic[p].tlps_out - before[n][p].tlps_out;
            assert_eq!(got, want as u64, "node {n} port {port:?}: TLPs sent");
        }
    }
}
