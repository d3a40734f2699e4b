//! One port's data path, the chip's unit of four: the RX stage (framing checks, routing,
//! BAR decode), the ingress FIFO into the crossbar, the link controller (the port's role
//! and bring-up), the TX merge onto the hard IP, and the port's counters, status word
//! and configuration word (`PORT_*` in `peach2_regmap::csr`).
//!
//! ```text
//!  rx ─> rx_route ─> fifo ─> to_xbar            from_xbar ─┐
//!           └──> link_ctrl ───────────> link_out ──> tx_merge ─> tx
//! ```
//!
//! The link controller's TLPs reach the TX merge through a register (`link_out`), so the
//! merge's choice, which the crossbar's output `ready` waits on, starts at registers and
//! not behind the controller's own choice between its answers and its requests; config
//! traffic is rare and waits a cycle.

use crate::csr::counters::PortCounters;
use crate::port::link_ctrl::LinkCtrl;
use crate::port::rx_route::RxRoute;
use crate::port::tx_merge::TxMerge;
use crate::router::{PortConfig, RouteConfig};
use crate::stream::fifo::TlpFifo;
use crate::stream::skid::TlpSkid;
use crate::stream::{PortSink, PortSource, TlpSink, TlpSource};
use peach2_regmap::config::MAX_PAYLOAD_BYTES;
use peach2_regmap::csr::{port_config, port_status};
use rust_hdl::prelude::*;

/// Log2 of the ingress FIFO depth in beats (32 beats = 512 B: two 256 B TLPs).
pub const INGRESS_FIFO_LOG2: usize = 5;

// The ingress FIFO forwards whole packets, so it must hold the longest TLP a port lets
// through: a 4-DW header, the largest payload and a digest.
const _: () = assert!(
    (4 + MAX_PAYLOAD_BYTES as usize / 4 + 1).div_ceil(4) < 1 << INGRESS_FIFO_LOG2,
    "the ingress FIFO must hold the longest legal TLP"
);

// The status and configuration words below place their fields with these shifts.
const _: () = assert!(
    port_status::LINK_UP == 1
        && port_status::ROLE_RC == 1 << 1
        && port_status::READY == 1 << 2
        && port_status::STATE_SHIFT == 4
        && port_status::ERROR_SHIFT == 8
        && port_status::PARTNER_NODE_SHIFT == 16
        && port_status::PARTNER_PORT_SHIFT == 12
        && port_status::PARTNER_VALID == 1 << 22
        && port_status::XBAR_BUSY == 1 << 23
        && port_status::FIFO_FILL_SHIFT == 24
        && port_status::STATE_MASK == (1 << 4) - 1
        && port_status::ERROR_MASK == (1 << 4) - 1
        && port_status::PARTNER_NODE_MASK == (1 << 6) - 1
        && port_status::PARTNER_PORT_MASK == (1 << 2) - 1
        && port_status::FIFO_FILL_MASK == (1 << 6) - 1
);
const _: () = assert!(
    port_config::MEMORY == 1
        && port_config::BUS_MASTER == 1 << 1
        && port_config::MAX_PAYLOAD_SHIFT == 4
        && port_config::MAX_READ_REQ_SHIFT == 8
        && port_config::DEVICE_ID_SHIFT == 16
);

