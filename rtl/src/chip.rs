//! The PEACH2 chip: four PCIe ports around a crossbar, with the CSRs, the internal
//! completer and the DMA controller (`crate::dmac`) sharing the crossbar's fifth port
//! through `crate::internal::mux` (the completer's completions enter the crossbar by an
//! input of their own). Exported to Verilog as `peach2_core`.
//!
//! Data path of one TLP: `<p>_rx_*` -> the port's [`PortPath`] (RX stage: routing
//! decision, BAR2 rewrite; ingress FIFO: 32 beats, whole packets) -> [`Crossbar`] ->
//! ([`EgressTranslate`] on N) -> the destination's [`PortPath`] (TX merge, with the port's
//! link controller traffic) -> `<p>_tx_*`. Config TLPs and bring-up completions go from
//! the RX stage to the port's link controller instead.
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

use crate::csr::bus::{CsrBus, CsrSplit, TARGETS as CSR_TARGETS};
use crate::csr::counters::PORT_COUNTERS;
use crate::csr::dma_channel_regs::ChannelRegs;
use crate::csr::dma_regs::DmaRegs;
use crate::csr::regs::CsrRegs;
use crate::csr::target_regs::TARGETS;
use crate::dmac::{ChipDmac, CHANNELS};
use crate::internal::completer::InternalCompleter;
use crate::internal::mux::InternalMux;
use crate::internal::notify_store::NotifyStore;
use crate::port::egress_translate::EgressTranslate;
use crate::port::path::PortPath;
use crate::stream::{TlpSink, TlpSource};
use crate::xbar::{Crossbar, INPUT_COMPLETIONS};
use peach2_regmap::config::{CONFIG_TIMEOUT_CYCLES, EP_CONFIG_TIMEOUT_CYCLES};
use rust_hdl::prelude::*;

// The completer's completions are joined to crossbar input 5 (a literal: indices in
// `update()` take literals and loop variables only).
const _: () = assert!(INPUT_COMPLETIONS == 5);

pub use crate::port::path::INGRESS_FIFO_LOG2;

const _: () = assert!(PORT_COUNTERS == 7);

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
    /// The four ports' paths (N, E, W, S).
    ports: [PortPath; 4],
    /// Address translation of what leaves by N.
    egress: EgressTranslate,
    /// Ports 0..3, the internal port 4 and its completions (input 5).
    xbar: Crossbar,
    /// BAR0 requests and UR answers.
    completer: InternalCompleter,
    /// Notifications sent into the chip.
    notify: NotifyStore,
    /// The CSR bus to every BAR0 target.
    csr_split: CsrSplit<CSR_TARGETS>,
    /// The internal port shared by the completer and the DMA (the DMA's packets out).
    imux: InternalMux,
    /// The DMA controller.
    dmac: ChipDmac,
    /// The DMA's registers.
    dma_regs: DmaRegs,
    /// The register file.
    regs: CsrRegs,
    /// Per port: link ready.
    port_ready: Signal<Local, Bits<4>>,
    /// Bring-up timeout of the EP role.
    ep_timeout: Constant<Bits<32>>,
    /// Bring-up timeout of the RC role's configuration requests.
    cfg_timeout: Constant<Bits<32>>,
}

