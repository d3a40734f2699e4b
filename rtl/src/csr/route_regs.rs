//! The routing table's registers, `ROUTE[0..63]` (`peach2_regmap::csr::route`): entry n
//! says whether node n is reachable (bit 31, byte 3) and through which port (bits 1:0,
//! byte 0); a write changes the fields whose byte it enables. The register file ORs the
//! answer into its own and registers it.

use super::bus::CsrTarget;
use crate::router::RouteConfig;
use peach2_regmap::address::MAX_NODES;
use peach2_regmap::csr::{route, ROUTE_VALID};
use rust_hdl::prelude::*;

/// Routing table entries.
const NODES: usize = MAX_NODES;
// `ROUTE[n]` is DW index 0x40 + n: address bits 13:6 say an access is to the table (the
// literal 1 below) and bits 5:0 which entry; the valid bit is 31.
const _: () = assert!(route(0) / 4 == 1 << 6 && NODES == 64 && ROUTE_VALID == 1 << 31);
// The table's planes (bits 63:0, 127:64, 191:128 below).
const _: () =
    assert!(RouteConfig::PORT_LO == 0 && RouteConfig::PORT_HI == 64 && RouteConfig::VALID == 128);

/// `ROUTE[0..63]`.
#[derive(LogicBlock, Default)]
pub struct RouteRegs {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: every entry invalid.
    pub reset: Signal<In, Bit>,
    /// BAR0 accesses; the answer is combinational (0 outside the table).
    pub csr: CsrTarget,
    /// The table, in `RouteConfig`'s planes.
    pub route_table: Signal<Out, Bits<192>>,
    /// The table.
    route: DFF<Bits<192>>,
    /// The table after this cycle's write.
    route_next: Signal<Local, Bits<192>>,
    /// The write address is in the table.
    wr_hit: Signal<Local, Bit>,
    /// The read is of the table.
    rd_hit: Signal<Local, Bit>,
    /// The entry read.
    rd_entry: Signal<Local, Bits<3>>,
}

impl Logic for RouteRegs {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, route);
        self.route_table.next = self.route.q.val();

        self.route_next.next = self.route.q.val();
        self.wr_hit.next = self.csr.wr_addr.val().get_bits::<8>(6) == 1;
        // The entry loop only under a write: a simulator then skips it in most cycles.
        if self.csr.wr_en.val() && self.wr_hit.val() {
            for n in 0..NODES {
                if self.csr.wr_addr.val().get_bits::<6>(0).index() == n {
                    if self.csr.wr_be.val().get_bit(0) {
                        self.route_next.next = self
                            .route_next
                            .val()
                            .replace_bit(n, self.csr.wr_data.val().get_bit(0))
                            .replace_bit(64 + n, self.csr.wr_data.val().get_bit(1));
                    }
                    if self.csr.wr_be.val().get_bit(3) {
                        self.route_next.next = self
                            .route_next
                            .val()
                            .replace_bit(128 + n, self.csr.wr_data.val().get_bit(31));
                    }
                    self.route.d.next = self.route_next.val();
                }
            }
        }

        self.rd_hit.next = self.csr.rd_addr.val().get_bits::<8>(6) == 1;
        // The entry's bits by shifting each plane (see `RouteConfig::VALID`).
        self.rd_entry.next = 0.into();
        for i in 0..3 {
            self.rd_entry.next = self.rd_entry.val().replace_bit(
                i,
                ((self.route.q.val().get_bits::<64>(64 * i)
                    >> self.csr.rd_addr.val().get_bits::<6>(0))
                    & 1)
                    != 0,
            );
        }
        self.csr.rd_data.next = 0.into();
        if self.rd_hit.val() {
            self.csr.rd_data.next = (bit_cast::<32, 1>(self.rd_entry.val().get_bits::<1>(2)) << 31)
                | bit_cast::<32, 2>(self.rd_entry.val().get_bits::<2>(0));
        }

        if self.reset.val() {
            self.route.d.next = 0.into();
        }
    }
}
