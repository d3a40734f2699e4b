//! The routing decision for one TLP, made from its header at the ingress port.
//!
//! Combinational: the port's RX stage presents the four header lanes of a `sop` beat and
//! registers the answer. The rules (addresses as in `peach2_regmap::address`):
//!
//! | TLP                               | decision                                               |
//! |-----------------------------------|--------------------------------------------------------|
//! | config request                    | the port's link controller                             |
//! | completion, port in RC role       | the port's link controller (bring-up answers)          |
//! | completion at N                   | internal (the chip's own requests)                     |
//! | completion at an EP ring port     | drop (the chip never reads across the ring)            |
//! | message                           | drop                                                   |
//! | memory request to BAR0 (N only)   | internal: CSRs                                         |
//! | memory write, global              | as `crate::route_lookup` decides (the lookup the DMA uses too) |
//! | non-posted request not served     | internal, marked `unsupported`: answered with UR       |
//! | posted write not served           | drop                                                   |
//! | reserved fmt/type                 | malformed: drop and count                              |
//! | memory request, byte enables PCIe forbids | malformed: drop and count                      |
//!
//! An address is global when it is a 4-DW request whose bits 63:40 are the global base;
//! at N, an address in BAR2 is global too (the RX stage rewrites its bits 63:40).
//! RDMA Write only: reads and atomics are served only by the CSRs.
//!
//! Stages: [`TlpTypeDecode`] tells the TLP's class from fmt and type, [`ByteEnableCheck`]
//! a memory request's byte enables against PCIe's rules, [`RouteLookup`] a global write's
//! way; both stages are tested against `pcie_model` exhaustively, and the property tests
//! hold the whole decision to the table above.

pub mod byte_enables;
pub mod tlp_type;

use crate::route_lookup::RouteLookup;
use byte_enables::ByteEnableCheck;
use peach2_regmap::address::{BASE_SHIFT, GLOBAL_BASE_HI, MAX_NODES};
use rust_hdl::prelude::*;
use tlp_type::TlpTypeDecode;

// The widths below: the node field is 6 bits (64 nodes, 3 `ROUTE` bits each), and the
// global space's base is address bits 63:42 (bits 31:10 of the upper DW).
const _: () = assert!(MAX_NODES == 64 && BASE_SHIFT == 42);

/// What the port does with a TLP.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum RouteAction {
    /// Send through the crossbar to `dest`.
    Forward,
    /// Hand to the port's link controller.
    Link,
    /// Drop (counted as a drop).
    Drop,
    /// Drop as malformed (counted as an error).
    Malformed,
}

/// Where the chip sends global writes: its node id, its `ROUTE` table and which ports
/// are up. The same for every port and the DMA; the chip top drives it from the CSRs
/// and the link controllers.
#[derive(LogicInterface, Default)]
pub struct RouteConfig {
    /// This node's id.
    pub node_id: Signal<In, Bits<6>>,
    /// Routing table, `ROUTE[0..63]` in three planes of one bit per node (see
    /// [`RouteConfig::PORT_LO`]); [`route_entry`] reads it and [`route_table`] makes one.
    pub route_table: Signal<In, Bits<192>>,
    /// Per-port link ready (bit p for port p).
    pub port_ready: Signal<In, Bits<4>>,
}

impl RouteConfig {
    /// Bit n of `route_table` is bit 0 of the port node n is reached by.
    pub const PORT_LO: usize = 0;
    /// Bit 64 + n: bit 1 of that port.
    pub const PORT_HI: usize = 64;
    /// Bit 128 + n: `ROUTE[n]` is valid. Planes, not 3-bit entries side by side, so that a
    /// lookup takes a node's bits by shifting a plane: one operation per plane in a
    /// simulator, where a loop over the entries is 64 every cycle, in every lookup.
    pub const VALID: usize = 128;
    /// The planes in the order of an entry's bits (bit 0, bit 1 of the port; valid).
    const PLANES: [usize; 3] = [Self::PORT_LO, Self::PORT_HI, Self::VALID];
}

