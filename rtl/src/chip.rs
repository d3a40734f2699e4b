//! The PEACH2 chip: four PCIe ports around a crossbar, with the CSRs, the internal
//! completer and the DMA controller (`crate::dmac`) sharing the crossbar's fifth port
//! through `crate::internal::mux`. Exported to Verilog as `peach2_core`.
//!
//! Data path of one TLP: `<p>_rx_*` -> [`RxRoute`] (routing decision, BAR2 rewrite) ->
//! ingress [`TlpFifo`] (32 beats, whole packets) -> [`Crossbar`] -> ([`EgressTranslate`] on N) ->
//! [`TxMerge`] (with the port's [`LinkCtrl`] traffic) -> `<p>_tx_*`. Config TLPs and
//! bring-up completions go from [`RxRoute`] to the port's [`LinkCtrl`] instead.
//!
//! Ports (flat, as the FPGA wrapper sees them; `<p>` is `n`, `e`, `w` or `s`):
//!
//! | name            | dir | width | meaning                                               |
//! |-----------------|-----|-------|-------------------------------------------------------|
//! | `clk`           | in  | 1     | core clock, 250 MHz (from the hard IPs)                |
//! | `rst`           | in  | 1     | synchronous reset, active high                         |
//! | `<p>_rx_data`   | in  | 128   | RX beat (format: `pcie_model::beats`)                  |
//! | `<p>_rx_valid`  | in  | 1     | RX beat valid                                          |
//! | `<p>_rx_ready`  | out | 1     | the chip takes the RX beat                             |
//! | `<p>_rx_sop`    | in  | 1     | first beat of a TLP                                    |
//! | `<p>_rx_eop`    | in  | 1     | last beat of a TLP                                     |
//! | `<p>_rx_empty`  | in  | 2     | unused DW lanes in the last beat                       |
//! | `<p>_tx_data`   | out | 128   | TX beat                                                |
//! | `<p>_tx_valid`  | out | 1     | TX beat valid                                          |
//! | `<p>_tx_ready`  | in  | 1     | the hard IP takes the TX beat                          |
//! | `<p>_tx_sop`    | out | 1     | first beat of a TLP                                    |
//! | `<p>_tx_eop`    | out | 1     | last beat of a TLP                                     |
//! | `<p>_tx_empty`  | out | 2     | unused DW lanes in the last beat                       |
//! | `<p>_link_up`   | in  | 1     | data link up (hard IP's DL_Up)                         |
//! | `s_role_rc`     | in  | 1     | strap: S port plays the root complex (1) or endpoint (0) |
//!
//! Roles: N and E are endpoints, W is a root complex, S follows `s_role_rc`.

use crate::csr::bus::{CsrBus, CsrSplit};
use crate::csr::counters::PortCounters;
use crate::csr::dma_regs::DmaRegs;
use crate::csr::regs::{CsrRegs, TARGETS};
use crate::dmac::{ChipDmac, CHANNELS};
use crate::internal::completer::InternalCompleter;
use crate::internal::mux::InternalMux;
use crate::internal::notify_store::NotifyStore;
use crate::port::egress_translate::EgressTranslate;
use crate::port::link_ctrl::LinkCtrl;
use crate::port::rx_route::RxRoute;
use crate::port::tx_merge::TxMerge;
use crate::stream::fifo::TlpFifo;
use crate::xbar::Crossbar;
use peach2_regmap::config::{CONFIG_TIMEOUT_CYCLES, EP_CONFIG_TIMEOUT_CYCLES, MAX_PAYLOAD_BYTES};
use rust_hdl::prelude::*;

/// Log2 of the ingress FIFO depth in beats (32 beats = 512 B: two 256 B TLPs).
pub const INGRESS_FIFO_LOG2: usize = 5;

// The ingress FIFO forwards whole packets, so it must hold the longest TLP a port lets
// through: a 4-DW header, the largest payload and a digest.
const _: () = assert!(
    (4 + MAX_PAYLOAD_BYTES as usize / 4 + 1).div_ceil(4) < 1 << INGRESS_FIFO_LOG2,
    "the ingress FIFO must hold the longest legal TLP"
);

