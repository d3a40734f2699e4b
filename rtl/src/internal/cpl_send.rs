//! The internal completer's answer: the completion for the latched request, its header
//! from `super::cpl_fields` and its beats from `super::cpl_beats`, sent while it is
//! asked for (`send_next`, a cycle ahead): the first beat, then (a CplD of 2 to 4 DWs) the second. A beat shown stays
//! until the crossbar takes it. Whether a beat is on offer is a register of its own
//! (`offer`, from `send_next`), so that the crossbar's choice among its inputs, which this
//! `valid` joins, starts at a register.
//!
//! The header is registered: its byte count (two subtractions from the request's length
//! and byte enables) and then the crossbar's choice of input would not fit one cycle. The
//! register follows the request every cycle, so the answer waits only when it is asked
//! for the cycle after a request is latched (`load`): a read's answer comes later anyway
//! (its CSR read takes two cycles), a CA for a long read waits that one cycle.

use super::cpl_beats::CplBeats;
use super::cpl_fields::CplFields;
use crate::stream::TlpSource;
use rust_hdl::prelude::*;

/// Sends one completion.
#[derive(LogicBlock, Default)]
pub struct CplSend {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: the next answer starts at its first beat.
    pub reset: Signal<In, Bit>,
    /// Downstream: the completion, into the crossbar.
    pub to_xbar: TlpSource,
    /// The answer is to be on offer from the next cycle: the requester's next state,
    /// held until `done` (the cycle of `done` says whether another answer follows).
    pub send_next: Signal<In, Bit>,
    /// Pulse: the request's fields below change at this clock edge (a request latched).
    pub load: Signal<In, Bit>,
    /// The request's header DW 0.
    pub req_dw0: Signal<In, Bits<32>>,
    /// The request's header DW 1.
    pub req_dw1: Signal<In, Bits<32>>,
    /// The request's address bits 6:2.
    pub addr_dw: Signal<In, Bits<5>>,
    /// Completion status (SC 0, UR 1, CA 4).
    pub status: Signal<In, Bits<3>>,
    /// Completer id.
    pub completer_id: Signal<In, Bits<16>>,
    /// Crossbar port of the requester.
    pub dest: Signal<In, Bits<3>>,
    /// The DWs read, in wire byte order (with SC).
    pub rd_data: [Signal<In, Bits<32>>; 4],
    /// Pulse: the answer's last beat was taken.
    pub done: Signal<Out, Bit>,
    /// Pulse: a UR completion left.
    pub ur_sent: Signal<Out, Bit>,
    /// The first beat was taken; the second is on offer.
    second: DFF<Bit>,
    /// The header's DWs, from the request of the cycle before.
    hdr_dw0: DFF<Bits<32>>,
    /// Header DW 1: completer id, status, byte count.
    hdr_dw1: DFF<Bits<32>>,
    /// Header DW 2: requester id, tag, lower address.
    hdr_dw2: DFF<Bits<32>>,
    /// The first beat is the last, from the request of the cycle before as the header
    /// is: the crossbar's hand-over of its output waits for the `eop` of the beat it
    /// takes, so that `eop` comes from a register.
    first_eop: DFF<Bit>,
    /// The answer is on offer: asked for at the last edge, and the header registers hold
    /// the current request's (no `load` at that edge).
    offer: DFF<Bit>,
    /// The header.
    fields: CplFields,
    /// The beats.
    beats: CplBeats,
}

