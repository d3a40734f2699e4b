//! The completion intake against a model of the tag table and the fetch counts.

use super::cpl_intake::CplIntake;
use crate::dmac::RingLayout;
use crate::harness::{BeatIn, Lcg, Stepper, TestBeat};
use pcie_model::beats::{to_beats, Beat};
use pcie_model::tlp::{Bdf, CplStatus, Tag, Tlp};

const C: usize = 4;

/// An outstanding read as the tag table and the fetch counts hold it.
#[derive(Clone, Copy)]
struct Read {
    start: u64,
    len: u64,
    rem: u64,
}

/// Where a completion's payload goes: (channel, descriptor fetch, where its first
/// payload DW goes: a ring position, or a DW of the descriptor; its DWs).
type Target = (u64, bool, u64, u64);

/// The completion on the wire: its beats, the next to send, and what it should do.
struct Sending {
    beats: Vec<Beat>,
    next: usize,
    tag: u64,
    /// Its read's payload; `None` for a tag with nothing outstanding.
    read: Option<Target>,
    ok: bool,
}

/// Completions of random chunks of random outstanding reads (data and descriptor
/// fetches), some poisoned, some for tags with nothing outstanding, beats with random
/// idle cycles between them; the intake answered from a model of the tag table and
/// checked every cycle: each payload DW into its bank and row a cycle after its beat
/// (to its descriptor DW two cycles after), the count at the header (cleared if it
/// failed, unchanged if payload beats follow) and at the last beat,
/// `cpl_seen`, `cpl_error` a cycle after the header, `cpl_unexpected`.
#[test]
fn completions_land_and_count_under_random_idle() {
    let ring = RingLayout::new(C, 2);
    let mut s = Stepper::new(CplIntake::<C, 2>::new(), |b| &mut b.clock);
    let mut rng = Lcg(0x17A);
    let mut data: Vec<Option<Read>> = vec![None; 8 * C];
    let mut desc: Vec<Option<Read>> = vec![None; C];
    let mut sending: Option<Sending> = None;
    // Last cycle's beat: (its lanes, packet DW index of lane 0, its completion's read,
    // whether it passed the checks).
    let mut last_beat: Option<(u128, u64, Option<Target>, bool)> = None;
    let mut error_next = 0u64;
    // The descriptor DWs due on the outputs this cycle: (lanes, DW indices, DWs).
    let mut desc_now = (0u64, [0u64; 8], 0u64);
    let (mut dws, mut fails, mut unexpected) = (0u64, 0u32, 0u32);
    for cycle in 0..40_000u64 {
        // New reads on free tags.
        let in_flight = sending.as_ref().map(|p| p.tag as usize);
        for (t, r) in data.iter_mut().enumerate() {
            if r.is_none() && in_flight != Some(t) && rng.chance(0.05) {
                let len = 1 + rng.below(64);
                let start = (t as u64 % 8) * 128 + rng.below(64);
                *r = Some(Read {
                    start,
                    len,
                    rem: len,
                });
            }
        }
        for r in desc.iter_mut() {
            if r.is_none() && rng.chance(0.05) {
                *r = Some(Read {
                    start: 0,
                    len: 8,
                    rem: 8,
                });
            }
        }
        if sending.is_none() && rng.chance(0.5) {
            sending = Some(new_completion(&mut rng, &data, &desc));
        }
        let beat = sending
            .as_ref()
            .filter(|_| rng.chance(0.7))
            .map(|p| p.beats[p.next]);
        let u = &mut s.uut;
        u.reset.next = cycle == 0;
        u.cpl.put(
            &beat.map(TestBeat::from).unwrap_or_default(),
            beat.is_some() && cycle > 0,
        );
        for c in 0..C {
            let busy: u64 = (0..8)
                .filter(|&k| data[8 * c + k].is_some())
                .map(|k| 1 << k)
                .sum();
            u.t_busy[c].next = busy.into();
            u.d_rem[c].next = desc[c].map_or(0, |r| r.rem).into();
            u.d_stored[c].next = desc[c].map_or(0, |r| r.rem).into();
        }
        let d_busy: u64 = (0..C).filter(|&c| desc[c].is_some()).map(|c| 1 << c).sum();
        u.d_busy.next = d_busy.into();
        s.settle();
        // The table, read at the tag the intake names.
        let tag = s.uut.tag.val().to_u64() as usize;
        let entry = data.get(tag).copied().flatten().unwrap_or(Read {
            start: 0,
            len: 0,
            rem: 0,
        });
        let u = &mut s.uut;
        u.lookup_end.next = ((entry.start + entry.len) & 0xFFFF).into();
        u.lookup_len.next = entry.len.into();
        u.lookup_rem.next = entry.rem.into();
        s.settle();
        let u = &s.uut;

        // Last cycle's beat's lanes: data in place now, descriptor DWs next cycle (per
        // DW of the descriptor: written, its word; and the channel).
        let (mut bank_we, mut desc_due) = (0u64, (0u64, [0u64; 8], 0u64));
        if let Some((lanes, bidx, Some((chan, is_desc, offset, n)), true)) = last_beat {
            for l in 0..4u64 {
                let j = bidx + l;
                if !(3..3 + n).contains(&j) {
                    continue;
                }
                let word = (lanes >> (32 * l)) as u32 as u64;
                if is_desc {
                    // `offset` is the DW of the descriptor the first payload DW is.
                    let k = (offset + j - 3) & 7;
                    desc_due.0 |= 1 << k;
                    desc_due.1[k as usize] = word;
                    desc_due.2 = chan;
                } else {
                    let p = (offset + j - 3) & 0xFFFF;
                    let bank = (p % 4) as usize;
                    let row = chan * (ring.ring_dws / 4) + (p % ring.ring_dws) / 4;
                    bank_we |= 1 << bank;
                    assert_eq!(u.bank_addr[bank].val().to_u64(), row, "cycle {cycle}: row");
                    assert_eq!(u.bank_data[bank].val().to_u64(), word, "cycle {cycle}: DW");
                }
                dws += 1;
            }
        }
        assert_eq!(
            u.bank_we.val().to_u64(),
            bank_we,
            "cycle {cycle}: bank writes"
        );
        let (desc_we, words, desc_chan) = desc_now;
        assert_eq!(
            u.desc_dw_we.val().to_u64(),
            desc_we,
            "cycle {cycle}: descriptor DWs"
        );
        if desc_we != 0 {
            assert_eq!(
                u.desc_chans.val().to_u64(),
                1 << desc_chan,
                "cycle {cycle}: descriptor's channel"
            );
        }
        for k in (0..8).filter(|k| desc_we >> k & 1 == 1) {
            let l = u.desc_dw_lanes.val().to_u64() >> (2 * k) & 3;
            let word = (u.desc_data.val().to_u128() >> (32 * l)) as u32 as u64;
            assert_eq!(word, words[k], "cycle {cycle}: descriptor DW {k}");
        }
        desc_now = desc_due;
        assert_eq!(
            u.cpl_error.val().to_u64(),
            error_next,
            "cycle {cycle}: cpl_error"
        );
        assert!(u.cpl.ready.val(), "the intake always takes");

        // This cycle's beat: its header's verdict, its count.
        error_next = 0;
        let (mut seen, mut unexp, mut count) = (0u64, false, None);
        last_beat = None;
        if let (Some(b), true) = (beat, cycle > 0) {
            let p = sending.as_mut().unwrap();
            let first = p.next == 0;
            let bidx = 4 * p.next as u64;
            p.next += 1;
            last_beat = Some((b.data, bidx, p.read, p.ok));
            match p.read {
                None if first => unexp = true,
                Some((chan, is_desc, _, _)) if first => {
                    seen = 1 << chan;
                    if !p.ok {
                        error_next = 1 << chan;
                        count = Some((true, 0, chan, is_desc, p.tag));
                    } else {
                        // Payload beats follow: the count is written unchanged.
                        count = Some((false, 0, chan, is_desc, p.tag));
                    }
                }
                _ => {}
            }
            if b.eop {
                if let (Some((chan, is_desc, _, n)), true) = (p.read, p.ok) {
                    count = Some((false, n, chan, is_desc, p.tag));
                }
                sending = None;
            }
        }
        assert_eq!(u.cpl_seen.val().to_u64(), seen, "cycle {cycle}: cpl_seen");
        assert_eq!(u.cpl_unexpected.val(), unexp, "cycle {cycle}: unexpected");
        let (data_count, desc_count) = match count {
            Some((.., is_desc, _)) => (!is_desc, is_desc),
            None => (false, false),
        };
        assert_eq!(u.count_data.val(), data_count, "cycle {cycle}: data count");
        assert_eq!(u.count_desc.val(), desc_count, "cycle {cycle}: fetch count");
        if let Some((clear, n, chan, is_desc, tag)) = count {
            if is_desc {
                assert_eq!(u.count_chan.val().to_u64(), chan, "cycle {cycle}: channel");
            } else {
                assert_eq!(u.count_tag.val().to_u64(), tag, "cycle {cycle}: tag");
            }
            let read = if is_desc {
                &mut desc[chan as usize]
            } else {
                &mut data[tag as usize]
            };
            let r = read.as_mut().expect("the count names an outstanding read");
            assert_eq!(u.count.clear.val(), clear, "cycle {cycle}: clear");
            if clear {
                *read = None;
                fails += 1;
            } else {
                let written = if u.count.last.val() {
                    u.count.less.val()
                } else {
                    u.count.rem.val()
                };
                assert_eq!(written.to_u64(), r.rem - n, "cycle {cycle}: rem");
                r.rem -= n;
                if r.rem == 0 {
                    *read = None;
                }
            }
        }
        unexpected += u32::from(unexp);
        s.tick();
    }
    assert!(
        dws > 30_000 && fails > 300 && unexpected > 300,
        "{dws} DWs, {fails} failed, {unexpected} unexpected"
    );
}

