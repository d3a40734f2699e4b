//! The completion reassembly stage against a model of in-order retirement.

use super::cpl_reassembly::CplReassembly;
use crate::dmac::RingLayout;
use crate::harness::{BeatIn, Lcg, Stepper, TestBeat};
use pcie_model::beats::{to_beats, Beat};
use pcie_model::tlp::{Bdf, CplStatus, Tag, Tlp};
use std::collections::VecDeque;

const C: usize = 4;

/// A read as the test issued it.
struct Read {
    tag: u64,
    /// Ring position of its first DW (data reads).
    start: u64,
    len: u64,
    /// DWs no completion has brought yet.
    rem: u64,
    /// The DWs its completions carry.
    words: Vec<u32>,
    failed: bool,
    /// The cycle of the beat that finished it: its last DW's, or a failed header's.
    finished: Option<u64>,
}

/// A completion on the wire: its beats, the next to send, its read (tag, channel,
/// descriptor fetch), how many DWs it carries, whether it fails.
struct Sending {
    beats: Vec<Beat>,
    next: usize,
    tag: u64,
    chan: usize,
    is_desc: bool,
    n: u64,
    ok: bool,
}

/// Per channel: its outstanding data reads in issue order, its descriptor fetch, the
/// ring position of its next read, and retirement as far as the outputs show it.
#[derive(Default)]
struct Channel {
    reads: VecDeque<Read>,
    fetch: Option<Read>,
    next_pos: u64,
    next_index: u64,
    avail: u64,
    /// The cycle `avail` last moved.
    last_retired: Option<u64>,
    /// The cycle the descriptor fetch's `desc_done` is due.
    done_due: Option<u64>,
}