/// One port's path.
#[derive(LogicBlock)]
pub struct PortPath {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Upstream: TLPs from the hard IP.
    pub rx: PortSink,
    /// Downstream: TLPs to the hard IP.
    pub tx: PortSource,
    /// Downstream: routed TLPs into the crossbar.
    pub to_xbar: TlpSource,
    /// Upstream: TLPs the crossbar sends out of this port.
    pub from_xbar: TlpSink,
    /// Data link up (from the hard IP).
    pub link_up: Signal<In, Bit>,
    /// What the port is: index, role, BAR decoding.
    pub port: PortConfig,
    /// The partner port an RC port must meet (ignored in the EP role).
    pub expected_partner: Signal<In, Bits<2>>,
    /// Where global writes go (and this node's id).
    pub routes: RouteConfig,
    /// Bring-up timeout of the EP role, in cycles.
    pub ep_timeout: Signal<In, Bits<32>>,
    /// Bring-up timeout of the RC role's configuration requests, in cycles.
    pub cfg_timeout: Signal<In, Bits<32>>,
    /// Pulse: the crossbar dropped a packet from this port.
    pub drop_xbar: Signal<In, Bit>,
    /// Pulse: the internal completer dropped a request from this port.
    pub drop_internal: Signal<In, Bit>,
    /// Pulse: egress translation dropped a packet bound for this port.
    pub drop_egress: Signal<In, Bit>,
    /// Pulse: an Unsupported Request completion went back for this port's request.
    pub ur_sent: Signal<In, Bit>,
    /// The crossbar output to this port is carrying a packet.
    pub xbar_busy: Signal<In, Bit>,
    /// Link configured: memory traffic flows.
    pub ready: Signal<Out, Bit>,
    /// `PORT_STATUS`.
    pub status_word: Signal<Out, Bits<32>>,
    /// `PORT_CONFIG`.
    pub config_word: Signal<Out, Bits<32>>,
    /// `TLPS_IN`: TLPs received.
    pub tlps_in_count: Signal<Out, Bits<32>>,
    /// `BYTES_IN`: bytes received.
    pub bytes_in_count: Signal<Out, Bits<32>>,
    /// `TLPS_OUT`: TLPs sent.
    pub tlps_out_count: Signal<Out, Bits<32>>,
    /// `BYTES_OUT`: bytes sent.
    pub bytes_out_count: Signal<Out, Bits<32>>,
    /// `DROPS`: TLPs dropped at ingress.
    pub drops_count: Signal<Out, Bits<32>>,
    /// `ERRORS`: malformed TLPs received.
    pub errors_count: Signal<Out, Bits<32>>,
    /// `UR_SENT`: UR completions sent for this port's requests.
    pub ur_sent_count: Signal<Out, Bits<32>>,
    /// Bus/device/function the partner configured (EP role).
    pub device_id: Signal<Out, Bits<16>>,
    /// Memory space enabled by the partner.
    pub mem_enable: Signal<Out, Bit>,
    /// Max payload size code the partner configured.
    pub max_payload: Signal<Out, Bits<3>>,
    /// Max read request size code the partner configured.
    pub max_read_req: Signal<Out, Bits<3>>,
    /// BAR0 as the partner configured it.
    pub bar0_base: Signal<Out, Bits<32>>,
    /// BAR2's address bits 63:40 as the partner configured them.
    pub bar2_base_hi: Signal<Out, Bits<22>>,
    /// Framing checks, routing, BAR decode.
    route: RxRoute,
    /// Ingress FIFO: whole packets into the crossbar.
    fifo: TlpFifo<INGRESS_FIFO_LOG2, 6>,
    /// Role and bring-up.
    link: LinkCtrl,
    /// The link controller's TLPs, registered on their way to the TX merge; emptied while
    /// the link is down, as the controller is.
    link_out: TlpSkid,
    /// Crossbar and link controller onto the hard IP.
    merge: TxMerge,
    /// The port's counters.
    count: PortCounters,
}

impl Default for PortPath {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            rx: Default::default(),
            tx: Default::default(),
            to_xbar: Default::default(),
            from_xbar: Default::default(),
            link_up: Default::default(),
            port: Default::default(),
            expected_partner: Default::default(),
            routes: Default::default(),
            ep_timeout: Default::default(),
            cfg_timeout: Default::default(),
            drop_xbar: Default::default(),
            drop_internal: Default::default(),
            drop_egress: Default::default(),
            ur_sent: Default::default(),
            xbar_busy: Default::default(),
            ready: Default::default(),
            status_word: Default::default(),
            config_word: Default::default(),
            tlps_in_count: Default::default(),
            bytes_in_count: Default::default(),
            tlps_out_count: Default::default(),
            bytes_out_count: Default::default(),
            drops_count: Default::default(),
            errors_count: Default::default(),
            ur_sent_count: Default::default(),
            device_id: Default::default(),
            mem_enable: Default::default(),
            max_payload: Default::default(),
            max_read_req: Default::default(),
            bar0_base: Default::default(),
            bar2_base_hi: Default::default(),
            route: Default::default(),
            fifo: TlpFifo::whole_packets(),
            link: Default::default(),
            link_out: Default::default(),
            merge: Default::default(),
            count: Default::default(),
        }
    }
}