/// A completion of a random chunk of an outstanding read (10 % failing: poisoned, or
/// UR without data), or for a tag with nothing outstanding.
fn new_completion(rng: &mut Lcg, data: &[Option<Read>], desc: &[Option<Read>]) -> Sending {
    let open: Vec<u64> = (0..9 * C as u64)
        .filter(|&t| match t as usize {
            t if t < 8 * C => data[t].is_some_and(|r| r.rem > 0),
            t => desc[t - 8 * C].is_some_and(|r| r.rem > 0),
        })
        .collect();
    let unknown = open.is_empty() || rng.chance(0.1);
    let tag = if unknown {
        // A data tag with nothing outstanding, or past the DMA's tags.
        let free: Vec<u64> = (0..8 * C as u64)
            .filter(|&t| data[t as usize].is_none())
            .collect();
        if free.is_empty() || rng.chance(0.3) {
            9 * C as u64 + rng.below(16)
        } else {
            free[rng.below(free.len() as u64) as usize]
        }
    } else {
        open[rng.below(open.len() as u64) as usize]
    };
    let is_desc = (8 * C as u64..9 * C as u64).contains(&tag);
    let r = if unknown {
        Read {
            start: 0,
            len: 8,
            rem: 8,
        }
    } else if is_desc {
        desc[tag as usize - 8 * C].unwrap()
    } else {
        data[tag as usize].unwrap()
    };
    let n = 1 + rng.below(r.rem.min(32));
    let bytes: Vec<u8> = (0..4 * n).map(|_| rng.below(256) as u8).collect();
    let ok = unknown || !rng.chance(0.1);
    // A failure is poisoned data or an Unsupported Request without data.
    let ur = !ok && rng.chance(0.5);
    let offset = r.len - r.rem;
    let tlp = Tlp::completion(
        Bdf(0x0100),
        if ur { CplStatus::Ur } else { CplStatus::Sc },
        Bdf(0x0200),
        Tag(tag as u8),
        (4 * r.rem) as u16,
        ((4 * offset) & 0x7F) as u8,
        if ur { &[] } else { &bytes },
    )
    .expect("a valid completion")
    .with_ep(!ok && !ur);
    let chan = if is_desc { tag % C as u64 } else { tag / 8 };
    let base = if is_desc { offset } else { r.start + offset };
    Sending {
        beats: to_beats(&tlp),
        next: 0,
        tag,
        read: (!unknown).then_some((chan, is_desc, base, n)),
        ok: ok && !unknown,
    }
}
