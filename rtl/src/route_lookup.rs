//! The one route lookup of the chip: where a memory write to a global address leaves the
//! crossbar. The ports' routers (`crate::router`) and the DMA (`crate::dmac::dest_route`)
//! both ask it; each decides first whether the address is global at all.
//!
//! | global address                 | decision                                           |
//! |--------------------------------|----------------------------------------------------|
//! | this node, host or GPU target  | N (translated at egress), if N is ready            |
//! | this node, internal target     | internal, if the caller allows it (`internal_ok`)  |
//! | other node                     | the port `ROUTE[node]` names, if valid, ready, and not the port the write came in by |
//! | anything else                  | not routable                                       |
//!
//! Combinational.

use crate::router::RouteConfig;
use crate::stream::PORT_INTERNAL;
use peach2_regmap::address::{MAX_NODES, NODE_SHIFT, TARGET_SHIFT, TRANSLATED_TARGETS};
use rust_hdl::prelude::*;

// The field picks below: the node in bits 41:36 and the target in 35:33 of the address,
// i.e. bits 9:4 and 3:1 of its upper DW; target codes below 5 are translated, 5 is the
// chip's own memory; the internal port is crossbar endpoint 4.
const _: () = assert!(NODE_SHIFT == 36 && TARGET_SHIFT == 33 && TRANSLATED_TARGETS == 5);
const _: () = assert!(MAX_NODES == 64);
const _: () = assert!(PORT_INTERNAL == 4);

/// The route lookup.
#[derive(LogicBlock, Default)]
pub struct RouteLookup {
    /// Bits 63:32 of the global address.
    pub addr_hi: Signal<In, Bits<32>>,
    /// Where global writes go.
    pub routes: RouteConfig,
    /// Crossbar endpoint the write came in by (a port 0..3, or the internal one).
    pub ingress: Signal<In, Bits<3>>,
    /// A write to this node's internal target may go to the internal port.
    pub internal_ok: Signal<In, Bit>,
    /// The write can be routed.
    pub ok: Signal<Out, Bit>,
    /// Crossbar destination, when `ok`.
    pub dest: Signal<Out, Bits<3>>,
    /// The address's node (bits 41:36).
    node: Signal<Local, Bits<6>>,
    /// The address's target (bits 35:33): host or GPU below 5, the chip's own memory at 5.
    target: Signal<Local, Bits<3>>,
    /// Bit p: port p's link is ready and p is not the ingress.
    port_ok: Signal<Local, Bits<4>>,
    /// The table's planes: bit n of each is node n's port bit 0, port bit 1, valid bit.
    port_lo: Signal<Local, Bits<64>>,
    port_hi: Signal<Local, Bits<64>>,
    valid: Signal<Local, Bits<64>>,
    /// `ROUTE[node]`, picked from the planes: bit 2 valid, bits 1:0 the port.
    entry: Signal<Local, Bits<3>>,
    /// The port `entry` names is in `port_ok`.
    entry_port_ok: Signal<Local, Bit>,
}

impl Logic for RouteLookup {
    #[hdl_gen]
    fn update(&mut self) {
        self.node.next = self.addr_hi.val().get_bits::<6>(4);
        self.target.next = self.addr_hi.val().get_bits::<3>(1);
        self.port_ok.next = self.routes.port_ready.val();
        for p in 0..4 {
            if self.ingress.val().index() == p {
                self.port_ok.next = self.routes.port_ready.val().replace_bit(p, false);
            }
        }
        self.port_lo.next = self.routes.route_table.val().get_bits::<64>(0);
        self.port_hi.next = self.routes.route_table.val().get_bits::<64>(64);
        self.valid.next = self.routes.route_table.val().get_bits::<64>(128);
        // The node's entry: a shift of each plane, which synthesis makes a 64-way pick on
        // the address's node bits (three levels of 6-input LUTs); then whether its port
        // is usable, a 4-way pick on the entry's port bits. The link-up and ingress
        // inputs reach the decision in that last pick, not ahead of the 64-way one.
        self.entry.next = 0.into();
        self.entry.next = self
            .entry
            .val()
            .replace_bit(0, ((self.port_lo.val() >> self.node.val()) & 1) != 0)
            .replace_bit(1, ((self.port_hi.val() >> self.node.val()) & 1) != 0)
            .replace_bit(2, ((self.valid.val() >> self.node.val()) & 1) != 0);
        self.entry_port_ok.next =
            ((self.port_ok.val() >> self.entry.val().get_bits::<2>(0)) & 1) != 0;
        self.ok.next = false;
        self.dest.next = 4.into();
        if self.node.val() == self.routes.node_id.val() {
            if self.target.val() == 5 {
                self.ok.next = self.internal_ok.val();
            } else if self.target.val() < 5 {
                self.ok.next = self.routes.port_ready.val().get_bit(0);
                self.dest.next = 0.into();
            }
        } else if self.entry.val().get_bit(2) && self.entry_port_ok.val() {
            self.ok.next = true;
            self.dest.next = bit_cast::<3, 2>(self.entry.val().get_bits::<2>(0));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::Lcg;
    use crate::router::route_table;
    use peach2_regmap::address::Target;

    /// The table above, written out, against the block on random routes and addresses.
    #[test]
    fn decisions_follow_the_table() {
        let mut uut = RouteLookup::default();
        uut.connect_all();
        let mut rng = Lcg(3);
        for _ in 0..3000 {
            let node_id = rng.below(MAX_NODES as u64);
            let entries: Vec<u64> = (0..MAX_NODES).map(|_| rng.below(8)).collect();
            let table = route_table(entries.iter().copied().enumerate());
            let ready = rng.below(16);
            // Half the addresses to this node, to reach its targets often.
            let node = if rng.below(2) == 0 {
                node_id
            } else {
                rng.below(MAX_NODES as u64)
            };
            let target = rng.below(8);
            let ingress = rng.below(5);
            let internal_ok = rng.below(2) == 1;
            uut.addr_hi.next = ((node << 4) | (target << 1)).into();
            uut.routes.node_id.next = node_id.into();
            uut.routes.route_table.next = table;
            uut.routes.port_ready.next = ready.into();
            uut.ingress.next = ingress.into();
            uut.internal_ok.next = internal_ok;
            assert!(simulate(&mut uut, 1_000), "settles");
            let entry = entries[node as usize];
            let want = if node == node_id {
                match Target::from_code(target) {
                    Some(Target::Internal) => internal_ok.then_some(4),
                    Some(_) => (ready & 1 == 1).then_some(0),
                    None => None,
                }
            } else {
                let port = entry & 3;
                (entry & 4 != 0 && (ready >> port) & 1 == 1 && port != ingress).then_some(port)
            };
            let got = uut.ok.val().then(|| uut.dest.val().to_u64());
            assert_eq!(got, want, "node {node} target {target} entry {entry:03b}");
        }
    }
}
