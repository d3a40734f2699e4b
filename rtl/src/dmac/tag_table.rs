//! The per-tag table of the DMA's data reads: for each of the 32 data tags, the ring
//! position of the read's first DW, of its end, and the DWs still to come.
//!
//! An array indexed by tag, with combinational reads: one for the completion being taken
//! and one per channel for its oldest read (retirement); three writes a cycle, later ones
//! winning on the same tag: a failed completion clears its read's count, a completion's
//! last beat lowers it, an issued read fills its entry. The chip holds it in registers as
//! the 96 flip-flops it replaces did; written as an array, the simulators index it
//! instead of comparing a tag against all 32.

use rust_hdl::prelude::*;

/// Tags in the table.
const TAGS: usize = 32;

/// The tag table.
#[derive(LogicBlock, Default)]
pub struct TagTable {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Tag of the completion being taken.
    pub lookup_tag: Signal<In, Bits<5>>,
    /// Its read's first DW's ring position.
    pub lookup_start: Signal<Out, Bits<16>>,
    /// Its read's end ring position.
    pub lookup_end: Signal<Out, Bits<16>>,
    /// Its read's DWs still to come.
    pub lookup_rem: Signal<Out, Bits<8>>,
    /// Per channel: the tag of its oldest read.
    pub retire_tag: [Signal<In, Bits<5>>; 4],
    /// Per channel: that read's end ring position.
    pub retire_end: [Signal<Out, Bits<16>>; 4],
    /// Per channel: that read's DWs still to come.
    pub retire_rem: [Signal<Out, Bits<8>>; 4],
    /// Clear `clear_tag`'s count (a failed completion).
    pub clear: Signal<In, Bit>,
    /// The tag to clear.
    pub clear_tag: Signal<In, Bits<5>>,
    /// Set `dec_tag`'s count to `dec_rem` (a completion's last beat).
    pub dec: Signal<In, Bit>,
    /// The tag whose count goes down.
    pub dec_tag: Signal<In, Bits<5>>,
    /// Its new count.
    pub dec_rem: Signal<In, Bits<8>>,
    /// Fill `issue_tag`'s entry (a read issued).
    pub issue: Signal<In, Bit>,
    /// The issued read's tag.
    pub issue_tag: Signal<In, Bits<5>>,
    /// Its first DW's ring position.
    pub issue_start: Signal<In, Bits<16>>,
    /// Its end ring position.
    pub issue_end: Signal<In, Bits<16>>,
    /// Its length in DWs.
    pub issue_rem: Signal<In, Bits<8>>,
    _start: [Bits<16>; TAGS],
    _end: [Bits<16>; TAGS],
    _rem: [Bits<8>; TAGS],
}

impl Logic for TagTable {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            if self.clear.val() {
                self._rem[self.clear_tag.val().index()] = 0.into();
            }
            if self.dec.val() {
                self._rem[self.dec_tag.val().index()] = self.dec_rem.val();
            }
            if self.issue.val() {
                let t = self.issue_tag.val().index();
                self._start[t] = self.issue_start.val();
                self._end[t] = self.issue_end.val();
                self._rem[t] = self.issue_rem.val();
            }
        }
        let t = self.lookup_tag.val().index();
        self.lookup_start.next = self._start[t];
        self.lookup_end.next = self._end[t];
        self.lookup_rem.next = self._rem[t];
        for c in 0..4 {
            let t = self.retire_tag[c].val().index();
            self.retire_end[c].next = self._end[t];
            self.retire_rem[c].next = self._rem[t];
        }
    }

    fn connect(&mut self) {
        self.lookup_start.connect();
        self.lookup_end.connect();
        self.lookup_rem.connect();
        for c in 0..4 {
            self.retire_end[c].connect();
            self.retire_rem[c].connect();
        }
    }

    fn hdl(&self) -> Verilog {
        let retire: String = (0..4)
            .map(|c| {
                format!(
                    "assign retire_end${c} = t_end[retire_tag${c}];\n\
                     assign retire_rem${c} = t_rem[retire_tag${c}];\n"
                )
            })
            .collect();
        Verilog::Wrapper(Wrapper {
            code: format!(
                "\
reg [15:0] t_start[0:{last}];
reg [15:0] t_end[0:{last}];
reg [7:0] t_rem[0:{last}];
integer i;
initial begin
    for (i = 0; i < {TAGS}; i = i + 1) begin
        t_start[i] = 16'h0;
        t_end[i] = 16'h0;
        t_rem[i] = 8'h0;
    end
end
assign lookup_start = t_start[lookup_tag];
assign lookup_end = t_end[lookup_tag];
assign lookup_rem = t_rem[lookup_tag];
{retire}
always @(posedge clock) begin
    if (clear) t_rem[clear_tag] <= 8'h0;
    if (dec) t_rem[dec_tag] <= dec_rem;
    if (issue) begin
        t_start[issue_tag] <= issue_start;
        t_end[issue_tag] <= issue_end;
        t_rem[issue_tag] <= issue_rem;
    end
end
",
                last = TAGS - 1,
            ),
            cores: String::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Lcg, Stepper};

    /// Random writes of all three kinds (also on one tag in one cycle) against an array
    /// model; every read port checked every cycle.
    #[test]
    fn reads_see_the_writes_in_priority_order() {
        let mut s = Stepper::new(TagTable::default(), |t| &mut t.clock);
        let mut rng = Lcg(5);
        let (mut start, mut end, mut rem) = ([0u64; TAGS], [0u64; TAGS], [0u64; TAGS]);
        for cycle in 0..5_000 {
            let u = &mut s.uut;
            let tag = |rng: &mut Lcg| rng.below(TAGS as u64);
            let (lt, ct, dt, it) = (tag(&mut rng), tag(&mut rng), tag(&mut rng), tag(&mut rng));
            let rt: [u64; 4] = std::array::from_fn(|_| tag(&mut rng));
            let (clear, dec, issue) = (rng.chance(0.3), rng.chance(0.3), rng.chance(0.3));
            let (dr, is, ie, ir) = (
                rng.below(256),
                rng.below(1 << 16),
                rng.below(1 << 16),
                rng.below(256),
            );
            u.lookup_tag.next = lt.into();
            for (port, &t) in u.retire_tag.iter_mut().zip(&rt) {
                port.next = t.into();
            }
            u.clear.next = clear;
            u.clear_tag.next = ct.into();
            u.dec.next = dec;
            u.dec_tag.next = dt.into();
            u.dec_rem.next = dr.into();
            u.issue.next = issue;
            u.issue_tag.next = it.into();
            u.issue_start.next = is.into();
            u.issue_end.next = ie.into();
            u.issue_rem.next = ir.into();
            s.settle();
            let u = &s.uut;
            let lt = lt as usize;
            assert_eq!(
                [
                    u.lookup_start.val().to_u64(),
                    u.lookup_end.val().to_u64(),
                    u.lookup_rem.val().to_u64()
                ],
                [start[lt], end[lt], rem[lt]],
                "cycle {cycle}: lookup"
            );
            for (c, &t) in rt.iter().enumerate() {
                let t = t as usize;
                assert_eq!(
                    [
                        u.retire_end[c].val().to_u64(),
                        u.retire_rem[c].val().to_u64()
                    ],
                    [end[t], rem[t]],
                    "cycle {cycle}: retire {c}"
                );
            }
            s.tick();
            if clear {
                rem[ct as usize] = 0;
            }
            if dec {
                rem[dt as usize] = dr;
            }
            if issue {
                let it = it as usize;
                (start[it], end[it], rem[it]) = (is, ie, ir);
            }
        }
    }
}
