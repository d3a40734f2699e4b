//! A channel's read or write cursor: where the next TLP of the descriptor's data starts,
//! how many DWs it carries, and where it goes in the channel's ring.
//!
//! Each TLP is at most `max` DWs, cut at a `max`-DW boundary of the address and at the
//! end of the block; after a block's last TLP the cursor moves to the next block (`pitch`
//! bytes on) at a fresh 16-byte line of the ring, at the lane of that block's address, so
//! the read and write cursors of a channel put every DW at the same ring position.
//!
//! The next TLP's size is a register: it is worked out from the cursor's registers (and
//! `max`) in the cycle before it is offered, so the size arithmetic does not sit in one
//! clock cycle with the consumers' decisions that step the cursor. `ready` is low for the
//! cycle after the cursor moved, while the size catches up.

use rust_hdl::prelude::*;

/// The cursor registers and their step.
#[derive(LogicBlock, Default)]
pub struct Cursor {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high (ring position 0).
    pub reset: Signal<In, Bit>,
    /// Pulse: the chain starts; the ring position continues at `restart_pos`.
    pub restart: Signal<In, Bit>,
    /// Ring position for `restart`.
    pub restart_pos: Signal<In, Bits<16>>,
    /// Pulse: walk a descriptor's data from `base`.
    pub load: Signal<In, Bit>,
    /// First block's address.
    pub base: Signal<In, Bits<64>>,
    /// Bytes per block.
    pub len: Signal<In, Bits<25>>,
    /// Blocks.
    pub height: Signal<In, Bits<17>>,
    /// Ring position of the first block's first DW.
    pub start_pos: Signal<In, Bits<16>>,
    /// Bytes from one block to the next.
    pub pitch: Signal<In, Bits<32>>,
    /// Largest TLP in DWs (a power of two, at most 128): from the port's device control
    /// (MPS or MRRS), which changes only at configuration; the cursor registers it.
    pub max: Signal<In, Bits<8>>,
    /// Pulse: the TLP at the cursor was taken; step past it.
    pub grant: Signal<In, Bit>,
    /// Address of the next TLP.
    pub addr: Signal<Out, Bits<64>>,
    /// DWs of the next TLP.
    pub n: Signal<Out, Bits<8>>,
    /// `addr`, `n` and `pos` describe the next TLP (low for the cycle after a load or a
    /// grant).
    pub ready: Signal<Out, Bit>,
    /// Ring position of the next TLP's first DW.
    pub pos: Signal<Out, Bits<16>>,
    /// Ring position one past it, `pos + n` (with `ready`): a register, so the ring's
    /// flow control compares it without an adder in front.
    pub end_pos: Signal<Out, Bits<16>>,
    /// Blocks not yet walked completely (0: the descriptor's data is done).
    pub rows: Signal<Out, Bits<17>>,
    /// See `addr`.
    addr_q: DFF<Bits<64>>,
    /// Address of the current block's start.
    row_q: DFF<Bits<64>>,
    /// Bytes of the current block not yet walked, from `addr`.
    left_q: DFF<Bits<25>>,
    /// See `rows`.
    rows_q: DFF<Bits<17>>,
    /// See `pos`.
    pos_q: DFF<Bits<16>>,
    /// See `n`.
    n_q: DFF<Bits<8>>,
    /// See `ready`: low the cycle after a load or a grant.
    ready_q: DFF<Bit>,
    /// `pos + n`, worked out beside `n` from the position of the cycle before: while
    /// `ready` is high nothing moved the cursor in that cycle (a grant or a load lowers
    /// it, and a restart comes before a load).
    end_pos_q: DFF<Bits<16>>,
    /// `max`, a cycle late: the configuration register is not on the size's path.
    max_q: DFF<Bits<8>>,
    /// DWs from the cursor's address up to the next `max`-DW boundary.
    room: Signal<Local, Bits<8>>,
    /// DWs of the TLP at the registers: `room`, or what is left of the block if less.
    n_next: Signal<Local, Bits<8>>,
    /// Address of the next block: the current block's start plus `pitch`.
    next_row: Signal<Local, Bits<64>>,
    /// Ring position of the next block's first DW: a fresh line, at its address's lane.
    next_pos: Signal<Local, Bits<16>>,
    /// Past the TLP, rounded up to the next line before the mask (a sum in its own width;
    /// see `verilog::widths`).
    pos_end: Signal<Local, Bits<16>>,
}

