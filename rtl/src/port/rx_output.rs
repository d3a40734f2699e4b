//! The RX stage's output register: one beat, steered to the crossbar or to the port's
//! link controller, with a BAR2 write's address made global on its header beat.
//!
//! The register takes a beat when it is empty or its beat leaves in the same cycle
//! (`free`); `cancel` (link down) empties it, before what it would take.

use crate::stream::TlpSource;
use peach2_regmap::address::{BASE_SHIFT, GLOBAL_BASE_HI};
use rust_hdl::prelude::*;

// The global space's base is address bits 63:42: bits 31:10 of DW2 (lane 2).
const _: () = assert!(BASE_SHIFT == 42);

/// The output register of a port's RX stage.
#[derive(LogicBlock)]
pub struct RxOutput {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Take the beat below this cycle (only while `free`).
    pub load: Signal<In, Bit>,
    /// ... for the link controller, not for the crossbar.
    pub to_link_ctrl: Signal<In, Bit>,
    /// The beat.
    pub data: Signal<In, Bits<128>>,
    /// Its `sop`.
    pub sop: Signal<In, Bit>,
    /// Its `eop`.
    pub eop: Signal<In, Bit>,
    /// Its empty DWs.
    pub empty: Signal<In, Bits<2>>,
    /// Its packet's crossbar destination (taken on `sop`).
    pub dest: Signal<In, Bits<3>>,
    /// Its packet is unsupported (taken on `sop`).
    pub unsupported: Signal<In, Bit>,
    /// Its header's address is BAR2's: replace bits 63:42 with the global base (on `sop`).
    pub rewrite_global: Signal<In, Bit>,
    /// Empty the register (link down), whatever else happens this cycle.
    pub cancel: Signal<In, Bit>,
    /// The port's crossbar index (every beat's `src`).
    pub src: Signal<In, Bits<3>>,
    /// Downstream: beats for the crossbar.
    pub to_xbar: TlpSource,
    /// Downstream: beats for the link controller (`dest` 0, never unsupported).
    pub to_link: TlpSource,
    /// The register can take a beat this cycle.
    pub free: Signal<Out, Bit>,
    /// The register holds a beat.
    valid: DFF<Bit>,
    /// The beat is for the link controller.
    link: DFF<Bit>,
    /// `data` of the beat held (a header's address made global on `rewrite_global`).
    data_q: DFF<Bits<128>>,
    /// `sop` of the beat held.
    sop_q: DFF<Bit>,
    /// `eop` of the beat held.
    eop_q: DFF<Bit>,
    /// `empty` of the beat held.
    empty_q: DFF<Bits<2>>,
    /// `dest` of the packet held (from its `sop` beat).
    dest_q: DFF<Bits<3>>,
    /// `unsupported` of the packet held (from its `sop` beat).
    unsupported_q: DFF<Bit>,
    /// The beat leaves this cycle.
    leaves: Signal<Local, Bit>,
    /// The global space's base (address bits 63:42), written into a rewritten header.
    global_base_hi: Constant<Bits<22>>,
}

impl Default for RxOutput {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            load: Default::default(),
            to_link_ctrl: Default::default(),
            data: Default::default(),
            sop: Default::default(),
            eop: Default::default(),
            empty: Default::default(),
            dest: Default::default(),
            unsupported: Default::default(),
            rewrite_global: Default::default(),
            cancel: Default::default(),
            src: Default::default(),
            to_xbar: Default::default(),
            to_link: Default::default(),
            free: Default::default(),
            valid: Default::default(),
            link: Default::default(),
            data_q: Default::default(),
            sop_q: Default::default(),
            eop_q: Default::default(),
            empty_q: Default::default(),
            dest_q: Default::default(),
            unsupported_q: Default::default(),
            leaves: Default::default(),
            global_base_hi: Constant::new(GLOBAL_BASE_HI.into()),
        }
    }
}

