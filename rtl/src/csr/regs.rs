//! The BAR0 register file: configuration registers, and the read mux over them and over
//! the status the rest of the chip reports. Every offset is a constant made from the map in
//! `peach2_regmap::csr` (a DW index: byte offset / 4); the tests check the block against
//! that map.

use super::bus::{dw_index as at, CsrTarget, ADDR_BITS};
use super::counters::PORT_COUNTERS;
use peach2_regmap::address::MAX_NODES;
use peach2_regmap::csr::{
    port_reg, route, target_ctrl, target_hi, target_lo, Port, CPL_UNEXPECTED, ID, NODE_ID,
    PORT_BYTES_IN, PORT_CONFIG, PORT_STATUS, PORT_UR_SENT, ROUTE_VALID, SCRATCH, TARGET_ENABLE,
    VERSION,
};
use rust_hdl::prelude::*;

// The field picks below: `ROUTE`'s valid bit 31 and port bits 1:0, `TARGET_CTRL`'s enable
// bit 0; the seven counters of a port follow `PORT_STATUS` in order up to `PORT_UR_SENT`.
const _: () = assert!(ROUTE_VALID == 1 << 31 && TARGET_ENABLE == 1);
const _: () = assert!(PORT_BYTES_IN == PORT_STATUS + 8 && PORT_UR_SENT == PORT_STATUS + 28);

/// Routing table entries (`ROUTE[0..63]`).
const NODES: usize = MAX_NODES;
// `ROUTE[n]` is DW index 0x40 + n: address bits 13:6 say an access is to the table (the
// literal 1 below) and bits 5:0 which entry; `NODE_ID` is 6 bits.
const _: () = assert!(route(0) / 4 == 1 << 6 && NODES == 64);
/// Counters of all four ports.
const COUNTERS: usize = 4 * PORT_COUNTERS;

