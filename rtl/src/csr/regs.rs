//! The BAR0 register file: configuration registers, and the read mux over them and over
//! the status the rest of the chip reports. The routing table (`super::route_regs`) and
//! the translated targets (`super::target_regs`) are groups of their own on the bus inside
//! it. Every offset is a constant made from the map in `peach2_regmap::csr` (a DW index:
//! byte offset / 4); the tests check the block against that map.

use super::bus::{dw_index as at, CsrBus, CsrSplit, CsrTarget, ADDR_BITS};
use super::counters::PORT_COUNTERS;
use super::route_regs::RouteRegs;
use super::target_regs::{TargetRegs, TARGETS};
use peach2_regmap::csr::{
    port_reg, Port, CPL_UNEXPECTED, ID, NODE_ID, PORT_BYTES_IN, PORT_CONFIG, PORT_STATUS,
    PORT_UR_SENT, SCRATCH, VERSION,
};
use rust_hdl::prelude::*;

// The seven counters of a port follow `PORT_STATUS` in order up to `PORT_UR_SENT`.
const _: () = assert!(PORT_BYTES_IN == PORT_STATUS + 8 && PORT_UR_SENT == PORT_STATUS + 28);

/// Counters of all four ports.
const COUNTERS: usize = 4 * PORT_COUNTERS;
// The read mux indexes a port's counters with the literal 7.
const _: () = assert!(PORT_COUNTERS == 7);

/// The CSR register file.
#[derive(LogicBlock)]
pub struct CsrRegs {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: registers to their reset values.
    pub reset: Signal<In, Bit>,
    /// BAR0 accesses.
    pub csr: CsrTarget,
    /// `NODE_ID`.
    pub node_id: Signal<Out, Bits<6>>,
    /// `ROUTE[0..63]` in `crate::router::RouteConfig`'s planes.
    pub route_table: Signal<Out, Bits<192>>,
    /// `TARGET_HI:TARGET_LO` per target.
    pub target_base: [Signal<Out, Bits<64>>; TARGETS],
    /// `TARGET_CTRL` enable bits, bit t for target t.
    pub target_enable: Signal<Out, Bits<5>>,
    /// `PORT_STATUS` per port.
    pub port_status: [Signal<In, Bits<32>>; 4],
    /// `PORT_CONFIG` per port.
    pub port_config: [Signal<In, Bits<32>>; 4],
    /// Counters per port, in register order `TLPS_IN` .. `UR_SENT` (7 each).
    pub port_counters: [Signal<In, Bits<32>>; COUNTERS],
    /// Pulse: a completion matched no outstanding request.
    pub cpl_unexpected: Signal<In, Bit>,
    /// `NODE_ID`.
    node: DFF<Bits<6>>,
    /// `SCRATCH`.
    scratch: DFF<Bits<32>>,
    /// The bus to the groups: the routing table and the targets.
    split: CsrSplit<2>,
    /// `ROUTE[0..63]`.
    routes: RouteRegs,
    /// `TARGET_*`.
    targets: TargetRegs,
    /// `CPL_UNEXPECTED`.
    unexpected: DFF<Bits<32>>,
    /// The read answer, from the address of the cycle before, in parts: the registers
    /// of each port, the others, and the groups'. One register after the whole mux over
    /// fifty-odd registers and the groups was the core's deepest path; the parts are ORed
    /// on the way out.
    rd_port: [DFF<Bits<32>>; 4],
    /// The answer among the other registers (`misc_answer`), registered.
    rd_misc: DFF<Bits<32>>,
    /// The groups' answer, registered.
    rd_groups: DFF<Bits<32>>,
    /// Per port: the answer to the address on the bus among its registers.
    port_answer: [Signal<Local, Bits<32>>; 4],
    /// The answer among the other registers.
    misc_answer: Signal<Local, Bits<32>>,
    /// `NODE_ID` after the write's enabled bytes.
    node_merged: Signal<Local, Bits<32>>,
    /// `ID`'s value, "PEC2": read-only.
    id_value: Constant<Bits<32>>,
    /// `VERSION`'s value (major in 31:16, minor in 15:0): read-only.
    version_value: Constant<Bits<32>>,
    /// The DW index of `ID`.
    at_id: Constant<Bits<ADDR_BITS>>,
    /// The DW index of `VERSION`.
    at_version: Constant<Bits<ADDR_BITS>>,
    /// The DW index of `NODE_ID`.
    at_node: Constant<Bits<ADDR_BITS>>,
    /// The DW index of `SCRATCH`.
    at_scratch: Constant<Bits<ADDR_BITS>>,
    /// The DW index of `CPL_UNEXPECTED`.
    at_unexpected: Constant<Bits<ADDR_BITS>>,
    /// Per port: the DW index of its `PORT_STATUS`.
    at_port_status: [Constant<Bits<ADDR_BITS>>; 4],
    /// Per port: the DW index of its `PORT_CONFIG`.
    at_port_config: [Constant<Bits<ADDR_BITS>>; 4],
    /// Per port p and counter k: at `7p + k`.
    at_port_counter: [Constant<Bits<ADDR_BITS>>; COUNTERS],
}

