//! A completion's header beat against the read it answers: which of the DMA's reads the
//! tag names, whether that read is outstanding, whether the completion is good and fits
//! what the read still expects, and where its first payload DW goes. Combinational; the
//! reassembly stage around it owns the tag table and the busy bits it reads.
//!
//! A data read's entry (`tag_table`) gives the ring position one past its last DW (its
//! end), its length and the DWs still to come; a descriptor fetch is 8 DWs into the
//! channel's descriptor from DW 0 (its end is 8), with the channel's fetch count still
//! to come. The byte count is what the read still expects, this completion included, so
//! the completion's payload starts at `end - byte count`.

use super::tag_class::TagClass;
use rust_hdl::prelude::*;

/// The header checks of `C` channels' completions (`CB` bits of channel number).
#[derive(LogicBlock)]
pub struct CplHeader<const C: usize, const CB: usize> {
    /// The beat on the input (its header DWs, if it is a header beat).
    pub data: Signal<In, Bits<128>>,
    /// The tag table's entry at [`Self::tag`]: ring position one past the read's last DW.
    pub lookup_end: Signal<In, Bits<16>>,
    /// The entry's read length in DWs.
    pub lookup_len: Signal<In, Bits<8>>,
    /// The entry's DWs still to come, as the table holds them.
    pub lookup_rem: Signal<In, Bits<8>>,
    /// A count write lands this cycle (`pending_count`): readers see it as written.
    pub pending: Signal<In, Bit>,
    /// Its tag.
    pub pending_key: Signal<In, Bits<8>>,
    /// Its count.
    pub pending_rem: Signal<In, Bits<8>>,
    /// Per channel, per data tag k (`8c + k`): a read is outstanding.
    pub t_busy: [Signal<In, Bits<8>>; C],
    /// Per channel: DWs of its descriptor fetch still to come, as the fetches' registers
    /// hold them.
    pub d_stored: [Signal<In, Bits<8>>; C],
    /// Per channel: a fetch's count write lands this cycle (readers see it as written).
    pub d_pending: Signal<In, Bits<C>>,
    /// Its count.
    pub d_pending_rem: Signal<In, Bits<8>>,
    /// Per channel: a descriptor fetch is outstanding.
    pub d_busy: Signal<In, Bits<C>>,
    /// The header's tag (the tag table's lookup address).
    pub tag: Signal<Out, Bits<8>>,
    /// The header's length field in DWs (0 means 1024).
    pub len: Signal<Out, Bits<11>>,
    /// The tag is a descriptor fetch's.
    pub is_desc: Signal<Out, Bit>,
    /// The tag's channel.
    pub chan: Signal<Out, Bits<CB>>,
    /// The tag has a read outstanding.
    pub known: Signal<Out, Bit>,
    /// The completion is good and fits its read.
    pub ok: Signal<Out, Bit>,
    /// Ring position (data) or descriptor DW (fetch) of the header beat's lane 0: that
    /// of its first payload DW (lane 3) less 3. The intake places the header beat's lanes
    /// from it without a subtraction of its own.
    pub lane0: Signal<Out, Bits<16>>,
    /// The DWs its read still expects, this completion's included (0 for a tag that
    /// is neither a data read's nor a descriptor fetch's).
    pub rem: Signal<Out, Bits<8>>,
    /// `rem` less the header's length (mod 256): what a completion whose payload all
    /// comes with its header leaves. Subtracted from each source of `rem` before the
    /// choice between them, so that the count written after the completion waits on
    /// the choice, not on the choice and then a subtraction (the DMA's deepest logic).
    pub rem_less: Signal<Out, Bits<8>>,
    /// Byte count in DWs: what the read still expects, this completion included.
    bc_dw: Signal<Local, Bits<16>>,
    /// The tag's class and channel.
    tag_class: TagClass<C, CB>,
    /// CplD, status SC, not poisoned, byte count a whole number of DWs.
    good_status: Signal<Local, Bit>,
    /// The tag's channel's busy bits, shifted so that the tag's is bit 0.
    busy_at_tag: Signal<Local, Bits<8>>,
    /// The byte count in DWs plus 3: what the header beat's lane 0 is before the end.
    bc_dw3: Signal<Local, Bits<16>>,
    /// The read is outstanding.
    busy: Signal<Local, Bit>,
    /// The pending count write is this tag's.
    pending_hit: Signal<Local, Bit>,
    /// The length fits what the read expects: compared with each source of the count
    /// before the choice between them, so that the comparison does not wait for the
    /// choice (this is the DMA's deepest logic).
    fits_rem: Signal<Local, Bit>,
    /// ... with the table's count.
    fits_table: Signal<Local, Bit>,
    /// ... with the pending write's.
    fits_pending: Signal<Local, Bit>,
    /// The pending fetch count write is the tag's channel's.
    desc_pending: Signal<Local, Bit>,
    /// The tag's channel's descriptor fetch count, as its register holds it.
    desc_stored: Signal<Local, Bits<8>>,
    /// ... less the header's length.
    desc_stored_less: Signal<Local, Bits<8>>,
    /// The length fits that count (compared with each channel's before the choice, as
    /// `fits_rem`).
    desc_stored_fits: Signal<Local, Bit>,
    /// The length fits the pending fetch count write's.
    desc_pending_fits: Signal<Local, Bit>,
    /// The tag's channel's descriptor fetch count, as readers see it.
    desc_rem: Signal<Local, Bits<8>>,
    /// ... less the header's length: from the register's or the pending write's count,
    /// each subtracted before the choice, as `rem_less`.
    desc_less: Signal<Local, Bits<8>>,
    /// The length fits the tag's channel's descriptor fetch count: compared with the
    /// register's and the pending write's before the choice, as `fits_rem`, so that the
    /// pending count (a choice itself) meets the decision at its end.
    desc_fits: Signal<Local, Bit>,
    /// The header's length, mod 256 (what `rem_less` subtracts).
    len8: Signal<Local, Bits<8>>,
    /// The tag's channel's descriptor fetch is outstanding.
    desc_busy: Signal<Local, Bit>,
    /// The byte count fits the whole read (compared before the choice, as `fits_rem`).
    bc_fits: Signal<Local, Bit>,
}

