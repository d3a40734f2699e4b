//! A channel's data movement for one descriptor: its read cursor (MRds of at most
//! min(MRRS, 512) bytes) and write cursor (MWrs of at most min(MPS, 256) bytes), and the
//! reorder ring's flow control between them: a read is offered while the ring has room
//! for a read of the largest size (reads may run up to the whole ring ahead of the last
//! write that left the buffer), a write once all its data is in the buffer (`avail`), and
//! the data is done when the write cursor has walked every block and its last write left
//! the buffer.
//!
//! Both cursors continue the ring where the chain's last descriptor left it; each block
//! starts at a fresh 16-byte line, at the lane of its source (= destination) address, so
//! the two cursors agree on every DW's position.

use super::cursor::Cursor;
use super::offers::DataOffer;
use rust_hdl::prelude::*;

/// The read and write cursors of a channel and the ring's flow control.
#[derive(LogicBlock, Default)]
pub struct DataCursors {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Pulse: the chain starts; the ring continues at `avail`, all of it free.
    pub restart: Signal<In, Bit>,
    /// Pulse: a checked descriptor's data is to be moved.
    pub load: Signal<In, Bit>,
    /// The descriptor's source address.
    pub src: Signal<In, Bits<64>>,
    /// Its destination address.
    pub dst: Signal<In, Bits<64>>,
    /// Bytes per block.
    pub len: Signal<In, Bits<25>>,
    /// Blocks.
    pub height: Signal<In, Bits<17>>,
    /// Bytes from one source block to the next.
    pub src_pitch: Signal<In, Bits<32>>,
    /// Bytes from one destination block to the next.
    pub dst_pitch: Signal<In, Bits<32>>,
    /// The channel moves this descriptor's data: grants step the cursors.
    pub run: Signal<In, Bit>,
    /// Ring position up to which data has arrived.
    pub avail: Signal<In, Bits<16>>,
    /// A data tag is free.
    pub can_issue: Signal<In, Bit>,
    /// DWs of this channel's ring.
    pub ring_dws: Signal<In, Bits<16>>,
    /// Pulse: a completion failed (no write is offered in its cycle).
    pub cpl_error: Signal<In, Bit>,
    /// N's max read request size code (128 << code bytes).
    pub max_read_req: Signal<In, Bits<3>>,
    /// N's max payload size code (128 << code bytes).
    pub max_payload: Signal<In, Bits<3>>,
    /// Downstream: the next read and write, and their grants.
    pub offer: DataOffer,
    /// A taken write's data has not left the buffer yet.
    pub w_flight: Signal<Out, Bit>,
    /// Every block written and the last write's data out of the buffer.
    pub done: Signal<Out, Bit>,
    /// Every block's writes taken (the last may still be leaving the buffer).
    pub taken: Signal<Out, Bit>,
    /// Blocks are left to read (the last read has not been taken).
    pub reads_left: Signal<Out, Bit>,
    /// The read cursor: the source's MRds, at most min(MRRS, 512) bytes each.
    rd: Cursor,
    /// The write cursor: the destination's MWrs, at most min(MPS, 256) bytes each.
    wr: Cursor,
    /// Ring position up to which writes have freed the ring.
    wfree: DFF<Bits<16>>,
    /// A taken write's data is still being read from the buffer.
    flight: DFF<Bit>,
    /// The ring position just past that write's data.
    flight_end: DFF<Bits<16>>,
    /// The read cursor's position rounded up past its line, before the mask (sums are
    /// made in their own width; see `verilog::widths`).
    pos_end: Signal<Local, Bits<16>>,
    /// Ring position of the descriptor's first DW: a fresh line, at its address's lane.
    start_pos: Signal<Local, Bits<16>>,
    /// DWs the ring holds past the freed position, up to the read cursor.
    r_used: Signal<Local, Bits<16>>,
    /// The most the ring may hold before a read is offered: `ring_dws` less the largest
    /// read (configuration, registered).
    room_limit: DFF<Bits<16>>,
    /// As of the cycle before: a block is left to read, a tag is free and the ring has
    /// room for the largest read at the read cursor. A register, so the read's offer
    /// waits on no arithmetic: the cursor is never ready in the cycle after it moved
    /// (so its blocks and position are those of the cycle before, and no read of this
    /// channel took a tag then), and the freed position and the free tags only grow
    /// otherwise; a read may wait a cycle for a tag or room it has.
    rd_ok: DFF<Bit>,
    /// Negative (bit 15 set) while the offered write's data is not all in the buffer.
    w_short: Signal<Local, Bits<16>>,
}

