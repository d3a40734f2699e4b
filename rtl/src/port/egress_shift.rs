//! The lane shift of a write whose header lost a DW (4-DW to 3-DW, in the N port's egress
//! translation): every payload DW moves one lane down, so each output beat is three held
//! lanes and the next input beat's lane 0, and the packet may need one more beat (the
//! flush) for the lanes held after its last input beat.
//!
//! The owner ([`super::egress_translate::EgressTranslate`]) decides when: it loads the
//! translated header, advances on each input beat it passes on, and shows the flush beat
//! when `ends` says the last input beat did not finish the packet.

use crate::stream::DATA_BITS;
use rust_hdl::prelude::*;

/// Three lanes held between beats, and the beats they make.
#[derive(LogicBlock, Default)]
pub struct EgressShift {
    /// Core clock (nothing here is reset: the owner loads before it shows a beat).
    pub clock: Signal<In, Clock>,
    /// Upstream: the input beat's data.
    pub data: Signal<In, Bits<DATA_BITS>>,
    /// The input beat is its packet's last.
    pub eop: Signal<In, Bit>,
    /// Empty lanes of the input beat (with `eop`).
    pub empty: Signal<In, Bits<2>>,
    /// The translated 3-DW header, lanes 0..2.
    pub header: Signal<In, Bits<96>>,
    /// Pulse: hold `header` (the header beat is absorbed); the next output beat is the
    /// packet's first. A header beat with `eop` (no payload) leaves as the flush alone.
    pub load: Signal<In, Bit>,
    /// Pulse: the shifted beat was taken; hold the input beat's upper three lanes.
    pub advance: Signal<In, Bit>,
    /// Show the flush beat (the held lanes alone) rather than the shifted one.
    pub flush: Signal<In, Bit>,
    /// Downstream: the output beat's data.
    pub out_data: Signal<Out, Bits<DATA_BITS>>,
    /// The output beat is the packet's first.
    pub out_sop: Signal<Out, Bit>,
    /// The output beat is the packet's last.
    pub out_eop: Signal<Out, Bit>,
    /// Empty lanes of the output beat.
    pub out_empty: Signal<Out, Bits<2>>,
    /// The shifted beat is the packet's last: the input beat is its last and carries one
    /// DW, so nothing is left to flush.
    pub ends: Signal<Out, Bit>,
    /// The three lanes kept for the next output beat: the 3-DW header, then the last three
    /// lanes of the beat before.
    held: DFF<Bits<96>>,
    /// The next output beat is the packet's first (`sop`).
    first_out: DFF<Bit>,
    /// `empty` of the flush beat.
    flush_empty: DFF<Bits<2>>,
    /// DWs the input beat carries (4, fewer in an `eop` beat).
    in_used: Signal<Local, Bits<3>>,
    /// Empty lanes of the flush beat, before the cut to 2 bits.
    flush_pad: Signal<Local, Bits<3>>,
}

