//! The read requester: picks one channel's read (data or descriptor fetch) per cycle,
//! round robin, and sends it as a one-beat MRd ([`MrdBeat`]) with the N port's requester
//! id and the channel's tag. The grant tells the channel and the reassembly stage (which
//! records where the tag's data goes) in the same cycle. A read is granted while one of
//! the two output slots ([`MrdSlots`]) is free, so the grant never waits on the internal
//! mux's `ready`.

use super::header_forms::HeaderForms;
use super::mrd_beat::MrdBeat;
use super::mrd_slots::MrdSlots;
use super::requests::ReadReqSink;
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
    /// Upstream: each channel's read requests.
    pub chans: [ReadReqSink; C],
    /// Downstream: MRds towards N.
    pub out: TlpSource,
    /// Requester id (the N port's bus/device/function).
    pub requester_id: Signal<In, Bits<16>>,
    /// Pulse: a read was issued (for the reassembly stage's tag table).
    pub issue_valid: Signal<Out, Bit>,
    /// Its tag.
    pub issue_tag: Signal<Out, Bits<8>>,
    /// Its length in DWs.
    pub issue_len_dw: Signal<Out, Bits<8>>,
    /// Its ring position one past the last DW.
    pub issue_end: Signal<Out, Bits<16>>,
    /// The picked read as its beat.
    beat: MrdBeat,
    /// The beats granted and not yet taken.
    slots: MrdSlots,
    /// Per channel: a read is wanted.
    valid: Signal<Local, Bits<C>>,
    /// The round-robin choice among the channels that want a read, while a slot is free.
    rr: RoundRobin<C, CB>,
    /// The channel picked.
    pick: Signal<Local, Bits<CB>>,
    /// The picked read's address.
    addr: Signal<Local, Bits<64>>,
    /// The picked read's length in DWs.
    len: Signal<Local, Bits<8>>,
    /// The picked read's tag.
    tag: Signal<Local, Bits<8>>,
    /// The picked read's ring position one past its last DW.
    end_pos: Signal<Local, Bits<16>>,
    /// Per channel: its address needs a 4-DW header.
    forms: HeaderForms<C>,
    /// Per channel: a one-DW read (last-DW byte enables 0).
    one_each: Signal<Local, Bits<C>>,
    /// The picked read's header form and `one_each`.
    wide: Signal<Local, Bit>,
    /// The picked read's `one_each`.
    one: Signal<Local, Bit>,
}

impl<const C: usize, const CB: usize> ReadReq<C, CB> {
    /// An idle requester.
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            chans: array_init::array_init(|_| Default::default()),
            out: Default::default(),
            requester_id: Default::default(),
            issue_valid: Default::default(),
            issue_tag: Default::default(),
            issue_len_dw: Default::default(),
            issue_end: Default::default(),
            beat: Default::default(),
            slots: MrdSlots::new(),
            valid: Default::default(),
            rr: RoundRobin::new(),
            pick: Default::default(),
            addr: Default::default(),
            len: Default::default(),
            tag: Default::default(),
            end_pos: Default::default(),
            forms: HeaderForms::new(),
            one_each: Default::default(),
            wide: Default::default(),
            one: Default::default(),
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
        self.slots.clock.next = self.clock.val();
        self.slots.reset.next = self.reset.val();
        // Round robin: channels after the last one granted first.
        self.valid.next = 0.into();
        for c in 0..C {
            self.valid.next = self.valid.val().replace_bit(c, self.chans[c].valid.val());
        }
        self.rr.clock.next = self.clock.val();
        self.rr.reset.next = self.reset.val();
        self.rr.request.next = self.valid.val();
        self.rr.enable.next = self.slots.room.val();
        self.pick.next = self.rr.pick.val();
        self.addr.next = self.chans[0].addr.val();
        self.len.next = self.chans[0].len_dw.val();
        self.tag.next = self.chans[0].tag.val();
        self.end_pos.next = self.chans[0].end.val();
        self.one_each.next = 0.into();
        for c in 0..C {
            self.forms.addr[c].next = self.chans[c].addr.val();
            self.one_each.next = self
                .one_each
                .val()
                .replace_bit(c, self.chans[c].len_dw.val() == 1);
        }
        self.wide.next = self.forms.four_dw.val().get_bit(0);
        self.one.next = self.one_each.val().get_bit(0);
        for c in 0..C {
            if self.pick.val().index() == c {
                self.addr.next = self.chans[c].addr.val();
                self.len.next = self.chans[c].len_dw.val();
                self.tag.next = self.chans[c].tag.val();
                self.end_pos.next = self.chans[c].end.val();
                self.wide.next = self.forms.four_dw.val().get_bit(c);
                self.one.next = self.one_each.val().get_bit(c);
            }
        }

        self.beat.addr.next = self.addr.val();
        self.beat.len_dw.next = self.len.val();
        self.beat.tag.next = self.tag.val();
        self.beat.requester_id.next = self.requester_id.val();
        self.beat.four_dw.next = self.wide.val();
        self.beat.one_dw.next = self.one.val();
        self.slots.push.next = self.rr.take.val();
        self.slots.data.next = self.beat.data.val();
        self.slots.empty.next = self.beat.empty.val();
        TlpSource::link(&mut self.out, &mut self.slots.out);

