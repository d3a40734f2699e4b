//! The write generator: picks one channel's write per TLP, round robin, and sends it as
//! an MWr (3-DW header below 4 GiB, else 4-DW) to the crossbar destination the channel
//! chose. Data writes take their payload from the reorder buffer; one-DW notification
//! and MSI writes carry a value from the channel.
//!
//! Two stages: A presents the reorder buffer's four bank addresses for one beat (bank =
//! ring position mod 4, so a beat's four payload DWs are in four banks whatever the lane
//! rotation the header causes); B, a cycle later, puts the header, value or bank data in
//! each lane and pushes the beat into an 8-beat output FIFO. A issues only while the FIFO
//! has room for what is in flight, and picks the next TLP in the cycle it issues the last
//! beat of the current one, so back-to-back TLPs leave one beat per cycle.

use super::ring_rows::RingRows;
use super::round_robin::RoundRobin;
use crate::stream::fifo::TlpFifo;
use crate::stream::TlpSource;
use rust_hdl::prelude::*;

/// The MWr generator of `C` channels (`CB` bits of channel number).
#[derive(LogicBlock)]
pub struct WriteGen<const C: usize, const CB: usize> {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Per channel: a write is wanted.
    pub wr_valid: Signal<In, Bits<C>>,
    /// Per channel: the write carries `wr_value` (1 DW), not reorder-buffer data.
    pub wr_imm: Signal<In, Bits<C>>,
    /// Per channel: DW-aligned address.
    pub wr_addr: [Signal<In, Bits<64>>; C],
    /// Per channel: payload DWs (1..=64).
    pub wr_len_dw: [Signal<In, Bits<7>>; C],
    /// Per channel: ring position of the first payload DW.
    pub wr_pos: [Signal<In, Bits<16>>; C],
    /// Per channel: crossbar destination.
    pub wr_dest: [Signal<In, Bits<3>>; C],
    /// Per channel: the value of a one-DW write (register order: byte 0 in bits 7:0).
    pub wr_value: [Signal<In, Bits<32>>; C],
    /// Reorder buffer read data per bank (registered: for last cycle's addresses).
    pub bank_rdata: [Signal<In, Bits<32>>; 4],
    /// Downstream: MWrs into the crossbar.
    pub out: TlpSource,
    /// Requester id (the N port's bus/device/function).
    pub requester_id: Signal<In, Bits<16>>,
    /// Per channel pulse: the write was taken.
    pub wr_grant: Signal<Out, Bits<C>>,
    /// Per channel pulse: the write's data has been read from the reorder buffer.
    pub wr_done: Signal<Out, Bits<C>>,
    /// Reorder buffer read address per bank.
    pub bank_raddr: [Signal<Out, Bits<10>>; 4],
    fifo: TlpFifo<3, 4>,
    last: DFF<Bits<CB>>,
    busy: DFF<Bit>,
    a_chan: DFF<Bits<CB>>,
    a_hdr: [DFF<Bits<32>>; 4],
    a_h: DFF<Bits<9>>,
    a_total: DFF<Bits<9>>,
    a_tidx: DFF<Bits<9>>,
    a_cur: DFF<Bits<16>>,
    a_imm: DFF<Bit>,
    a_value: DFF<Bits<32>>,
    a_dest: DFF<Bits<3>>,
    sb_valid: DFF<Bit>,
    sb_sel: [DFF<Bits<2>>; 4],
    sb_const_lane: DFF<Bits<4>>,
    sb_const: [DFF<Bits<32>>; 4],
    sb_sop: DFF<Bit>,
    sb_eop: DFF<Bit>,
    sb_empty: DFF<Bits<2>>,
    sb_dest: DFF<Bits<3>>,
    rr: RoundRobin<C, CB>,
    pick: Signal<Local, Bits<CB>>,
    issue: Signal<Local, Bit>,
    last_beat: Signal<Local, Bit>,
    /// The lane index after this beat.
    tidx_next: Signal<Local, Bits<9>>,
    take: Signal<Local, Bit>,
    g_addr: Signal<Local, Bits<64>>,
    g_len: Signal<Local, Bits<7>>,
    g_pos: Signal<Local, Bits<16>>,
    g_dest: Signal<Local, Bits<3>>,
    g_value: Signal<Local, Bits<32>>,
    g_imm: Signal<Local, Bit>,
    g_is4: Signal<Local, Bit>,
    g_h: Signal<Local, Bits<9>>,
    g_be: Signal<Local, Bits<32>>,
    qb: Signal<Local, Bits<16>>,
    q: [Signal<Local, Bits<16>>; 4],
    t: [Signal<Local, Bits<9>>; 4],
    /// Per lane: its bank row.
    rows: RingRows<C, CB>,
    ring: Signal<Local, Bits<4>>,
    lane: [Signal<Local, Bits<32>>; 4],
    swapped: Signal<Local, Bits<32>>,
}

