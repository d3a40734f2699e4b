//! The crossbar's internal port shared by the internal completer and the DMA controller.
//!
//! Inbound: a completion (Cpl/CplD) whose tag is in the DMA's range (tag bits 7:6 = 0:
//! `peach2_regmap::dma::tags::DMA_RANGE_END`) goes to the DMA; everything else (CSR
//! requests, UR cases,
//! completions for nobody) goes to the completer. The choice is made on the `sop` beat
//! and held for the packet. Outbound: the DMA's reads and writes share the crossbar
//! input, round robin between packets (a packet is never interleaved), so a read never
//! passes an earlier write; the completer's completions do not come through here but
//! enter the crossbar by an input of their own (`crate::xbar::INPUT_COMPLETIONS`), so a
//! register read is answered while a DMA packet waits for its output.
//!
//! A DMA write to the internal port itself (a notification into this chip's store,
//! `tcaDMANotifySelf` with `tcaDMAUseNotifyInternal`) loops back to the completer here
//! instead of crossing the crossbar: through the crossbar it would wait for the
//! crossbar's internal output, which a request for the completer may hold while the
//! completer waits to send its completion; the chip would stop (found by `peach2 fuzz`,
//! when completions shared this mux's output). The completer's inputs, the crossbar and
//! the loop, take turns between packets.

use crate::stream::{TlpSink, TlpSource, NUM_ENDPOINTS, PORT_INTERNAL};
use peach2_regmap::dma::tags::DMA_RANGE_END;
use rust_hdl::prelude::*;

// The decode below: tag bits 7:6 clear.
const _: () = assert!(DMA_RANGE_END == 64);
// The loop below names the internal port by bit 2 of an endpoint number: it is the only
// endpoint with that bit.
const _: () = assert!(PORT_INTERNAL == 4 && NUM_ENDPOINTS == 5);

/// The internal port multiplexer.
#[derive(LogicBlock, Default)]
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
    /// Inbound: inside a packet.
    in_pkt: DFF<Bit>,
    /// Inbound: the packet goes to the DMA.
    in_dma: DFF<Bit>,
    /// Inbound: the packet is a looped-back DMA write.
    in_loop: DFF<Bit>,
    /// Inbound: the loop goes first when both wait (they alternate).
    prefer_loop: DFF<Bit>,
    /// Outbound: inside a packet of source `cur`.
    locked: DFF<Bit>,
    /// Outbound: the packet in progress is a write (else a read).
    cur: DFF<Bit>,
    /// Outbound: the last packet sent was a write (reads go next when both wait).
    last: DFF<Bit>,
    /// Inbound: the packet from the crossbar is a completion with one of the DMA's tags,
    /// decided at its first beat and held in `in_dma` after (never while the loop's
    /// write goes to the completer).
    sel_dma: Signal<Local, Bit>,
    /// The DMA write stream carries a packet for the internal port.
    wr_loop: Signal<Local, Bit>,
    /// This packet comes in through the loop.
    use_loop: Signal<Local, Bit>,
    /// Inbound: the beat on offer (the crossbar's, or the loop's).
    in_valid: Signal<Local, Bit>,
    /// ... is taken this cycle by its reader.
    in_ready: Signal<Local, Bit>,
    /// ... is its packet's last.
    in_eop: Signal<Local, Bit>,
    /// Outbound: a write waits (not one of the loop's).
    wr_req: Signal<Local, Bit>,
    /// Outbound: the write stream goes next, between packets.
    pick_wr: Signal<Local, Bit>,
    /// Outbound: the write stream drives the crossbar input this cycle.
    src_wr: Signal<Local, Bit>,
    /// Outbound: a beat went into the crossbar this cycle.
    moved: Signal<Local, Bit>,
}