/// The PEACH2 core.
#[derive(LogicBlock)]
pub struct Peach2Core {
    /// Core clock, 250 MHz.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// N port RX data (from the hard IP).
    pub n_rx_data: Signal<In, Bits<128>>,
    /// N port RX beat valid.
    pub n_rx_valid: Signal<In, Bit>,
    /// N port RX ready (the chip takes the beat).
    pub n_rx_ready: Signal<Out, Bit>,
    /// N port RX first beat of a TLP.
    pub n_rx_sop: Signal<In, Bit>,
    /// N port RX last beat of a TLP.
    pub n_rx_eop: Signal<In, Bit>,
    /// N port RX unused DW lanes in the last beat.
    pub n_rx_empty: Signal<In, Bits<2>>,
    /// N port TX data (to the hard IP).
    pub n_tx_data: Signal<Out, Bits<128>>,
    /// N port TX beat valid.
    pub n_tx_valid: Signal<Out, Bit>,
    /// N port TX ready (the hard IP takes the beat).
    pub n_tx_ready: Signal<In, Bit>,
    /// N port TX first beat of a TLP.
    pub n_tx_sop: Signal<Out, Bit>,
    /// N port TX last beat of a TLP.
    pub n_tx_eop: Signal<Out, Bit>,
    /// N port TX unused DW lanes in the last beat.
    pub n_tx_empty: Signal<Out, Bits<2>>,
    /// N port data link up (from the hard IP).
    pub n_link_up: Signal<In, Bit>,
    /// E port RX data (from the hard IP).
    pub e_rx_data: Signal<In, Bits<128>>,
    /// E port RX beat valid.
    pub e_rx_valid: Signal<In, Bit>,
    /// E port RX ready (the chip takes the beat).
    pub e_rx_ready: Signal<Out, Bit>,
    /// E port RX first beat of a TLP.
    pub e_rx_sop: Signal<In, Bit>,
    /// E port RX last beat of a TLP.
    pub e_rx_eop: Signal<In, Bit>,
    /// E port RX unused DW lanes in the last beat.
    pub e_rx_empty: Signal<In, Bits<2>>,
    /// E port TX data (to the hard IP).
    pub e_tx_data: Signal<Out, Bits<128>>,
    /// E port TX beat valid.
    pub e_tx_valid: Signal<Out, Bit>,
    /// E port TX ready (the hard IP takes the beat).
    pub e_tx_ready: Signal<In, Bit>,
    /// E port TX first beat of a TLP.
    pub e_tx_sop: Signal<Out, Bit>,
    /// E port TX last beat of a TLP.
    pub e_tx_eop: Signal<Out, Bit>,
    /// E port TX unused DW lanes in the last beat.
    pub e_tx_empty: Signal<Out, Bits<2>>,
    /// E port data link up (from the hard IP).
    pub e_link_up: Signal<In, Bit>,
    /// W port RX data (from the hard IP).
    pub w_rx_data: Signal<In, Bits<128>>,
    /// W port RX beat valid.
    pub w_rx_valid: Signal<In, Bit>,
    /// W port RX ready (the chip takes the beat).
    pub w_rx_ready: Signal<Out, Bit>,
    /// W port RX first beat of a TLP.
    pub w_rx_sop: Signal<In, Bit>,
    /// W port RX last beat of a TLP.
    pub w_rx_eop: Signal<In, Bit>,
    /// W port RX unused DW lanes in the last beat.
    pub w_rx_empty: Signal<In, Bits<2>>,
    /// W port TX data (to the hard IP).
    pub w_tx_data: Signal<Out, Bits<128>>,
    /// W port TX beat valid.
    pub w_tx_valid: Signal<Out, Bit>,
    /// W port TX ready (the hard IP takes the beat).
    pub w_tx_ready: Signal<In, Bit>,
    /// W port TX first beat of a TLP.
    pub w_tx_sop: Signal<Out, Bit>,
    /// W port TX last beat of a TLP.
    pub w_tx_eop: Signal<Out, Bit>,
    /// W port TX unused DW lanes in the last beat.
    pub w_tx_empty: Signal<Out, Bits<2>>,
    /// W port data link up (from the hard IP).
    pub w_link_up: Signal<In, Bit>,
    /// S port RX data (from the hard IP).
    pub s_rx_data: Signal<In, Bits<128>>,
    /// S port RX beat valid.
    pub s_rx_valid: Signal<In, Bit>,
    /// S port RX ready (the chip takes the beat).
    pub s_rx_ready: Signal<Out, Bit>,
    /// S port RX first beat of a TLP.
    pub s_rx_sop: Signal<In, Bit>,
    /// S port RX last beat of a TLP.
    pub s_rx_eop: Signal<In, Bit>,
    /// S port RX unused DW lanes in the last beat.
    pub s_rx_empty: Signal<In, Bits<2>>,
    /// S port TX data (to the hard IP).
    pub s_tx_data: Signal<Out, Bits<128>>,
    /// S port TX beat valid.
    pub s_tx_valid: Signal<Out, Bit>,
    /// S port TX ready (the hard IP takes the beat).
    pub s_tx_ready: Signal<In, Bit>,
    /// S port TX first beat of a TLP.
    pub s_tx_sop: Signal<Out, Bit>,
    /// S port TX last beat of a TLP.
    pub s_tx_eop: Signal<Out, Bit>,
    /// S port TX unused DW lanes in the last beat.
    pub s_tx_empty: Signal<Out, Bits<2>>,
    /// S port data link up (from the hard IP).
    pub s_link_up: Signal<In, Bit>,
    /// Strap: the S port plays the root complex.
    pub s_role_rc: Signal<In, Bit>,
    rx: [RxRoute; 4],
    fifo: [TlpFifo<INGRESS_FIFO_LOG2, 6>; 4],
    link: [LinkCtrl; 4],
    merge: [TxMerge; 4],
    egress: EgressTranslate,
    xbar: Crossbar,
    completer: InternalCompleter,
    notify: NotifyStore,
    csr_split: CsrSplit,
    imux: InternalMux,
    dmac: ChipDmac,
    dma_regs: DmaRegs,
    regs: CsrRegs,
    counters: [PortCounters; 4],
    port_ready: Signal<Local, Bits<4>>,
    ep_timeout: Constant<Bits<32>>,
    cfg_timeout: Constant<Bits<32>>,
}

