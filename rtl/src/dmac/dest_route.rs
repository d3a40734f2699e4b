//! Where a DMA write leaves the crossbar's internal port: the routing rules of
//! `crate::router` for a global write, applied to the DMA's own requests.
//!
//! | address                               | decision                                   |
//! |---------------------------------------|--------------------------------------------|
//! | local (bits 63:40 not the global base) | N                                          |
//! | global, this node, host or GPU target | N (translated at N's egress)               |
//! | global, this node, internal target, one DW | internal (the notification store: a 4-byte write only, so the packet fits the crossbar output's two beats of buffer and cannot hold the internal port against a completion the completer is sending) |
//! | global, other node                    | the port `ROUTE[node]` names, if valid and ready |
//! | anything else                         | not routable (the descriptor fails)        |
//!
//! Combinational; a channel checks its destination and receiver slot before it moves data.

use crate::router::RouteConfig;
use crate::stream::PORT_INTERNAL;
use peach2_regmap::address::GLOBAL_BASE_HI;
use rust_hdl::prelude::*;

const _: () = assert!(
    PORT_INTERNAL == 4,
    "the decode below names the internal port 4"
);

/// The DMA's routing decision for one address.
#[derive(LogicBlock)]
pub struct DestRoute {
    /// The write's address.
    pub addr: Signal<In, Bits<64>>,
    /// The write is one DW (a notification or a write-immediate descriptor).
    pub one_dw: Signal<In, Bit>,
    /// Where global writes go.
    pub routes: RouteConfig,
    /// Crossbar destination.
    pub dest: Signal<Out, Bits<3>>,
    /// The address can be routed.
    pub ok: Signal<Out, Bit>,
    node: Signal<Local, Bits<4>>,
    target: Signal<Local, Bits<3>>,
    entry: Signal<Local, Bits<3>>,
    out_ready: Signal<Local, Bit>,
    global_base_hi: Constant<Bits<24>>,
}

impl Default for DestRoute {
    fn default() -> Self {
        Self {
            addr: Default::default(),
            one_dw: Default::default(),
            routes: Default::default(),
            dest: Default::default(),
            ok: Default::default(),
            node: Default::default(),
            target: Default::default(),
            entry: Default::default(),
            out_ready: Default::default(),
            global_base_hi: Constant::new(GLOBAL_BASE_HI.into()),
        }
    }
}

impl Logic for DestRoute {
    #[hdl_gen]
    fn update(&mut self) {
        self.node.next = self.addr.val().get_bits::<4>(36);
        self.target.next = self.addr.val().get_bits::<3>(33);
        self.entry.next = 0.into();
        for i in 0..16 {
            if self.node.val().index() == i {
                self.entry.next = self.routes.route_table.val().get_bits::<3>(3 * i);
            }
        }
        self.out_ready.next = false;
        for p in 0..4 {
            if self.entry.val().get_bits::<2>(0).index() == p {
                self.out_ready.next = self.routes.port_ready.val().get_bit(p);
            }
        }
        self.dest.next = 0.into();
        self.ok.next = true;
        if self.addr.val().get_bits::<24>(40) == self.global_base_hi.val() {
            if self.node.val() == self.routes.node_id.val() {
                self.ok.next = self.target.val() < 5;
                if (self.target.val() == 5) && self.one_dw.val() {
                    self.ok.next = true;
                    self.dest.next = 4.into();
                }
            } else {
                self.ok.next = self.entry.val().get_bit(2) && self.out_ready.val();
                self.dest.next = bit_cast::<3, 2>(self.entry.val().get_bits::<2>(0));
            }
        }
    }
}
