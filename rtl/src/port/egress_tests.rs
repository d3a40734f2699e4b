//! Tests of the N port's TX path: egress translation (both header formats, drops) and
//! the TX merge, under random flow control.

use crate::harness::{packet_beats, BeatOut, Lcg, Stepper, StreamDriver, StreamMonitor, TestBeat};
use crate::port::egress_translate::EgressTranslate;
use crate::port::tx_merge::TxMerge;
use peach2_regmap::address::{GlobalAddr, Target};

fn mwr4(addr: u64, payload: &[u32]) -> Vec<u32> {
    let mut v = vec![
        0x6000_0000 | (payload.len() as u32 & 0x3FF),
        0x0100_00FF,
        (addr >> 32) as u32,
        addr as u32,
    ];
    v.extend_from_slice(payload);
    v
}

fn mwr3(addr: u32, payload: &[u32]) -> Vec<u32> {
    let mut v = vec![
        0x4000_0000 | (payload.len() as u32 & 0x3FF),
        0x0100_00FF,
        addr,
    ];
    v.extend_from_slice(payload);
    v
}

fn strip(beats: &[TestBeat]) -> Vec<TestBeat> {
    beats
        .iter()
        .map(|b| TestBeat {
            dest: 0,
            src: 0,
            unsupported: false,
            ..*b
        })
        .collect()
}

#[test]
fn global_writes_become_local_in_the_right_header_format() {
    let mut s = Stepper::new(EgressTranslate::default(), |u| &mut u.clock);
    let host_base = 0x8000_0000u64;
    let gpu_base = 0x38_0000_0000u64;
    s.uut.target_base[0].next = host_base.into();
    s.uut.target_base[2].next = gpu_base.into();
    s.uut.target_enable.next = 0b00101.into();
    s.uut.reset.next = true;
    s.tick();
    s.uut.reset.next = false;
    let mut drv = StreamDriver::new(0.7, 5);
    let mut mon = StreamMonitor::new(0.6, 6);
    let mut rng = Lcg(17);
    let mut want = Vec::new();
    let mut drops_expected = 0;
    for i in 0..120u32 {
        let len = 1 + rng.below(40) as usize;
        let payload: Vec<u32> = (0..len).map(|_| rng.next_u64() as u32).collect();
        // Host offsets stay below 2 GiB so base + offset is below 4 GiB (3-DW header).
        let off = rng.below(1 << 29) * 4;
        match i % 4 {
            0 => {
                let g = GlobalAddr::new(3, Target::Host, off).unwrap().to_u64();
                drv.push(packet_beats(&mwr4(g, &payload), 0, 1, false));
                want.push(packet_beats(
                    &mwr3((host_base + off) as u32, &payload),
                    0,
                    0,
                    false,
                ));
            }
            1 => {
                let g = GlobalAddr::new(3, Target::Gpu(1), off).unwrap().to_u64();
                drv.push(packet_beats(&mwr4(g, &payload), 0, 1, false));
                want.push(packet_beats(&mwr4(gpu_base + off, &payload), 0, 0, false));
            }
            2 => {
                let g = GlobalAddr::new(3, Target::Gpu(3), off).unwrap().to_u64();
                drv.push(packet_beats(&mwr4(g, &payload), 0, 1, false));
                drops_expected += 1;
            }
            _ => {
                // A completion passes unchanged.
                let mut cpl = vec![
                    0x4A00_0000 | len as u32,
                    0x0300_0000 | (4 * len as u32),
                    0x0100_0000,
                ];
                cpl.extend_from_slice(&payload);
                drv.push(packet_beats(&cpl, 0, 4, false));
                want.push(packet_beats(&cpl, 0, 0, false));
            }
        }
    }
    let mut drops = 0;
    while mon.packets.len() < want.len() || drv.pending() > 0 {
        assert!(s.cycle < 30_000, "egress stalled");
        drv.drive(&mut s.uut.from_xbar);
        mon.drive(&mut s.uut.to_port);
        s.settle();
        drv.sample(&s.uut.from_xbar);
        mon.sample(&s.uut.to_port);
        drops += u32::from(s.uut.dropped.val());
        s.tick();
    }
    assert_eq!(drops, drops_expected);
    assert_eq!(mon.packets.len(), want.len());
    for (i, (got, want)) in mon.packets.iter().zip(&want).enumerate() {
        assert_eq!(strip(got), *want, "packet {i}");
    }
}

/// The DWs a packet of beats carries, in order.
fn packet_dws(p: &[TestBeat]) -> Vec<u32> {
    p.iter()
        .flat_map(|b| {
            (0..4 - if b.eop { b.empty } else { 0 }).map(move |k| (b.data >> (32 * k)) as u32)
        })
        .collect()
}