impl Peach2Core {
    /// A core with every register at its reset value.
    pub fn new() -> Self {
        Self {
            clk: Default::default(),
            rst: Default::default(),
            rx: array_init::array_init(|_| Default::default()),
            fifo: array_init::array_init(|_| TlpFifo::whole_packets()),
            link: array_init::array_init(|_| Default::default()),
            merge: array_init::array_init(|_| Default::default()),
            egress: Default::default(),
            xbar: Crossbar::new(),
            completer: Default::default(),
            notify: Default::default(),
            csr_split: Default::default(),
            imux: Default::default(),
            dmac: ChipDmac::new(),
            dma_regs: Default::default(),
            regs: Default::default(),
            counters: array_init::array_init(|_| Default::default()),
            port_ready: Default::default(),
            ep_timeout: Constant::new(u64::from(EP_CONFIG_TIMEOUT_CYCLES).into()),
            cfg_timeout: Constant::new(u64::from(CONFIG_TIMEOUT_CYCLES).into()),
            s_role_rc: Default::default(),
            n_rx_data: Default::default(),
            n_rx_valid: Default::default(),
            n_rx_ready: Default::default(),
            n_rx_sop: Default::default(),
            n_rx_eop: Default::default(),
            n_rx_empty: Default::default(),
            n_tx_data: Default::default(),
            n_tx_valid: Default::default(),
            n_tx_ready: Default::default(),
            n_tx_sop: Default::default(),
            n_tx_eop: Default::default(),
            n_tx_empty: Default::default(),
            n_link_up: Default::default(),
            e_rx_data: Default::default(),
            e_rx_valid: Default::default(),
            e_rx_ready: Default::default(),
            e_rx_sop: Default::default(),
            e_rx_eop: Default::default(),
            e_rx_empty: Default::default(),
            e_tx_data: Default::default(),
            e_tx_valid: Default::default(),
            e_tx_ready: Default::default(),
            e_tx_sop: Default::default(),
            e_tx_eop: Default::default(),
            e_tx_empty: Default::default(),
            e_link_up: Default::default(),
            w_rx_data: Default::default(),
            w_rx_valid: Default::default(),
            w_rx_ready: Default::default(),
            w_rx_sop: Default::default(),
            w_rx_eop: Default::default(),
            w_rx_empty: Default::default(),
            w_tx_data: Default::default(),
            w_tx_valid: Default::default(),
            w_tx_ready: Default::default(),
            w_tx_sop: Default::default(),
            w_tx_eop: Default::default(),
            w_tx_empty: Default::default(),
            w_link_up: Default::default(),
            s_rx_data: Default::default(),
            s_rx_valid: Default::default(),
            s_rx_ready: Default::default(),
            s_rx_sop: Default::default(),
            s_rx_eop: Default::default(),
            s_rx_empty: Default::default(),
            s_tx_data: Default::default(),
            s_tx_valid: Default::default(),
            s_tx_ready: Default::default(),
            s_tx_sop: Default::default(),
            s_tx_eop: Default::default(),
            s_tx_empty: Default::default(),
            s_link_up: Default::default(),
        }
    }

    /// The same core with shorter bring-up timeouts, for tests that cable chips wrongly
    /// and want the error within a few thousand cycles.
    pub fn with_timeouts(ep_timeout: u32, cfg_timeout: u32) -> Self {
        Self {
            ep_timeout: Constant::new(u64::from(ep_timeout).into()),
            cfg_timeout: Constant::new(u64::from(cfg_timeout).into()),
            ..Self::new()
        }
    }
}

