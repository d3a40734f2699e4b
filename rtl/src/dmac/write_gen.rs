//! The write generator: picks one channel's write per TLP, round robin, and sends it as
//! an MWr (3-DW header below 4 GiB, else 4-DW) to the crossbar destination the channel
//! chose. Data writes take their payload from the reorder buffer; one-DW notification
//! and MSI writes carry a value from the channel.
//!
//! The picked write is prepared at once (`write_pick`, its header by `mwr_header`) and registered with the
//! TLP; its beats go out in two stages (`write_beat`): the reorder buffer's four bank
//! addresses for a beat, then a cycle later the header, value or bank data in each lane,
//! into a 9-beat output FIFO. A beat is issued only while the FIFO has room for what is
//! in flight, and the next TLP is picked in the cycle the current one's last beat is
//! issued, so back-to-back TLPs leave one beat per cycle.
//!
//! The round robin arbitrates on the requests of the cycle before (`offered`): a channel
//! holds its request until granted or cancelled, so the grants wait on no channel logic
//! (the ring's flow control, the channel's state) but a cycle from a channel's first
//! offer; the picked write's header is still made from what the channel offers now.

use super::requests::WriteReqSink;
use super::round_robin::RoundRobin;
use super::write_beat::WriteBeat;
use super::write_pick::WritePick;
use crate::stream::reg_fifo::TlpRegFifo;
use crate::stream::TlpSource;
use rust_hdl::prelude::*;

/// The MWr generator of `C` channels (`CB` bits of channel number).
#[derive(LogicBlock)]
pub struct WriteGen<const C: usize, const CB: usize> {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Upstream: each channel's write requests.
    pub chans: [WriteReqSink; C],
    /// Reorder buffer read data per bank (registered: for last cycle's addresses).
    pub bank_rdata: [Signal<In, Bits<32>>; 4],
    /// Downstream: MWrs into the crossbar.
    pub out: TlpSource,
    /// Requester id (the N port's bus/device/function).
    pub requester_id: Signal<In, Bits<16>>,
    /// Reorder buffer read address per bank.
    pub bank_raddr: [Signal<Out, Bits<10>>; 4],
    /// The beats on their way out (9 beats), in registers: a beat is offered the cycle
    /// after it enters, where a block-RAM FIFO would take two.
    fifo: TlpRegFifo<8, 3, 4>,
    /// A TLP is being issued (the `a_*` registers hold it).
    busy: DFF<Bit>,
    /// The FIFO held fewer than five beats in the cycle before, so fewer than six now
    /// (it grows by at most one a cycle): room for the beat in flight and the next. A
    /// register, so the issue, the pick and the channels' write cursors behind it wait
    /// on no FIFO arithmetic.
    room: DFF<Bit>,
    /// The TLP being issued: its channel.
    a_chan: DFF<Bits<CB>>,
    /// Its header DWs.
    a_hdr: [DFF<Bits<32>>; 4],
    /// Its header DWs: 3 or 4.
    a_hdr_dws: DFF<Bits<9>>,
    /// Its DWs, header and payload.
    a_total: DFF<Bits<9>>,
    /// Lane index of the next beat's lane 0.
    a_tidx: DFF<Bits<9>>,
    /// The next beat is the TLP's last (`a_tidx + 4 >= a_total`), known a beat ahead so
    /// the pick of the next TLP and the channels' grants wait on no comparison.
    a_last: DFF<Bit>,
    /// `a_tidx` two beats on, in its own 9 bits (inside the comparison Verilog would
    /// widen the sum).
    tidx_after: Signal<Local, Bits<9>>,
    /// Ring position of lane index 0.
    a_cur: DFF<Bits<16>>,
    /// It carries `a_value`, not reorder-buffer data.
    a_imm: DFF<Bit>,
    /// The one-DW write's value.
    a_value: DFF<Bits<32>>,
    /// Its crossbar destination.
    a_dest: DFF<Bits<3>>,
    /// Per channel: a write is wanted.
    valid: Signal<Local, Bits<C>>,
    /// Per channel: its write is cancelled this cycle.
    cancel: Signal<Local, Bits<C>>,
    /// Per channel: a write was wanted in the cycle before and neither granted nor
    /// cancelled then, so it is wanted now unless cancelled now (see the module doc).
    offered: DFF<Bits<C>>,
    /// The next channel to serve among those wanting a write.
    rr: RoundRobin<C, CB>,
    /// A TLP may be picked this cycle: none is being issued, or its last beat is.
    can_take: Signal<Local, Bit>,
    /// The picked channel's write, prepared to register.
    picked: WritePick<C, CB>,
    /// The current TLP's beat, into the FIFO.
    beat: WriteBeat<C, CB>,
    /// The channel picked.
    pick: Signal<Local, Bits<CB>>,
    /// A beat is issued this cycle.
    issue: Signal<Local, Bit>,
    /// The picked write is taken this cycle.
    take: Signal<Local, Bit>,
}