impl<const C: usize, const CB: usize> WriteGen<C, CB> {
    /// A write generator with an empty output FIFO; panics on a channel count without a
    /// ring layout.
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            wr_valid: Default::default(),
            wr_imm: Default::default(),
            wr_addr: array_init::array_init(|_| Default::default()),
            wr_len_dw: array_init::array_init(|_| Default::default()),
            wr_pos: array_init::array_init(|_| Default::default()),
            wr_dest: array_init::array_init(|_| Default::default()),
            wr_value: array_init::array_init(|_| Default::default()),
            bank_rdata: Default::default(),
            out: Default::default(),
            requester_id: Default::default(),
            wr_grant: Default::default(),
            wr_done: Default::default(),
            bank_raddr: Default::default(),
            fifo: TlpFifo::new(),
            last: Default::default(),
            busy: Default::default(),
            a_chan: Default::default(),
            a_hdr: Default::default(),
            a_h: Default::default(),
            a_total: Default::default(),
            a_tidx: Default::default(),
            a_cur: Default::default(),
            a_imm: Default::default(),
            a_value: Default::default(),
            a_dest: Default::default(),
            sb_valid: Default::default(),
            sb_sel: Default::default(),
            sb_const_lane: Default::default(),
            sb_const: Default::default(),
            sb_sop: Default::default(),
            sb_eop: Default::default(),
            sb_empty: Default::default(),
            sb_dest: Default::default(),
            rr: RoundRobin::new(),
            pick: Default::default(),
            issue: Default::default(),
            last_beat: Default::default(),
            tidx_next: Default::default(),
            take: Default::default(),
            g_addr: Default::default(),
            g_len: Default::default(),
            g_pos: Default::default(),
            g_dest: Default::default(),
            g_value: Default::default(),
            g_imm: Default::default(),
            g_is4: Default::default(),
            g_h: Default::default(),
            g_be: Default::default(),
            qb: Default::default(),
            q: Default::default(),
            t: Default::default(),
            rows: RingRows::new(),
            ring: Default::default(),
            lane: Default::default(),
            swapped: Default::default(),
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
            self,
            clock,
            last,
            busy,
            a_chan,
            a_h,
            a_total,
            a_tidx,
            a_cur,
            a_imm,
            a_value,
            a_dest,
            sb_valid,
            sb_const_lane,
            sb_sop,
            sb_eop,
            sb_empty,
            sb_dest
        );
        for k in 0..4 {
            self.a_hdr[k].clock.next = self.clock.val();
            self.a_hdr[k].d.next = self.a_hdr[k].q.val();
            self.sb_sel[k].clock.next = self.clock.val();
            self.sb_sel[k].d.next = self.sb_sel[k].q.val();
            self.sb_const[k].clock.next = self.clock.val();
            self.sb_const[k].d.next = self.sb_const[k].q.val();
        }
        self.fifo.clock.next = self.clock.val();
        self.fifo.reset.next = self.reset.val();
        self.fifo.discard.next = false;
        self.out.data.next = self.fifo.source.data.val();
        self.out.sop.next = self.fifo.source.sop.val();
        self.out.eop.next = self.fifo.source.eop.val();
        self.out.empty.next = self.fifo.source.empty.val();
        self.out.dest.next = self.fifo.source.dest.val();
        self.out.src.next = self.fifo.source.src.val();
        self.out.unsupported.next = self.fifo.source.unsupported.val();
        self.out.valid.next = self.fifo.source.valid.val();
        self.fifo.source.ready.next = self.out.ready.val();

        // Stage A: the beat of the current TLP whose bank addresses go out now.
        self.issue.next =
            self.busy.q.val() && (self.fifo.fill.val() < 6) && self.fifo.sink.ready.val();
        self.tidx_next.next = self.a_tidx.q.val() + 4;
        self.last_beat.next = self.tidx_next.val() >= self.a_total.q.val();
        self.qb.next = self.a_cur.q.val() + bit_cast::<16, 9>(self.a_tidx.q.val());
        self.q[0].next = self.qb.val();
        self.q[1].next = self.qb.val() + 1;
        self.q[2].next = self.qb.val() + 2;
        self.q[3].next = self.qb.val() + 3;
        self.t[0].next = self.a_tidx.q.val();
        self.t[1].next = self.a_tidx.q.val() + 1;
        self.t[2].next = self.a_tidx.q.val() + 2;
        self.t[3].next = self.a_tidx.q.val() + 3;
        self.rows.chan.next = self.a_chan.q.val();
        for l in 0..4 {
            self.rows.pos[l].next = self.q[l].val();
        }
        // Register byte k is wire byte k: the value goes into the lane byte-swapped.
        self.swapped.next = (bit_cast::<32, 8>(self.a_value.q.val().get_bits::<8>(0)) << 24)
            | (bit_cast::<32, 8>(self.a_value.q.val().get_bits::<8>(8)) << 16)
            | (bit_cast::<32, 8>(self.a_value.q.val().get_bits::<8>(16)) << 8)
            | bit_cast::<32, 8>(self.a_value.q.val().get_bits::<8>(24));
        self.ring.next = 0.into();
        for l in 0..4 {
            self.bank_raddr[l].next = self.rows.row[l].val();
        }
        for l in 0..4 {
            if self.issue.val() {
                self.sb_const[l].d.next = 0.into();
                if self.t[l].val() < self.a_h.q.val() {
                    self.sb_const[l].d.next = self.a_hdr[l].q.val();
                } else if self.t[l].val() < self.a_total.q.val() {
                    if self.a_imm.q.val() {
                        self.sb_const[l].d.next = self.swapped.val();
                    } else {
                        self.sb_sel[l].d.next = self.q[l].val().get_bits::<2>(0);
                        self.ring.next = self.ring.val().replace_bit(l, true);
                    }
                }
            }
        }
        if self.issue.val() {
            self.sb_const_lane.d.next = !self.ring.val();
        }
        for b in 0..4 {
            for l in 0..4 {
                if self.ring.val().get_bit(l) && (self.q[l].val().get_bits::<2>(0).index() == b) {
                    self.bank_raddr[b].next = self.rows.row[l].val();
                }
            }
        }
        self.sb_valid.d.next = self.issue.val();
        self.wr_done.next = 0.into();
        if self.issue.val() {
            self.sb_sop.d.next = self.a_tidx.q.val() == 0;
            self.sb_eop.d.next = self.last_beat.val();
            self.sb_empty.d.next = 0.into();
            if self.last_beat.val() {
                if self.a_total.q.val().get_bits::<2>(0) == 1 {
                    self.sb_empty.d.next = 3.into();
                }
                if self.a_total.q.val().get_bits::<2>(0) == 2 {
                    self.sb_empty.d.next = 2.into();
                }
                if self.a_total.q.val().get_bits::<2>(0) == 3 {
                    self.sb_empty.d.next = 1.into();
                }
            }
            self.sb_dest.d.next = self.a_dest.q.val();
            self.a_tidx.d.next = self.a_tidx.q.val() + 4;
            if self.last_beat.val() {
                self.busy.d.next = false;
                for c in 0..C {
                    if self.a_chan.q.val().index() == c {
                        self.wr_done.next = self.wr_done.val().replace_bit(c, true);
                    }
                }
            }
        }

        // Pick the next TLP when idle or while issuing the current one's last beat.
        self.rr.request.next = self.wr_valid.val();
        self.rr.last.next = self.last.q.val();
        self.pick.next = self.rr.pick.val();
        self.g_addr.next = self.wr_addr[0].val();
        self.g_len.next = self.wr_len_dw[0].val();
        self.g_pos.next = self.wr_pos[0].val();
        self.g_dest.next = self.wr_dest[0].val();
        self.g_value.next = self.wr_value[0].val();
        for c in 0..C {
            if self.pick.val().index() == c {
                self.g_addr.next = self.wr_addr[c].val();
                self.g_len.next = self.wr_len_dw[c].val();
                self.g_pos.next = self.wr_pos[c].val();
                self.g_dest.next = self.wr_dest[c].val();
                self.g_value.next = self.wr_value[c].val();
            }
        }
        self.g_imm.next = false;
        for c in 0..C {
            if (self.pick.val().index() == c) && self.wr_imm.val().get_bit(c) {
                self.g_imm.next = true;
            }
        }
        self.g_is4.next = self.g_addr.val().get_bits::<32>(32) != 0;
        self.g_h.next = 3.into();
        if self.g_is4.val() {
            self.g_h.next = 4.into();
        }
        self.g_be.next = 0xFF.into();
        if self.g_len.val() == 1 {
            self.g_be.next = 0x0F.into();
        }
        self.take.next = (self.wr_valid.val() != 0)
            && (!self.busy.q.val() || (self.issue.val() && self.last_beat.val()));
        self.wr_grant.next = 0.into();
        if self.take.val() {
            self.last.d.next = self.pick.val();
            self.busy.d.next = true;
            self.a_chan.d.next = self.pick.val();
            self.a_h.d.next = self.g_h.val();
            self.a_total.d.next = self.g_h.val() + bit_cast::<9, 7>(self.g_len.val());
            self.a_tidx.d.next = 0.into();
            self.a_cur.d.next = self.g_pos.val() - bit_cast::<16, 9>(self.g_h.val());
            self.a_imm.d.next = self.g_imm.val();
            self.a_value.d.next = self.g_value.val();
            self.a_dest.d.next = self.g_dest.val();
            // MWr: fmt 010 (3-DW) or 011 (4-DW), type 0, TC 0, length; tag 0.
            self.a_hdr[0].d.next = 0x4000_0000 | bit_cast::<32, 7>(self.g_len.val());
            self.a_hdr[1].d.next =
                (bit_cast::<32, 16>(self.requester_id.val()) << 16) | self.g_be.val();
            self.a_hdr[2].d.next = self.g_addr.val().get_bits::<32>(0) & 0xFFFF_FFFCu64;
            self.a_hdr[3].d.next = 0.into();
            if self.g_is4.val() {
                self.a_hdr[0].d.next = 0x6000_0000 | bit_cast::<32, 7>(self.g_len.val());
                self.a_hdr[2].d.next = self.g_addr.val().get_bits::<32>(32);
                self.a_hdr[3].d.next = self.g_addr.val().get_bits::<32>(0) & 0xFFFF_FFFCu64;
            }
            for c in 0..C {
                if self.pick.val().index() == c {
                    self.wr_grant.next = self.wr_grant.val().replace_bit(c, true);
                }
            }
        }

        // Stage B: the lanes of the beat whose bank data is on `bank_rdata` now.
        for l in 0..4 {
            self.lane[l].next = self.sb_const[l].q.val();
            for b in 0..4 {
                if !self.sb_const_lane.q.val().get_bit(l) && (self.sb_sel[l].q.val().index() == b) {
                    self.lane[l].next = self.bank_rdata[b].val();
                }
            }
        }
        self.fifo.sink.valid.next = self.sb_valid.q.val();
        self.fifo.sink.data.next = bit_cast::<128, 32>(self.lane[0].val())
            | (bit_cast::<128, 32>(self.lane[1].val()) << 32)
            | (bit_cast::<128, 32>(self.lane[2].val()) << 64)
            | (bit_cast::<128, 32>(self.lane[3].val()) << 96);
        self.fifo.sink.sop.next = self.sb_sop.q.val();
        self.fifo.sink.eop.next = self.sb_eop.q.val();
        self.fifo.sink.empty.next = self.sb_empty.q.val();
        self.fifo.sink.dest.next = self.sb_dest.q.val();
        self.fifo.sink.src.next = 4.into();
        self.fifo.sink.unsupported.next = false;

        if self.reset.val() {
            self.busy.d.next = false;
            self.sb_valid.d.next = false;
            self.last.d.next = 0.into();
        }
    }
}