impl Logic for EgressShift {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, held, first_out, flush_empty);
        self.in_used.next = 4.into();
        if self.eop.val() {
            self.in_used.next = 4 - bit_cast::<3, 2>(self.empty.val());
        }
        self.flush_pad.next = 5 - self.in_used.val();
        self.ends.next = self.eop.val() && (self.in_used.val() == 1);

        self.out_data.next = bit_cast::<128, 96>(self.held.q.val())
            | (bit_cast::<128, 32>(self.data.val().get_bits::<32>(0)) << 96);
        self.out_sop.next = self.first_out.q.val();
        self.out_eop.next = self.ends.val();
        self.out_empty.next = 0.into();
        if self.flush.val() {
            self.out_data.next = bit_cast::<128, 96>(self.held.q.val());
            self.out_eop.next = true;
            self.out_empty.next = self.flush_empty.q.val();
        }

        if self.advance.val() {
            self.held.d.next = self.data.val().get_bits::<96>(32);
            self.first_out.d.next = false;
            if self.eop.val() {
                self.flush_empty.d.next = bit_cast::<2, 3>(self.flush_pad.val());
            }
        }
        if self.load.val() {
            self.held.d.next = self.header.val();
            self.first_out.d.next = true;
            if self.eop.val() {
                self.flush_empty.d.next = 1.into();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{bits128, Lcg, Stepper};
    use crate::verilog::checks::lint_verilog;
    use crate::verilog::export::block_verilog;

    /// `dws` as 4-lane beats: (data, eop, empty).
    fn beats(dws: &[u32]) -> Vec<(u128, bool, u64)> {
        let chunks: Vec<&[u32]> = dws.chunks(4).collect();
        chunks
            .iter()
            .enumerate()
            .map(|(k, c)| {
                let data = c
                    .iter()
                    .enumerate()
                    .fold(0u128, |d, (l, &w)| d | (u128::from(w) << (32 * l)));
                (data, k + 1 == chunks.len(), 4 - c.len() as u64)
            })
            .collect()
    }

    /// Random packets (a 4-DW header and 0 to 20 payload DWs) through the shift, driven
    /// as the translation drives it with random idle cycles: each comes out as the 3-DW
    /// header and the same payload, `sop` on its first beat, `eop` and `empty` on its
    /// last, and a shown beat does not change while it waits.
    #[test]
    fn packets_come_out_one_dw_shorter_and_whole() {
        let mut s = Stepper::new(EgressShift::default(), |b| &mut b.clock);
        let mut rng = Lcg(0x5_41F7);
        let mut flushes = [0usize; 4];
        for packet in 0..2_000 {
            let header: Vec<u32> = (0..3).map(|_| rng.next_u64() as u32).collect();
            let payload: Vec<u32> = (0..rng.below(21)).map(|_| rng.next_u64() as u32).collect();
            let mut input = vec![rng.next_u64() as u32; 4];
            input.extend_from_slice(&payload);
            let input = beats(&input);
            let mut out: Vec<(u128, bool, bool, u64)> = Vec::new();
            let head = input[0];
            let u = &mut s.uut;
            u.header.next = bits128(
                header
                    .iter()
                    .enumerate()
                    .fold(0u128, |d, (l, &w)| d | (u128::from(w) << (32 * l))),
            )
            .get_bits::<96>(0);
            u.data.next = bits128(head.0);
            (u.eop.next, u.empty.next) = (head.1, head.2.into());
            (u.load.next, u.advance.next, u.flush.next) = (true, false, false);
            s.settle();
            s.tick();
            s.uut.load.next = false;
            let mut k = 1;
            let mut flush = head.1;
            while k < input.len() || flush {
                assert!(s.cycle < 200_000, "packet {packet} stalled");
                let take = rng.chance(0.6);
                let u = &mut s.uut;
                if !flush {
                    u.data.next = bits128(input[k].0);
                    (u.eop.next, u.empty.next) = (input[k].1, input[k].2.into());
                }
                u.flush.next = flush;
                u.advance.next = take && !flush;
                s.settle();
                let u = &s.uut;
                let shown = (
                    u.out_data.val().get_bits::<64>(0).to_u64(),
                    u.out_sop.val(),
                    u.out_eop.val(),
                );
                if take {
                    out.push((
                        u128::from(u.out_data.val().get_bits::<64>(0).to_u64())
                            | (u128::from(u.out_data.val().get_bits::<64>(64).to_u64()) << 64),
                        u.out_sop.val(),
                        u.out_eop.val(),
                        u.out_empty.val().to_u64(),
                    ));
                    if flush {
                        flushes[out.last().unwrap().3 as usize] += 1;
                        flush = false;
                    } else {
                        flush = input[k].1 && !u.ends.val();
                        k += 1;
                    }
                }
                s.tick();
                if !take {
                    s.settle();
                    let u = &s.uut;
                    let again = (
                        u.out_data.val().get_bits::<64>(0).to_u64(),
                        u.out_sop.val(),
                        u.out_eop.val(),
                    );
                    assert_eq!(again, shown, "packet {packet}: a waiting beat changed");
                }
            }
            let mut want = header.clone();
            want.extend_from_slice(&payload);
            let want: Vec<(u128, bool, bool, u64)> = beats(&want)
                .iter()
                .enumerate()
                .map(|(i, &(d, eop, empty))| (d, i == 0, eop, empty))
                .collect();
            // Lanes past the packet's end carry no data: compare the used lanes only.
            let got: Vec<(u128, bool, bool, u64)> = out
                .iter()
                .map(|&(d, sop, eop, empty)| {
                    let used = if eop { 4 - empty } else { 4 };
                    let mask = if used == 4 {
                        u128::MAX
                    } else {
                        (1u128 << (32 * used)) - 1
                    };
                    (d & mask, sop, eop, empty)
                })
                .collect();
            assert_eq!(got, want, "packet {packet}: {} payload DWs", payload.len());
        }
        assert!(flushes.iter().skip(1).all(|&n| n > 100), "{flushes:?}");
    }

    #[test]
    fn egress_shift_lint_clean() {
        let mut uut = EgressShift::default();
        lint_verilog(&block_verilog(&mut uut, "egress_shift"), "egress_shift").unwrap();
    }
}