impl Logic for Cursor {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, addr_q, row_q, left_q, rows_q, pos_q, n_q, ready_q, end_pos_q, max_q
        );
        self.max_q.d.next = self.max.val();
        // The size of the TLP at the registers, ready the cycle after.
        self.room.next =
            self.max_q.q.val() - (self.addr_q.q.val().get_bits::<8>(2) & (self.max_q.q.val() - 1));
        self.n_next.next = self.room.val();
        if self.left_q.q.val().get_bits::<23>(2) < bit_cast::<23, 8>(self.room.val()) {
            self.n_next.next = self.left_q.q.val().get_bits::<8>(2);
        }
        self.n_q.d.next = self.n_next.val();
        self.end_pos_q.d.next = self.pos_q.q.val() + bit_cast::<16, 8>(self.n_next.val());
        self.end_pos.next = self.end_pos_q.q.val();
        self.ready_q.d.next = !(self.load.val() || self.grant.val());
        self.n.next = self.n_q.q.val();
        self.ready.next = self.ready_q.q.val();
        self.next_row.next = self.row_q.q.val() + bit_cast::<64, 32>(self.pitch.val());
        self.pos_end.next = self.pos_q.q.val() + bit_cast::<16, 8>(self.n_q.q.val()) + 3;
        self.next_pos.next =
            (self.pos_end.val() & 0xFFFC) | bit_cast::<16, 2>(self.next_row.val().get_bits::<2>(2));
        self.addr.next = self.addr_q.q.val();
        self.pos.next = self.pos_q.q.val();
        self.rows.next = self.rows_q.q.val();

        if self.restart.val() {
            self.pos_q.d.next = self.restart_pos.val();
        }
        if self.load.val() {
            self.addr_q.d.next = self.base.val();
            self.row_q.d.next = self.base.val();
            self.left_q.d.next = self.len.val();
            self.rows_q.d.next = self.height.val();
            self.pos_q.d.next = self.start_pos.val();
        }
        if self.grant.val() {
            self.addr_q.d.next = self.addr_q.q.val() + (bit_cast::<64, 8>(self.n_q.q.val()) << 2);
            self.left_q.d.next = self.left_q.q.val() - (bit_cast::<25, 8>(self.n_q.q.val()) << 2);
            self.pos_q.d.next = self.pos_q.q.val() + bit_cast::<16, 8>(self.n_q.q.val());
            if self.left_q.q.val() == (bit_cast::<25, 8>(self.n_q.q.val()) << 2) {
                self.rows_q.d.next = self.rows_q.q.val() - 1;
                self.row_q.d.next = self.next_row.val();
                self.addr_q.d.next = self.next_row.val();
                self.left_q.d.next = self.len.val();
                self.pos_q.d.next = self.next_pos.val();
            }
        }
        if self.reset.val() {
            self.pos_q.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Lcg, Stepper};

    /// The cursor's TLPs for one descriptor, as (address, DWs, ring position), stepped
    /// through the block with grants at random cycles.
    fn walk(base: u64, len: u64, height: u64, pitch: u64, max: u64, start: u64) -> Vec<[u64; 3]> {
        let mut s = Stepper::new(Cursor::default(), |c| &mut c.clock);
        let mut rng = Lcg(base ^ len ^ pitch);
        let mut out = Vec::new();
        let c = &mut s.uut;
        c.base.next = base.into();
        c.len.next = len.into();
        c.height.next = height.into();
        c.pitch.next = pitch.into();
        c.max.next = max.into();
        c.start_pos.next = start.into();
        c.load.next = true;
        s.settle();
        s.tick();
        s.uut.load.next = false;
        while s.cycle < 10_000 {
            s.uut.grant.next = false;
            s.settle();
            if s.uut.rows.val() == 0 {
                return out;
            }
            if s.uut.ready.val() {
                let c = &s.uut;
                let end = (c.pos.val().to_u64() + c.n.val().to_u64()) & 0xFFFF;
                assert_eq!(c.end_pos.val().to_u64(), end, "end = pos + n while ready");
            }
            if s.uut.ready.val() && rng.below(3) == 0 {
                let c = &s.uut;
                out.push([
                    c.addr.val().to_u64(),
                    c.n.val().to_u64(),
                    c.pos.val().to_u64(),
                ]);
                s.uut.grant.next = true;
                s.settle();
            }
            s.tick();
        }
        panic!("the cursor never finished");
    }

    /// The rule, written out: TLPs cut at `max`-DW boundaries and block ends; each block
    /// starts at a fresh ring line, at the lane of its address.
    fn model(base: u64, len: u64, height: u64, pitch: u64, max: u64, start: u64) -> Vec<[u64; 3]> {
        let mut out = Vec::new();
        let mut pos = start;
        for r in 0..height {
            let row = base + r * pitch;
            if r > 0 {
                pos = ((pos + 3) & 0xFFFC) | ((row >> 2) & 3);
            }
            let mut addr = row;
            while addr < row + len {
                let dw = (addr >> 2) & 0xFF;
                let n = (max - (dw & (max - 1))).min((row + len - addr) / 4);
                out.push([addr, n, pos & 0xFFFF]);
                addr += 4 * n;
                pos += n;
            }
        }
        out
    }

    #[test]
    fn cursor_follows_the_rule_with_random_grants() {
        let mut rng = Lcg(7);
        for case in 0..200 {
            let base = 0x1_0000_0000 + 4 * rng.below(1 << 12);
            let len = 4 * (1 + rng.below(300));
            let height = 1 + rng.below(4);
            let pitch = len + 4 * rng.below(64);
            let max = [32, 64, 128][rng.below(3) as usize];
            let start = 4 * rng.below(64) + ((base >> 2) & 3);
            assert_eq!(
                walk(base, len, height, pitch, max, start),
                model(base, len, height, pitch, max, start),
                "case {case}: base {base:#x} len {len} height {height} pitch {pitch} max {max}"
            );
        }
    }
}
