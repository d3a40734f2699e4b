//! The completion being taken, beat by beat: at its header beat its fields come from the
//! header's checks (`cpl_header`); registers hold them for its payload beats. Each beat
//! steps the packet's DW index by four, and its lane 0's ring position with it (the
//! header beat's comes from the checks as it is, so that the lanes' placement waits on
//! the header for one choice, not for a sum behind the choice).
//!
//! A descriptor fetch's count lives in `desc_fetches`, not here: its payload beats read
//! it there (`d_rem`), since it is the only count of its channel's fetch.

use rust_hdl::prelude::*;

/// Which beat of a completion comes next.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum IntakeState {
    /// Waiting for (or taking) a completion's header beat.
    Header,
    /// Taking payload beats.
    Data,
}

/// The completion in progress, of `C` channels (`CB` bits of channel number).
#[derive(LogicBlock)]
pub struct CplProgress<const C: usize, const CB: usize> {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// A beat is taken this cycle.
    pub take: Signal<In, Bit>,
    /// It is a packet's first beat.
    pub sop: Signal<In, Bit>,
    /// It is a packet's last beat.
    pub eop: Signal<In, Bit>,
    /// The beat as a header: ring position (or descriptor DW) of its lane 0 (its first
    /// payload DW's less 3).
    pub h_lane0: Signal<In, Bits<16>>,
    /// Its length field in DWs.
    pub h_len: Signal<In, Bits<11>>,
    /// Its tag's channel.
    pub h_chan: Signal<In, Bits<CB>>,
    /// Its tag is a descriptor fetch's.
    pub h_desc: Signal<In, Bit>,
    /// It passed the checks.
    pub h_ok: Signal<In, Bit>,
    /// Its tag.
    pub h_tag: Signal<In, Bits<8>>,
    /// The DWs its read still expects.
    pub h_rem: Signal<In, Bits<8>>,
    /// `h_rem` less `h_len` (mod 256).
    pub h_rem_less: Signal<In, Bits<8>>,
    /// Per channel: its descriptor fetch's DWs still to come.
    pub d_rem: [Signal<In, Bits<8>>; C],
    /// Pulse: a header beat is taken.
    pub take_header: Signal<Out, Bit>,
    /// Pulse: a payload beat, the completion's last, is taken and the completion passed
    /// the checks.
    pub last_ok: Signal<Out, Bit>,
    /// Ring position of the input beat's lane 0: the header's, or (payload beats) its
    /// header beat's plus `bidx`, from registers.
    pub lane0: Signal<Out, Bits<16>>,
    /// The completion of the beat on the input: index of the beat's lane 0 in the
    /// packet, in DWs (header DWs included).
    pub bidx: Signal<Out, Bits<11>>,
    /// Payload DWs.
    pub plen: Signal<Out, Bits<11>>,
    /// Channel.
    pub chan: Signal<Out, Bits<CB>>,
    /// It passed the checks (a header beat without SOP does not).
    pub ok: Signal<Out, Bit>,
    /// Its tag.
    pub tag: Signal<Out, Bits<8>>,
    /// The DWs still expected by its read (data or descriptor).
    pub rem: Signal<Out, Bits<8>>,
    /// `rem` less `plen` (mod 256), subtracted before the choice of `rem`'s source (see
    /// `CplHeader::rem_less`): what a last beat leaves.
    pub less: Signal<Out, Bits<8>>,
    /// The completion taken last (registered at its header): its channel.
    pub r_chan: Signal<Out, Bits<CB>>,
    /// It is a descriptor fetch's (not data).
    pub r_desc: Signal<Out, Bit>,
    /// Header or payload beats next.
    state: DFF<IntakeState>,
    // The completion taken, registered at its header for the payload beats after it:
    /// Ring position of its header beat's lane 0.
    q_lane0: DFF<Bits<16>>,
    /// See `bidx`: the next beat's.
    q_bidx: DFF<Bits<11>>,
    /// See `plen`.
    q_plen: DFF<Bits<11>>,
    /// See `chan`.
    q_chan: DFF<Bits<CB>>,
    /// A descriptor fetch's completion (not data).
    q_desc: DFF<Bit>,
    /// See `ok`.
    q_ok: DFF<Bit>,
    /// See `tag`.
    q_tag: DFF<Bits<8>>,
    /// Its data read's DWs still to come, as the header found them (for the count at
    /// its last beat: nothing else changes that tag's entry meanwhile).
    q_rem: DFF<Bits<8>>,
    /// `q_plen` mod 256, what `less` subtracts on a payload beat.
    plen8: Signal<Local, Bits<8>>,
}