impl Logic for DataCursors {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wfree, flight, flight_end, room_limit, rd_ok);
        self.pos_end.next = self.rd.pos.val() + 3;
        self.start_pos.next =
            (self.pos_end.val() & 0xFFFC) | bit_cast::<16, 2>(self.src.val().get_bits::<2>(2));

        self.rd.clock.next = self.clock.val();
        self.rd.reset.next = self.reset.val();
        self.rd.restart.next = self.restart.val();
        self.rd.restart_pos.next = self.avail.val();
        self.rd.load.next = self.load.val();
        self.rd.base.next = self.src.val();
        self.rd.len.next = self.len.val();
        self.rd.height.next = self.height.val();
        self.rd.start_pos.next = self.start_pos.val();
        self.rd.pitch.next = self.src_pitch.val();
        self.rd.max.next = 128.into();
        if self.max_read_req.val() == 0 {
            self.rd.max.next = 32.into();
        }
        if self.max_read_req.val() == 1 {
            self.rd.max.next = 64.into();
        }
        self.rd.grant.next = self.run.val() && self.offer.rd_grant.val();
        self.wr.clock.next = self.clock.val();
        self.wr.reset.next = self.reset.val();
        self.wr.restart.next = self.restart.val();
        self.wr.restart_pos.next = self.avail.val();
        self.wr.load.next = self.load.val();
        self.wr.base.next = self.dst.val();
        self.wr.len.next = self.len.val();
        self.wr.height.next = self.height.val();
        self.wr.start_pos.next = self.start_pos.val();
        self.wr.pitch.next = self.dst_pitch.val();
        self.wr.max.next = 64.into();
        if self.max_payload.val() == 0 {
            self.wr.max.next = 32.into();
        }
        self.wr.grant.next = self.run.val() && self.offer.wr_grant.val();

        // Reads may run a whole ring ahead of the last write that left the buffer.
        self.room_limit.d.next = self.ring_dws.val() - bit_cast::<16, 8>(self.rd.max.val());
        self.r_used.next = self.rd.pos.val() - self.wfree.q.val();
        self.rd_ok.d.next = (self.rd.rows.val() != 0)
            && self.can_issue.val()
            && (self.r_used.val() <= self.room_limit.q.val());
        self.offer.wr_n.next = self.wr.n.val().get_bits::<7>(0);
        self.w_short.next = self.avail.val() - self.wr.end_pos.val();
        self.offer.rd_want.next = self.rd.ready.val() && self.rd_ok.q.val();
        self.offer.wr_want.next = (self.wr.rows.val() != 0)
            && self.wr.ready.val()
            && !self.w_short.val().get_bit(15)
            && !self.cpl_error.val();
        self.offer.rd_addr.next = self.rd.addr.val();
        self.offer.rd_n.next = self.rd.n.val();
        self.offer.rd_end.next = self.rd.end_pos.val();
        self.offer.wr_addr.next = self.wr.addr.val();
        self.offer.wr_pos.next = self.wr.pos.val();
        self.w_flight.next = self.flight.q.val();
        self.taken.next = self.wr.rows.val() == 0;
        self.done.next = self.taken.val() && !self.flight.q.val();
        self.reads_left.next = self.rd.rows.val() != 0;

        if self.offer.wr_done.val() {
            self.flight.d.next = false;
            self.wfree.d.next = self.flight_end.q.val();
        }
        if self.restart.val() {
            self.wfree.d.next = self.avail.val();
            self.flight.d.next = false;
        }
        if self.run.val() && self.offer.wr_grant.val() {
            self.flight.d.next = true;
            self.flight_end.d.next = self.wr.end_pos.val();
        }
        if self.reset.val() {
            self.flight.d.next = false;
            self.wfree.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Lcg, Stepper};
    use std::collections::VecDeque;

    /// Ring positions wrap at 16 bits.
    const RING: u64 = 1 << 16;

    /// One descriptor's data moved by the block, with a random DMA around it: reads taken
    /// at random while offered, their data arriving in order after random delays (`avail`),
    /// tags free at random, writes taken at random while offered and leaving the buffer a
    /// few cycles later, completion errors at random. Returns the reads and writes as
    /// (address, DWs, ring position), after checking every cycle that no read overruns
    /// the ring past the last freed position, no write goes before its data is in, none is
    /// offered in a completion error's cycle, and `done` comes only at the end.
    fn moved(rng: &mut Lcg, d: &Desc, start: u64, ring_dws: u64) -> (Vec<[u64; 3]>, Vec<[u64; 3]>) {
        let mut s = Stepper::new(DataCursors::default(), |u| &mut u.clock);
        s.uut.reset.next = true;
        s.tick();
        s.uut.reset.next = false;
        let u = &mut s.uut;
        u.max_read_req.next = d.mrrs.into();
        u.max_payload.next = d.mps.into();
        u.ring_dws.next = ring_dws.into();
        u.avail.next = start.into();
        u.restart.next = true;
        s.tick();
        let u = &mut s.uut;
        u.restart.next = false;
        u.src.next = d.src.into();
        u.dst.next = d.dst.into();
        u.len.next = d.len.into();
        u.height.next = d.height.into();
        u.src_pitch.next = d.src_pitch.into();
        u.dst_pitch.next = d.dst_pitch.into();
        u.load.next = true;
        s.tick();
        s.uut.load.next = false;
        s.uut.run.next = true;
        let (mut reads, mut writes) = (Vec::new(), Vec::new());
        // Reads in flight: (cycle its data is in, position past it).
        let mut arriving: VecDeque<(u64, u64)> = VecDeque::new();
        let (mut avail, mut freed) = (start, start);
        let mut flight: Option<(u64, u64)> = None;
        let total_dws = d.len / 4 * d.height;
        while s.cycle < 200_000 {
            let u = &mut s.uut;
            let cpl_error = rng.chance(0.02);
            u.cpl_error.next = cpl_error;
            u.can_issue.next = arriving.len() < 8 && rng.chance(0.7);
            u.offer.rd_grant.next = false;
            u.offer.wr_grant.next = false;
            let leaves = flight.is_some_and(|(at, _)| at == s.cycle);
            u.offer.wr_done.next = leaves;
            s.settle();
            let u = &s.uut;
            assert!(
                !(cpl_error && u.offer.wr_want.val()),
                "a write offered with an error"
            );
            let written: u64 = writes.iter().map(|w: &[u64; 3]| w[1]).sum();
            if u.done.val() {
                assert_eq!(written, total_dws, "done before every DW was written");
                assert!(arriving.is_empty(), "done with reads in flight");
                return (reads, writes);
            }
            if u.offer.rd_want.val() && rng.chance(0.5) {
                let r = [
                    u.offer.rd_addr.val().to_u64(),
                    u.offer.rd_n.val().to_u64(),
                    (u.offer.rd_end.val().to_u64() + RING - u.offer.rd_n.val().to_u64()) % RING,
                ];
                let past = (r[2] + r[1]) % RING;
                assert!(
                    (past + RING - freed) % RING <= ring_dws,
                    "read {r:?} overruns the ring freed to {freed}"
                );
                let at = arriving
                    .back()
                    .map_or(0, |a| a.0)
                    .max(s.cycle + 1 + rng.below(40));
                arriving.push_back((at, past));
                reads.push(r);
                s.uut.offer.rd_grant.next = true;
            }
            let u = &s.uut;
            let can_take = flight.is_none() || leaves;
            if u.offer.wr_want.val() && can_take && rng.chance(0.5) {
                let w = [
                    u.offer.wr_addr.val().to_u64(),
                    u.offer.wr_n.val().to_u64(),
                    u.offer.wr_pos.val().to_u64(),
                ];
                let past = (w[2] + w[1]) % RING;
                // Its data is in: `avail` is at or past its end (within half the ring).
                assert!(
                    (avail + RING - past) % RING < RING / 2,
                    "write {w:?} before its data (avail {avail})"
                );
                writes.push(w);
                s.uut.offer.wr_grant.next = true;
                if leaves {
                    freed = flight.expect("in flight").1;
                }
                flight = Some((s.cycle + 1 + rng.below(6), past));
            } else if leaves {
                freed = flight.take().expect("in flight").1;
            }
            s.settle();
            s.tick();
            while arriving.front().is_some_and(|a| a.0 <= s.cycle) {
                avail = arriving.pop_front().expect("checked").1;
            }
            s.uut.avail.next = avail.into();
        }
        panic!("the data never finished moving: {d:?}");
    }

    #[derive(Debug)]
    struct Desc {
        src: u64,
        dst: u64,
        len: u64,
        height: u64,
        src_pitch: u64,
        dst_pitch: u64,
        mrrs: u64,
        mps: u64,
    }

    /// Ring positions of the data's DWs in order, from TLPs that cover it in order.
    fn positions(tlps: &[[u64; 3]]) -> Vec<u64> {
        tlps.iter()
            .flat_map(|t| (0..t[1]).map(move |k| (t[2] + k) % RING))
            .collect()
    }

    /// Addresses of the data's DWs in order.
    fn addresses(tlps: &[[u64; 3]]) -> Vec<u64> {
        tlps.iter()
            .flat_map(|t| (0..t[1]).map(move |k| t[0] + 4 * k))
            .collect()
    }

    #[test]
    fn data_moves_through_the_ring_in_order_with_random_flow() {
        let mut rng = Lcg(5);
        for case in 0..60 {
            let low = 4 * rng.below(4);
            let len = 4 * (1 + rng.below(700));
            let height = 1 + rng.below(3);
            let pad = 16 * rng.below(8) + 4 * rng.below(4);
            let d = Desc {
                src: 0x1_0000_0000 + 16 * rng.below(1 << 10) + low,
                dst: 0x2_0000_0000 + 16 * rng.below(1 << 10) + low,
                len,
                height,
                src_pitch: len + pad,
                dst_pitch: len + pad + 16 * rng.below(4),
                mrrs: rng.below(3),
                mps: rng.below(2),
            };
            // Near the wrap of the ring positions now and then.
            let start = if rng.chance(0.3) {
                RING - 4 * rng.below(64)
            } else {
                4 * rng.below(1000)
            } % RING;
            let ring_dws = [256, 512, 1024][rng.below(3) as usize];
            let (reads, writes) = moved(&mut rng, &d, start, ring_dws);
            let row = |base: u64, pitch: u64| -> Vec<u64> {
                (0..d.height)
                    .flat_map(|r| (0..d.len / 4).map(move |k| base + r * pitch + 4 * k))
                    .collect()
            };
            assert_eq!(
                addresses(&reads),
                row(d.src, d.src_pitch),
                "case {case}: reads {d:?}"
            );
            assert_eq!(
                addresses(&writes),
                row(d.dst, d.dst_pitch),
                "case {case}: writes {d:?}"
            );
            // Every DW is written from the ring position it was read into.
            assert_eq!(positions(&reads), positions(&writes), "case {case}: {d:?}");
            let (max_rd, max_wr) = (32 << d.mrrs, 32 << d.mps);
            assert!(reads.iter().all(|r| r[1] <= max_rd.min(128)), "case {case}");
            assert!(writes.iter().all(|w| w[1] <= max_wr.min(64)), "case {case}");
        }
    }
}