impl Logic for CplSend {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, second, hdr_dw0, hdr_dw1, hdr_dw2, first_eop, offer);
        self.fields.req_dw0.next = self.req_dw0.val();
        self.fields.req_dw1.next = self.req_dw1.val();
        self.fields.addr_dw.next = self.addr_dw.val();
        self.fields.status.next = self.status.val();
        self.fields.completer_id.next = self.completer_id.val();
        self.hdr_dw0.d.next = self.fields.dw0.val();
        self.hdr_dw1.d.next = self.fields.dw1.val();
        self.hdr_dw2.d.next = self.fields.dw2.val();
        self.first_eop.d.next = self.beats.first_eop.val();
        self.offer.d.next = self.send_next.val() && !self.load.val();
        self.beats.hdr_dw0.next = self.hdr_dw0.q.val();
        self.beats.hdr_dw1.next = self.hdr_dw1.q.val();
        self.beats.hdr_dw2.next = self.hdr_dw2.q.val();
        self.beats.status.next = self.status.val();
        self.beats.length.next = self.req_dw0.val().get_bits::<10>(0);
        for k in 0..4 {
            self.beats.rd_data[k].next = self.rd_data[k].val();
        }

        self.to_xbar.valid.next = false;
        self.to_xbar.data.next = 0.into();
        self.to_xbar.sop.next = false;
        self.to_xbar.eop.next = false;
        self.to_xbar.empty.next = 0.into();
        self.to_xbar.dest.next = self.dest.val();
        self.to_xbar.src.next = 4.into();
        self.to_xbar.unsupported.next = false;
        self.done.next = false;
        self.ur_sent.next = false;
        if self.offer.q.val() {
            self.to_xbar.valid.next = true;
            if !self.second.q.val() {
                self.to_xbar.sop.next = true;
                self.to_xbar.data.next = self.beats.first_data.val();
                self.to_xbar.eop.next = self.first_eop.q.val();
                self.to_xbar.empty.next = self.beats.first_empty.val();
                if self.to_xbar.ready.val() {
                    self.ur_sent.next = self.status.val() == 1;
                    self.second.d.next = !self.first_eop.q.val();
                    self.done.next = self.first_eop.q.val();
                }
            } else {
                self.to_xbar.eop.next = true;
                self.to_xbar.data.next = self.beats.second_data.val();
                self.to_xbar.empty.next = self.beats.second_empty.val();
                if self.to_xbar.ready.val() {
                    self.second.d.next = false;
                    self.done.next = true;
                }
            }
        }
        if self.reset.val() {
            self.second.d.next = false;
            self.offer.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Lcg, Stepper};
    use crate::verilog::checks::lint_verilog;
    use crate::verilog::export::block_verilog;

    /// One beat as the crossbar takes it: data, sop, eop, empty.
    type Beat = (u128, bool, bool, u64);

    /// Random answers (SC reads of 1 to 4 DWs, UR and CA) sent under random crossbar
    /// backpressure, with random gaps between them: the beats taken are the ones
    /// `cpl_fields` and `cpl_beats` make for the request, in order, each shown until taken;
    /// `done` ends each answer once and `ur_sent` marks each UR. Half the answers are
    /// asked for at the edge their request is loaded: nothing is offered the cycle after.
    #[test]
    fn sends_the_beats_of_each_answer_in_order_under_backpressure() {
        let mut s = Stepper::new(CplSend::default(), |b| &mut b.clock);
        let mut rng = Lcg(0xC5E4D);
        s.uut.reset.next = true;
        s.tick();
        s.uut.reset.next = false;
        let mut two_beats = 0;
        for answer in 0..1_500 {
            let status = [0u64, 1, 4][rng.below(3) as usize];
            let len = 1 + rng.below(4);
            let dw0 = len;
            let dw1 = rng.below(1 << 16) << 16 | rng.below(256) << 8 | 0xFF;
            let (addr_dw, completer, dest) = (rng.below(32), rng.below(1 << 16), rng.below(5));
            let data: Vec<u64> = (0..4).map(|_| rng.next_u64() & 0xFFFF_FFFF).collect();
            let u = &mut s.uut;
            u.req_dw0.next = dw0.into();
            u.req_dw1.next = dw1.into();
            u.addr_dw.next = addr_dw.into();
            u.status.next = status.into();
            u.completer_id.next = completer.into();
            u.dest.next = dest.into();
            for (k, d) in data.iter().enumerate() {
                u.rd_data[k].next = (*d).into();
            }
            // The request is latched at this edge; the answer may be asked for with it.
            u.load.next = true;
            u.send_next.next = rng.chance(0.5);
            s.settle();
            s.tick();
            s.uut.load.next = false;
            s.uut.send_next.next = true;
            s.uut.to_xbar.ready.next = true;
            s.settle();
            assert!(
                !s.uut.to_xbar.valid.val(),
                "answer {answer}: the header is registered at the next edge"
            );
            s.tick();
            // The beats the combinational blocks make for this request.
            s.settle();
            let b = &s.uut.beats;
            let mut want: Vec<Beat> = vec![(
                b.first_data.val().to_u128(),
                true,
                b.first_eop.val(),
                if b.first_eop.val() {
                    b.first_empty.val().to_u64()
                } else {
                    0
                },
            )];
            if !b.first_eop.val() {
                want.push((
                    b.second_data.val().to_u128(),
                    false,
                    true,
                    b.second_empty.val().to_u64(),
                ));
            }
            assert_eq!(want.len() == 2, status == 0 && len > 1, "answer {answer}");
            two_beats += usize::from(want.len() == 2);

            let (mut got, mut ur, mut shown): (Vec<Beat>, usize, Option<Beat>) =
                (Vec::new(), 0, None);
            let start = s.cycle;
            loop {
                assert!(s.cycle - start < 100, "answer {answer}: stalled");
                let ready = rng.chance(0.5);
                s.uut.send_next.next = true;
                s.uut.to_xbar.ready.next = ready;
                s.settle();
                let o = &s.uut.to_xbar;
                assert!(
                    o.valid.val(),
                    "answer {answer}: a beat on offer while sending"
                );
                assert_eq!(o.dest.val().to_u64(), dest);
                let beat = (
                    o.data.val().to_u128(),
                    o.sop.val(),
                    o.eop.val(),
                    o.empty.val().to_u64(),
                );
                if let Some(prev) = shown {
                    assert_eq!(beat, prev, "answer {answer}: a beat shown stays");
                }
                shown = if ready { None } else { Some(beat) };
                let done = s.uut.done.val();
                ur += usize::from(s.uut.ur_sent.val());
                if ready {
                    got.push(beat);
                }
                // Asked for until done.
                s.uut.send_next.next = !done;
                s.settle();
                assert_eq!(
                    done,
                    ready && beat.2,
                    "answer {answer}: done at the last beat"
                );
                s.tick();
                if done {
                    break;
                }
            }
            assert_eq!(got, want, "answer {answer}: status {status}, {len} DWs");
            assert_eq!(ur, usize::from(status == 1), "answer {answer}: ur_sent");
            for _ in 0..rng.below(3) {
                s.settle();
                assert!(
                    !s.uut.to_xbar.valid.val(),
                    "answer {answer}: nothing between"
                );
                s.tick();
            }
        }
        assert!(two_beats > 300, "{two_beats} two-beat answers");
    }

    #[test]
    fn cpl_send_lints_clean() {
        let mut uut = CplSend::default();
        lint_verilog(
            &block_verilog(&mut uut, "internal_cpl_send"),
            "internal_cpl_send",
        )
        .unwrap();
    }
}