impl<const C: usize, const CB: usize> CplHeader<C, CB> {
    /// The checks; panics on a channel count without a tag layout.
    pub fn new() -> Self {
        Self {
            data: Default::default(),
            lookup_end: Default::default(),
            lookup_len: Default::default(),
            lookup_rem: Default::default(),
            pending: Default::default(),
            pending_key: Default::default(),
            pending_rem: Default::default(),
            t_busy: array_init::array_init(|_| Default::default()),
            d_stored: array_init::array_init(|_| Default::default()),
            d_pending: Default::default(),
            d_pending_rem: Default::default(),
            d_busy: Default::default(),
            tag: Default::default(),
            len: Default::default(),
            is_desc: Default::default(),
            chan: Default::default(),
            known: Default::default(),
            ok: Default::default(),
            lane0: Default::default(),
            rem: Default::default(),
            rem_less: Default::default(),
            bc_dw: Default::default(),
            tag_class: TagClass::new(),
            good_status: Default::default(),
            busy_at_tag: Default::default(),
            bc_dw3: Default::default(),
            busy: Default::default(),
            pending_hit: Default::default(),
            fits_rem: Default::default(),
            fits_table: Default::default(),
            fits_pending: Default::default(),
            desc_pending: Default::default(),
            desc_stored: Default::default(),
            desc_stored_less: Default::default(),
            desc_stored_fits: Default::default(),
            desc_pending_fits: Default::default(),
            desc_rem: Default::default(),
            desc_less: Default::default(),
            desc_fits: Default::default(),
            len8: Default::default(),
            desc_busy: Default::default(),
            bc_fits: Default::default(),
        }
    }
}