impl<const C: usize, const CB: usize> WriteGen<C, CB> {
    /// A write generator with an empty output FIFO; panics on a channel count without a
    /// ring layout.
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            chans: array_init::array_init(|_| Default::default()),
            bank_rdata: Default::default(),
            out: Default::default(),
            requester_id: Default::default(),
            bank_raddr: Default::default(),
            fifo: TlpRegFifo::new(),
            busy: Default::default(),
            room: Default::default(),
            a_chan: Default::default(),
            a_hdr: Default::default(),
            a_hdr_dws: Default::default(),
            a_total: Default::default(),
            a_tidx: Default::default(),
            a_last: Default::default(),
            tidx_after: Default::default(),
            a_cur: Default::default(),
            a_imm: Default::default(),
            a_value: Default::default(),
            a_dest: Default::default(),
            valid: Default::default(),
            cancel: Default::default(),
            offered: Default::default(),
            rr: RoundRobin::new(),
            can_take: Default::default(),
            picked: WritePick::new(),
            beat: WriteBeat::new(),
            pick: Default::default(),
            issue: Default::default(),
            take: Default::default(),
        }
    }
}

impl<const C: usize, const CB: usize> Default for WriteGen<C, CB> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const C: usize, const CB: usize> Logic for WriteGen<C, CB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, busy, room, a_chan, a_hdr_dws, a_total, a_tidx, a_last, a_cur, a_imm,
            a_value, a_dest, offered
        );
        for k in 0..4 {
            self.a_hdr[k].clock.next = self.clock.val();
            self.a_hdr[k].d.next = self.a_hdr[k].q.val();
        }
        self.fifo.clock.next = self.clock.val();
        self.fifo.reset.next = self.reset.val();
        TlpSource::link(&mut self.out, &mut self.fifo.source);

        // The current TLP's next beat, issued while the FIFO has room for what is in
        // flight; it enters the FIFO a cycle later.
        self.room.d.next = (self.fifo.fill.val() < 5) && self.fifo.sink.ready.val();
        self.issue.next = self.busy.q.val() && self.room.q.val();
        self.beat.clock.next = self.clock.val();
        self.beat.reset.next = self.reset.val();
        self.beat.issue.next = self.issue.val();
        self.beat.chan.next = self.a_chan.q.val();
        for k in 0..4 {
            self.beat.hdr[k].next = self.a_hdr[k].q.val();
            self.beat.bank_rdata[k].next = self.bank_rdata[k].val();
            self.bank_raddr[k].next = self.beat.bank_raddr[k].val();
        }
        self.beat.hdr_dws.next = self.a_hdr_dws.q.val();
        self.beat.total.next = self.a_total.q.val();
        self.beat.tidx.next = self.a_tidx.q.val();
        self.beat.last.next = self.a_last.q.val();
        self.beat.cur.next = self.a_cur.q.val();
        self.beat.imm.next = self.a_imm.q.val();
        self.beat.value.next = self.a_value.q.val();
        self.beat.dest.next = self.a_dest.q.val();
        self.fifo.sink.valid.next = self.beat.out_valid.val();
        self.fifo.sink.data.next = self.beat.out_data.val();
        self.fifo.sink.sop.next = self.beat.out_sop.val();
        self.fifo.sink.eop.next = self.beat.out_eop.val();
        self.fifo.sink.empty.next = self.beat.out_empty.val();
        self.fifo.sink.dest.next = self.beat.out_dest.val();
        self.fifo.sink.src.next = 4.into();
        self.fifo.sink.unsupported.next = false;
        for c in 0..C {
            self.chans[c].done.next = false;
        }
        self.tidx_after.next = self.a_tidx.q.val() + 8;
        if self.issue.val() {
            self.a_tidx.d.next = self.a_tidx.q.val() + 4;
            self.a_last.d.next = self.tidx_after.val() >= self.a_total.q.val();
            if self.a_last.q.val() {
                self.busy.d.next = false;
                for c in 0..C {
                    if self.a_chan.q.val().index() == c {
                        self.chans[c].done.next = true;
                    }
                }
            }
        }

        // Pick the next TLP when idle or while issuing the current one's last beat.
        self.valid.next = 0.into();
        self.cancel.next = 0.into();
        for c in 0..C {
            self.valid.next = self.valid.val().replace_bit(c, self.chans[c].valid.val());
            self.cancel.next = self.cancel.val().replace_bit(c, self.chans[c].cancel.val());
        }
        self.rr.clock.next = self.clock.val();
        self.rr.reset.next = self.reset.val();
        self.rr.request.next = self.offered.q.val() & !self.cancel.val();
        self.pick.next = self.rr.pick.val();
        for c in 0..C {
            self.picked.addr[c].next = self.chans[c].addr.val();
            self.picked.len_dw[c].next = self.chans[c].len_dw.val();
            self.picked.pos[c].next = self.chans[c].pos.val();
            self.picked.dest[c].next = self.chans[c].dest.val();
            self.picked.value[c].next = self.chans[c].value.val();
            self.picked.imm[c].next = self.chans[c].imm.val();
        }
        self.picked.pick.next = self.pick.val();
        self.picked.requester_id.next = self.requester_id.val();
        self.can_take.next = !self.busy.q.val() || (self.issue.val() && self.a_last.q.val());
        self.rr.enable.next = self.can_take.val();
        self.take.next = self.rr.take.val();
        for c in 0..C {
            self.chans[c].grant.next = self.rr.grant.val().get_bit(c);
        }
        self.offered.d.next = self.valid.val() & !self.cancel.val() & !self.rr.grant.val();
        if self.take.val() {
            self.busy.d.next = true;
            self.a_chan.d.next = self.pick.val();
            self.a_hdr_dws.d.next = self.picked.hdr_dws.val();
            self.a_total.d.next = self.picked.total.val();
            self.a_tidx.d.next = 0.into();
            self.a_last.d.next = self.picked.one_beat.val();
            self.a_cur.d.next = self.picked.cur.val();
            self.a_imm.d.next = self.picked.w_imm.val();
            self.a_value.d.next = self.picked.w_value.val();
            self.a_dest.d.next = self.picked.w_dest.val();
            for k in 0..4 {
                self.a_hdr[k].d.next = self.picked.hdr[k].val();
            }
        }

        if self.reset.val() {
            self.busy.d.next = false;
            self.offered.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dmac::channel_count_tests::to_pcie;
    use crate::dmac::RingLayout;
    use crate::harness::{Lcg, Stepper, StreamMonitor};
    use pcie_model::beats::{tlp_from_beats, Beat};
    use pcie_model::tlp::{Addr, Bdf, Tag, Tlp};

    const C: usize = 4;
    const REQUESTER: u16 = 0x0108;

    /// A write on offer.
    #[derive(Clone, Copy, Debug)]
    struct Write {
        chan: usize,
        addr: u64,
        len: u64,
        pos: u64,
        dest: u64,
        value: u64,
        imm: bool,
    }

    /// The reorder buffer's word at `row` of `bank`, in wire byte order.
    fn word(bank: usize, row: u64) -> u32 {
        (row as u32).wrapping_mul(0x9E37_79B9) ^ ((bank as u32) << 28) ^ 0x5A5A_0000
    }

    fn random_write(rng: &mut Lcg, chan: usize) -> Write {
        let imm = rng.chance(0.3);
        let len = if imm { 1 } else { 1 + rng.below(64) };
        let high = if rng.chance(0.3) {
            rng.below(1 << 16) << 32
        } else {
            0
        };
        Write {
            chan,
            addr: high | (rng.below(1 << 20) << 12) | (4 * rng.below(1024 - len + 1)),
            len,
            pos: rng.below(1 << 16),
            dest: rng.below(5),
            value: rng.below(1 << 32),
            imm,
        }
    }

    /// The MWr `w` is sent as: its value (register order) or its ring positions' words.
    fn mwr(w: &Write, ring: &RingLayout) -> Vec<u8> {
        let payload: Vec<u8> = if w.imm {
            (w.value as u32).to_le_bytes().to_vec()
        } else {
            (0..w.len)
                .flat_map(|k| {
                    let (bank, row) = ring.place(w.chan as u64, (w.pos + k) & 0xFFFF);
                    word(bank, row).to_be_bytes()
                })
                .collect()
        };
        Tlp::mem_write(Bdf(REQUESTER), Tag(0), Addr(w.addr), &payload)
            .expect("a valid MWr")
            .to_bytes()
    }

    /// Channels offer writes at random, hold each until granted and now and then cancel
    /// one (as a channel that stops does); the output takes beats at random; the reorder
    /// buffer answers a cycle after its addresses. A write is granted only if it was
    /// held from the cycle before and is not cancelled, once; every granted write leaves
    /// as the MWr pcie-model builds, to its destination, in grant order, and is reported
    /// done once; every channel is served.
    #[test]
    fn grants_held_writes_and_sends_them_in_order() {
        let ring = RingLayout::new(C, 2);
        for (seed, p_ready) in [(1, 0.3), (2, 0.8), (3, 1.0)] {
            let mut s = Stepper::new(WriteGen::<C, 2>::new(), |u| &mut u.clock);
            let mut rng = Lcg(seed);
            let mut mon = StreamMonitor::new(p_ready, seed ^ 0x55);
            s.uut.requester_id.next = u64::from(REQUESTER).into();
            let mut offered: [Option<Write>; C] = [None; C];
            let mut held = [false; C];
            let mut raddr = [0u64; 4];
            let mut granted: Vec<Write> = Vec::new();
            let mut done = [0u32; C];
            let (mut sent, mut cancels) = (0, 0);
            while s.cycle < 4_000 {
                for (c, o) in offered.iter_mut().enumerate() {
                    let cancel = o.is_some() && rng.chance(0.02);
                    if cancel {
                        *o = None;
                        cancels += 1;
                    } else if o.is_none() && rng.below(4) == 0 {
                        *o = Some(random_write(&mut rng, c));
                    }
                    let req = &mut s.uut.chans[c];
                    req.valid.next = o.is_some();
                    req.cancel.next = cancel;
                    if let Some(w) = o {
                        req.imm.next = w.imm;
                        req.addr.next = w.addr.into();
                        req.len_dw.next = w.len.into();
                        req.pos.next = w.pos.into();
                        req.dest.next = w.dest.into();
                        req.value.next = w.value.into();
                    }
                }
                for (b, &r) in raddr.iter().enumerate() {
                    s.uut.bank_rdata[b].next = u64::from(word(b, r)).into();
                }
                mon.drive(&mut s.uut.out);
                s.settle();
                let grants: Vec<usize> = (0..C).filter(|&c| s.uut.chans[c].grant.val()).collect();
                assert!(grants.len() <= 1, "cycle {}: grants {grants:?}", s.cycle);
                for &c in &grants {
                    assert!(
                        held[c] && offered[c].is_some(),
                        "cycle {}: channel {c} granted a write it did not hold",
                        s.cycle
                    );
                    granted.push(offered[c].take().expect("offered"));
                }
                for c in 0..C {
                    held[c] = offered[c].is_some();
                }
                for (c, d) in done.iter_mut().enumerate() {
                    *d += u32::from(s.uut.chans[c].done.val());
                }
                for (b, r) in raddr.iter_mut().enumerate() {
                    *r = s.uut.bank_raddr[b].val().to_u64();
                }
                mon.sample(&s.uut.out);
                while let Some(p) = mon.packets.pop_front() {
                    let w = granted.get(sent).expect("sent only what was granted");
                    let beats: Vec<Beat> = p.iter().map(to_pcie).collect();
                    let got = tlp_from_beats(&beats).expect("a valid MWr").to_bytes();
                    assert_eq!(got, mwr(w, &ring), "seed {seed}: write {sent} {w:x?}");
                    assert_eq!(u64::from(p[0].dest), w.dest, "write {sent}'s destination");
                    sent += 1;
                }
                s.tick();
            }
            // Granted writes have left, but for the one being sent and the 9-beat FIFO's.
            let left = granted.len() - sent;
            assert!(left <= 3, "{left} stuck");
            let per_chan: [usize; C] =
                std::array::from_fn(|c| granted.iter().filter(|w| w.chan == c).count());
            for c in 0..C {
                let granted_c = per_chan[c];
                let pending = granted[sent..].iter().filter(|w| w.chan == c).count();
                assert!(
                    (granted_c - pending..=granted_c).contains(&(done[c] as usize)),
                    "seed {seed}: channel {c} done {} of {granted_c} ({left} in flight)",
                    done[c]
                );
            }
            assert!(cancels > 50, "seed {seed}: {cancels} cancels");
            let least = *per_chan.iter().min().unwrap();
            assert!(least > 40, "seed {seed}: a channel starved: {per_chan:?}");
        }
    }
}
