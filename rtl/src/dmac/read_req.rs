//! The read requester: picks one channel's read (data or descriptor fetch) per cycle,
//! round robin, and sends it as a one-beat MRd (3-DW header below 4 GiB, else 4-DW) with
//! the N port's requester id and the channel's tag. The grant tells the channel and the
//! reassembly stage (which records where the tag's data goes) in the same cycle.

use super::round_robin::RoundRobin;
use crate::stream::TlpSource;
use rust_hdl::prelude::*;

/// The MRd generator for `C` channels (`CB` bits of channel number).
#[derive(LogicBlock)]
pub struct ReadReq<const C: usize, const CB: usize> {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Per channel: a read is wanted.
    pub rd_valid: Signal<In, Bits<C>>,
    /// Per channel: DW-aligned address.
    pub rd_addr: [Signal<In, Bits<64>>; C],
    /// Per channel: length in DWs (1..=128).
    pub rd_len_dw: [Signal<In, Bits<8>>; C],
    /// Per channel: tag.
    pub rd_tag: [Signal<In, Bits<8>>; C],
    /// Per channel: ring position of the first DW.
    pub rd_pos: [Signal<In, Bits<16>>; C],
    /// Downstream: MRds towards N.
    pub out: TlpSource,
    /// Requester id (the N port's bus/device/function).
    pub requester_id: Signal<In, Bits<16>>,
    /// Per channel: the read was taken this cycle.
    pub rd_grant: Signal<Out, Bits<C>>,
    /// Pulse: a read was issued (for the reassembly stage's tag table).
    pub issue_valid: Signal<Out, Bit>,
    /// Its tag.
    pub issue_tag: Signal<Out, Bits<8>>,
    /// Its ring position.
    pub issue_pos: Signal<Out, Bits<16>>,
    /// Its length in DWs.
    pub issue_len_dw: Signal<Out, Bits<8>>,
    last: DFF<Bits<CB>>,
    out_valid: DFF<Bit>,
    out_data: DFF<Bits<128>>,
    out_empty: DFF<Bits<2>>,
    rr: RoundRobin<C, CB>,
    pick: Signal<Local, Bits<CB>>,
    fire: Signal<Local, Bit>,
    addr: Signal<Local, Bits<64>>,
    len: Signal<Local, Bits<8>>,
    tag: Signal<Local, Bits<8>>,
    pos: Signal<Local, Bits<16>>,
    dw0: Signal<Local, Bits<32>>,
    dw1: Signal<Local, Bits<32>>,
}

impl<const C: usize, const CB: usize> ReadReq<C, CB> {
    /// An idle requester.
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            rd_valid: Default::default(),
            rd_addr: array_init::array_init(|_| Default::default()),
            rd_len_dw: array_init::array_init(|_| Default::default()),
            rd_tag: array_init::array_init(|_| Default::default()),
            rd_pos: array_init::array_init(|_| Default::default()),
            out: Default::default(),
            requester_id: Default::default(),
            rd_grant: Default::default(),
            issue_valid: Default::default(),
            issue_tag: Default::default(),
            issue_pos: Default::default(),
            issue_len_dw: Default::default(),
            last: Default::default(),
            out_valid: Default::default(),
            out_data: Default::default(),
            out_empty: Default::default(),
            rr: RoundRobin::new(),
            pick: Default::default(),
            fire: Default::default(),
            addr: Default::default(),
            len: Default::default(),
            tag: Default::default(),
            pos: Default::default(),
            dw0: Default::default(),
            dw1: Default::default(),
        }
    }
}

impl<const C: usize, const CB: usize> Default for ReadReq<C, CB> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const C: usize, const CB: usize> Logic for ReadReq<C, CB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, last, out_valid, out_data, out_empty);
        // Round robin: channels after the last one granted first.
        self.rr.request.next = self.rd_valid.val();
        self.rr.last.next = self.last.q.val();
        self.pick.next = self.rr.pick.val();
        self.addr.next = self.rd_addr[0].val();
        self.len.next = self.rd_len_dw[0].val();
        self.tag.next = self.rd_tag[0].val();
        self.pos.next = self.rd_pos[0].val();
        for c in 0..C {
            if self.pick.val().index() == c {
                self.addr.next = self.rd_addr[c].val();
                self.len.next = self.rd_len_dw[c].val();
                self.tag.next = self.rd_tag[c].val();
                self.pos.next = self.rd_pos[c].val();
            }
        }
        self.fire.next =
            (self.rd_valid.val() != 0) && (!self.out_valid.q.val() || self.out.ready.val());

        // MRd header: fmt 000 (3-DW) or 001 (4-DW), type 0, TC 0, no attributes.
        self.dw0.next = bit_cast::<32, 8>(self.len.val());
        if self.addr.val().get_bits::<32>(32) != 0 {
            self.dw0.next = bit_cast::<32, 8>(self.len.val()) | 0x2000_0000;
        }
        self.dw1.next = (bit_cast::<32, 16>(self.requester_id.val()) << 16)
            | (bit_cast::<32, 8>(self.tag.val()) << 8)
            | 0xFF;
        if self.len.val() == 1 {
            self.dw1.next = (bit_cast::<32, 16>(self.requester_id.val()) << 16)
                | (bit_cast::<32, 8>(self.tag.val()) << 8)
                | 0x0F;
        }

        self.rd_grant.next = 0.into();
        self.issue_valid.next = self.fire.val();
        self.issue_tag.next = self.tag.val();
        self.issue_pos.next = self.pos.val();
        self.issue_len_dw.next = self.len.val();
        if self.out.ready.val() {
            self.out_valid.d.next = false;
        }
        if self.fire.val() {
            self.last.d.next = self.pick.val();
            self.out_valid.d.next = true;
            if self.addr.val().get_bits::<32>(32) != 0 {
                self.out_data.d.next = bit_cast::<128, 32>(self.dw0.val())
                    | (bit_cast::<128, 32>(self.dw1.val()) << 32)
                    | (bit_cast::<128, 32>(self.addr.val().get_bits::<32>(32)) << 64)
                    | (bit_cast::<128, 32>(self.addr.val().get_bits::<32>(0) & 0xFFFF_FFFCu64)
                        << 96);
                self.out_empty.d.next = 0.into();
            } else {
                self.out_data.d.next = bit_cast::<128, 32>(self.dw0.val())
                    | (bit_cast::<128, 32>(self.dw1.val()) << 32)
                    | (bit_cast::<128, 32>(self.addr.val().get_bits::<32>(0) & 0xFFFF_FFFCu64)
                        << 64);
                self.out_empty.d.next = 1.into();
            }
            for c in 0..C {
                if self.pick.val().index() == c {
                    self.rd_grant.next = self.rd_grant.val().replace_bit(c, true);
                }
            }
        }
        self.out.valid.next = self.out_valid.q.val();
        self.out.data.next = self.out_data.q.val();
        self.out.sop.next = true;
        self.out.eop.next = true;
        self.out.empty.next = self.out_empty.q.val();
        self.out.dest.next = 0.into();
        self.out.src.next = 4.into();
        self.out.unsupported.next = false;
        if self.reset.val() {
            self.last.d.next = 0.into();
            self.out_valid.d.next = false;
        }
    }
}