#[test]
fn tx_merge_keeps_packets_whole_and_counts_bytes() {
    let mut s = Stepper::new(TxMerge::default(), |u| &mut u.clock);
    s.uut.link_up.next = true;
    let mut xbar = StreamDriver::new(0.8, 1);
    let mut link = StreamDriver::new(0.2, 2);
    let mut mon = StreamMonitor::new(0.7, 3);
    let mut rng = Lcg(5);
    let mut from_xbar = Vec::new();
    let mut from_link = Vec::new();
    let mut total_dws = 0;
    for i in 0..40u32 {
        let len = 1 + rng.below(30) as usize;
        let dws: Vec<u32> = (0..len as u32).map(|k| (i << 16) | k).collect();
        total_dws += len;
        from_xbar.push(dws.clone());
        xbar.push(packet_beats(&dws, 0, 0, false));
        if i % 4 == 0 {
            let cfg = vec![0x0400_0001, i, 0x0100_0000];
            total_dws += 3;
            from_link.push(cfg.clone());
            link.push(packet_beats(&cfg, 0, 0, false));
        }
    }
    let (mut tlps, mut bytes) = (0, 0u64);
    let mut shown: Option<TestBeat> = None;
    while xbar.pending() + link.pending() > 0 {
        assert!(s.cycle < 10_000, "merge stalled");
        xbar.drive(&mut s.uut.from_xbar);
        link.drive(&mut s.uut.from_link);
        mon.drive(&mut s.uut.tx);
        s.settle();
        // A beat shown and not taken is shown again, unchanged.
        if let Some(b) = shown.take() {
            assert!(
                s.uut.tx.valid.val(),
                "cycle {}: a waiting beat was withdrawn",
                s.cycle
            );
            assert_eq!(
                s.uut.tx.beat(),
                b,
                "cycle {}: a waiting beat changed",
                s.cycle
            );
        }
        if s.uut.tx.valid.val() && !s.uut.tx.ready.val() {
            shown = Some(s.uut.tx.beat());
        }
        xbar.sample(&s.uut.from_xbar);
        link.sample(&s.uut.from_link);
        mon.sample(&s.uut.tx);
        tlps += u32::from(s.uut.tlp_out.val());
        bytes += s.uut.bytes_out.val().to_u64();
        s.tick();
    }
    assert_eq!(tlps as usize, from_xbar.len() + from_link.len());
    assert_eq!(bytes, 4 * total_dws as u64);
    // Each source's packets arrive whole and in order.
    let (mut xi, mut li) = (0, 0);
    for p in &mon.packets {
        let dws = packet_dws(p);
        if li < from_link.len() && dws == from_link[li] {
            li += 1;
        } else {
            assert_eq!(dws, from_xbar[xi]);
            xi += 1;
        }
    }
    assert_eq!((xi, li), (from_xbar.len(), from_link.len()));
}

/// The link goes down and up at random, in packets and between them: a packet in
/// progress is drained unseen, and every packet that leaves is whole, one of those sent,
/// in order.
#[test]
fn tx_merge_cuts_the_packet_in_progress_when_the_link_goes_down() {
    let mut s = Stepper::new(TxMerge::default(), |u| &mut u.clock);
    let mut xbar = StreamDriver::new(0.9, 11);
    let mut link = StreamDriver::new(0.0, 14);
    let mut mon = StreamMonitor::new(0.8, 12);
    let mut rng = Lcg(13);
    let mut sent = Vec::new();
    for i in 0..80u32 {
        let len = 4 + rng.below(60) as usize;
        let dws: Vec<u32> = (0..len as u32).map(|k| (i << 16) | k).collect();
        xbar.push(packet_beats(&dws, 0, 0, false));
        sent.push(dws);
    }
    let mut up = true;
    while xbar.pending() > 0 || s.cycle < 50 {
        assert!(s.cycle < 20_000, "merge stalled");
        if rng.chance(if up { 0.02 } else { 0.1 }) {
            up = !up;
            if !up {
                // DL_Down: the hard IP throws away the packet it was taking.
                mon.discard();
            }
        }
        s.uut.link_up.next = up;
        xbar.drive(&mut s.uut.from_xbar);
        link.drive(&mut s.uut.from_link);
        mon.drive(&mut s.uut.tx);
        if !up {
            // A dead link's hard IP takes nothing.
            s.uut.tx.ready.next = false;
        }
        s.settle();
        xbar.sample(&s.uut.from_xbar);
        link.sample(&s.uut.from_link);
        mon.sample(&s.uut.tx);
        s.tick();
    }
    let mut next = 0;
    for p in &mon.packets {
        let dws = packet_dws(p);
        let at = sent[next..]
            .iter()
            .position(|d| *d == dws)
            .unwrap_or_else(|| panic!("not a whole packet sent, in order: {dws:x?}"));
        next += at + 1;
    }
    assert!(
        mon.discarded > 0 && mon.packets.len() > sent.len() / 2,
        "{} of {} packets left, {} cut",
        mon.packets.len(),
        sent.len(),
        mon.discarded
    );
}

#[test]
fn tx_path_blocks_lint_clean() {
    let mut e = EgressTranslate::default();
    let v = crate::verilog::export::block_verilog(&mut e, "egress_translate");
    crate::verilog::checks::lint_verilog(&v, "egress_translate").unwrap();
    let mut d = super::egress_decode::EgressDecode::default();
    let v = crate::verilog::export::block_verilog(&mut d, "egress_decode");
    crate::verilog::checks::lint_verilog(&v, "egress_decode").unwrap();
    let mut m = TxMerge::default();
    let v = crate::verilog::export::block_verilog(&mut m, "tx_merge");
    crate::verilog::checks::lint_verilog(&v, "tx_merge").unwrap();
}