impl Logic for RxOutput {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            valid,
            link,
            data_q,
            sop_q,
            eop_q,
            empty_q,
            dest_q,
            unsupported_q
        );
        self.to_xbar.data.next = self.data_q.q.val();
        self.to_xbar.sop.next = self.sop_q.q.val();
        self.to_xbar.eop.next = self.eop_q.q.val();
        self.to_xbar.empty.next = self.empty_q.q.val();
        self.to_xbar.dest.next = self.dest_q.q.val();
        self.to_xbar.src.next = self.src.val();
        self.to_xbar.unsupported.next = self.unsupported_q.q.val();
        self.to_xbar.valid.next = self.valid.q.val() && !self.link.q.val();
        self.to_link.data.next = self.data_q.q.val();
        self.to_link.sop.next = self.sop_q.q.val();
        self.to_link.eop.next = self.eop_q.q.val();
        self.to_link.empty.next = self.empty_q.q.val();
        self.to_link.dest.next = 0.into();
        self.to_link.src.next = self.src.val();
        self.to_link.unsupported.next = false;
        self.to_link.valid.next = self.valid.q.val() && self.link.q.val();
        self.leaves.next = (self.to_xbar.ready.val() && !self.link.q.val())
            || (self.to_link.ready.val() && self.link.q.val());
        self.free.next = !self.valid.q.val() || self.leaves.val();
        if self.valid.q.val() && self.leaves.val() {
            self.valid.d.next = false;
        }
        if self.load.val() {
            self.valid.d.next = true;
            self.link.d.next = self.to_link_ctrl.val();
            self.data_q.d.next = self.data.val();
            self.sop_q.d.next = self.sop.val();
            self.eop_q.d.next = self.eop.val();
            self.empty_q.d.next = self.empty.val();
            if self.sop.val() {
                self.dest_q.d.next = self.dest.val();
                self.unsupported_q.d.next = self.unsupported.val();
                if self.rewrite_global.val() {
                    self.data_q.d.next = (self.data.val()
                        & !(bit_cast::<128, 22>(0x3F_FFFF.into()) << 74))
                        | (bit_cast::<128, 22>(self.global_base_hi.val()) << 74);
                }
            }
        }
        if self.cancel.val() || self.reset.val() {
            self.valid.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{bits128, Lcg, Stepper};
    use crate::verilog::checks::lint_verilog;
    use crate::verilog::export::block_verilog;

    /// A beat as either output shows it: (data, sop, eop, empty, dest, src, unsupported).
    type Beat = (u128, bool, bool, u64, u64, u64, bool);

    /// Random loads (when free), cancels, resets and backpressure on both outputs, against
    /// a one-entry model: each beat leaves once on the output its load chose, with the
    /// packet fields of its `sop` and the global base in a rewritten header.
    #[test]
    fn holds_one_beat_for_the_chosen_output() {
        let mut s = Stepper::new(RxOutput::default(), |b| &mut b.clock);
        let mut rng = Lcg(0x0E7);
        // The model: the beat held and whether it is the link controller's.
        let mut held: Option<(Beat, bool)> = None;
        let (mut dest, mut unsupported) = (0u64, false);
        let (mut to_xbar, mut to_link, mut rewritten) = (0, 0, 0);
        let src = 3u64;
        for cycle in 0..20_000 {
            let reset = cycle == 0 || rng.chance(0.002);
            let cancel = rng.chance(0.02);
            let data = u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64());
            let (sop, eop, empty) = (rng.chance(0.4), rng.chance(0.4), rng.below(4));
            let (in_dest, in_unsupported) = (rng.below(8), rng.chance(0.2));
            let rewrite = rng.chance(0.3);
            let for_link = rng.chance(0.3);
            let (xbar_ready, link_ready) = (rng.chance(0.6), rng.chance(0.6));
            let u = &mut s.uut;
            u.reset.next = reset;
            u.cancel.next = cancel;
            u.src.next = src.into();
            u.to_xbar.ready.next = xbar_ready;
            u.to_link.ready.next = link_ready;
            s.settle();
            let want_load = s.uut.free.val() && rng.chance(0.7);
            let u = &mut s.uut;
            u.load.next = want_load;
            u.to_link_ctrl.next = for_link;
            u.data.next = bits128(data);
            u.sop.next = sop;
            u.eop.next = eop;
            u.empty.next = empty.into();
            u.dest.next = in_dest.into();
            u.unsupported.next = in_unsupported;
            u.rewrite_global.next = rewrite;
            s.settle();
            let u = &s.uut;
            let shown = |p: &TlpSource| -> Beat {
                (
                    p.data.val().to_u128(),
                    p.sop.val(),
                    p.eop.val(),
                    p.empty.val().to_u64(),
                    p.dest.val().to_u64(),
                    p.src.val().to_u64(),
                    p.unsupported.val(),
                )
            };
            if cycle > 0 {
                let (xv, lv) = (u.to_xbar.valid.val(), u.to_link.valid.val());
                match held {
                    None => assert!(!xv && !lv, "cycle {cycle}: nothing held"),
                    Some((beat, false)) => {
                        assert!(xv && !lv, "cycle {cycle}: for the crossbar");
                        assert_eq!(shown(&u.to_xbar), beat, "cycle {cycle}");
                    }
                    Some((beat, true)) => {
                        assert!(lv && !xv, "cycle {cycle}: for the link controller");
                        let link_beat = (beat.0, beat.1, beat.2, beat.3, 0, src, false);
                        assert_eq!(shown(&u.to_link), link_beat, "cycle {cycle}");
                    }
                }
            }
            let leaves = match held {
                Some((_, false)) => xbar_ready,
                Some((_, true)) => link_ready,
                None => false,
            };
            assert_eq!(
                u.free.val(),
                held.is_none() || leaves,
                "cycle {cycle}: free"
            );
            if leaves {
                to_xbar += usize::from(held.is_some_and(|h| !h.1));
                to_link += usize::from(held.is_some_and(|h| h.1));
                held = None;
            }
            if want_load {
                let mut d = data;
                if sop {
                    dest = in_dest;
                    unsupported = in_unsupported;
                    if rewrite {
                        d = d & !(0x3F_FFFFu128 << 74) | (u128::from(GLOBAL_BASE_HI) << 74);
                        rewritten += 1;
                    }
                }
                held = Some(((d, sop, eop, empty, dest, src, unsupported), for_link));
            }
            if cancel || reset {
                held = None;
            }
            s.tick();
        }
        assert!(
            to_xbar > 2_000 && to_link > 1_000 && rewritten > 500,
            "{to_xbar} to the crossbar, {to_link} to the link controller, {rewritten} rewritten"
        );
    }

    #[test]
    fn rx_output_lint_clean() {
        let mut uut = RxOutput::default();
        lint_verilog(&block_verilog(&mut uut, "rx_output"), "rx_output").unwrap();
    }
}
