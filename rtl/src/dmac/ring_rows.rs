//! Where a channel's ring position lives in the reorder buffer: bank `position mod 4`,
//! row `channel << row_shift | (position / 4) & row_mask` ([`RingLayout`]), for the four
//! lanes of a beat. The one statement of that rule: the completions write by it
//! (`cpl_lanes`) and the write generator reads by it. Combinational.

use super::RingLayout;
use rust_hdl::prelude::*;

/// The bank rows of four ring positions of one channel, among `C` (`CB` bits).
#[derive(LogicBlock)]
pub struct RingRows<const C: usize, const CB: usize> {
    /// The channel.
    pub chan: Signal<In, Bits<CB>>,
    /// Per lane: a ring position of the channel.
    pub pos: [Signal<In, Bits<16>>; 4],
    /// Per lane: its row in its bank (`pos mod 4`).
    pub row: [Signal<Out, Bits<10>>; 4],
    /// The channel's place in a bank row: shifted by this.
    row_shift: Constant<Bits<10>>,
    /// The ring line's place in a bank row: masked by this.
    row_mask: Constant<Bits<10>>,
}

impl<const C: usize, const CB: usize> RingRows<C, CB> {
    /// The mapping; panics on a channel count without a ring layout.
    pub fn new() -> Self {
        let ring = RingLayout::new(C, CB);
        Self {
            chan: Default::default(),
            pos: Default::default(),
            row: Default::default(),
            row_shift: Constant::new(ring.row_shift.into()),
            row_mask: Constant::new(ring.row_mask.into()),
        }
    }
}

impl<const C: usize, const CB: usize> Default for RingRows<C, CB> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const C: usize, const CB: usize> Logic for RingRows<C, CB> {
    #[hdl_gen]
    fn update(&mut self) {
        // (rust-hdl cannot use a loop index inside bit_cast: one line per lane.)
        self.row[0].next = (bit_cast::<10, CB>(self.chan.val()) << self.row_shift.val())
            | (self.pos[0].val().get_bits::<10>(2) & self.row_mask.val());
        self.row[1].next = (bit_cast::<10, CB>(self.chan.val()) << self.row_shift.val())
            | (self.pos[1].val().get_bits::<10>(2) & self.row_mask.val());
        self.row[2].next = (bit_cast::<10, CB>(self.chan.val()) << self.row_shift.val())
            | (self.pos[2].val().get_bits::<10>(2) & self.row_mask.val());
        self.row[3].next = (bit_cast::<10, CB>(self.chan.val()) << self.row_shift.val())
            | (self.pos[3].val().get_bits::<10>(2) & self.row_mask.val());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::Lcg;

    fn follows_the_layout<const C: usize, const CB: usize>(seed: u64) {
        let ring = RingLayout::new(C, CB);
        let mut uut = RingRows::<C, CB>::new();
        uut.connect_all();
        let mut rng = Lcg(seed);
        for _ in 0..500 {
            let chan = rng.below(C as u64);
            let pos: [u64; 4] = std::array::from_fn(|_| rng.below(1 << 16));
            uut.chan.next = chan.into();
            for (p, &q) in uut.pos.iter_mut().zip(&pos) {
                p.next = q.into();
            }
            assert!(simulate(&mut uut, 100), "settles");
            for (l, &q) in pos.iter().enumerate() {
                // A channel's ring is ring_dws DWs: 4 banks of ring_dws / 4 rows.
                let row = chan * (ring.ring_dws / 4) + (q % ring.ring_dws) / 4;
                assert_eq!(uut.row[l].val().to_u64(), row, "{C} channels, lane {l}");
            }
        }
    }

    #[test]
    fn rows_follow_the_ring_layout() {
        follows_the_layout::<2, 1>(1);
        follows_the_layout::<4, 2>(2);
        follows_the_layout::<8, 3>(3);
    }
}