/// Number of translated targets (host, GPU 0..3).
pub const TARGETS: usize = 5;

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
    /// `ROUTE[0..63]` packed: entry n in bits 3n+2..3n (valid, port).
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
    /// `ROUTE[0..63]`, packed as `route_table`.
    route: DFF<Bits<192>>,
    /// `TARGET_HI:TARGET_LO` per target.
    target: [DFF<Bits<64>>; TARGETS],
    /// `TARGET_CTRL` enable bits.
    target_ctrl: DFF<Bits<5>>,
    /// `CPL_UNEXPECTED`.
    unexpected: DFF<Bits<32>>,
    /// The read answer, from the address of the cycle before.
    rd_q: DFF<Bits<32>>,
    /// The answer to the address on the bus.
    answer: Signal<Local, Bits<32>>,
    /// `NODE_ID` after the write's enabled bytes.
    node_merged: Signal<Local, Bits<32>>,
    /// `route` after this cycle's write.
    route_next: Signal<Local, Bits<192>>,
    /// The write is to a `ROUTE` register.
    wr_route_hit: Signal<Local, Bit>,
    /// The write's enabled bytes, as the low half of a 64-bit register.
    wmask_lo: Signal<Local, Bits<64>>,
    /// The same, as the high half.
    wmask_hi: Signal<Local, Bits<64>>,
    /// The write data in both halves.
    wr_data64: Signal<Local, Bits<64>>,
    /// The `ROUTE` entry read.
    rd_route: Signal<Local, Bits<3>>,
    /// A `ROUTE` register is read.
    rd_route_hit: Signal<Local, Bit>,
    /// The `TARGET_CTRL` enable bit read.
    rd_ctrl: Signal<Local, Bit>,
    /// A `TARGET_CTRL` register is read.
    rd_ctrl_hit: Signal<Local, Bit>,
    id_value: Constant<Bits<32>>,
    version_value: Constant<Bits<32>>,
    at_id: Constant<Bits<ADDR_BITS>>,
    at_version: Constant<Bits<ADDR_BITS>>,
    at_node: Constant<Bits<ADDR_BITS>>,
    at_scratch: Constant<Bits<ADDR_BITS>>,
    at_unexpected: Constant<Bits<ADDR_BITS>>,
    at_target_lo: [Constant<Bits<ADDR_BITS>>; TARGETS],
    at_target_hi: [Constant<Bits<ADDR_BITS>>; TARGETS],
    at_target_ctrl: [Constant<Bits<ADDR_BITS>>; TARGETS],
    at_port_status: [Constant<Bits<ADDR_BITS>>; 4],
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
            route: Default::default(),
            target: array_init::array_init(|_| Default::default()),
            target_ctrl: Default::default(),
            unexpected: Default::default(),
            node_merged: Default::default(),
            route_next: Default::default(),
            wmask_lo: Default::default(),
            wmask_hi: Default::default(),
            wr_data64: Default::default(),
            rd_route: Default::default(),
            rd_q: Default::default(),
            answer: Default::default(),
            rd_route_hit: Default::default(),
            wr_route_hit: Default::default(),
            rd_ctrl: Default::default(),
            rd_ctrl_hit: Default::default(),
            id_value: Constant::new(u64::from(ID_VALUE).into()),
            version_value: Constant::new(u64::from(VERSION_VALUE).into()),
            at_id: at(ID),
            at_version: at(VERSION),
            at_node: at(NODE_ID),
            at_scratch: at(SCRATCH),
            at_unexpected: at(CPL_UNEXPECTED),
            at_target_lo: array_init::array_init(|t| at(target_lo(t as u32))),
            at_target_hi: array_init::array_init(|t| at(target_hi(t as u32))),
            at_target_ctrl: array_init::array_init(|t| at(target_ctrl(t as u32))),
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
        dff_setup!(
            self,
            clock,
            node,
            scratch,
            route,
            target_ctrl,
            unexpected,
            rd_q
        );
        // (rust-hdl cannot use a loop index inside bit_cast: casts happen outside loops.)
        for t in 0..TARGETS {
            self.target[t].clock.next = self.clock.val();
            self.target[t].d.next = self.target[t].q.val();
            self.target_base[t].next = self.target[t].q.val();
        }
        self.node_id.next = self.node.q.val();
        self.route_table.next = self.route.q.val();
        self.target_enable.next = self.target_ctrl.q.val();

        self.wmask_lo.next = bit_cast::<64, 32>(self.csr.wr_mask.val());
        self.wmask_hi.next = bit_cast::<64, 32>(self.csr.wr_mask.val()) << 32;
        self.wr_data64.next = bit_cast::<64, 32>(self.csr.wr_data.val())
            | (bit_cast::<64, 32>(self.csr.wr_data.val()) << 32);

        self.node_merged.next = (bit_cast::<32, 6>(self.node.q.val()) & !self.csr.wr_mask.val())
            | (self.csr.wr_data.val() & self.csr.wr_mask.val());
        self.route_next.next = self.route.q.val();
        self.wr_route_hit.next = self.csr.wr_addr.val().get_bits::<8>(6) == 1;

        if self.csr.wr_en.val() {
            if self.csr.wr_addr.val() == self.at_node.val() {
                self.node.d.next = self.node_merged.val().get_bits::<6>(0);
            }
            if self.csr.wr_addr.val() == self.at_scratch.val() {
                self.scratch.d.next = (self.scratch.q.val() & !self.csr.wr_mask.val())
                    | (self.csr.wr_data.val() & self.csr.wr_mask.val());
            }
            for n in 0..NODES {
                // ROUTE[n]: valid is bit 31 (byte 3), port bits 1:0 (byte 0).
                if self.wr_route_hit.val() && (self.csr.wr_addr.val().get_bits::<6>(0).index() == n)
                {
                    if self.csr.wr_be.val().get_bit(0) {
                        self.route_next.next = self
                            .route_next
                            .val()
                            .replace_bit(3 * n, self.csr.wr_data.val().get_bit(0))
                            .replace_bit(3 * n + 1, self.csr.wr_data.val().get_bit(1));
                    }
                    if self.csr.wr_be.val().get_bit(3) {
                        self.route_next.next = self
                            .route_next
                            .val()
                            .replace_bit(3 * n + 2, self.csr.wr_data.val().get_bit(31));
                    }
                    self.route.d.next = self.route_next.val();
                }
            }
            for t in 0..TARGETS {
                if self.csr.wr_addr.val() == self.at_target_lo[t].val() {
                    self.target[t].d.next = (self.target[t].q.val() & !self.wmask_lo.val())
                        | (self.wr_data64.val() & self.wmask_lo.val());
                }
                if self.csr.wr_addr.val() == self.at_target_hi[t].val() {
                    self.target[t].d.next = (self.target[t].q.val() & !self.wmask_hi.val())
                        | (self.wr_data64.val() & self.wmask_hi.val());
                }
                if (self.csr.wr_addr.val() == self.at_target_ctrl[t].val())
                    && self.csr.wr_be.val().get_bit(0)
                {
                    self.target_ctrl.d.next = self
                        .target_ctrl
                        .q
                        .val()
                        .replace_bit(t, self.csr.wr_data.val().get_bit(0));
                }
            }
        }
        if self.cpl_unexpected.val() {
            self.unexpected.d.next = self.unexpected.q.val() + 1;
        }

        // The answer: an OR of the registers whose address matches (at most one), not a
        // chain of choices, so that synthesis can balance it; registered, as the bus lets
        // a target answer in the address's second cycle.
        self.answer.next = 0.into();
        if self.csr.rd_addr.val() == self.at_id.val() {
            self.answer.next = self.answer.val() | self.id_value.val();
        }
        if self.csr.rd_addr.val() == self.at_version.val() {
            self.answer.next = self.answer.val() | self.version_value.val();
        }
        if self.csr.rd_addr.val() == self.at_node.val() {
            self.answer.next = self.answer.val() | bit_cast::<32, 6>(self.node.q.val());
        }
        if self.csr.rd_addr.val() == self.at_scratch.val() {
            self.answer.next = self.answer.val() | self.scratch.q.val();
        }
        self.rd_route.next = 0.into();
        self.rd_route_hit.next = self.csr.rd_addr.val().get_bits::<8>(6) == 1;
        for n in 0..NODES {
            if self.csr.rd_addr.val().get_bits::<6>(0).index() == n {
                self.rd_route.next = self.rd_route.val() | self.route.q.val().get_bits::<3>(3 * n);
            }
        }
        if self.rd_route_hit.val() {
            self.answer.next = self.answer.val()
                | (bit_cast::<32, 1>(self.rd_route.val().get_bits::<1>(2)) << 31)
                | bit_cast::<32, 2>(self.rd_route.val().get_bits::<2>(0));
        }
        self.rd_ctrl.next = false;
        self.rd_ctrl_hit.next = false;
        for t in 0..TARGETS {
            if self.csr.rd_addr.val() == self.at_target_lo[t].val() {
                self.answer.next = self.answer.val() | self.target[t].q.val().get_bits::<32>(0);
            }
            if self.csr.rd_addr.val() == self.at_target_hi[t].val() {
                self.answer.next = self.answer.val() | self.target[t].q.val().get_bits::<32>(32);
            }
            if self.csr.rd_addr.val() == self.at_target_ctrl[t].val() {
                self.rd_ctrl.next = self.target_ctrl.q.val().get_bit(t);
                self.rd_ctrl_hit.next = true;
            }
        }
        if self.rd_ctrl_hit.val() {
            self.answer.next = self.answer.val() | bit_cast::<32, 1>(self.rd_ctrl.val().into());
        }
        for p in 0..4 {
            if self.csr.rd_addr.val() == self.at_port_status[p].val() {
                self.answer.next = self.answer.val() | self.port_status[p].val();
            }
            if self.csr.rd_addr.val() == self.at_port_config[p].val() {
                self.answer.next = self.answer.val() | self.port_config[p].val();
            }
        }
        for i in 0..COUNTERS {
            if self.csr.rd_addr.val() == self.at_port_counter[i].val() {
                self.answer.next = self.answer.val() | self.port_counters[i].val();
            }
        }
        if self.csr.rd_addr.val() == self.at_unexpected.val() {
            self.answer.next = self.answer.val() | self.unexpected.q.val();
        }

        self.rd_q.d.next = self.answer.val();
        self.csr.rd_data.next = self.rd_q.q.val();

        if self.reset.val() {
            self.node.d.next = 0.into();
            self.scratch.d.next = 0.into();
            self.route.d.next = 0.into();
            self.target_ctrl.d.next = 0.into();
            self.unexpected.d.next = 0.into();
            for t in 0..TARGETS {
                self.target[t].d.next = 0.into();
            }
        }
    }
}