impl Logic for InternalMux {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            in_pkt,
            in_dma,
            in_loop,
            prefer_loop,
            locked,
            cur,
            last
        );
        // The DMA's write stream: a packet for the internal port is the loop's. Its beats
        // all carry the packet's destination, one of 0..=4, so bit 2 alone names the
        // internal port: one register bit, where the compare on SOP beats cost the
        // outbound choice a LUT level.
        self.wr_loop.next = self.from_dma_wr.dest.val().get_bit(2);

        // Inbound: the crossbar or the loop, chosen between packets.
        self.use_loop.next = self.in_loop.q.val();
        if !self.in_pkt.q.val() {
            self.use_loop.next = self.from_dma_wr.valid.val()
                && self.wr_loop.val()
                && (!self.from_xbar.valid.val() || self.prefer_loop.q.val());
        }
        self.sel_dma.next = self.in_dma.q.val();
        if !self.in_pkt.q.val() {
            self.sel_dma.next = (self.from_xbar.data.val().get_bits::<5>(24) == 0x0A)
                && !self.from_xbar.data.val().get_bit(29)
                && !self.from_xbar.data.val().get_bit(31)
                && (self.from_xbar.data.val().get_bits::<2>(78) == 0);
        }
        if self.use_loop.val() {
            self.sel_dma.next = false;
        }
        self.to_completer.data.next = self.from_xbar.data.val();
        self.to_completer.sop.next = self.from_xbar.sop.val();
        self.to_completer.eop.next = self.from_xbar.eop.val();
        self.to_completer.empty.next = self.from_xbar.empty.val();
        self.to_completer.dest.next = self.from_xbar.dest.val();
        self.to_completer.src.next = self.from_xbar.src.val();
        self.to_completer.unsupported.next = self.from_xbar.unsupported.val();
        self.in_valid.next = self.from_xbar.valid.val();
        self.in_eop.next = self.from_xbar.eop.val();
        if self.use_loop.val() {
            self.to_completer.data.next = self.from_dma_wr.data.val();
            self.to_completer.sop.next = self.from_dma_wr.sop.val();
            self.to_completer.eop.next = self.from_dma_wr.eop.val();
            self.to_completer.empty.next = self.from_dma_wr.empty.val();
            self.to_completer.dest.next = self.from_dma_wr.dest.val();
            self.to_completer.src.next = self.from_dma_wr.src.val();
            self.to_completer.unsupported.next = self.from_dma_wr.unsupported.val();
            self.in_valid.next = self.from_dma_wr.valid.val();
            self.in_eop.next = self.from_dma_wr.eop.val();
        }
        self.to_completer.valid.next = self.in_valid.val() && !self.sel_dma.val();
        self.to_dma.data.next = self.from_xbar.data.val();
        self.to_dma.sop.next = self.from_xbar.sop.val();
        self.to_dma.eop.next = self.from_xbar.eop.val();
        self.to_dma.empty.next = self.from_xbar.empty.val();
        self.to_dma.dest.next = self.from_xbar.dest.val();
        self.to_dma.src.next = self.from_xbar.src.val();
        self.to_dma.unsupported.next = self.from_xbar.unsupported.val();
        self.to_dma.valid.next = self.from_xbar.valid.val() && self.sel_dma.val();
        self.from_xbar.ready.next = self.to_completer.ready.val();
        if self.sel_dma.val() {
            self.from_xbar.ready.next = self.to_dma.ready.val();
        }
        self.in_ready.next = self.from_xbar.ready.val();
        if self.use_loop.val() {
            self.from_xbar.ready.next = false;
            self.in_ready.next = self.to_completer.ready.val();
        }
        if self.in_valid.val() && self.in_ready.val() {
            self.in_pkt.d.next = !self.in_eop.val();
            self.in_dma.d.next = self.sel_dma.val();
            self.in_loop.d.next = self.use_loop.val();
            if self.in_eop.val() {
                self.prefer_loop.d.next = !self.use_loop.val();
            }
        }

        // Outbound: the DMA's reads and writes (not those of the loop), a packet at a time.
        self.wr_req.next = self.from_dma_wr.valid.val() && !self.wr_loop.val();
        self.pick_wr.next = self.wr_req.val();
        if self.last.q.val() {
            self.pick_wr.next = !self.from_dma_rd.valid.val();
        }
        self.src_wr.next = self.pick_wr.val();
        if self.locked.q.val() {
            self.src_wr.next = self.cur.q.val();
        }
        self.to_xbar.data.next = self.from_dma_rd.data.val();
        self.to_xbar.sop.next = self.from_dma_rd.sop.val();
        self.to_xbar.eop.next = self.from_dma_rd.eop.val();
        self.to_xbar.empty.next = self.from_dma_rd.empty.val();
        self.to_xbar.dest.next = self.from_dma_rd.dest.val();
        self.to_xbar.src.next = self.from_dma_rd.src.val();
        self.to_xbar.unsupported.next = self.from_dma_rd.unsupported.val();
        self.to_xbar.valid.next = self.from_dma_rd.valid.val();
        self.from_dma_rd.ready.next = self.to_xbar.ready.val();
        self.from_dma_wr.ready.next = false;
        if self.src_wr.val() {
            self.to_xbar.data.next = self.from_dma_wr.data.val();
            self.to_xbar.sop.next = self.from_dma_wr.sop.val();
            self.to_xbar.eop.next = self.from_dma_wr.eop.val();
            self.to_xbar.empty.next = self.from_dma_wr.empty.val();
            self.to_xbar.dest.next = self.from_dma_wr.dest.val();
            self.to_xbar.src.next = self.from_dma_wr.src.val();
            self.to_xbar.unsupported.next = self.from_dma_wr.unsupported.val();
            self.to_xbar.valid.next = self.wr_req.val();
            self.from_dma_rd.ready.next = false;
            self.from_dma_wr.ready.next = self.to_xbar.ready.val() && !self.wr_loop.val();
        }
        if self.use_loop.val() {
            self.from_dma_wr.ready.next = self.to_completer.ready.val();
        }
        self.moved.next = self.to_xbar.valid.val() && self.to_xbar.ready.val();
        if self.moved.val() {
            self.cur.d.next = self.src_wr.val();
            self.locked.d.next = !self.to_xbar.eop.val();
            if self.to_xbar.eop.val() {
                self.last.d.next = self.src_wr.val();
            }
        }
        if self.reset.val() {
            self.in_pkt.d.next = false;
            self.in_dma.d.next = false;
            self.in_loop.d.next = false;
            self.prefer_loop.d.next = false;
            self.locked.d.next = false;
            self.cur.d.next = false;
            self.last.d.next = false;
        }
    }
}
