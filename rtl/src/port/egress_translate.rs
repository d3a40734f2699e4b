//! The N port's egress translation: a write that arrives at its destination node carries
//! a global address; here it becomes the local PCIe address of its target,
//! `TARGET[target] + offset` (the map is in `peach2_regmap::address`).
//!
//! A translated address below 4 GiB must travel in a 3-DW header (PCIe requires the
//! 32-bit format there), so the TLP loses one header DW and every payload DW moves one
//! lane down: the stage holds three lanes of each beat for the next. A write to a
//! disabled target is dropped and counted. Every other TLP passes unchanged.
//!
//! Two registers: [`EgressDecode`] holds each beat with its header's decoding (global
//! write, target enabled, local address); the translation here decides from them, with
//! the header's two translated forms from [`EgressHeaders`] and the lane shift of a
//! 3-DW write from [`EgressShift`].

use super::egress_decode::EgressDecode;
use super::egress_headers::EgressHeaders;
use super::egress_shift::EgressShift;
use crate::csr::target_regs::TARGETS;
use crate::stream::{TlpSink, TlpSource};
use rust_hdl::prelude::*;

/// What the stage does with the packet in progress.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum EgressMode {
    /// Between packets.
    Idle,
    /// Beats pass unchanged (after the header rewrite, if any).
    Pass,
    /// 4-DW to 3-DW: each output beat is three held lanes and the next beat's lane 0.
    Shift,
    /// The last output beat of a shifted packet: the held lanes alone.
    Flush,
    /// Beats are consumed and dropped.
    Drop,
}

/// Egress address translation for the N port.
#[derive(LogicBlock)]
pub struct EgressTranslate {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Upstream: packets the crossbar sends to N.
    pub from_xbar: TlpSink,
    /// Downstream: packets with local addresses.
    pub to_port: TlpSource,
    /// Local base address per target (host, GPU 0..3).
    pub target_base: [Signal<In, Bits<64>>; TARGETS],
    /// Enable bit per target.
    pub target_enable: Signal<In, Bits<5>>,
    /// Pulse: a write to a disabled target was dropped.
    pub dropped: Signal<Out, Bit>,
    /// What the stage does with the packet in progress.
    mode: DFF<EgressMode>,
    /// The first register: the beat and its header's decoding.
    decode: EgressDecode,
    /// The registered beat is used this cycle.
    take: Signal<Local, Bit>,
    /// The header's translated forms.
    headers: EgressHeaders,
    /// The lane shift of a shifted packet (`Shift`, `Flush`).
    shift: EgressShift,
}

impl Default for EgressTranslate {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            from_xbar: Default::default(),
            to_port: Default::default(),
            target_base: array_init::array_init(|_| Default::default()),
            target_enable: Default::default(),
            dropped: Default::default(),
            mode: Default::default(),
            decode: Default::default(),
            take: Default::default(),
            headers: Default::default(),
            shift: Default::default(),
        }
    }
}

