//! The BAR0 register file: configuration registers, and the read mux over them and over
//! the status the rest of the chip reports. Offsets are DW indices (byte offset / 4) of
//! the map in `peach2_regmap::csr`; the tests check every one against that map.

use super::bus::CsrTarget;
use rust_hdl::prelude::*;

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
    pub node_id: Signal<Out, Bits<4>>,
    /// `ROUTE[0..15]` packed: entry n in bits 3n+2..3n (valid, port).
    pub route_table: Signal<Out, Bits<48>>,
    /// `TARGET_HI:TARGET_LO` per target.
    pub target_base: [Signal<Out, Bits<64>>; TARGETS],
    /// `TARGET_CTRL` enable bits, bit t for target t.
    pub target_enable: Signal<Out, Bits<5>>,
    /// `PORT_STATUS` per port.
    pub port_status: [Signal<In, Bits<32>>; 4],
    /// `PORT_CONFIG` per port.
    pub port_config: [Signal<In, Bits<32>>; 4],
    /// Counters per port, in register order `TLPS_IN` .. `UR_SENT` (7 each).
    pub port_counters: [Signal<In, Bits<32>>; 28],
    /// Pulse: a completion matched no outstanding request.
    pub cpl_unexpected: Signal<In, Bit>,
    node: DFF<Bits<4>>,
    scratch: DFF<Bits<32>>,
    route: DFF<Bits<48>>,
    target: [DFF<Bits<64>>; TARGETS],
    target_ctrl: DFF<Bits<5>>,
    unexpected: DFF<Bits<32>>,
    node_merged: Signal<Local, Bits<32>>,
    route_next: Signal<Local, Bits<48>>,
    wmask_lo: Signal<Local, Bits<64>>,
    wmask_hi: Signal<Local, Bits<64>>,
    wr_data64: Signal<Local, Bits<64>>,
    rd_route: Signal<Local, Bits<3>>,
    rd_route_hit: Signal<Local, Bit>,
    rd_ctrl: Signal<Local, Bit>,
    rd_ctrl_hit: Signal<Local, Bit>,
    id_value: Constant<Bits<32>>,
    version_value: Constant<Bits<32>>,
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
            rd_route_hit: Default::default(),
            rd_ctrl: Default::default(),
            rd_ctrl_hit: Default::default(),
            id_value: Constant::new(u64::from(ID_VALUE).into()),
            version_value: Constant::new(u64::from(VERSION_VALUE).into()),
        }
    }
}

impl Logic for CsrRegs {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, node, scratch, route, target_ctrl, unexpected);
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

        self.node_merged.next = (bit_cast::<32, 4>(self.node.q.val()) & !self.csr.wr_mask.val())
            | (self.csr.wr_data.val() & self.csr.wr_mask.val());
        self.route_next.next = self.route.q.val();

        if self.csr.wr_en.val() {
            if self.csr.wr_addr.val() == 0x2 {
                self.node.d.next = self.node_merged.val().get_bits::<4>(0);
            }
            if self.csr.wr_addr.val() == 0x3 {
                self.scratch.d.next = (self.scratch.q.val() & !self.csr.wr_mask.val())
                    | (self.csr.wr_data.val() & self.csr.wr_mask.val());
            }
            for n in 0..16 {
                // ROUTE[n]: valid is bit 31 (byte 3), port bits 1:0 (byte 0).
                if self.csr.wr_addr.val().index() == 0x40 + n {
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
                if self.csr.wr_addr.val().index() == 0x80 + 4 * t {
                    self.target[t].d.next = (self.target[t].q.val() & !self.wmask_lo.val())
                        | (self.wr_data64.val() & self.wmask_lo.val());
                }
                if self.csr.wr_addr.val().index() == 0x81 + 4 * t {
                    self.target[t].d.next = (self.target[t].q.val() & !self.wmask_hi.val())
                        | (self.wr_data64.val() & self.wmask_hi.val());
                }
                if (self.csr.wr_addr.val().index() == 0x82 + 4 * t)
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

        self.csr.rd_data.next = 0.into();
        if self.csr.rd_addr.val() == 0x0 {
            self.csr.rd_data.next = self.id_value.val();
        }
        if self.csr.rd_addr.val() == 0x1 {
            self.csr.rd_data.next = self.version_value.val();
        }
        if self.csr.rd_addr.val() == 0x2 {
            self.csr.rd_data.next = bit_cast::<32, 4>(self.node.q.val());
        }
        if self.csr.rd_addr.val() == 0x3 {
            self.csr.rd_data.next = self.scratch.q.val();
        }
        self.rd_route.next = 0.into();
        self.rd_route_hit.next = false;
        for n in 0..16 {
            if self.csr.rd_addr.val().index() == 0x40 + n {
                self.rd_route.next = self.route.q.val().get_bits::<3>(3 * n);
                self.rd_route_hit.next = true;
            }
        }
        if self.rd_route_hit.val() {
            self.csr.rd_data.next = (bit_cast::<32, 1>(self.rd_route.val().get_bits::<1>(2)) << 31)
                | bit_cast::<32, 2>(self.rd_route.val().get_bits::<2>(0));
        }
        self.rd_ctrl.next = false;
        self.rd_ctrl_hit.next = false;
        for t in 0..TARGETS {
            if self.csr.rd_addr.val().index() == 0x80 + 4 * t {
                self.csr.rd_data.next = self.target[t].q.val().get_bits::<32>(0);
            }
            if self.csr.rd_addr.val().index() == 0x81 + 4 * t {
                self.csr.rd_data.next = self.target[t].q.val().get_bits::<32>(32);
            }
            if self.csr.rd_addr.val().index() == 0x82 + 4 * t {
                self.rd_ctrl.next = self.target_ctrl.q.val().get_bit(t);
                self.rd_ctrl_hit.next = true;
            }
        }
        if self.rd_ctrl_hit.val() {
            self.csr.rd_data.next = bit_cast::<32, 1>(self.rd_ctrl.val().into());
        }
        for p in 0..4 {
            if self.csr.rd_addr.val().index() == 0x100 + 0x10 * p {
                self.csr.rd_data.next = self.port_status[p].val();
            }
            if self.csr.rd_addr.val().index() == 0x108 + 0x10 * p {
                self.csr.rd_data.next = self.port_config[p].val();
            }
            for k in 0..7 {
                if self.csr.rd_addr.val().index() == 0x101 + 0x10 * p + k {
                    self.csr.rd_data.next = self.port_counters[7 * p + k].val();
                }
            }
        }
        if self.csr.rd_addr.val() == 0x140 {
            self.csr.rd_data.next = self.unexpected.q.val();
        }

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