impl Default for CsrRegs {
    fn default() -> Self {
        use peach2_regmap::csr::{ID_VALUE, VERSION_VALUE};
        Self {
            clock: Default::default(),
            reset: Default::default(),
            csr: Default::default(),
            node_id: Default::default(),
            route_table: Default::default(),
            target_base: array_init::array_init(|_| Default::default()),
            target_enable: Default::default(),
            port_status: array_init::array_init(|_| Default::default()),
            port_config: array_init::array_init(|_| Default::default()),
            port_counters: array_init::array_init(|_| Default::default()),
            cpl_unexpected: Default::default(),
            node: Default::default(),
            scratch: Default::default(),
            split: Default::default(),
            routes: Default::default(),
            targets: Default::default(),
            unexpected: Default::default(),
            node_merged: Default::default(),
            rd_port: array_init::array_init(|_| Default::default()),
            rd_misc: Default::default(),
            rd_groups: Default::default(),
            port_answer: array_init::array_init(|_| Default::default()),
            misc_answer: Default::default(),
            id_value: Constant::new(u64::from(ID_VALUE).into()),
            version_value: Constant::new(u64::from(VERSION_VALUE).into()),
            at_id: at(ID),
            at_version: at(VERSION),
            at_node: at(NODE_ID),
            at_scratch: at(SCRATCH),
            at_unexpected: at(CPL_UNEXPECTED),
            at_port_status: array_init::array_init(|p| at(port_reg(Port::ALL[p], PORT_STATUS))),
            at_port_config: array_init::array_init(|p| at(port_reg(Port::ALL[p], PORT_CONFIG))),
            at_port_counter: array_init::array_init(|i| {
                let (p, k) = (i / PORT_COUNTERS, i % PORT_COUNTERS);
                at(port_reg(Port::ALL[p], PORT_STATUS + 4 + 4 * k as u32))
            }),
        }
    }
}

impl Logic for CsrRegs {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, node, scratch, unexpected, rd_misc, rd_groups);
        for p in 0..4 {
            self.rd_port[p].clock.next = self.clock.val();
        }
        self.routes.clock.next = self.clock.val();
        self.routes.reset.next = self.reset.val();
        self.targets.clock.next = self.clock.val();
        self.targets.reset.next = self.reset.val();
        self.split.from_completer.wr_en.next = self.csr.wr_en.val();
        self.split.from_completer.wr_addr.next = self.csr.wr_addr.val();
        self.split.from_completer.wr_data.next = self.csr.wr_data.val();
        self.split.from_completer.wr_be.next = self.csr.wr_be.val();
        self.split.from_completer.wr_mask.next = self.csr.wr_mask.val();
        self.split.from_completer.rd_addr.next = self.csr.rd_addr.val();
        CsrBus::join(&mut self.split.to_targets[0], &mut self.routes.csr);
        CsrBus::join(&mut self.split.to_targets[1], &mut self.targets.csr);
        for t in 0..TARGETS {
            self.target_base[t].next = self.targets.target_base[t].val();
        }
        self.node_id.next = self.node.q.val();
        self.route_table.next = self.routes.route_table.val();
        self.target_enable.next = self.targets.target_enable.val();

        self.node_merged.next = (bit_cast::<32, 6>(self.node.q.val()) & !self.csr.wr_mask.val())
            | (self.csr.wr_data.val() & self.csr.wr_mask.val());
        if self.csr.wr_en.val() {
            if self.csr.wr_addr.val() == self.at_node.val() {
                self.node.d.next = self.node_merged.val().get_bits::<6>(0);
            }
            if self.csr.wr_addr.val() == self.at_scratch.val() {
                self.scratch.d.next = (self.scratch.q.val() & !self.csr.wr_mask.val())
                    | (self.csr.wr_data.val() & self.csr.wr_mask.val());
            }
        }
        if self.cpl_unexpected.val() {
            self.unexpected.d.next = self.unexpected.q.val() + 1;
        }

        // The answer: an OR of the registers whose address matches (at most one, here or
        // in a group), not a chain of choices, so that synthesis can balance it;
        // registered, as the bus lets a target answer in the address's second cycle.
        self.misc_answer.next = 0.into();
        if self.csr.rd_addr.val() == self.at_id.val() {
            self.misc_answer.next = self.misc_answer.val() | self.id_value.val();
        }
        if self.csr.rd_addr.val() == self.at_version.val() {
            self.misc_answer.next = self.misc_answer.val() | self.version_value.val();
        }
        if self.csr.rd_addr.val() == self.at_node.val() {
            self.misc_answer.next = self.misc_answer.val() | bit_cast::<32, 6>(self.node.q.val());
        }
        if self.csr.rd_addr.val() == self.at_scratch.val() {
            self.misc_answer.next = self.misc_answer.val() | self.scratch.q.val();
        }
        if self.csr.rd_addr.val() == self.at_unexpected.val() {
            self.misc_answer.next = self.misc_answer.val() | self.unexpected.q.val();
        }
        self.rd_misc.d.next = self.misc_answer.val();
        self.rd_groups.d.next = self.split.from_completer.rd_data.val();
        self.csr.rd_data.next = self.rd_misc.q.val() | self.rd_groups.q.val();
        for p in 0..4 {
            self.port_answer[p].next = 0.into();
            if self.csr.rd_addr.val() == self.at_port_status[p].val() {
                self.port_answer[p].next = self.port_status[p].val();
            }
            if self.csr.rd_addr.val() == self.at_port_config[p].val() {
                self.port_answer[p].next = self.port_answer[p].val() | self.port_config[p].val();
            }
            // Index expressions take literals and loop variables only: 7 is
            // `PORT_COUNTERS` (asserted above).
            for k in 0..PORT_COUNTERS {
                if self.csr.rd_addr.val() == self.at_port_counter[7 * p + k].val() {
                    self.port_answer[p].next =
                        self.port_answer[p].val() | self.port_counters[7 * p + k].val();
                }
            }
            self.rd_port[p].d.next = self.port_answer[p].val();
            self.csr.rd_data.next = self.csr.rd_data.val() | self.rd_port[p].q.val();
        }

        if self.reset.val() {
            self.node.d.next = 0.into();
            self.scratch.d.next = 0.into();
            self.unexpected.d.next = 0.into();
        }
    }
}