        for c in 0..C {
            self.chans[c].grant.next = self.rr.grant.val().get_bit(c);
        }
        self.issue_valid.next = self.rr.take.val();
        self.issue_tag.next = self.tag.val();
        self.issue_len_dw.next = self.len.val();
        self.issue_end.next = self.end_pos.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dmac::channel_count_tests::to_pcie;
    use crate::harness::{Lcg, Stepper, StreamMonitor};
    use pcie_model::beats::{tlp_from_beats, Beat};
    use pcie_model::tlp::{Addr, Bdf, Tag, Tlp};

    const C: usize = 4;
    const REQUESTER: u16 = 0x0108;

    /// A channel's read: address, DWs, tag, ring position.
    type Read = (u64, u64, u64, u64);

    fn random_read(rng: &mut Lcg, c: usize) -> Read {
        let high = if rng.below(4) == 0 { 0x3_0000_0000 } else { 0 };
        let len = [1, 2, 8, 32, 64, 128][rng.below(6) as usize];
        // Inside one 4 KiB page, as the channels' cursors cut reads.
        let addr = high | (rng.next_u64() & 0xFFFF_F000) | (4 * rng.below(1025 - len));
        (addr, len, 8 * c as u64 + rng.below(8), rng.below(1 << 16))
    }

    fn mrd(r: &Read) -> Vec<u8> {
        Tlp::mem_read(Bdf(REQUESTER), Tag(r.2 as u8), Addr(r.0), 4 * r.1 as usize)
            .expect("a valid read")
            .to_bytes()
    }

    /// Channels offer reads at random and hold each until granted; the output takes
    /// beats at random. Every granted read is announced once (`issue_*`) and sent once,
    /// as the MRd pcie-model builds, in grant order; every channel is served; with an
    /// output that always takes, no offered read waits.
    #[test]
    fn granted_reads_leave_in_order_under_random_backpressure() {
        for (seed, p_ready) in [(1, 0.3), (2, 0.8), (3, 1.0)] {
            let mut s = Stepper::new(ReadReq::<C, 2>::new(), |u| &mut u.clock);
            let mut rng = Lcg(seed);
            let mut mon = StreamMonitor::new(p_ready, seed ^ 0x77);
            s.uut.requester_id.next = u64::from(REQUESTER).into();
            let mut offered: [Option<Read>; C] = [None; C];
            let mut granted = Vec::new();
            let mut per_chan = [0u32; C];
            let mut sent = Vec::new();
            while s.cycle < 3_000 {
                let mut valid = 0u64;
                for (c, o) in offered.iter_mut().enumerate() {
                    if o.is_none() && rng.below(3) == 0 {
                        *o = Some(random_read(&mut rng, c));
                    }
                    let req = &mut s.uut.chans[c];
                    req.valid.next = o.is_some();
                    if let Some(r) = o {
                        valid |= 1 << c;
                        req.addr.next = r.0.into();
                        req.len_dw.next = r.1.into();
                        req.tag.next = r.2.into();
                        req.end.next = ((r.3 + r.1) & 0xFFFF).into();
                    }
                }
                mon.drive(&mut s.uut.out);
                s.settle();
                let grant = (0..C)
                    .filter(|&c| s.uut.chans[c].grant.val())
                    .fold(0u64, |g, c| g | 1 << c);
                assert!(
                    grant.count_ones() <= 1 && grant & !valid == 0,
                    "grant {grant:b}"
                );
                assert_eq!(s.uut.issue_valid.val(), grant != 0);
                if p_ready == 1.0 {
                    assert!(valid == 0 || grant != 0, "a read waited with nothing ahead");
                }
                if grant != 0 {
                    let c = grant.trailing_zeros() as usize;
                    let r = offered[c].take().expect("offered");
                    let u = &s.uut;
                    let issued = (
                        u.issue_tag.val().to_u64(),
                        u.issue_len_dw.val().to_u64(),
                        u.issue_end.val().to_u64(),
                    );
                    let end = (r.3 + r.1) & 0xFFFF;
                    assert_eq!(issued, (r.2, r.1, end), "issue of channel {c}");
                    granted.push(r);
                    per_chan[c] += 1;
                }
                mon.sample(&s.uut.out);
                while let Some(p) = mon.packets.pop_front() {
                    let beats: Vec<Beat> = p.iter().map(to_pcie).collect();
                    sent.push(tlp_from_beats(&beats).expect("a valid MRd").to_bytes());
                }
                s.tick();
            }
            // What was granted has left, or waits in the two registers.
            assert!(
                granted.len() - sent.len() <= 2,
                "{} stuck",
                granted.len() - sent.len()
            );
            for (k, (got, r)) in sent.iter().zip(&granted).enumerate() {
                assert_eq!(got, &mrd(r), "seed {seed}: read {k}");
            }
            let least = *per_chan.iter().min().unwrap();
            assert!(least > 50, "seed {seed}: a channel starved: {per_chan:?}");
        }
    }
}
