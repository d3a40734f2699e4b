//! Where a DMA write leaves the crossbar's internal port: N for a local address, and for
//! a global one what the chip's route lookup (`crate::route_lookup`) decides, the
//! internal target allowed for one-DW writes only (notifications and write-immediate
//! descriptors: the packet then fits the crossbar output's two beats of buffer and cannot
//! hold the internal port against a completion the completer is sending).
//!
//! Combinational; a channel checks its destination and receiver slot before it moves data.

use crate::route_lookup::RouteLookup;
use crate::router::RouteConfig;
use crate::stream::PORT_INTERNAL;
use peach2_regmap::address::{BASE_SHIFT, GLOBAL_BASE_HI};

// The global space's base is address bits 63:42.
const _: () = assert!(BASE_SHIFT == 42);
use rust_hdl::prelude::*;

const _: () = assert!(PORT_INTERNAL == 4);

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
    /// The chip's route lookup, for a global address (one-DW writes may go to internal).
    lookup: RouteLookup,
    /// The global space's base (address bits 63:42), to tell a global address.
    global_base_hi: Constant<Bits<22>>,
}

impl Default for DestRoute {
    fn default() -> Self {
        Self {
            addr: Default::default(),
            one_dw: Default::default(),
            routes: Default::default(),
            dest: Default::default(),
            ok: Default::default(),
            lookup: Default::default(),
            global_base_hi: Constant::new(GLOBAL_BASE_HI.into()),
        }
    }
}

impl Logic for DestRoute {
    #[hdl_gen]
    fn update(&mut self) {
        self.lookup.addr_hi.next = self.addr.val().get_bits::<32>(32);
        RouteConfig::link(&mut self.routes, &mut self.lookup.routes);
        // The internal port (4): not a port a ROUTE entry can name.
        self.lookup.ingress.next = 4.into();
        self.lookup.internal_ok.next = self.one_dw.val();
        self.dest.next = 0.into();
        self.ok.next = true;
        if self.addr.val().get_bits::<22>(42) == self.global_base_hi.val() {
            self.ok.next = self.lookup.ok.val();
            self.dest.next = self.lookup.dest.val();
        }
    }
}
