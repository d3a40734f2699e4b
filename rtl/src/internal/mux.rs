//! The crossbar's internal port shared by the internal completer and the DMA controller,
//! in four stages: [`LoopSplit`] takes the DMA's writes to the internal port itself out
//! of its write stream, [`InboundMux`] steers what the crossbar delivers (and those
//! looped writes) to the completer or the DMA, [`OutboundMux`] takes turns between the
//! DMA's reads and its other writes, and a [`TlpSkid`] hands them to the crossbar.
//!
//! The skid is for timing: without it the crossbar's arbitration waited on the outbound
//! mux's choice, and the DMA's output FIFOs on the crossbar's `ready`, one combinational
//! path 7 to 9 LUT levels deep (the README's timing estimate). It costs the DMA's packets
//! one cycle on their way out and no throughput.
//!
//! A DMA write to the internal port itself (a notification into this chip's store,
//! `tcaDMANotifySelf` with `tcaDMAUseNotifyInternal`) loops back to the completer here
//! instead of crossing the crossbar: through the crossbar it would wait for the
//! crossbar's internal output, which a request for the completer may hold while the
//! completer waits to send its completion; the chip would stop (found by `peach2 fuzz`,
//! when completions shared this mux's output).

use super::inbound_mux::InboundMux;
use super::loop_split::LoopSplit;
use super::outbound_mux::OutboundMux;
use crate::stream::skid::TlpSkid;
use crate::stream::{TlpSink, TlpSource};
use rust_hdl::prelude::*;

/// The internal port multiplexer.
#[derive(LogicBlock)]
pub struct InternalMux {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Upstream: what the crossbar delivers to the internal port.
    pub from_xbar: TlpSink,
    /// Downstream: to the completer.
    pub to_completer: TlpSource,
    /// Downstream: completions for the DMA.
    pub to_dma: TlpSource,
    /// Upstream: the DMA's reads.
    pub from_dma_rd: TlpSink,
    /// Upstream: the DMA's writes. Every beat carries its packet's `dest`, and `dest` is
    /// an endpoint (0..=4): the DMA's destinations come from the route lookup.
    pub from_dma_wr: TlpSink,
    /// Downstream: into the crossbar.
    pub to_xbar: TlpSource,
    /// The DMA's writes to the internal port, out of its write stream.
    split: LoopSplit,
    /// The crossbar's deliveries and the loop, to the completer or the DMA.
    inbound: InboundMux,
    /// The DMA's reads and other writes, taking turns.
    outbound: OutboundMux,
    /// The outbound stream's register, into the crossbar (reset with it: the crossbar's
    /// arbitration starts at its `valid` register).
    out: TlpSkid,
}

impl Default for InternalMux {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            from_xbar: Default::default(),
            to_completer: Default::default(),
            to_dma: Default::default(),
            from_dma_rd: Default::default(),
            from_dma_wr: Default::default(),
            to_xbar: Default::default(),
            split: Default::default(),
            inbound: Default::default(),
            outbound: Default::default(),
            out: TlpSkid::reader_reset_with_it(),
        }
    }
}

impl Logic for InternalMux {
    #[hdl_gen]
    fn update(&mut self) {
        self.inbound.clock.next = self.clock.val();
        self.inbound.reset.next = self.reset.val();
        self.outbound.clock.next = self.clock.val();
        self.outbound.reset.next = self.reset.val();
        self.out.clock.next = self.clock.val();
        self.out.reset.next = self.reset.val();
        TlpSink::link(&mut self.from_dma_wr, &mut self.split.sink);
        TlpSink::link(&mut self.from_xbar, &mut self.inbound.from_xbar);
        TlpSource::join(&mut self.split.looped, &mut self.inbound.from_loop);
        TlpSource::link(&mut self.to_completer, &mut self.inbound.to_completer);
        TlpSource::link(&mut self.to_dma, &mut self.inbound.to_dma);
        TlpSink::link(&mut self.from_dma_rd, &mut self.outbound.from_rd);
        TlpSource::join(&mut self.split.onward, &mut self.outbound.from_wr);
        TlpSource::join(&mut self.outbound.to_xbar, &mut self.out.sink);
        TlpSource::link(&mut self.to_xbar, &mut self.out.source);
    }
}
