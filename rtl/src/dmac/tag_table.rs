//! The per-tag table of the DMA's data reads: for each of the `8C` data tags of `C`
//! channels, the ring position one past the read's last DW (its end), its length and
//! the DWs still to come. (A completion's payload starts at `end - byte count`; the
//! table keeps the end, not the start, so that a completion's placement waits for one
//! subtraction after the lookup, not two, on the DMA's deepest path.)
//!
//! An array indexed by tag, with combinational reads: one for the completion being taken,
//! one per channel for its oldest read's end, and per tag whether its count is 0 (so that
//! retirement picks a ready bit by the oldest tag instead of comparing a picked count with
//! 0, on the reorder stage's deepest path: the bit is a register beside the count); two
//! writes a cycle, the later winning on the same tag: a completion's count (its read's
//! DWs still to come after it, or 0 after a failed one), an issued read's entry. The
//! chip holds it in registers as the flip-flops it replaces did; written as an array,
//! the simulators index it instead of comparing a tag against every entry. Tags are the
//! 8-bit TLP field; the table uses their low bits (the caller looks up only data tags,
//! or ignores the answer).

use rust_hdl::prelude::*;

/// The tag table of `C` channels' data reads.
#[derive(LogicBlock)]
pub struct TagTable<const C: usize> {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Tag of the completion being taken.
    pub lookup_tag: Signal<In, Bits<8>>,
    /// Its read's end ring position.
    pub lookup_end: Signal<Out, Bits<16>>,
    /// Its read's length in DWs.
    pub lookup_len: Signal<Out, Bits<8>>,
    /// Its read's DWs still to come.
    pub lookup_rem: Signal<Out, Bits<8>>,
    /// Per channel c: the index k of its oldest read's tag `8c + k`.
    pub retire_idx: [Signal<In, Bits<3>>; C],
    /// Per channel: that read's end ring position.
    pub retire_end: [Signal<Out, Bits<16>>; C],
    /// Per channel c, bit k: tag `8c + k`'s count is 0 (none of its DWs still to come).
    pub rem_zero: [Signal<Out, Bits<8>>; C],
    /// Set `dec_tag`'s count to `dec_rem` (after a completion's last beat, or to 0 after
    /// a failed completion).
    pub dec: Signal<In, Bit>,
    /// The tag whose count goes down.
    pub dec_tag: Signal<In, Bits<8>>,
    /// Its new count.
    pub dec_rem: Signal<In, Bits<8>>,
    /// Fill `issue_tag`'s entry (a read issued).
    pub issue: Signal<In, Bit>,
    /// The issued read's tag.
    pub issue_tag: Signal<In, Bits<8>>,
    /// Its end ring position.
    pub issue_end: Signal<In, Bits<16>>,
    /// Its length in DWs.
    pub issue_rem: Signal<In, Bits<8>>,
    /// Per tag: its read's end ring position.
    _end: Vec<Bits<16>>,
    /// Per tag: its read's length in DWs.
    _len: Vec<Bits<8>>,
    /// Per tag: its read's DWs still to come.
    _rem: Vec<Bits<8>>,
    /// Per tag: its count is 0, written with the count (a flag of its own so that the
    /// zero test is not on retirement's path).
    _zero: Vec<bool>,
}

impl<const C: usize> TagTable<C> {
    /// Entries: 8 data tags per channel.
    pub const TAGS: usize = 8 * C;

    /// A cleared table; panics unless `C` is a power of two (tags index by bit field).
    pub fn new() -> Self {
        assert!(
            C.is_power_of_two(),
            "TagTable<{C}>: C must be a power of two"
        );
        Self {
            clock: Default::default(),
            lookup_tag: Default::default(),
            lookup_end: Default::default(),
            lookup_len: Default::default(),
            lookup_rem: Default::default(),
            retire_idx: array_init::array_init(|_| Default::default()),
            retire_end: array_init::array_init(|_| Default::default()),
            rem_zero: array_init::array_init(|_| Default::default()),
            dec: Default::default(),
            dec_tag: Default::default(),
            dec_rem: Default::default(),
            issue: Default::default(),
            issue_tag: Default::default(),
            issue_end: Default::default(),
            issue_rem: Default::default(),
            _end: vec![0.into(); Self::TAGS],
            _len: vec![0.into(); Self::TAGS],
            _rem: vec![0.into(); Self::TAGS],
            _zero: vec![true; Self::TAGS],
        }
    }

    /// The entry of a tag: its low bits.
    fn entry(tag: Bits<8>) -> usize {
        tag.index() % Self::TAGS
    }
}