impl<const C: usize, const CB: usize> CplProgress<C, CB> {
    /// Waiting for a header.
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            take: Default::default(),
            sop: Default::default(),
            eop: Default::default(),
            h_lane0: Default::default(),
            h_len: Default::default(),
            h_chan: Default::default(),
            h_desc: Default::default(),
            h_ok: Default::default(),
            h_tag: Default::default(),
            h_rem: Default::default(),
            h_rem_less: Default::default(),
            d_rem: array_init::array_init(|_| Default::default()),
            take_header: Default::default(),
            last_ok: Default::default(),
            lane0: Default::default(),
            bidx: Default::default(),
            plen: Default::default(),
            chan: Default::default(),
            ok: Default::default(),
            tag: Default::default(),
            rem: Default::default(),
            less: Default::default(),
            r_chan: Default::default(),
            r_desc: Default::default(),
            state: Default::default(),
            q_lane0: Default::default(),
            q_bidx: Default::default(),
            q_plen: Default::default(),
            q_chan: Default::default(),
            q_desc: Default::default(),
            q_ok: Default::default(),
            q_tag: Default::default(),
            q_rem: Default::default(),
            plen8: Default::default(),
        }
    }
}

impl<const C: usize, const CB: usize> Default for CplProgress<C, CB> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const C: usize, const CB: usize> Logic for CplProgress<C, CB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, q_lane0, q_bidx, q_plen, q_chan, q_desc, q_ok, q_tag, q_rem);
        self.take_header.next =
            (self.state.q.val() == IntakeState::Header) && self.take.val() && self.sop.val();
        self.last_ok.next = (self.state.q.val() == IntakeState::Data)
            && self.take.val()
            && self.eop.val()
            && self.q_ok.q.val();
        self.r_chan.next = self.q_chan.q.val();
        self.r_desc.next = self.q_desc.q.val();

        // The completion: from the header beat, or the registers after it.
        self.lane0.next = self.q_lane0.q.val() + bit_cast::<16, 11>(self.q_bidx.q.val());
        self.bidx.next = self.q_bidx.q.val();
        self.plen.next = self.q_plen.q.val();
        self.chan.next = self.q_chan.q.val();
        self.ok.next = self.q_ok.q.val();
        self.tag.next = self.q_tag.q.val();
        self.rem.next = self.q_rem.q.val();
        self.plen8.next = self.q_plen.q.val().get_bits::<8>(0);
        self.less.next = self.q_rem.q.val() - self.plen8.val();
        // A payload beat of a descriptor fetch: its count is the channel's.
        for c in 0..C {
            if self.q_desc.q.val() && (self.q_chan.q.val().index() == c) {
                self.rem.next = self.d_rem[c].val();
                self.less.next = self.d_rem[c].val() - self.plen8.val();
            }
        }
        // The header's fields last: they are the deepest (the tag's lookup and checks).
        if self.state.q.val() == IntakeState::Header {
            self.lane0.next = self.h_lane0.val();
            self.bidx.next = 0.into();
            self.plen.next = self.h_len.val();
            self.chan.next = self.h_chan.val();
            self.ok.next = self.h_ok.val() && self.sop.val();
            self.tag.next = self.h_tag.val();
            self.rem.next = self.h_rem.val();
            self.less.next = self.h_rem_less.val();
        }

        // Registered at the header; the DW index steps every beat.
        if self.take.val() {
            self.q_bidx.d.next = self.bidx.val() + 4;
        }
        if self.take_header.val() {
            self.q_lane0.d.next = self.h_lane0.val();
            self.q_plen.d.next = self.plen.val();
            self.q_chan.d.next = self.chan.val();
            self.q_desc.d.next = self.h_desc.val();
            self.q_ok.d.next = self.ok.val();
            self.q_tag.d.next = self.tag.val();
            self.q_rem.d.next = self.h_rem.val();
            if !self.eop.val() {
                self.state.d.next = IntakeState::Data;
            }
        }
        if (self.state.q.val() == IntakeState::Data) && self.take.val() && self.eop.val() {
            self.state.d.next = IntakeState::Header;
        }
        if self.reset.val() {
            self.state.d.next = IntakeState::Header;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Lcg, Stepper};
    use crate::verilog::checks::lint_verilog;
    use crate::verilog::export::block_verilog;

    const C: usize = 4;

    /// A completion's header as the checks see it: (lane 0's ring position, len, chan,
    /// desc, ok, tag, rem).
    type Header = (u64, u64, usize, bool, bool, u64, u64);

    /// What the outputs say about a beat's completion: (lane 0's ring position, bidx,
    /// plen, chan, ok, tag, rem, less).
    type Fields = (u64, u64, u64, u64, bool, u64, u64, u64);

    fn fields(u: &CplProgress<C, 2>) -> Fields {
        (
            u.lane0.val().to_u64(),
            u.bidx.val().to_u64(),
            u.plen.val().to_u64(),
            u.chan.val().to_u64(),
            u.ok.val(),
            u.tag.val().to_u64(),
            u.rem.val().to_u64(),
            u.less.val().to_u64(),
        )
    }

    fn random_header(rng: &mut Lcg) -> Header {
        (
            rng.below(1 << 16),
            rng.below(1 << 11),
            rng.below(C as u64) as usize,
            rng.chance(0.3),
            rng.chance(0.8),
            rng.below(256),
            rng.below(256),
        )
    }

    fn drive_header(u: &mut CplProgress<C, 2>, h: &Header) {
        u.h_lane0.next = h.0.into();
        u.h_len.next = h.1.into();
        u.h_chan.next = (h.2 as u64).into();
        u.h_desc.next = h.3;
        u.h_ok.next = h.4;
        u.h_tag.next = h.5.into();
        u.h_rem.next = h.6.into();
        u.h_rem_less.next = (h.6.wrapping_sub(h.1) & 0xFF).into();
    }

    /// Completions of one to five beats, with random idle cycles between beats, stray
    /// beats without SOP where a header is due, random header-check answers on payload
    /// beats (the checks read payload as a header) and descriptor counts that move: a
    /// header beat's fields are the checks', a payload beat's those of its header, its
    /// DW index and lane 0's ring position four per beat, its count the data read's as its header found it or the
    /// descriptor fetch's as it is now; `last_ok` marks a good completion's last payload
    /// beat.
    #[test]
    fn payload_beats_carry_their_headers_fields() {
        let mut s = Stepper::new(CplProgress::<C, 2>::new(), |u| &mut u.clock);
        let mut rng = Lcg(0xC0_97E5);
        s.uut.reset.next = true;
        s.settle();
        s.tick();
        s.uut.reset.next = false;
        let (mut completions, mut multi, mut strays) = (0, 0, 0);
        while s.cycle < 20_000 {
            let h = random_header(&mut rng);
            let beats = 1 + rng.below(5);
            let mut k = 0;
            while k < beats {
                let d_rem: Vec<u64> = (0..C).map(|_| rng.below(256)).collect();
                for (c, r) in d_rem.iter().enumerate() {
                    s.uut.d_rem[c].next = (*r).into();
                }
                let idle = rng.chance(0.3);
                let stray = k == 0 && !idle && rng.chance(0.05);
                s.uut.take.next = !idle;
                s.uut.sop.next = if idle {
                    rng.chance(0.5)
                } else {
                    k == 0 && !stray
                };
                s.uut.eop.next = if idle {
                    rng.chance(0.5)
                } else {
                    k + 1 == beats
                };
                drive_header(
                    &mut s.uut,
                    &if k == 0 { h } else { random_header(&mut rng) },
                );
                s.settle();
                let u = &s.uut;
                if k == 0 {
                    // The checks' answer is on the outputs, SOP or not, taken or not.
                    let (lane0, len, chan, _, ok, tag, rem) = h;
                    let less = rem.wrapping_sub(len) & 0xFF;
                    let want = (
                        lane0,
                        0,
                        len,
                        chan as u64,
                        ok && !stray && s.uut.sop.val(),
                        tag,
                        rem,
                        less,
                    );
                    assert_eq!(fields(u), want, "cycle {}: a header beat", s.cycle);
                    assert_eq!(u.take_header.val(), !idle && !stray, "cycle {}", s.cycle);
                } else {
                    let (lane0, len, chan, desc, ok, tag, rem) = h;
                    let lane0 = (lane0 + 4 * k) & 0xFFFF;
                    let rem = if desc { d_rem[chan] } else { rem };
                    let less = rem.wrapping_sub(len & 0xFF) & 0xFF;
                    let want = (lane0, 4 * k, len, chan as u64, ok, tag, rem, less);
                    assert_eq!(fields(u), want, "cycle {}: beat {k}", s.cycle);
                    assert!(!u.take_header.val(), "cycle {}", s.cycle);
                    assert_eq!(
                        (u.r_chan.val().to_u64(), u.r_desc.val()),
                        (chan as u64, desc)
                    );
                }
                let last = !idle && k > 0 && k + 1 == beats;
                assert_eq!(u.last_ok.val(), last && h.4, "cycle {}: beat {k}", s.cycle);
                if !idle && !stray {
                    k += 1;
                }
                strays += usize::from(stray);
                s.tick();
            }
            completions += 1;
            multi += usize::from(beats > 1);
        }
        assert!(
            completions > 2_000 && multi > 1_500 && strays > 50,
            "{completions} {multi} {strays}"
        );
    }

    #[test]
    fn cpl_progress_lint_clean() {
        let mut uut = CplProgress::<C, 2>::new();
        lint_verilog(
            &block_verilog(&mut uut, "dma_cpl_progress"),
            "dma_cpl_progress",
        )
        .unwrap();
    }
}