/// Entry `n` of a `route_table`: bit 2 valid, bits 1:0 the port.
pub fn route_entry(table: &Bits<192>, n: usize) -> u64 {
    RouteConfig::PLANES
        .iter()
        .enumerate()
        .map(|(i, plane)| u64::from(table.get_bit(plane + n)) << i)
        .sum()
}

/// A `route_table` with the given `(node, entry)` pairs (bit 2 valid, bits 1:0 the port)
/// and every other entry invalid.
pub fn route_table(entries: impl IntoIterator<Item = (usize, u64)>) -> Bits<192> {
    let mut table = Bits::<192>::default();
    for (n, entry) in entries {
        for (i, plane) in RouteConfig::PLANES.iter().enumerate() {
            table = table.replace_bit(plane + n, entry >> i & 1 == 1);
        }
    }
    table
}

/// What an ingress port is: its index, its role, and (at N) its BAR decoding.
#[derive(LogicInterface, Default)]
pub struct PortConfig {
    /// This port's index (0..3 = N, E, W, S).
    pub port_index: Signal<In, Bits<2>>,
    /// This port plays the root-complex role.
    pub role_rc: Signal<In, Bit>,
    /// BAR0 decode enabled (N with memory space on).
    pub bar0_enable: Signal<In, Bit>,
    /// BAR0 base, address bits 31:16.
    pub bar0_base: Signal<In, Bits<16>>,
    /// BAR2 decode enabled (N with memory space on).
    pub bar2_enable: Signal<In, Bit>,
    /// BAR2 base, address bits 63:42.
    pub bar2_base_hi: Signal<In, Bits<22>>,
}

/// Routing decision for one TLP header (combinational).
#[derive(LogicBlock)]
pub struct Router {
    /// Header DW0 of the `sop` beat (fmt, type, length).
    pub dw0: Signal<In, Bits<32>>,
    /// Header DW1 (requester, tag, byte enables).
    pub dw1: Signal<In, Bits<32>>,
    /// Header DW2 (address, or its high half for a 4-DW header).
    pub dw2: Signal<In, Bits<32>>,
    /// Header DW3 (low address half of a 4-DW header).
    pub dw3: Signal<In, Bits<32>>,
    /// What the port is.
    pub port: PortConfig,
    /// Where global writes go.
    pub routes: RouteConfig,
    /// What to do with the TLP.
    pub action: Signal<Out, RouteAction>,
    /// Crossbar destination when forwarding.
    pub dest: Signal<Out, Bits<3>>,
    /// Forwarded to internal to be answered with UR.
    pub unsupported: Signal<Out, Bit>,
    /// Replace address bits 63:40 with the global base (a BAR2 hit at N).
    pub rewrite_global: Signal<Out, Bit>,
    /// The fmt field (DW0 bits 31:29).
    fmt: Signal<Local, Bits<3>>,
    /// What the TLP is.
    kind: TlpTypeDecode,
    /// Address bits 63:32 (0 for a 3-DW header).
    addr_hi: Signal<Local, Bits<32>>,
    /// Address bits 31:0.
    addr_lo: Signal<Local, Bits<32>>,
    /// The port is N (index 0), the only one with BARs.
    is_n: Signal<Local, Bit>,
    /// At N with BAR0 enabled, a 32-bit address in BAR0 (bits 31:16 are its base).
    bar0_hit: Signal<Local, Bit>,
    /// At N with BAR2 enabled, a 4-DW request whose address bits 63:42 are BAR2's base.
    bar2_hit: Signal<Local, Bit>,
    /// The address is global: a BAR2 hit, or away from N, bits 63:42 are the global base.
    is_global: Signal<Local, Bit>,
    /// Whether a memory request's byte enables follow PCIe's rules.
    be: ByteEnableCheck,
    /// Where a global write goes.
    lookup: RouteLookup,
    /// The global space's base (address bits 63:42), to tell a global address away from N.
    global_base_hi: Constant<Bits<22>>,
}