impl Logic for PortPath {
    #[hdl_gen]
    fn update(&mut self) {
        self.route.clock.next = self.clock.val();
        self.route.reset.next = self.reset.val();
        self.fifo.clock.next = self.clock.val();
        self.fifo.reset.next = self.reset.val();
        self.link.clock.next = self.clock.val();
        self.link.reset.next = self.reset.val();
        self.link_out.clock.next = self.clock.val();
        self.link_out.reset.next = self.reset.val() || !self.link_up.val();
        self.merge.clock.next = self.clock.val();
        self.merge.reset.next = self.reset.val();
        self.count.clock.next = self.clock.val();
        self.count.reset.next = self.reset.val();

        // RX: hard IP -> RX stage -> ingress FIFO -> crossbar; to the link controller.
        PortSink::link(&mut self.rx, &mut self.route.rx);
        PortConfig::link(&mut self.port, &mut self.route.port);
        RouteConfig::link(&mut self.routes, &mut self.route.routes);
        TlpSource::join(&mut self.route.to_xbar, &mut self.fifo.sink);
        self.fifo.discard.next = self.route.discard.val();
        TlpSource::link(&mut self.to_xbar, &mut self.fifo.source);
        TlpSource::join(&mut self.route.to_link, &mut self.link.rx);

        // The link controller: role, bring-up, what the partner configured.
        self.link.link_up.next = self.link_up.val();
        self.route.link_up.next = self.link_up.val();
        self.merge.link_up.next = self.link_up.val();
        self.link.role_rc.next = self.port.role_rc.val();
        self.link.port_index.next = self.port.port_index.val();
        self.link.expected_partner.next = self.expected_partner.val();
        self.link.node_id.next = self.routes.node_id.val();
        self.link.ep_timeout.next = self.ep_timeout.val();
        self.link.cfg_timeout.next = self.cfg_timeout.val();
        self.ready.next = self.link.ready.val();
        self.device_id.next = self.link.device_id.val();
        self.mem_enable.next = self.link.mem_enable.val();
        self.max_payload.next = self.link.max_payload.val();
        self.max_read_req.next = self.link.max_read_req.val();
        self.bar0_base.next = self.link.bar0_base.val();
        self.bar2_base_hi.next = self.link.bar2_base_hi.val();

        // TX: crossbar and link controller -> TX merge -> hard IP.
        TlpSink::link(&mut self.from_xbar, &mut self.merge.from_xbar);
        TlpSource::join(&mut self.link.tx, &mut self.link_out.sink);
        TlpSource::join(&mut self.link_out.source, &mut self.merge.from_link);
        PortSource::link(&mut self.tx, &mut self.merge.tx);

        // Counters, status and configuration words.
        self.count.tlp_in.next = self.route.tlp_in.val();
        self.count.bytes_in.next = self.route.bytes_in.val();
        self.count.tlp_out.next = self.merge.tlp_out.val();
        self.count.bytes_out.next = self.merge.bytes_out.val();
        self.count.malformed.next = self.route.malformed.val();
        self.count.drop_rx.next = self.route.dropped.val();
        self.count.drop_xbar.next = self.drop_xbar.val();
        self.count.drop_internal.next = self.drop_internal.val();
        self.count.drop_egress.next = self.drop_egress.val();
        self.count.drop_link.next = self.link.dropped.val();
        self.count.ur_sent.next = self.ur_sent.val() || self.link.ur_sent.val();
        self.tlps_in_count.next = self.count.tlps_in_count.val();
        self.bytes_in_count.next = self.count.bytes_in_count.val();
        self.tlps_out_count.next = self.count.tlps_out_count.val();
        self.bytes_out_count.next = self.count.bytes_out_count.val();
        self.drops_count.next = self.count.drops_count.val();
        self.errors_count.next = self.count.errors_count.val();
        self.ur_sent_count.next = self.count.ur_sent_count.val();
        self.status_word.next = bit_cast::<32, 1>(self.link.link_up.val().into())
            | (bit_cast::<32, 1>(self.link.role_rc.val().into()) << 1)
            | (bit_cast::<32, 1>(self.link.ready.val().into()) << 2)
            | (bit_cast::<32, 4>(self.link.state.val()) << 4)
            | (bit_cast::<32, 4>(self.link.error.val()) << 8)
            | (bit_cast::<32, 6>(self.link.partner_node.val()) << 16)
            | (bit_cast::<32, 2>(self.link.partner_port.val()) << 12)
            | (bit_cast::<32, 1>(self.link.partner_valid.val().into()) << 22)
            | (bit_cast::<32, 1>(self.xbar_busy.val().into()) << 23)
            | (bit_cast::<32, 6>(self.fifo.fill.val()) << 24);
        self.config_word.next = bit_cast::<32, 1>(self.link.mem_enable.val().into())
            | (bit_cast::<32, 1>(self.link.bus_master.val().into()) << 1)
            | (bit_cast::<32, 3>(self.link.max_payload.val()) << 4)
            | (bit_cast::<32, 3>(self.link.max_read_req.val()) << 8)
            | (bit_cast::<32, 16>(self.link.device_id.val()) << 16);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The port path's own Verilog lints clean, so a problem names this block (its
    /// behaviour is the chip's: `rtl/tests/chip_ring.rs` and the DMA tests run it).
    #[test]
    fn port_path_lint_clean() {
        let v = crate::verilog::export::block_verilog(&mut PortPath::default(), "port_path");
        crate::verilog::checks::lint_verilog(&v, "port_path").unwrap();
    }
}