/// Random data reads (1-128 DWs, each channel's ring positions in issue order, up to
/// eight outstanding per channel) and descriptor fetches of the four channels, answered
/// in random order by completions of random chunks (3 % failing: poisoned, or UR
/// without data) with random idle cycles between beats. The test is the reorder buffer:
/// it keeps what the banks are written. Checked every cycle: `avail` of each channel
/// moves to a read's end exactly two cycles after the beat that finished it (its last
/// DW, or its failing header), once its older reads have moved it and one read a cycle;
/// the ring then holds every DW of a good read in place; `desc_done` two cycles after a
/// fetch's last beat; `cpl_seen` at a header and `cpl_error` a cycle after a failing
/// one; `can_issue`, the next tag index and `idle` as the reads outstanding say.
#[test]
fn reads_retire_in_order_two_cycles_after_their_last_beat() {
    let ring = RingLayout::new(C, 2);
    let mut s = Stepper::new(CplReassembly::<C, 2>::new(), |b| &mut b.clock);
    let mut rng = Lcg(0x2E7);
    let mut chans: Vec<Channel> = (0..C).map(|_| Channel::default()).collect();
    let mut banks = vec![vec![0u32; 1024]; 4];
    let mut sending: Option<Sending> = None;
    let mut error_due = 0u64;
    let (mut retired, mut failed, mut fetched, mut full) = (0u64, 0u64, 0u64, 0u64);
    for cycle in 0..30_000u64 {
        if sending.is_none() && rng.chance(0.6) {
            sending = new_completion(&mut rng, &chans);
        }
        let beat = sending
            .as_ref()
            .filter(|_| cycle > 0 && rng.chance(0.7))
            .map(|p| p.beats[p.next]);
        let u = &mut s.uut;
        u.reset.next = cycle == 0;
        u.issue_valid.next = false;
        u.chan_reset.next = 0.into();
        u.cpl.put(
            &beat.map(TestBeat::from).unwrap_or_default(),
            beat.is_some(),
        );
        s.settle();
        let u = &s.uut;
        assert!(u.cpl.ready.val(), "the stage always takes");

        // Retirement as due, then the ring it promises.
        let (mut can_issue, mut idle, mut done) = (0u64, 0u64, 0u64);
        for (c, ch) in chans.iter_mut().enumerate() {
            if cycle > 0 {
                retire(ch, cycle, &ring, c, &banks, &mut retired);
            }
            assert_eq!(
                u.avail[c].val().to_u64(),
                ch.avail,
                "cycle {cycle}: avail {c}"
            );
            if ch.done_due == Some(cycle) {
                done |= 1 << c;
                ch.done_due = None;
                ch.fetch = None;
                fetched += 1;
            }
            if ch.reads.len() < 8 {
                can_issue |= 1 << c;
            }
            if ch.reads.is_empty() && ch.fetch.is_none() {
                idle |= 1 << c;
            }
            assert_eq!(
                u.issue_idx[c].val().to_u64(),
                ch.next_index,
                "cycle {cycle}: tag index {c}"
            );
        }
        assert_eq!(u.desc_done.val().to_u64(), done, "cycle {cycle}: desc_done");
        assert_eq!(
            u.can_issue.val().to_u64(),
            can_issue,
            "cycle {cycle}: can_issue"
        );
        assert_eq!(u.idle.val().to_u64(), idle, "cycle {cycle}: idle");
        assert_eq!(
            u.cpl_error.val().to_u64(),
            error_due,
            "cycle {cycle}: error"
        );
        full += u64::from(can_issue != (1 << C) - 1);

        // The banks take this cycle's writes.
        let we = u.bank_we.val().to_u64();
        for (k, bank) in banks.iter_mut().enumerate() {
            if we >> k & 1 == 1 {
                bank[u.bank_addr[k].val().to_u64() as usize] = u.bank_data[k].val().to_u64() as u32;
            }
        }

        // This cycle's beat: its header's verdict, the reads it finishes.
        error_due = 0;
        let mut seen = 0u64;
        if let Some(b) = beat {
            let p = sending.as_mut().unwrap();
            let first = p.next == 0;
            p.next += 1;
            let (tag, chan, is_desc, n, ok) = (p.tag, p.chan, p.is_desc, p.n, p.ok);
            if b.eop {
                sending = None;
            }
            // A failed completion's header decides; its read may retire, and its tag
            // be issued again, while its payload beats still come.
            if first || ok {
                let ch = &mut chans[chan];
                let read = if is_desc {
                    ch.fetch.as_mut().unwrap()
                } else {
                    ch.reads.iter_mut().find(|r| r.tag == tag).unwrap()
                };
                if first {
                    seen = 1 << chan;
                }
                if !ok {
                    error_due = 1 << chan;
                    read.failed = true;
                    read.finished = Some(cycle);
                    failed += 1;
                } else if b.eop {
                    read.rem -= n;
                    if read.rem == 0 {
                        read.finished = Some(cycle);
                    }
                }
                if is_desc && read.finished == Some(cycle) {
                    ch.done_due = Some(cycle + 2);
                }
            }
        }
        assert_eq!(
            s.uut.cpl_seen.val().to_u64(),
            seen,
            "cycle {cycle}: cpl_seen"
        );

        // A new read on a channel that can take one.
        if cycle > 0 && rng.chance(0.3) {
            let c = rng.below(C as u64) as usize;
            let ch = &mut chans[c];
            let u = &mut s.uut;
            if rng.chance(0.2) {
                if ch.fetch.is_none() {
                    let tag = u64::from(ring.data_tags) + c as u64;
                    ch.fetch = Some(new_read(&mut rng, tag, 0, 8));
                    issue(u, tag, 0, 8);
                }
            } else if ch.reads.len() < 8 {
                let tag = 8 * c as u64 + ch.next_index;
                let len = 1 + rng.below(128);
                let start = ch.next_pos;
                ch.reads.push_back(new_read(&mut rng, tag, start, len));
                issue(u, tag, start, len);
                ch.next_pos = (start + len) & 0xFFFF;
                ch.next_index = (ch.next_index + 1) % 8;
            }
        }
        s.settle();
        s.tick();
    }
    assert!(
        retired > 600 && failed > 100 && fetched > 500 && full > 10_000,
        "{retired} reads retired, {failed} failed, {fetched} fetches, {full} cycles with a \
         channel's eight tags taken"
    );
}