impl Default for Router {
    fn default() -> Self {
        Self {
            dw0: Default::default(),
            dw1: Default::default(),
            dw2: Default::default(),
            dw3: Default::default(),
            port: Default::default(),
            routes: Default::default(),
            action: Default::default(),
            dest: Default::default(),
            unsupported: Default::default(),
            rewrite_global: Default::default(),
            fmt: Default::default(),
            kind: Default::default(),
            addr_hi: Default::default(),
            addr_lo: Default::default(),
            is_n: Default::default(),
            bar0_hit: Default::default(),
            bar2_hit: Default::default(),
            is_global: Default::default(),
            be: Default::default(),
            lookup: Default::default(),
            global_base_hi: Constant::new(GLOBAL_BASE_HI.into()),
        }
    }
}

impl Logic for Router {
    #[hdl_gen]
    fn update(&mut self) {
        self.fmt.next = self.dw0.val().get_bits::<3>(29);
        self.kind.fmt.next = self.fmt.val();
        self.kind.typ.next = self.dw0.val().get_bits::<5>(24);

        self.addr_hi.next = 0.into();
        self.addr_lo.next = self.dw2.val();
        if self.fmt.val().get_bit(0) {
            self.addr_hi.next = self.dw2.val();
            self.addr_lo.next = self.dw3.val();
        }
        self.be.length.next = self.dw0.val().get_bits::<10>(0);
        self.be.first_be.next = self.dw1.val().get_bits::<4>(0);
        self.be.last_be.next = self.dw1.val().get_bits::<4>(4);
        self.be.upper_dw.next = self.addr_lo.val().get_bit(2);

        self.is_n.next = self.port.port_index.val() == 0;
        self.bar0_hit.next = self.is_n.val()
            && self.port.bar0_enable.val()
            && (self.addr_hi.val() == 0)
            && (self.addr_lo.val().get_bits::<16>(16) == self.port.bar0_base.val());
        self.bar2_hit.next = self.is_n.val()
            && self.port.bar2_enable.val()
            && self.fmt.val().get_bit(0)
            && (self.addr_hi.val().get_bits::<22>(10) == self.port.bar2_base_hi.val());
        self.is_global.next = self.bar2_hit.val()
            || (!self.is_n.val()
                && self.fmt.val().get_bit(0)
                && (self.addr_hi.val().get_bits::<22>(10) == self.global_base_hi.val()));
        self.lookup.addr_hi.next = self.addr_hi.val();
        RouteConfig::link(&mut self.routes, &mut self.lookup.routes);
        self.lookup.ingress.next = bit_cast::<3, 2>(self.port.port_index.val());
        self.lookup.internal_ok.next = true;

        // Defaults: not served.
        self.action.next = RouteAction::Drop;
        self.dest.next = 4.into();
        self.unsupported.next = false;
        if self.kind.non_posted.val() {
            self.action.next = RouteAction::Forward;
            self.unsupported.next = true;
        }

        if self.kind.is_cfg.val() {
            self.action.next = RouteAction::Link;
            self.unsupported.next = false;
        } else if self.kind.is_cpl.val() {
            self.unsupported.next = false;
            if self.port.role_rc.val() {
                self.action.next = RouteAction::Link;
            } else if self.is_n.val() {
                self.action.next = RouteAction::Forward;
            } else {
                self.action.next = RouteAction::Drop;
            }
        } else if self.kind.is_msg.val() {
            self.action.next = RouteAction::Drop;
        } else if self.kind.is_mem.val() && !self.be.ok.val() {
            self.action.next = RouteAction::Malformed;
            self.unsupported.next = false;
        } else if self.kind.is_mem.val() || self.kind.is_atomic.val() {
            if self.bar0_hit.val() {
                self.action.next = RouteAction::Forward;
                self.unsupported.next = self.kind.is_atomic.val();
            } else if self.is_global.val() && !self.kind.non_posted.val() && self.lookup.ok.val() {
                self.action.next = RouteAction::Forward;
                self.dest.next = self.lookup.dest.val();
            }
        } else if !self.kind.is_io.val() {
            self.action.next = RouteAction::Malformed;
            self.unsupported.next = false;
        }
        // Only a TLP that leaves through a port carries the rewritten address.
        self.rewrite_global.next = self.bar2_hit.val()
            && (self.action.val() == RouteAction::Forward)
            && !self.unsupported.val();
    }
}