impl Logic for EgressTranslate {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, mode);
        self.decode.clock.next = self.clock.val();
        self.decode.reset.next = self.reset.val();
        TlpSink::link(&mut self.from_xbar, &mut self.decode.from_xbar);
        for t in 0..TARGETS {
            self.decode.target_base[t].next = self.target_base[t].val();
        }
        self.decode.target_enable.next = self.target_enable.val();
        self.headers.head.next = self.decode.data.val().get_bits::<64>(0);
        self.headers.local_addr.next = self.decode.local_addr.val();
        self.shift.clock.next = self.clock.val();
        self.shift.data.next = self.decode.data.val();
        self.shift.eop.next = self.decode.eop.val();
        self.shift.empty.next = self.decode.empty.val();
        self.shift.header.next = self.headers.three_dw.val();
        self.shift.load.next = false;
        self.shift.advance.next = false;
        self.shift.flush.next = self.mode.q.val() == EgressMode::Flush;

        // Defaults: pass the input through.
        self.to_port.data.next = self.decode.data.val();
        self.to_port.sop.next = self.decode.sop.val();
        self.to_port.eop.next = self.decode.eop.val();
        self.to_port.empty.next = self.decode.empty.val();
        self.to_port.dest.next = self.decode.dest.val();
        self.to_port.src.next = self.decode.src.val();
        self.to_port.unsupported.next = self.decode.unsupported.val();
        self.to_port.valid.next = self.decode.valid.val();
        self.take.next = self.to_port.ready.val();
        self.dropped.next = false;
        // A shifted packet's beats are the lane shift's.
        if self.shift.flush.val() || (self.mode.q.val() == EgressMode::Shift) {
            self.to_port.data.next = self.shift.out_data.val();
            self.to_port.sop.next = self.shift.out_sop.val();
            self.to_port.eop.next = self.shift.out_eop.val();
            self.to_port.empty.next = self.shift.out_empty.val();
        }

        match self.mode.q.val() {
            EgressMode::Idle => {
                if self.decode.valid.val() && self.decode.global_write.val() {
                    if !self.decode.enabled.val() {
                        self.to_port.valid.next = false;
                        self.take.next = true;
                        self.dropped.next = true;
                        if !self.decode.eop.val() {
                            self.mode.d.next = EgressMode::Drop;
                        }
                    } else if self.decode.high.val() {
                        self.to_port.data.next = self.headers.four_dw.val();
                        if self.to_port.ready.val() && !self.decode.eop.val() {
                            self.mode.d.next = EgressMode::Pass;
                        }
                    } else {
                        // Absorb the header beat; it leaves with the first payload DW.
                        self.to_port.valid.next = false;
                        self.take.next = true;
                        self.shift.load.next = true;
                        self.mode.d.next = EgressMode::Shift;
                        if self.decode.eop.val() {
                            // No payload (malformed): the header leaves alone.
                            self.mode.d.next = EgressMode::Flush;
                        }
                    }
                } else if self.decode.valid.val()
                    && self.to_port.ready.val()
                    && !self.decode.eop.val()
                {
                    self.mode.d.next = EgressMode::Pass;
                }
            }
            EgressMode::Pass => {
                if self.decode.valid.val() && self.to_port.ready.val() && self.decode.eop.val() {
                    self.mode.d.next = EgressMode::Idle;
                }
            }
            EgressMode::Shift => {
                if self.decode.valid.val() && self.to_port.ready.val() {
                    self.shift.advance.next = true;
                    if self.decode.eop.val() {
                        self.mode.d.next = EgressMode::Flush;
                        if self.shift.ends.val() {
                            self.mode.d.next = EgressMode::Idle;
                        }
                    }
                }
            }
            EgressMode::Flush => {
                self.to_port.valid.next = true;
                self.take.next = false;
                if self.to_port.ready.val() {
                    self.mode.d.next = EgressMode::Idle;
                    // The next packet's header beat produces no output when it is to be
                    // shifted: take it in the same cycle, so back-to-back shifted packets
                    // keep one beat per cycle.
                    if self.decode.valid.val()
                        && self.decode.sop.val()
                        && self.decode.global_write.val()
                        && self.decode.enabled.val()
                        && !self.decode.high.val()
                        && !self.decode.eop.val()
                    {
                        self.take.next = true;
                        self.shift.load.next = true;
                        self.mode.d.next = EgressMode::Shift;
                    }
                }
            }
            EgressMode::Drop => {
                self.to_port.valid.next = false;
                self.take.next = true;
                if self.decode.valid.val() && self.decode.eop.val() {
                    self.mode.d.next = EgressMode::Idle;
                }
            }
        }
        if self.reset.val() {
            self.mode.d.next = EgressMode::Idle;
            self.to_port.valid.next = false;
            self.take.next = false;
        }
        self.decode.take.next = self.take.val() && self.decode.valid.val();
    }
}
