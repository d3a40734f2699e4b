//! A port's TX stage: merges the crossbar's packets with the link controller's config
//! traffic onto the hard IP's TX stream, a whole packet at a time, and counts what leaves.
//!
//! No added latency: the chosen input drives the output in the same cycle. The link
//! controller wins ties (config traffic is rare and short, and bring-up must not wait
//! behind a stream of data). A beat shown and not taken stays until it is taken (the
//! choice between packets is held with it), so the TX stream never withdraws or swaps a
//! beat it has shown while `ready` is low and the link is up.
//!
//! Link down (DL_Down) cuts the packet in progress: the rest of a crossbar packet is
//! taken from the crossbar up to its `eop` and not shown, and a link controller's packet
//! is gone (the controller resets). Whole packets wait for the link to come back; a
//! fragment is never sent.

use crate::stream::{PortSource, TlpSink};
use rust_hdl::prelude::*;

/// Which input owns the output.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum MergeOwner {
    /// Between packets.
    Idle,
    /// The crossbar's packet is in progress.
    Xbar,
    /// The link controller's packet is in progress.
    Link,
    /// The link went down during a crossbar packet: its rest is taken and dropped.
    Flush,
}

/// The TX merge of one port.
#[derive(LogicBlock, Default)]
pub struct TxMerge {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Upstream: packets from the crossbar.
    pub from_xbar: TlpSink,
    /// Upstream: packets from the link controller.
    pub from_link: TlpSink,
    /// Downstream: the hard IP's TX stream.
    pub tx: PortSource,
    /// Data link layer up (from the hard IP).
    pub link_up: Signal<In, Bit>,
    /// Pulse: a TLP started leaving.
    pub tlp_out: Signal<Out, Bit>,
    /// Bytes that left this cycle.
    pub bytes_out: Signal<Out, Bits<5>>,
    /// Which input owns the output.
    owner: DFF<MergeOwner>,
    /// Last cycle a beat was shown and not taken (the next one shows it again)...
    held: DFF<Bit>,
    /// ...and it was the link controller's.
    held_link: DFF<Bit>,
    /// The link controller's input drives the output this cycle (else the crossbar's).
    pick_link: Signal<Local, Bit>,
    /// A beat leaves on `tx` this cycle.
    moved: Signal<Local, Bit>,
}

impl Logic for TxMerge {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, owner, held, held_link);
        self.pick_link.next = self.owner.q.val() == MergeOwner::Link;
        if self.owner.q.val() == MergeOwner::Idle {
            self.pick_link.next = self.from_link.valid.val() && self.from_link.sop.val();
            if self.held.q.val() {
                self.pick_link.next = self.held_link.q.val();
            }
        }
        self.from_xbar.ready.next = false;
        self.from_link.ready.next = false;
        if self.pick_link.val() {
            self.tx.data.next = self.from_link.data.val();
            self.tx.sop.next = self.from_link.sop.val();
            self.tx.eop.next = self.from_link.eop.val();
            self.tx.empty.next = self.from_link.empty.val();
            self.tx.valid.next = self.from_link.valid.val() && !self.reset.val();
            self.from_link.ready.next = self.tx.ready.val() && !self.reset.val();
        } else {
            self.tx.data.next = self.from_xbar.data.val();
            self.tx.sop.next = self.from_xbar.sop.val();
            self.tx.eop.next = self.from_xbar.eop.val();
            self.tx.empty.next = self.from_xbar.empty.val();
            self.tx.valid.next = self.from_xbar.valid.val() && !self.reset.val();
            self.from_xbar.ready.next = self.tx.ready.val() && !self.reset.val();
        }
        self.moved.next = self.tx.valid.val() && self.tx.ready.val();
        self.held.d.next = self.tx.valid.val() && !self.tx.ready.val();
        self.held_link.d.next = self.pick_link.val();
        self.tlp_out.next = self.moved.val() && self.tx.sop.val();
        self.bytes_out.next = 0.into();
        if self.moved.val() {
            self.bytes_out.next = 16.into();
            if self.tx.eop.val() {
                self.bytes_out.next = 16 - (bit_cast::<5, 2>(self.tx.empty.val()) << 2);
            }
            if self.tx.sop.val() {
                self.owner.d.next = MergeOwner::Xbar;
                if self.pick_link.val() {
                    self.owner.d.next = MergeOwner::Link;
                }
            }
            if self.tx.eop.val() {
                self.owner.d.next = MergeOwner::Idle;
            }
        }
        // Link down: the crossbar packet in progress is drained unseen, the link
        // controller's dropped; nothing shown is held.
        if !self.link_up.val() {
            self.held.d.next = false;
            if self.owner.q.val() == MergeOwner::Xbar {
                self.owner.d.next = MergeOwner::Flush;
            }
            if self.owner.q.val() == MergeOwner::Link {
                self.owner.d.next = MergeOwner::Idle;
            }
        }
        if self.owner.q.val() == MergeOwner::Flush {
            self.tx.valid.next = false;
            self.from_xbar.ready.next = !self.reset.val();
            self.tlp_out.next = false;
            self.bytes_out.next = 0.into();
            self.owner.d.next = MergeOwner::Flush;
            if self.from_xbar.valid.val() && self.from_xbar.eop.val() {
                self.owner.d.next = MergeOwner::Idle;
            }
        }
        if self.reset.val() {
            self.owner.d.next = MergeOwner::Idle;
            self.held.d.next = false;
        }
    }
}