/// Moves channel `c`'s `avail` past its oldest read if this is the cycle it is due: two
/// cycles after the beat that finished it, a cycle after the read before it retired.
/// Checks a good read's DWs in the banks.
fn retire(
    ch: &mut Channel,
    cycle: u64,
    ring: &RingLayout,
    c: usize,
    banks: &[Vec<u32>],
    n: &mut u64,
) {
    let Some(finished) = ch.reads.front().and_then(|r| r.finished) else {
        return;
    };
    let due = ch
        .last_retired
        .map_or(finished + 2, |l| (finished + 2).max(l + 1));
    if due != cycle {
        assert!(due > cycle, "cycle {cycle}: channel {c} retired late");
        return;
    }
    let r = ch.reads.pop_front().unwrap();
    if !r.failed {
        for (i, &w) in r.words.iter().enumerate() {
            let q = r.start + i as u64;
            let row = (c as u64) << ring.row_shift | (q / 4) & ring.row_mask;
            let got = banks[(q % 4) as usize][row as usize];
            assert_eq!(got, w, "cycle {cycle}: channel {c} tag {} DW {i}", r.tag);
        }
    }
    ch.avail = (r.start + r.len) & 0xFFFF;
    ch.last_retired = Some(cycle);
    *n += 1;
}

fn new_read(rng: &mut Lcg, tag: u64, start: u64, len: u64) -> Read {
    Read {
        tag,
        start,
        len,
        rem: len,
        words: (0..len).map(|_| rng.next_u64() as u32).collect(),
        failed: false,
        finished: None,
    }
}

fn issue(u: &mut CplReassembly<C, 2>, tag: u64, start: u64, len: u64) {
    u.issue_valid.next = true;
    u.issue_tag.next = tag.into();
    u.issue_len_dw.next = len.into();
    u.issue_end.next = ((start + len) & 0xFFFF).into();
}

/// A completion of a random chunk of a random read with DWs still to come (a data read
/// takes its DWs in order of its completions, as one completer's split of it would).
fn new_completion(rng: &mut Lcg, chans: &[Channel]) -> Option<Sending> {
    let mut open: Vec<(usize, bool)> = Vec::new();
    for (c, ch) in chans.iter().enumerate() {
        if ch.reads.iter().any(|r| r.rem > 0 && !r.failed) {
            open.push((c, false));
        }
        if ch.fetch.as_ref().is_some_and(|r| r.rem > 0 && !r.failed) {
            open.push((c, true));
        }
    }
    if open.is_empty() {
        return None;
    }
    let (chan, is_desc) = open[rng.below(open.len() as u64) as usize];
    let ch = &chans[chan];
    let r = if is_desc {
        ch.fetch.as_ref().unwrap()
    } else {
        // Any of the channel's open reads: completions of different tags in any order.
        let reads: Vec<&Read> = ch.reads.iter().filter(|r| r.rem > 0 && !r.failed).collect();
        reads[rng.below(reads.len() as u64) as usize]
    };
    let n = 1 + rng.below(r.rem.min(64));
    let offset = r.len - r.rem;
    let words = &r.words[offset as usize..(offset + n) as usize];
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
    let ok = !rng.chance(0.03);
    let ur = !ok && rng.chance(0.5);
    let tlp = Tlp::completion(
        Bdf(0x0100),
        if ur { CplStatus::Ur } else { CplStatus::Sc },
        Bdf(0x0200),
        Tag(r.tag as u8),
        (4 * r.rem) as u16,
        ((4 * offset) & 0x7F) as u8,
        if ur { &[] } else { &bytes },
    )
    .expect("a valid completion")
    .with_ep(!ok && !ur);
    Some(Sending {
        beats: to_beats(&tlp),
        next: 0,
        tag: r.tag,
        chan,
        is_desc,
        n,
        ok,
    })
}