impl<const C: usize, const CB: usize> Default for CplHeader<C, CB> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const C: usize, const CB: usize> Logic for CplHeader<C, CB> {
    #[hdl_gen]
    fn update(&mut self) {
        // A CplD's 3-DW header.
        self.len.next = bit_cast::<11, 10>(self.data.val().get_bits::<10>(0));
        self.bc_dw.next = bit_cast::<16, 10>(self.data.val().get_bits::<10>(34));
        self.len8.next = self.data.val().get_bits::<8>(0);
        self.tag.next = self.data.val().get_bits::<8>(72);
        self.tag_class.tag.next = self.data.val().get_bits::<8>(72);
        self.is_desc.next = self.tag_class.is_desc.val();
        self.chan.next = self.tag_class.chan.val();
        // CplD (fmt 010, type 01010), status SC, not poisoned, byte count a whole DW count.
        self.good_status.next = (self.data.val().get_bits::<8>(24) == 0x4A)
            && (self.data.val().get_bits::<3>(45) == 0)
            && !self.data.val().get_bit(14)
            && (self.data.val().get_bits::<2>(32) == 0);

        // What the tag's read expects: its channel's busy bits and descriptor fetch.
        self.busy_at_tag.next = 0.into();
        self.desc_pending.next = false;
        self.desc_stored.next = 0.into();
        self.desc_stored_less.next = 0.into();
        self.desc_stored_fits.next = false;
        self.desc_busy.next = false;
        for c in 0..C {
            if self.tag_class.chan.val().index() == c {
                self.busy_at_tag.next =
                    self.t_busy[c].val() >> bit_cast::<8, 3>(self.tag_class.index.val());
                self.desc_pending.next = self.d_pending.val().get_bit(c);
                self.desc_stored.next = self.d_stored[c].val();
                self.desc_stored_less.next = self.d_stored[c].val() - self.len8.val();
                self.desc_stored_fits.next = self.len8.val() <= self.d_stored[c].val();
                self.desc_busy.next = self.d_busy.val().get_bit(c);
            }
        }
        self.desc_pending_fits.next = self.len8.val() <= self.d_pending_rem.val();
        self.desc_rem.next = self.desc_stored.val();
        self.desc_less.next = self.desc_stored_less.val();
        self.desc_fits.next = (self.len.val().get_bits::<3>(8) == 0) && self.desc_stored_fits.val();
        if self.desc_pending.val() {
            self.desc_rem.next = self.d_pending_rem.val();
            self.desc_less.next = self.d_pending_rem.val() - self.len8.val();
            self.desc_fits.next =
                (self.len.val().get_bits::<3>(8) == 0) && self.desc_pending_fits.val();
        }
        self.pending_hit.next =
            self.pending.val() && (self.pending_key.val() == self.data.val().get_bits::<8>(72));
        self.fits_table.next = self.len.val() <= bit_cast::<11, 8>(self.lookup_rem.val());
        self.fits_pending.next = self.len.val() <= bit_cast::<11, 8>(self.pending_rem.val());
        // The header beat's lane 0 from the read's end, subtracted before the choice of
        // the end (a descriptor fetch's is its DW 8), as `rem_less`.
        self.bc_dw3.next = self.bc_dw.val() + 3;
        self.lane0.next = 8 - self.bc_dw3.val();
        self.rem.next = 0.into();
        self.rem_less.next = 0.into();
        self.busy.next = false;
        self.fits_rem.next = false;
        self.bc_fits.next = self.bc_dw.val() <= 8;
        if self.tag_class.is_data.val() {
            self.lane0.next = self.lookup_end.val() - self.bc_dw3.val();
            self.busy.next = self.busy_at_tag.val().get_bit(0);
            self.bc_fits.next = self.bc_dw.val() <= bit_cast::<16, 8>(self.lookup_len.val());
            self.rem.next = self.lookup_rem.val();
            self.rem_less.next = self.lookup_rem.val() - self.len8.val();
            self.fits_rem.next = self.fits_table.val();
            if self.pending_hit.val() {
                self.rem.next = self.pending_rem.val();
                self.rem_less.next = self.pending_rem.val() - self.len8.val();
                self.fits_rem.next = self.fits_pending.val();
            }
        }
        if self.tag_class.is_desc.val() {
            self.rem.next = self.desc_rem.val();
            self.rem_less.next = self.desc_less.val();
            self.busy.next = self.desc_busy.val();
            self.fits_rem.next = self.desc_fits.val();
        }

        // Completions reach here only with the DMA's tag range; an idle tag is unexpected.
        self.known.next =
            (self.tag_class.is_data.val() || self.tag_class.is_desc.val()) && self.busy.val();
        self.ok.next = self.known.val()
            && self.good_status.val()
            && (self.len.val() != 0)
            && (self.bc_dw.val() != 0)
            && self.bc_fits.val()
            && (bit_cast::<16, 11>(self.len.val()) <= self.bc_dw.val())
            && self.fits_rem.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{bits128, Lcg};

    /// One random header and table state, and what the rule written plainly says of it.
    struct Case {
        data: u128,
        start: u64,
        len: u64,
        rem: u64,
        /// A count write pending: its tag and count.
        pending: Option<(u64, u64)>,
        t_busy: Vec<u64>,
        /// Per channel: its fetch count as the registers hold it.
        d_stored: Vec<u64>,
        /// A fetch count write pending: its channel and count.
        d_pending: Option<(u64, u64)>,
        d_busy: u64,
    }

    impl Case {
        fn random<const C: usize>(rng: &mut Lcg) -> Case {
            let c = C as u64;
            // Mostly the DMA's tags, some past them.
            let tag = rng.below(9 * c + 4);
            let len = 1 + rng.below(128);
            let rem = 1 + rng.below(len);
            let (mut bc_dw, mut plen) = (rem, 1 + rng.below(rem));
            if rng.chance(0.2) {
                bc_dw = rng.below(1 << 10);
            }
            if rng.chance(0.2) {
                plen = rng.below(1 << 10);
            }
            let mut dw0 = plen | 0x4A << 24;
            let mut dw1 = bc_dw << 2;
            if rng.chance(0.1) {
                dw0 ^= 1 << (24 + rng.below(8));
            }
            if rng.chance(0.1) {
                dw0 |= 1 << 14; // poisoned
            }
            if rng.chance(0.1) {
                dw1 |= (1 + rng.below(7)) << 13; // status other than SC
            }
            if rng.chance(0.1) {
                dw1 |= 1 + rng.below(3); // byte count not whole DWs
            }
            let dw2 = tag << 8 | rng.below(256) << 16;
            let data = u128::from(dw0)
                | u128::from(dw1) << 32
                | u128::from(dw2) << 64
                | u128::from(rng.next_u64() as u32) << 96;
            // A pending write, often on this tag, with the count that fits or a random one
            // (the table's count then being stale).
            let pending = rng.chance(0.3).then(|| {
                let key = if rng.chance(0.6) { tag } else { rng.below(256) };
                (key, if rng.chance(0.7) { rem } else { rng.below(256) })
            });
            let table_rem = if pending.is_some() || rng.chance(0.1) {
                rng.below(256)
            } else {
                rem
            };
            Case {
                data,
                start: rng.below(1 << 16),
                len,
                rem: table_rem,
                pending,
                t_busy: (0..C).map(|_| rng.below(256)).collect(),
                d_stored: (0..C).map(|_| rng.below(9)).collect(),
                d_pending: rng.chance(0.3).then(|| (rng.below(c), rng.below(9))),
                d_busy: rng.below(1 << C),
            }
        }

        /// (is_data, is_desc, chan, known, ok, base, rem); a known tag is a data read's
        /// exactly when it is not a descriptor fetch's.
        fn expected(&self, c: u64) -> (bool, bool, u64, bool, bool, u64, u64) {
            let field = |lo: u32, bits: u32| (self.data >> lo) as u64 & ((1 << bits) - 1);
            let (plen, bc_dw, tag) = (field(0, 10), field(34, 10), field(72, 8));
            let good =
                field(24, 8) == 0x4A && field(45, 3) == 0 && field(14, 1) == 0 && field(32, 2) == 0;
            let (is_data, is_desc) = (tag < 8 * c, (8 * c..9 * c).contains(&tag));
            let chan = if is_data { tag / 8 } else { tag % c };
            let (start, total, rem, busy) = if is_data {
                let busy = self.t_busy[chan as usize] >> (tag % 8) & 1 == 1;
                let rem = match self.pending {
                    Some((key, rem)) if key == tag => rem,
                    _ => self.rem,
                };
                (self.start, self.len, rem, busy)
            } else if is_desc {
                let busy = self.d_busy >> chan & 1 == 1;
                let rem = match self.d_pending {
                    Some((c, rem)) if c == chan => rem,
                    _ => self.d_stored[chan as usize],
                };
                (0, 8, rem, busy)
            } else {
                (0, 8, 0, false)
            };
            let known = (is_data || is_desc) && busy;
            let ok = known
                && good
                && plen != 0
                && bc_dw != 0
                && bc_dw <= total
                && plen <= bc_dw
                && plen <= rem;
            let base = (start + total).wrapping_sub(bc_dw + 3) & 0xFFFF;
            (is_data, is_desc, chan, known, ok, base, rem)
        }
    }

    fn follows_the_rule<const C: usize, const CB: usize>(seed: u64) {
        let mut uut = CplHeader::<C, CB>::new();
        uut.connect_all();
        let mut rng = Lcg(seed);
        let mut oks = 0;
        for _ in 0..3000 {
            let case = Case::random::<C>(&mut rng);
            uut.data.next = bits128(case.data);
            uut.lookup_end.next = ((case.start + case.len) & 0xFFFF).into();
            uut.lookup_len.next = case.len.into();
            uut.lookup_rem.next = case.rem.into();
            let (key, rem) = case.pending.unwrap_or((rng.below(256), rng.below(256)));
            uut.pending.next = case.pending.is_some();
            uut.pending_key.next = key.into();
            uut.pending_rem.next = rem.into();
            for c in 0..C {
                uut.t_busy[c].next = case.t_busy[c].into();
                uut.d_stored[c].next = case.d_stored[c].into();
            }
            let (chan, rem) = case.d_pending.unwrap_or((0, rng.below(256)));
            let d_pending = case.d_pending.map_or(0, |_| 1 << chan);
            uut.d_pending.next = d_pending.into();
            uut.d_pending_rem.next = rem.into();
            uut.d_busy.next = case.d_busy.into();
            assert!(simulate(&mut uut, 100), "settles");
            let (is_data, is_desc, chan, known, ok, base, rem) = case.expected(C as u64);
            let got = (uut.is_desc.val(), uut.known.val(), uut.ok.val());
            assert_eq!(got, (is_desc, known, ok), "{:#x}", case.data);
            assert_eq!(uut.tag.val().to_u64(), (case.data >> 72) as u64 & 0xFF);
            assert_eq!(uut.len.val().to_u64(), case.data as u64 & 0x3FF);
            if is_data || is_desc {
                assert_eq!(uut.chan.val().to_u64(), chan, "{:#x}", case.data);
                assert_eq!(uut.rem.val().to_u64(), rem, "{:#x}", case.data);
                let less = rem.wrapping_sub(case.data as u64 & 0x3FF) & 0xFF;
                assert_eq!(uut.rem_less.val().to_u64(), less, "{:#x}", case.data);
            }
            if ok {
                assert_eq!(uut.lane0.val().to_u64(), base, "{:#x}", case.data);
                oks += 1;
            }
        }
        // The random headers reach the accepting side often enough to test it.
        assert!(oks > 300, "{oks} good completions");
    }

    #[test]
    fn headers_are_checked_as_the_rule_says() {
        follows_the_rule::<2, 1>(7);
        follows_the_rule::<4, 2>(8);
        follows_the_rule::<8, 3>(9);
    }
}
