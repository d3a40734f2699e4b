//! Where a channel's chain is: the current descriptor's address and whether the chain is
//! in host memory.
//!
//! A start points at the chain's first descriptor: its host address (`DESC_BASE`, on a
//! 32-byte boundary) or its internal index (at bits 14:5, as `next` holds it); following
//! `next` points at the next one, in the memory the chain started in.

use peach2_regmap::dma::DESC_BYTES;
use rust_hdl::prelude::*;

// A descriptor is 32 bytes: an index shifted left by 5, an address's low 5 bits clear.
const _: () = assert!(DESC_BYTES == 1 << 5);

/// The current descriptor of a channel's chain.
#[derive(LogicBlock, Default)]
pub struct DescPointer {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: internal memory, descriptor 0.
    pub reset: Signal<In, Bit>,
    /// Pulse: a start is taken; point at its first descriptor.
    pub start: Signal<In, Bit>,
    /// The start's chain is in host memory.
    pub start_host: Signal<In, Bit>,
    /// The start's first internal descriptor.
    pub start_index: Signal<In, Bits<10>>,
    /// `DESC_BASE`: the start's first host descriptor.
    pub desc_base: Signal<In, Bits<64>>,
    /// Pulse: follow the current descriptor's `next`.
    pub follow: Signal<In, Bit>,
    /// The next host descriptor's address.
    pub next_host: Signal<In, Bits<64>>,
    /// The next internal descriptor, its index at bits 14:5.
    pub next_int: Signal<In, Bits<64>>,
    /// The chain is in host memory.
    pub host: Signal<Out, Bit>,
    /// The current descriptor: its host address, or its internal index at bits 14:5.
    pub cur: Signal<Out, Bits<64>>,
    /// See `host`.
    host_q: DFF<Bit>,
    /// See `cur`.
    cur_q: DFF<Bits<64>>,
}

impl Logic for DescPointer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, host_q, cur_q);
        self.host.next = self.host_q.q.val();
        self.cur.next = self.cur_q.q.val();
        if self.start.val() {
            self.host_q.d.next = self.start_host.val();
            self.cur_q.d.next = bit_cast::<64, 10>(self.start_index.val()) << 5;
            if self.start_host.val() {
                self.cur_q.d.next = self.desc_base.val() & 0xFFFF_FFFF_FFFF_FFE0u64;
            }
        }
        if self.follow.val() {
            self.cur_q.d.next = self.next_int.val();
            if self.host_q.q.val() {
                self.cur_q.d.next = self.next_host.val();
            }
        }
        if self.reset.val() {
            self.host_q.d.next = false;
            self.cur_q.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Lcg, Stepper};
    use crate::verilog::checks::lint_verilog;
    use crate::verilog::export::block_verilog;

    /// Random starts, follows and resets against the rule written plainly; both
    /// memories are started in and followed in many times.
    #[test]
    fn points_where_starts_and_follows_say() {
        let mut s = Stepper::new(DescPointer::default(), |b| &mut b.clock);
        let mut rng = Lcg(0xD35C_0001);
        let (mut host, mut cur) = (false, 0u64);
        let mut follows = [0usize; 2];
        for cycle in 0..20_000 {
            let reset = cycle == 0 || rng.chance(0.01);
            // A start and a follow never come together (a start needs a stopped chain).
            let start = rng.chance(0.1);
            let follow = !start && rng.chance(0.3);
            let (start_host, start_index) = (rng.chance(0.5), rng.below(1 << 10));
            let (desc_base, next_host, next_int) =
                (rng.next_u64(), rng.next_u64(), rng.below(1 << 10) << 5);
            let u = &mut s.uut;
            u.reset.next = reset;
            u.start.next = start;
            u.start_host.next = start_host;
            u.start_index.next = start_index.into();
            u.desc_base.next = desc_base.into();
            u.follow.next = follow;
            u.next_host.next = next_host.into();
            u.next_int.next = next_int.into();
            s.settle();
            if cycle > 0 {
                assert_eq!(
                    (s.uut.host.val(), s.uut.cur.val().to_u64()),
                    (host, cur),
                    "cycle {cycle}"
                );
            }
            if reset {
                (host, cur) = (false, 0);
            } else if start {
                host = start_host;
                cur = if start_host {
                    desc_base & !0x1F
                } else {
                    start_index << 5
                };
            } else if follow {
                follows[usize::from(host)] += 1;
                cur = if host { next_host } else { next_int };
            }
            s.tick();
        }
        assert!(follows.iter().all(|&n| n > 1_000), "{follows:?}");
    }

    #[test]
    fn desc_pointer_lint_clean() {
        let mut uut = DescPointer::default();
        lint_verilog(
            &block_verilog(&mut uut, "dma_desc_pointer"),
            "dma_desc_pointer",
        )
        .unwrap();
    }
}