impl Peach2Core {
    /// A core with every register at its reset value.
    pub fn new() -> Self {
        Self {
            clk: Default::default(),
            rst: Default::default(),
            ports: array_init::array_init(|_| Default::default()),
            egress: Default::default(),
            xbar: Crossbar::new(),
            completer: Default::default(),
            notify: Default::default(),
            csr_split: Default::default(),
            imux: Default::default(),
            dmac: ChipDmac::new(),
            dma_regs: Default::default(),
            regs: Default::default(),
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

    /// The DMA controller, for tests that watch its inner handshakes.
    #[cfg(test)]
    pub(crate) fn dmac(&self) -> &ChipDmac {
        &self.dmac
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
            self.ports[p].clock.next = self.clk.val();
            self.ports[p].reset.next = self.rst.val();
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
        self.notify.clock.next = self.clk.val();

        // The hard IPs' streams.
        self.ports[0].rx.data.next = self.n_rx_data.val();
        self.ports[0].rx.valid.next = self.n_rx_valid.val();
        self.ports[0].rx.sop.next = self.n_rx_sop.val();
        self.ports[0].rx.eop.next = self.n_rx_eop.val();
        self.ports[0].rx.empty.next = self.n_rx_empty.val();
        self.n_rx_ready.next = self.ports[0].rx.ready.val();
        self.n_tx_data.next = self.ports[0].tx.data.val();
        self.n_tx_valid.next = self.ports[0].tx.valid.val();
        self.n_tx_sop.next = self.ports[0].tx.sop.val();
        self.n_tx_eop.next = self.ports[0].tx.eop.val();
        self.n_tx_empty.next = self.ports[0].tx.empty.val();
        self.ports[0].tx.ready.next = self.n_tx_ready.val();
        self.ports[0].link_up.next = self.n_link_up.val();
        self.ports[1].rx.data.next = self.e_rx_data.val();
        self.ports[1].rx.valid.next = self.e_rx_valid.val();
        self.ports[1].rx.sop.next = self.e_rx_sop.val();
        self.ports[1].rx.eop.next = self.e_rx_eop.val();
        self.ports[1].rx.empty.next = self.e_rx_empty.val();
        self.e_rx_ready.next = self.ports[1].rx.ready.val();
        self.e_tx_data.next = self.ports[1].tx.data.val();
        self.e_tx_valid.next = self.ports[1].tx.valid.val();
        self.e_tx_sop.next = self.ports[1].tx.sop.val();
        self.e_tx_eop.next = self.ports[1].tx.eop.val();
        self.e_tx_empty.next = self.ports[1].tx.empty.val();
        self.ports[1].tx.ready.next = self.e_tx_ready.val();
        self.ports[1].link_up.next = self.e_link_up.val();
        self.ports[2].rx.data.next = self.w_rx_data.val();
        self.ports[2].rx.valid.next = self.w_rx_valid.val();
        self.ports[2].rx.sop.next = self.w_rx_sop.val();
        self.ports[2].rx.eop.next = self.w_rx_eop.val();
        self.ports[2].rx.empty.next = self.w_rx_empty.val();
        self.w_rx_ready.next = self.ports[2].rx.ready.val();
        self.w_tx_data.next = self.ports[2].tx.data.val();
        self.w_tx_valid.next = self.ports[2].tx.valid.val();
        self.w_tx_sop.next = self.ports[2].tx.sop.val();
        self.w_tx_eop.next = self.ports[2].tx.eop.val();
        self.w_tx_empty.next = self.ports[2].tx.empty.val();
        self.ports[2].tx.ready.next = self.w_tx_ready.val();
        self.ports[2].link_up.next = self.w_link_up.val();
        self.ports[3].rx.data.next = self.s_rx_data.val();
        self.ports[3].rx.valid.next = self.s_rx_valid.val();
        self.ports[3].rx.sop.next = self.s_rx_sop.val();
        self.ports[3].rx.eop.next = self.s_rx_eop.val();
        self.ports[3].rx.empty.next = self.s_rx_empty.val();
        self.s_rx_ready.next = self.ports[3].rx.ready.val();
        self.s_tx_data.next = self.ports[3].tx.data.val();
        self.s_tx_valid.next = self.ports[3].tx.valid.val();
        self.s_tx_sop.next = self.ports[3].tx.sop.val();
        self.s_tx_eop.next = self.ports[3].tx.eop.val();
        self.s_tx_empty.next = self.ports[3].tx.empty.val();
        self.ports[3].tx.ready.next = self.s_tx_ready.val();
        self.ports[3].link_up.next = self.s_link_up.val();
        // Roles: N and E endpoints, W root complex, S by strap. An RC port names the
        // partner port it must meet: W meets E (1), S meets S (3).
        self.ports[0].port.role_rc.next = false;
        self.ports[1].port.role_rc.next = false;
        self.ports[2].port.role_rc.next = true;
        self.ports[3].port.role_rc.next = self.s_role_rc.val();
        self.ports[0].port.port_index.next = 0.into();
        self.ports[1].port.port_index.next = 1.into();
        self.ports[2].port.port_index.next = 2.into();
        self.ports[3].port.port_index.next = 3.into();
        self.ports[0].expected_partner.next = 0.into();
        self.ports[1].expected_partner.next = 0.into();
        self.ports[2].expected_partner.next = 1.into();
        self.ports[3].expected_partner.next = 3.into();
        self.port_ready.next = bit_cast::<4, 1>(self.ports[0].ready.val().into())
            | (bit_cast::<4, 1>(self.ports[1].ready.val().into()) << 1)
            | (bit_cast::<4, 1>(self.ports[2].ready.val().into()) << 2)
            | (bit_cast::<4, 1>(self.ports[3].ready.val().into()) << 3);

        for p in 0..4 {
            // Configuration: routes, timeouts; BARs decode at N only (below).
            self.ports[p].routes.node_id.next = self.regs.node_id.val();
            self.ports[p].routes.route_table.next = self.regs.route_table.val();
            self.ports[p].routes.port_ready.next = self.port_ready.val();
            self.ports[p].ep_timeout.next = self.ep_timeout.val();
            self.ports[p].cfg_timeout.next = self.cfg_timeout.val();
            self.ports[p].port.bar0_enable.next = false;
            self.ports[p].port.bar0_base.next = self.ports[0].bar0_base.val().get_bits::<16>(16);
            self.ports[p].port.bar2_enable.next = false;
            self.ports[p].port.bar2_base_hi.next = self.ports[0].bar2_base_hi.val();

            // Into the crossbar.
            TlpSource::join(&mut self.ports[p].to_xbar, &mut self.xbar.sinks[p]);

            // Events counted against the port, its status for the register file.
            self.ports[p].drop_xbar.next = self.xbar.dropped.val().get_bit(p);
            self.ports[p].drop_internal.next =
                self.completer.dropped.val() && (self.completer.status_port.val().index() == p);
            self.ports[p].ur_sent.next =
                self.completer.ur_sent.val() && (self.completer.status_port.val().index() == p);
            self.ports[p].drop_egress.next = false;
            self.ports[p].xbar_busy.next = self.xbar.busy.val().get_bit(p);
            self.regs.port_status[p].next = self.ports[p].status_word.val();
            self.regs.port_config[p].next = self.ports[p].config_word.val();
            // In register order (index expressions take literals and loop variables only).
            self.regs.port_counters[7 * p].next = self.ports[p].tlps_in_count.val();
            self.regs.port_counters[7 * p + 1].next = self.ports[p].bytes_in_count.val();
            self.regs.port_counters[7 * p + 2].next = self.ports[p].tlps_out_count.val();
            self.regs.port_counters[7 * p + 3].next = self.ports[p].bytes_out_count.val();
            self.regs.port_counters[7 * p + 4].next = self.ports[p].drops_count.val();
            self.regs.port_counters[7 * p + 5].next = self.ports[p].errors_count.val();
            self.regs.port_counters[7 * p + 6].next = self.ports[p].ur_sent_count.val();
        }
        // BARs decode at N only, once the host enabled memory space.
        self.ports[0].port.bar0_enable.next = self.ports[0].mem_enable.val();
        self.ports[0].port.bar2_enable.next = self.ports[0].mem_enable.val();
        // Egress translation drops count against N.
        self.ports[0].drop_egress.next = self.egress.dropped.val();

        // Out of the crossbar: N through egress translation, the others straight to TX.
        TlpSource::join(&mut self.xbar.sources[0], &mut self.egress.from_xbar);
        for t in 0..TARGETS {
            self.egress.target_base[t].next = self.regs.target_base[t].val();
        }
        self.egress.target_enable.next = self.regs.target_enable.val();
        TlpSource::join(&mut self.egress.to_port, &mut self.ports[0].from_xbar);
        TlpSource::join(&mut self.xbar.sources[1], &mut self.ports[1].from_xbar);
        TlpSource::join(&mut self.xbar.sources[2], &mut self.ports[2].from_xbar);
        TlpSource::join(&mut self.xbar.sources[3], &mut self.ports[3].from_xbar);

        // The crossbar's fifth port: the internal completer and the DMA controller.
        TlpSource::join(&mut self.xbar.sources[4], &mut self.imux.from_xbar);
        TlpSource::join(&mut self.imux.to_completer, &mut self.completer.from_xbar);
        TlpSource::join(&mut self.imux.to_dma, &mut self.dmac.cpl);
        TlpSource::join(&mut self.completer.to_xbar, &mut self.xbar.sinks[5]);
        TlpSource::join(&mut self.dmac.rd_out, &mut self.imux.from_dma_rd);
        TlpSource::join(&mut self.dmac.wr_out, &mut self.imux.from_dma_wr);
        TlpSink::join(&mut self.xbar.sinks[4], &mut self.imux.to_xbar);

        // DMA controller: configuration from N and the CSRs, its registers, its status.
        self.dmac.requester_id.next = self.ports[0].device_id.val();
        self.dmac.max_read_req.next = self.ports[0].max_read_req.val();
        self.dmac.max_payload.next = self.ports[0].max_payload.val();
        self.dmac.routes.node_id.next = self.regs.node_id.val();
        self.dmac.routes.route_table.next = self.regs.route_table.val();
        self.dmac.routes.port_ready.next = self.port_ready.val();
        self.dmac.chain_limit.next = self.dma_regs.chain_limit.val();
        self.dmac.cpl_timeout.next = self.dma_regs.cpl_timeout.val();
        self.dmac.notify_at_last_read.next = self.dma_regs.notify_at_last_read.val();
        self.dmac.msi_addr.next = self.dma_regs.msi_addr.val();
        self.dmac.msi_data.next = self.dma_regs.msi_data.val();
        for c in 0..CHANNELS {
            ChannelRegs::join(&mut self.dma_regs.channel[c], &mut self.dmac.channel[c]);
        }
        self.completer.completer_id.next = self.ports[0].device_id.val();
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