impl<const C: usize> Default for TagTable<C> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const C: usize> Logic for TagTable<C> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            if self.dec.val() {
                let t = Self::entry(self.dec_tag.val());
                self._rem[t] = self.dec_rem.val();
                self._zero[t] = self.dec_rem.val() == 0;
            }
            if self.issue.val() {
                let t = Self::entry(self.issue_tag.val());
                self._end[t] = self.issue_end.val();
                self._len[t] = self.issue_rem.val();
                self._rem[t] = self.issue_rem.val();
                self._zero[t] = self.issue_rem.val() == 0;
            }
        }
        let t = Self::entry(self.lookup_tag.val());
        self.lookup_end.next = self._end[t];
        self.lookup_len.next = self._len[t];
        self.lookup_rem.next = self._rem[t];
        for c in 0..C {
            let t = 8 * c + self.retire_idx[c].val().index();
            self.retire_end[c].next = self._end[t];
            let zero = (0..8).filter(|&k| self._zero[8 * c + k]);
            self.rem_zero[c].next = zero.map(|k| 1u64 << k).sum::<u64>().into();
        }
    }

    fn connect(&mut self) {
        self.lookup_end.connect();
        self.lookup_len.connect();
        self.lookup_rem.connect();
        for c in 0..C {
            self.retire_end[c].connect();
            self.rem_zero[c].connect();
        }
    }

    fn hdl(&self) -> Verilog {
        let hi = Self::TAGS.trailing_zeros() - 1;
        // The channel number's bits above a retire index's three.
        let cb = hi + 1 - 3;
        let retire: String = (0..C)
            .map(|c| {
                let at = format!("{{{cb}'d{c}, retire_idx${c}}}");
                let zero: String = (0..8)
                    .rev()
                    .map(|k| format!("t_zero[{}]", 8 * c + k))
                    .collect::<Vec<_>>()
                    .join(", ");
                format!(
                    "assign retire_end${c} = t_end[{at}];\n\
                     assign rem_zero${c} = {{{zero}}};\n"
                )
            })
            .collect();
        Verilog::Wrapper(Wrapper {
            code: format!(
                "\
reg [15:0] t_end[0:{last}];
reg [7:0] t_len[0:{last}];
reg [7:0] t_rem[0:{last}];
reg t_zero[0:{last}];
integer i;
initial begin
    for (i = 0; i < {tags}; i = i + 1) begin
        t_end[i] = 16'h0;
        t_len[i] = 8'h0;
        t_rem[i] = 8'h0;
        t_zero[i] = 1'b1;
    end
end
assign lookup_end = t_end[lookup_tag[{hi}:0]];
assign lookup_len = t_len[lookup_tag[{hi}:0]];
assign lookup_rem = t_rem[lookup_tag[{hi}:0]];
{retire}
always @(posedge clock) begin
    if (dec) begin
        t_rem[dec_tag[{hi}:0]] <= dec_rem;
        t_zero[dec_tag[{hi}:0]] <= dec_rem == 8'h0;
    end
    if (issue) begin
        t_end[issue_tag[{hi}:0]] <= issue_end;
        t_len[issue_tag[{hi}:0]] <= issue_rem;
        t_rem[issue_tag[{hi}:0]] <= issue_rem;
        t_zero[issue_tag[{hi}:0]] <= issue_rem == 8'h0;
    end
end
",
                last = Self::TAGS - 1,
                tags = Self::TAGS,
            ),
            cores: String::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Lcg, Stepper};

    /// Random writes of both kinds (also on one tag in one cycle) against an array model;
    /// every read port checked every cycle.
    #[test]
    fn reads_see_the_writes_in_priority_order() {
        const TAGS: usize = TagTable::<4>::TAGS;
        let mut s = Stepper::new(TagTable::<4>::new(), |t| &mut t.clock);
        let mut rng = Lcg(5);
        let (mut end, mut len, mut rem) = ([0u64; TAGS], [0u64; TAGS], [0u64; TAGS]);
        for cycle in 0..5_000 {
            let u = &mut s.uut;
            let tag = |rng: &mut Lcg| rng.below(TAGS as u64);
            let (lt, dt, it) = (tag(&mut rng), tag(&mut rng), tag(&mut rng));
            let rk: [u64; 4] = std::array::from_fn(|_| rng.below(8));
            let (dec, issue) = (rng.chance(0.3), rng.chance(0.3));
            // Counts of 0 half the time: the zero bits see both.
            let (dr, ie, ir) = (
                if rng.chance(0.5) { 0 } else { rng.below(256) },
                rng.below(1 << 16),
                rng.below(256),
            );
            u.lookup_tag.next = lt.into();
            for (port, &k) in u.retire_idx.iter_mut().zip(&rk) {
                port.next = k.into();
            }
            u.dec.next = dec;
            u.dec_tag.next = dt.into();
            u.dec_rem.next = dr.into();
            u.issue.next = issue;
            u.issue_tag.next = it.into();
            u.issue_end.next = ie.into();
            u.issue_rem.next = ir.into();
            s.settle();
            let u = &s.uut;
            let lt = lt as usize;
            assert_eq!(
                [
                    u.lookup_end.val().to_u64(),
                    u.lookup_len.val().to_u64(),
                    u.lookup_rem.val().to_u64()
                ],
                [end[lt], len[lt], rem[lt]],
                "cycle {cycle}: lookup"
            );
            for (c, &k) in rk.iter().enumerate() {
                let t = 8 * c + k as usize;
                assert_eq!(
                    u.retire_end[c].val().to_u64(),
                    end[t],
                    "cycle {cycle}: end {c}"
                );
                let zero: u64 = (0..8)
                    .filter(|&k| rem[8 * c + k] == 0)
                    .map(|k| 1 << k)
                    .sum();
                assert_eq!(
                    u.rem_zero[c].val().to_u64(),
                    zero,
                    "cycle {cycle}: zero {c}"
                );
            }
            s.tick();
            if dec {
                rem[dt as usize] = dr;
            }
            if issue {
                let it = it as usize;
                (end[it], len[it], rem[it]) = (ie, ir, ir);
            }
        }
    }
}
