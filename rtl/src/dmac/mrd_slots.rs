//! The read requester's two output slots, in order. A read is granted while a slot is
//! free (`room`), so the grant (and the channels' cursors behind it) never waits on the
//! internal mux's `ready`; a beat is written into a slot and read from it where it is, so
//! `ready` reaches only the two slot pointers and the count, not the 130 bits of the
//! beats. Each beat is a whole one-beat MRd from the internal port to N.

use crate::stream::{TlpSource, DATA_BITS, PORT_INTERNAL, PORT_N};
use rust_hdl::prelude::*;

/// Two one-beat MRds waiting for the internal mux.
#[derive(LogicBlock)]
pub struct MrdSlots {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: both slots empty.
    pub reset: Signal<In, Bit>,
    /// Pulse: `data`/`empty` go into the next slot (only while `room`).
    pub push: Signal<In, Bit>,
    /// The beat to push.
    pub data: Signal<In, Bits<DATA_BITS>>,
    /// Its unused lanes.
    pub empty: Signal<In, Bits<2>>,
    /// A slot is free.
    pub room: Signal<Out, Bit>,
    /// Downstream: the older beat.
    pub out: TlpSource,
    /// The slots' beats.
    slot_data: [DFF<Bits<DATA_BITS>>; 2],
    /// Their `empty` fields.
    slot_empty: [DFF<Bits<2>>; 2],
    /// Beats in the slots (0..=2).
    held: DFF<Bits<2>>,
    /// `held != 0`, a register of its own: the beat's `valid` goes into the internal
    /// mux's choice of source, and from there into the crossbar's `ready`.
    nonempty: DFF<Bit>,
    /// The slot the next beat goes into.
    wr_slot: DFF<Bit>,
    /// The slot of the beat on offer (the older one).
    rd_slot: DFF<Bit>,
    /// The beat on offer leaves this cycle.
    pop: Signal<Local, Bit>,
    /// Where the beats go.
    to_n: Constant<Bits<3>>,
    /// Where they come from.
    from_internal: Constant<Bits<3>>,
}

impl MrdSlots {
    /// Both slots empty.
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            push: Default::default(),
            data: Default::default(),
            empty: Default::default(),
            room: Default::default(),
            out: Default::default(),
            slot_data: Default::default(),
            slot_empty: Default::default(),
            held: Default::default(),
            nonempty: Default::default(),
            wr_slot: Default::default(),
            rd_slot: Default::default(),
            pop: Default::default(),
            to_n: Constant::new(PORT_N.into()),
            from_internal: Constant::new(PORT_INTERNAL.into()),
        }
    }
}

impl Default for MrdSlots {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for MrdSlots {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, held, nonempty, wr_slot, rd_slot);
        for k in 0..2 {
            self.slot_data[k].clock.next = self.clock.val();
            self.slot_data[k].d.next = self.slot_data[k].q.val();
            self.slot_empty[k].clock.next = self.clock.val();
            self.slot_empty[k].d.next = self.slot_empty[k].q.val();
        }
        self.room.next = self.held.q.val() != 2;
        self.pop.next = self.nonempty.q.val() && self.out.ready.val();
        if self.push.val() {
            if self.wr_slot.q.val() {
                self.slot_data[1].d.next = self.data.val();
                self.slot_empty[1].d.next = self.empty.val();
            } else {
                self.slot_data[0].d.next = self.data.val();
                self.slot_empty[0].d.next = self.empty.val();
            }
            self.wr_slot.d.next = !self.wr_slot.q.val();
        }
        if self.pop.val() {
            self.rd_slot.d.next = !self.rd_slot.q.val();
        }
        if self.push.val() && !self.pop.val() {
            self.held.d.next = self.held.q.val() + 1;
        }
        if self.pop.val() && !self.push.val() {
            self.held.d.next = self.held.q.val() - 1;
        }
        self.out.valid.next = self.nonempty.q.val();
        self.out.data.next = self.slot_data[0].q.val();
        self.out.empty.next = self.slot_empty[0].q.val();
        if self.rd_slot.q.val() {
            self.out.data.next = self.slot_data[1].q.val();
            self.out.empty.next = self.slot_empty[1].q.val();
        }
        self.out.sop.next = true;
        self.out.eop.next = true;
        self.out.dest.next = self.to_n.val();
        self.out.src.next = self.from_internal.val();
        self.out.unsupported.next = false;
        self.nonempty.d.next = self.held.d.val() != 0;
        if self.reset.val() {
            self.held.d.next = 0.into();
            self.nonempty.d.next = false;
            self.wr_slot.d.next = false;
            self.rd_slot.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{bits128, Lcg, Stepper, StreamMonitor};
    use std::collections::VecDeque;

    /// Beats pushed at random whenever there is room, taken at random: each leaves once,
    /// in order, as a one-beat packet from the internal port to N; `room` is there exactly
    /// while fewer than two wait, and a reset empties both slots.
    #[test]
    fn beats_leave_in_order_and_room_counts_two() {
        for (seed, p_push, p_ready) in [(1, 0.9, 0.3), (2, 0.5, 0.5), (3, 1.0, 1.0)] {
            let mut s = Stepper::new(MrdSlots::new(), |u| &mut u.clock);
            let mut rng = Lcg(seed);
            let mut mon = StreamMonitor::new(p_ready, seed ^ 0x55);
            let mut held: VecDeque<(u128, u64)> = VecDeque::new();
            let (mut moved, mut resets) = (0, 0);
            while s.cycle < 5_000 {
                let reset = s.cycle == 0 || rng.chance(0.002);
                let u = &mut s.uut;
                u.reset.next = reset;
                let beat = (
                    u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64()),
                    rng.below(4),
                );
                u.data.next = bits128(beat.0);
                u.empty.next = beat.1.into();
                mon.drive(&mut u.out);
                s.settle();
                assert_eq!(s.uut.room.val(), held.len() < 2, "cycle {}: room", s.cycle);
                assert_eq!(
                    s.uut.out.valid.val(),
                    !held.is_empty(),
                    "cycle {}: valid",
                    s.cycle
                );
                let push = s.uut.room.val() && rng.chance(p_push);
                s.uut.push.next = push;
                s.settle();
                if let Some(b) = mon.sample(&s.uut.out) {
                    assert!(
                        b.sop && b.eop && b.dest == 0 && b.src == 4,
                        "a one-beat MRd to N"
                    );
                    assert_eq!(
                        Some((b.data, u64::from(b.empty))),
                        held.pop_front(),
                        "cycle {}",
                        s.cycle
                    );
                    mon.packets.clear();
                    moved += 1;
                }
                if push {
                    held.push_back(beat);
                }
                if reset {
                    held.clear();
                    resets += 1;
                }
                s.tick();
            }
            assert!(
                moved > 1_000 && resets > 2,
                "seed {seed}: {moved} moved, {resets} resets"
            );
        }
    }

    #[test]
    fn mrd_slots_verilog_lints_clean() {
        let mut uut = MrdSlots::new();
        let v = crate::verilog::export::block_verilog(&mut uut, "mrd_slots");
        crate::verilog::checks::lint_verilog(&v, "mrd_slots").unwrap();
    }
}