impl Default for Peach2Core {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for Peach2Core {
    #[hdl_gen]
    fn update(&mut self) {
        // Clock and reset everywhere.
        for p in 0..4 {
            self.rx[p].clock.next = self.clk.val();
            self.rx[p].reset.next = self.rst.val();
            self.fifo[p].clock.next = self.clk.val();
            self.fifo[p].reset.next = self.rst.val();
            self.link[p].clock.next = self.clk.val();
            self.link[p].reset.next = self.rst.val();
            self.merge[p].clock.next = self.clk.val();
            self.merge[p].reset.next = self.rst.val();
            self.counters[p].clock.next = self.clk.val();
            self.counters[p].reset.next = self.rst.val();
        }
        self.egress.clock.next = self.clk.val();
        self.egress.reset.next = self.rst.val();
        self.xbar.clock.next = self.clk.val();
        self.xbar.reset.next = self.rst.val();
        self.completer.clock.next = self.clk.val();
        self.completer.reset.next = self.rst.val();
        self.regs.clock.next = self.clk.val();
        self.regs.reset.next = self.rst.val();
        self.imux.clock.next = self.clk.val();
        self.imux.reset.next = self.rst.val();
        self.dmac.clock.next = self.clk.val();
        self.dmac.reset.next = self.rst.val();
        self.dma_regs.clock.next = self.clk.val();
        self.dma_regs.reset.next = self.rst.val();

        // The hard IPs' streams.
        self.rx[0].rx.data.next = self.n_rx_data.val();
        self.rx[0].rx.valid.next = self.n_rx_valid.val();
        self.rx[0].rx.sop.next = self.n_rx_sop.val();
        self.rx[0].rx.eop.next = self.n_rx_eop.val();
        self.rx[0].rx.empty.next = self.n_rx_empty.val();
        self.n_rx_ready.next = self.rx[0].rx.ready.val();
        self.n_tx_data.next = self.merge[0].tx.data.val();
        self.n_tx_valid.next = self.merge[0].tx.valid.val();
        self.n_tx_sop.next = self.merge[0].tx.sop.val();
        self.n_tx_eop.next = self.merge[0].tx.eop.val();
        self.n_tx_empty.next = self.merge[0].tx.empty.val();
        self.merge[0].tx.ready.next = self.n_tx_ready.val();
        self.link[0].link_up.next = self.n_link_up.val();
        self.rx[1].rx.data.next = self.e_rx_data.val();
        self.rx[1].rx.valid.next = self.e_rx_valid.val();
        self.rx[1].rx.sop.next = self.e_rx_sop.val();
        self.rx[1].rx.eop.next = self.e_rx_eop.val();
        self.rx[1].rx.empty.next = self.e_rx_empty.val();
        self.e_rx_ready.next = self.rx[1].rx.ready.val();
        self.e_tx_data.next = self.merge[1].tx.data.val();
        self.e_tx_valid.next = self.merge[1].tx.valid.val();
        self.e_tx_sop.next = self.merge[1].tx.sop.val();
        self.e_tx_eop.next = self.merge[1].tx.eop.val();
        self.e_tx_empty.next = self.merge[1].tx.empty.val();
        self.merge[1].tx.ready.next = self.e_tx_ready.val();
        self.link[1].link_up.next = self.e_link_up.val();
        self.rx[2].rx.data.next = self.w_rx_data.val();
        self.rx[2].rx.valid.next = self.w_rx_valid.val();
        self.rx[2].rx.sop.next = self.w_rx_sop.val();
        self.rx[2].rx.eop.next = self.w_rx_eop.val();
        self.rx[2].rx.empty.next = self.w_rx_empty.val();
        self.w_rx_ready.next = self.rx[2].rx.ready.val();
        self.w_tx_data.next = self.merge[2].tx.data.val();
        self.w_tx_valid.next = self.merge[2].tx.valid.val();
        self.w_tx_sop.next = self.merge[2].tx.sop.val();
        self.w_tx_eop.next = self.merge[2].tx.eop.val();
        self.w_tx_empty.next = self.merge[2].tx.empty.val();
        self.merge[2].tx.ready.next = self.w_tx_ready.val();
        self.link[2].link_up.next = self.w_link_up.val();
        self.rx[3].rx.data.next = self.s_rx_data.val();
        self.rx[3].rx.valid.next = self.s_rx_valid.val();
        self.rx[3].rx.sop.next = self.s_rx_sop.val();
        self.rx[3].rx.eop.next = self.s_rx_eop.val();
        self.rx[3].rx.empty.next = self.s_rx_empty.val();
        self.s_rx_ready.next = self.rx[3].rx.ready.val();
        self.s_tx_data.next = self.merge[3].tx.data.val();
        self.s_tx_valid.next = self.merge[3].tx.valid.val();
        self.s_tx_sop.next = self.merge[3].tx.sop.val();
        self.s_tx_eop.next = self.merge[3].tx.eop.val();
        self.s_tx_empty.next = self.merge[3].tx.empty.val();
        self.merge[3].tx.ready.next = self.s_tx_ready.val();
        self.link[3].link_up.next = self.s_link_up.val();
        // Roles: N and E endpoints, W root complex, S by strap. An RC port names the
        // partner port it must meet: W meets E (1), S meets S (3).
        self.link[0].role_rc.next = false;
        self.link[1].role_rc.next = false;
        self.link[2].role_rc.next = true;
        self.link[3].role_rc.next = self.s_role_rc.val();
        self.link[0].port_index.next = 0.into();
        self.link[1].port_index.next = 1.into();
        self.link[2].port_index.next = 2.into();
        self.link[3].port_index.next = 3.into();
        self.link[0].expected_partner.next = 0.into();
        self.link[1].expected_partner.next = 0.into();
        self.link[2].expected_partner.next = 1.into();
        self.link[3].expected_partner.next = 3.into();
        self.rx[0].port.port_index.next = 0.into();
        self.rx[1].port.port_index.next = 1.into();
        self.rx[2].port.port_index.next = 2.into();
        self.rx[3].port.port_index.next = 3.into();
        self.port_ready.next = bit_cast::<4, 1>(self.link[0].ready.val().into())
            | (bit_cast::<4, 1>(self.link[1].ready.val().into()) << 1)
            | (bit_cast::<4, 1>(self.link[2].ready.val().into()) << 2)
            | (bit_cast::<4, 1>(self.link[3].ready.val().into()) << 3);

        for p in 0..4 {
            // Link controller configuration.
            self.link[p].node_id.next = self.regs.node_id.val();
            self.link[p].ep_timeout.next = self.ep_timeout.val();
            self.link[p].cfg_timeout.next = self.cfg_timeout.val();
            // RX stage configuration: BAR decoding only at N.
            self.rx[p].port.role_rc.next = self.link[p].role_rc.val();
            self.rx[p].routes.node_id.next = self.regs.node_id.val();
            self.rx[p].routes.route_table.next = self.regs.route_table.val();
            self.rx[p].routes.port_ready.next = self.port_ready.val();
            self.rx[p].port.bar0_enable.next = false;
            self.rx[p].port.bar0_base.next = self.link[0].bar0_base.val().get_bits::<16>(16);
            self.rx[p].port.bar2_enable.next = false;
            self.rx[p].port.bar2_base_hi.next = self.link[0].bar2_base_hi.val();

            // RX stage -> ingress FIFO -> crossbar.
            self.fifo[p].sink.data.next = self.rx[p].to_xbar.data.val();
            self.fifo[p].sink.sop.next = self.rx[p].to_xbar.sop.val();
            self.fifo[p].sink.eop.next = self.rx[p].to_xbar.eop.val();
            self.fifo[p].sink.empty.next = self.rx[p].to_xbar.empty.val();
            self.fifo[p].sink.dest.next = self.rx[p].to_xbar.dest.val();
            self.fifo[p].sink.src.next = self.rx[p].to_xbar.src.val();
            self.fifo[p].sink.unsupported.next = self.rx[p].to_xbar.unsupported.val();
            self.fifo[p].sink.valid.next = self.rx[p].to_xbar.valid.val();
            self.fifo[p].discard.next = self.rx[p].discard.val();
            self.rx[p].to_xbar.ready.next = self.fifo[p].sink.ready.val();
            self.xbar.sinks[p].data.next = self.fifo[p].source.data.val();
            self.xbar.sinks[p].sop.next = self.fifo[p].source.sop.val();
            self.xbar.sinks[p].eop.next = self.fifo[p].source.eop.val();
            self.xbar.sinks[p].empty.next = self.fifo[p].source.empty.val();
            self.xbar.sinks[p].dest.next = self.fifo[p].source.dest.val();
            self.xbar.sinks[p].src.next = self.fifo[p].source.src.val();
            self.xbar.sinks[p].unsupported.next = self.fifo[p].source.unsupported.val();
            self.xbar.sinks[p].valid.next = self.fifo[p].source.valid.val();
            self.fifo[p].source.ready.next = self.xbar.sinks[p].ready.val();

            // RX stage -> link controller -> TX merge.
            self.link[p].rx.data.next = self.rx[p].to_link.data.val();
            self.link[p].rx.sop.next = self.rx[p].to_link.sop.val();
            self.link[p].rx.eop.next = self.rx[p].to_link.eop.val();
            self.link[p].rx.empty.next = self.rx[p].to_link.empty.val();
            self.link[p].rx.dest.next = self.rx[p].to_link.dest.val();
            self.link[p].rx.src.next = self.rx[p].to_link.src.val();
            self.link[p].rx.unsupported.next = self.rx[p].to_link.unsupported.val();
            self.link[p].rx.valid.next = self.rx[p].to_link.valid.val();
            self.rx[p].to_link.ready.next = self.link[p].rx.ready.val();
            self.merge[p].from_link.data.next = self.link[p].tx.data.val();
            self.merge[p].from_link.sop.next = self.link[p].tx.sop.val();
            self.merge[p].from_link.eop.next = self.link[p].tx.eop.val();
            self.merge[p].from_link.empty.next = self.link[p].tx.empty.val();
            self.merge[p].from_link.dest.next = self.link[p].tx.dest.val();
            self.merge[p].from_link.src.next = self.link[p].tx.src.val();
            self.merge[p].from_link.unsupported.next = self.link[p].tx.unsupported.val();
            self.merge[p].from_link.valid.next = self.link[p].tx.valid.val();
            self.link[p].tx.ready.next = self.merge[p].from_link.ready.val();

            // Status word and counters.
            self.counters[p].tlp_in.next = self.rx[p].tlp_in.val();
            self.counters[p].bytes_in.next = self.rx[p].bytes_in.val();
            self.counters[p].tlp_out.next = self.merge[p].tlp_out.val();
            self.counters[p].bytes_out.next = self.merge[p].bytes_out.val();
            self.counters[p].malformed.next = self.rx[p].malformed.val();
            self.counters[p].drop_rx.next = self.rx[p].dropped.val();
            self.counters[p].drop_xbar.next = self.xbar.dropped.val().get_bit(p);
            self.counters[p].drop_internal.next =
                self.completer.dropped.val() && (self.completer.status_port.val().index() == p);
            self.counters[p].ur_sent.next =
                self.completer.ur_sent.val() && (self.completer.status_port.val().index() == p);
            self.regs.port_counters[7 * p].next = self.counters[p].tlps_in_count.val();
            self.regs.port_counters[7 * p + 1].next = self.counters[p].bytes_in_count.val();
            self.regs.port_counters[7 * p + 2].next = self.counters[p].tlps_out_count.val();
            self.regs.port_counters[7 * p + 3].next = self.counters[p].bytes_out_count.val();
            self.regs.port_counters[7 * p + 4].next = self.counters[p].drops_count.val();
            self.regs.port_counters[7 * p + 5].next = self.counters[p].errors_count.val();
            self.regs.port_counters[7 * p + 6].next = self.counters[p].ur_sent_count.val();
        }
        // Status words (rust-hdl cannot use a loop index inside bit_cast).
        self.regs.port_status[0].next = bit_cast::<32, 1>(self.link[0].link_up.val().into())
            | (bit_cast::<32, 1>(self.link[0].role_rc.val().into()) << 1)
            | (bit_cast::<32, 1>(self.link[0].ready.val().into()) << 2)
            | (bit_cast::<32, 4>(self.link[0].state.val()) << 4)
            | (bit_cast::<32, 4>(self.link[0].error.val()) << 8)
            | (bit_cast::<32, 4>(self.link[0].partner_node.val()) << 16)
            | (bit_cast::<32, 2>(self.link[0].partner_port.val()) << 20)
            | (bit_cast::<32, 1>(self.link[0].partner_valid.val().into()) << 22)
            | (bit_cast::<32, 1>(self.xbar.busy.val().get_bit(0).into()) << 23)
            | (bit_cast::<32, 6>(self.fifo[0].fill.val()) << 24);
        self.regs.port_config[0].next = bit_cast::<32, 1>(self.link[0].mem_enable.val().into())
            | (bit_cast::<32, 1>(self.link[0].bus_master.val().into()) << 1)
            | (bit_cast::<32, 3>(self.link[0].max_payload.val()) << 4)
            | (bit_cast::<32, 3>(self.link[0].max_read_req.val()) << 8)
            | (bit_cast::<32, 16>(self.link[0].device_id.val()) << 16);
        self.regs.port_status[1].next = bit_cast::<32, 1>(self.link[1].link_up.val().into())
            | (bit_cast::<32, 1>(self.link[1].role_rc.val().into()) << 1)
            | (bit_cast::<32, 1>(self.link[1].ready.val().into()) << 2)
            | (bit_cast::<32, 4>(self.link[1].state.val()) << 4)
            | (bit_cast::<32, 4>(self.link[1].error.val()) << 8)
            | (bit_cast::<32, 4>(self.link[1].partner_node.val()) << 16)
            | (bit_cast::<32, 2>(self.link[1].partner_port.val()) << 20)
            | (bit_cast::<32, 1>(self.link[1].partner_valid.val().into()) << 22)
            | (bit_cast::<32, 1>(self.xbar.busy.val().get_bit(1).into()) << 23)
            | (bit_cast::<32, 6>(self.fifo[1].fill.val()) << 24);
        self.regs.port_config[1].next = bit_cast::<32, 1>(self.link[1].mem_enable.val().into())
            | (bit_cast::<32, 1>(self.link[1].bus_master.val().into()) << 1)
            | (bit_cast::<32, 3>(self.link[1].max_payload.val()) << 4)
            | (bit_cast::<32, 3>(self.link[1].max_read_req.val()) << 8)
            | (bit_cast::<32, 16>(self.link[1].device_id.val()) << 16);
        self.regs.port_status[2].next = bit_cast::<32, 1>(self.link[2].link_up.val().into())
            | (bit_cast::<32, 1>(self.link[2].role_rc.val().into()) << 1)
            | (bit_cast::<32, 1>(self.link[2].ready.val().into()) << 2)
            | (bit_cast::<32, 4>(self.link[2].state.val()) << 4)
            | (bit_cast::<32, 4>(self.link[2].error.val()) << 8)
            | (bit_cast::<32, 4>(self.link[2].partner_node.val()) << 16)
            | (bit_cast::<32, 2>(self.link[2].partner_port.val()) << 20)
            | (bit_cast::<32, 1>(self.link[2].partner_valid.val().into()) << 22)
            | (bit_cast::<32, 1>(self.xbar.busy.val().get_bit(2).into()) << 23)
            | (bit_cast::<32, 6>(self.fifo[2].fill.val()) << 24);
        self.regs.port_config[2].next = bit_cast::<32, 1>(self.link[2].mem_enable.val().into())
            | (bit_cast::<32, 1>(self.link[2].bus_master.val().into()) << 1)
            | (bit_cast::<32, 3>(self.link[2].max_payload.val()) << 4)
            | (bit_cast::<32, 3>(self.link[2].max_read_req.val()) << 8)
            | (bit_cast::<32, 16>(self.link[2].device_id.val()) << 16);
        self.regs.port_status[3].next = bit_cast::<32, 1>(self.link[3].link_up.val().into())
            | (bit_cast::<32, 1>(self.link[3].role_rc.val().into()) << 1)
            | (bit_cast::<32, 1>(self.link[3].ready.val().into()) << 2)
            | (bit_cast::<32, 4>(self.link[3].state.val()) << 4)
            | (bit_cast::<32, 4>(self.link[3].error.val()) << 8)
            | (bit_cast::<32, 4>(self.link[3].partner_node.val()) << 16)
            | (bit_cast::<32, 2>(self.link[3].partner_port.val()) << 20)
            | (bit_cast::<32, 1>(self.link[3].partner_valid.val().into()) << 22)
            | (bit_cast::<32, 1>(self.xbar.busy.val().get_bit(3).into()) << 23)
            | (bit_cast::<32, 6>(self.fifo[3].fill.val()) << 24);
        self.regs.port_config[3].next = bit_cast::<32, 1>(self.link[3].mem_enable.val().into())
            | (bit_cast::<32, 1>(self.link[3].bus_master.val().into()) << 1)
            | (bit_cast::<32, 3>(self.link[3].max_payload.val()) << 4)
            | (bit_cast::<32, 3>(self.link[3].max_read_req.val()) << 8)
            | (bit_cast::<32, 16>(self.link[3].device_id.val()) << 16);
        // BARs decode at N only, once the host enabled memory space.
        self.rx[0].port.bar0_enable.next = self.link[0].mem_enable.val();
        self.rx[0].port.bar2_enable.next = self.link[0].mem_enable.val();
        // Egress translation drops count against N.
        self.counters[0].drop_egress.next = self.egress.dropped.val();
        self.counters[1].drop_egress.next = false;
        self.counters[2].drop_egress.next = false;
        self.counters[3].drop_egress.next = false;

        // Crossbar outputs: N through egress translation, the others straight to TX.
        self.egress.from_xbar.data.next = self.xbar.sources[0].data.val();
        self.egress.from_xbar.sop.next = self.xbar.sources[0].sop.val();
        self.egress.from_xbar.eop.next = self.xbar.sources[0].eop.val();
        self.egress.from_xbar.empty.next = self.xbar.sources[0].empty.val();
        self.egress.from_xbar.dest.next = self.xbar.sources[0].dest.val();
        self.egress.from_xbar.src.next = self.xbar.sources[0].src.val();
        self.egress.from_xbar.unsupported.next = self.xbar.sources[0].unsupported.val();
        self.egress.from_xbar.valid.next = self.xbar.sources[0].valid.val();
        self.xbar.sources[0].ready.next = self.egress.from_xbar.ready.val();
        for t in 0..TARGETS {
            self.egress.target_base[t].next = self.regs.target_base[t].val();
        }
        self.egress.target_enable.next = self.regs.target_enable.val();
        self.merge[0].from_xbar.data.next = self.egress.to_port.data.val();
        self.merge[0].from_xbar.sop.next = self.egress.to_port.sop.val();
        self.merge[0].from_xbar.eop.next = self.egress.to_port.eop.val();
        self.merge[0].from_xbar.empty.next = self.egress.to_port.empty.val();
        self.merge[0].from_xbar.dest.next = self.egress.to_port.dest.val();
        self.merge[0].from_xbar.src.next = self.egress.to_port.src.val();
        self.merge[0].from_xbar.unsupported.next = self.egress.to_port.unsupported.val();
        self.merge[0].from_xbar.valid.next = self.egress.to_port.valid.val();
        self.egress.to_port.ready.next = self.merge[0].from_xbar.ready.val();
        for p in 1..4 {
            self.merge[p].from_xbar.data.next = self.xbar.sources[p].data.val();
            self.merge[p].from_xbar.sop.next = self.xbar.sources[p].sop.val();
            self.merge[p].from_xbar.eop.next = self.xbar.sources[p].eop.val();
            self.merge[p].from_xbar.empty.next = self.xbar.sources[p].empty.val();
            self.merge[p].from_xbar.dest.next = self.xbar.sources[p].dest.val();
            self.merge[p].from_xbar.src.next = self.xbar.sources[p].src.val();
            self.merge[p].from_xbar.unsupported.next = self.xbar.sources[p].unsupported.val();
            self.merge[p].from_xbar.valid.next = self.xbar.sources[p].valid.val();
            self.xbar.sources[p].ready.next = self.merge[p].from_xbar.ready.val();
        }

        // The crossbar's fifth port: the internal completer and the DMA controller.
        self.imux.from_xbar.data.next = self.xbar.sources[4].data.val();
        self.imux.from_xbar.sop.next = self.xbar.sources[4].sop.val();
        self.imux.from_xbar.eop.next = self.xbar.sources[4].eop.val();
        self.imux.from_xbar.empty.next = self.xbar.sources[4].empty.val();
        self.imux.from_xbar.dest.next = self.xbar.sources[4].dest.val();
        self.imux.from_xbar.src.next = self.xbar.sources[4].src.val();
        self.imux.from_xbar.unsupported.next = self.xbar.sources[4].unsupported.val();
        self.imux.from_xbar.valid.next = self.xbar.sources[4].valid.val();
        self.xbar.sources[4].ready.next = self.imux.from_xbar.ready.val();
        self.completer.from_xbar.data.next = self.imux.to_completer.data.val();
        self.completer.from_xbar.sop.next = self.imux.to_completer.sop.val();
        self.completer.from_xbar.eop.next = self.imux.to_completer.eop.val();
        self.completer.from_xbar.empty.next = self.imux.to_completer.empty.val();
        self.completer.from_xbar.dest.next = self.imux.to_completer.dest.val();
        self.completer.from_xbar.src.next = self.imux.to_completer.src.val();
        self.completer.from_xbar.unsupported.next = self.imux.to_completer.unsupported.val();
        self.completer.from_xbar.valid.next = self.imux.to_completer.valid.val();
        self.imux.to_completer.ready.next = self.completer.from_xbar.ready.val();
        self.dmac.cpl.data.next = self.imux.to_dma.data.val();
        self.dmac.cpl.sop.next = self.imux.to_dma.sop.val();
        self.dmac.cpl.eop.next = self.imux.to_dma.eop.val();
        self.dmac.cpl.empty.next = self.imux.to_dma.empty.val();
        self.dmac.cpl.dest.next = self.imux.to_dma.dest.val();
        self.dmac.cpl.src.next = self.imux.to_dma.src.val();
        self.dmac.cpl.unsupported.next = self.imux.to_dma.unsupported.val();
        self.dmac.cpl.valid.next = self.imux.to_dma.valid.val();
        self.imux.to_dma.ready.next = self.dmac.cpl.ready.val();
        self.imux.from_completer.data.next = self.completer.to_xbar.data.val();
        self.imux.from_completer.sop.next = self.completer.to_xbar.sop.val();
        self.imux.from_completer.eop.next = self.completer.to_xbar.eop.val();
        self.imux.from_completer.empty.next = self.completer.to_xbar.empty.val();
        self.imux.from_completer.dest.next = self.completer.to_xbar.dest.val();
        self.imux.from_completer.src.next = self.completer.to_xbar.src.val();
        self.imux.from_completer.unsupported.next = self.completer.to_xbar.unsupported.val();
        self.imux.from_completer.valid.next = self.completer.to_xbar.valid.val();
        self.completer.to_xbar.ready.next = self.imux.from_completer.ready.val();
        self.imux.from_dma_rd.data.next = self.dmac.rd_out.data.val();
        self.imux.from_dma_rd.sop.next = self.dmac.rd_out.sop.val();
        self.imux.from_dma_rd.eop.next = self.dmac.rd_out.eop.val();
        self.imux.from_dma_rd.empty.next = self.dmac.rd_out.empty.val();
        self.imux.from_dma_rd.dest.next = self.dmac.rd_out.dest.val();
        self.imux.from_dma_rd.src.next = self.dmac.rd_out.src.val();
        self.imux.from_dma_rd.unsupported.next = self.dmac.rd_out.unsupported.val();
        self.imux.from_dma_rd.valid.next = self.dmac.rd_out.valid.val();
        self.dmac.rd_out.ready.next = self.imux.from_dma_rd.ready.val();
        self.imux.from_dma_wr.data.next = self.dmac.wr_out.data.val();
        self.imux.from_dma_wr.sop.next = self.dmac.wr_out.sop.val();
        self.imux.from_dma_wr.eop.next = self.dmac.wr_out.eop.val();
        self.imux.from_dma_wr.empty.next = self.dmac.wr_out.empty.val();
        self.imux.from_dma_wr.dest.next = self.dmac.wr_out.dest.val();
        self.imux.from_dma_wr.src.next = self.dmac.wr_out.src.val();
        self.imux.from_dma_wr.unsupported.next = self.dmac.wr_out.unsupported.val();
        self.imux.from_dma_wr.valid.next = self.dmac.wr_out.valid.val();
        self.dmac.wr_out.ready.next = self.imux.from_dma_wr.ready.val();
        self.xbar.sinks[4].data.next = self.imux.to_xbar.data.val();
        self.xbar.sinks[4].sop.next = self.imux.to_xbar.sop.val();
        self.xbar.sinks[4].eop.next = self.imux.to_xbar.eop.val();
        self.xbar.sinks[4].empty.next = self.imux.to_xbar.empty.val();
        self.xbar.sinks[4].dest.next = self.imux.to_xbar.dest.val();
        self.xbar.sinks[4].src.next = self.imux.to_xbar.src.val();
        self.xbar.sinks[4].unsupported.next = self.imux.to_xbar.unsupported.val();
        self.xbar.sinks[4].valid.next = self.imux.to_xbar.valid.val();
        self.imux.to_xbar.ready.next = self.xbar.sinks[4].ready.val();

        // DMA controller: configuration from N and the CSRs, its registers, its status.
        self.dmac.requester_id.next = self.link[0].device_id.val();
        self.dmac.max_read_req.next = self.link[0].max_read_req.val();
        self.dmac.max_payload.next = self.link[0].max_payload.val();
        self.dmac.routes.node_id.next = self.regs.node_id.val();
        self.dmac.routes.route_table.next = self.regs.route_table.val();
        self.dmac.routes.port_ready.next = self.port_ready.val();
        self.dmac.chain_limit.next = self.dma_regs.chain_limit.val();
        self.dmac.cpl_timeout.next = self.dma_regs.cpl_timeout.val();
        self.dmac.msi_addr.next = self.dma_regs.msi_addr.val();
        self.dmac.msi_data.next = self.dma_regs.msi_data.val();
        for c in 0..CHANNELS {
            self.dmac.start[c].next = self.dma_regs.start[c].val();
            self.dmac.start_host[c].next = self.dma_regs.start_host[c].val();
            self.dmac.start_index[c].next = self.dma_regs.start_index[c].val();
            self.dmac.desc_base[c].next = self.dma_regs.desc_base[c].val();
            self.dmac.notify_rx_addr[c].next = self.dma_regs.notify_rx_addr[c].val();
            self.dmac.notify_self_addr[c].next = self.dma_regs.notify_self_addr[c].val();
            self.dmac.notify_value[c].next = self.dma_regs.notify_value[c].val();
            self.dma_regs.status[c].next = self.dmac.status[c].val();
            self.dma_regs.count[c].next = self.dmac.count[c].val();
            self.dma_regs.current[c].next = self.dmac.current[c].val();
        }
        self.completer.completer_id.next = self.link[0].device_id.val();
        self.notify.clock.next = self.clk.val();
        // The CSR bus: the completer's accesses to every target.
        CsrBus::join(&mut self.completer.csr, &mut self.csr_split.from_completer);
        CsrBus::join(&mut self.csr_split.to_targets[0], &mut self.regs.csr);
        CsrBus::join(&mut self.csr_split.to_targets[1], &mut self.dma_regs.csr);
        CsrBus::join(&mut self.csr_split.to_targets[2], &mut self.dmac.csr);
        CsrBus::join(&mut self.csr_split.to_targets[3], &mut self.notify.csr);
        self.regs.cpl_unexpected.next =
            self.completer.cpl_unexpected.val() || self.dmac.cpl_unexpected.val();
    }
}
