//! The DMA controller built with other channel counts than the chip's: exported, linted,
//! and moving checked data on every channel at once, with the tag layout of
//! `peach2_regmap::dma::tags` seen on the wire. The controller alone, with the host's
//! memory on its read, completion and write streams.

use super::tests::host::HostMemory;
use super::tests::{big_stack, data_desc};
use super::Dmac;
use crate::harness::{Lcg, Stepper, StreamDriver, StreamMonitor, TestBeat};
use crate::verilog::checks::lint_verilog;
use crate::verilog::export::block_verilog;
use pcie_model::beats::{tlp_from_beats, to_beats, Beat};
use pcie_model::tlp::{Tlp, TlpKind};
use peach2_regmap::dma::{flags, tags, ChannelState, Descriptor, ErrorCause, CHAIN_LIMIT_RESET};

/// Where channel c's descriptors, sources and destinations are.
const BASE: u64 = 0x1_0000_0000;
const fn area(c: usize) -> u64 {
    BASE + 0x10_0000 * c as u64
}

/// A test beat as pcie-model's beat (for decoding TLPs with it).
pub(super) fn to_pcie(b: &TestBeat) -> Beat {
    Beat {
        data: b.data,
        sop: b.sop,
        eop: b.eop,
        empty: b.empty,
    }
}

/// Two host descriptors per channel (random sizes and alignments), every channel started
/// in the same cycle; runs until all are done and checks every byte, the count, and that
/// each read used its channel's tags.
fn every_channel_moves_data<const C: usize, const CB: usize>(seed: u64) {
    let mut s = Stepper::new(Dmac::<C, CB>::new(), |d| &mut d.clock);
    let mut rng = Lcg(seed);
    let mut host = HostMemory::new(seed, 256);
    let mut chains: Vec<Vec<Descriptor>> = Vec::new();
    for c in 0..C {
        let a = area(c);
        // DW-aligned, as the descriptor rules want; any DW offset in a 64-byte line.
        let (o1, o2) = (4 * rng.below(16), 4 * rng.below(16));
        let (l1, l2) = (
            4 + 4 * rng.below(1500) as u32,
            4 + 4 * rng.below(750) as u32,
        );
        let descs = vec![
            data_desc(a + 0x1_0000 + o1, a + 0x8_0000 + o1, l1, 0, a + 0x20),
            data_desc(a + 0x3_0000 + o2, a + 0xA_0000 + o2, l2, flags::LAST, 0),
        ];
        host.fill_sources(&descs);
        host.put_host(a, &descs[0]);
        host.put_host(a + 0x20, &descs[1]);
        chains.push(descs);
    }

    let u = &mut s.uut;
    u.reset.next = true;
    u.max_read_req.next = 2.into(); // 512 B
    u.max_payload.next = 1.into(); // 256 B
    u.routes.port_ready.next = 1.into(); // N up: local addresses are routable
    u.chain_limit.next = u64::from(CHAIN_LIMIT_RESET).into();
    u.cpl_timeout.next = 65536.into();
    s.tick();
    s.tick();
    s.uut.reset.next = false;
    for c in 0..C {
        s.uut.channel[c].start.next = true;
        s.uut.channel[c].start_host.next = true;
        s.uut.channel[c].desc_base.next = area(c).into();
    }
    s.tick();
    for c in 0..C {
        s.uut.channel[c].start.next = false;
    }

    let mut cpl_in = StreamDriver::new(0.8, seed ^ 0x11);
    let mut rd_mon = StreamMonitor::new(0.7, seed ^ 0x22);
    let mut wr_mon = StreamMonitor::new(0.7, seed ^ 0x33);
    let mut reads: Vec<Tlp> = Vec::new();
    let limit = 400_000;
    for cycle in 0..limit {
        if cpl_in.pending() < 8 {
            if let Some(t) = host.next_completion(cycle) {
                cpl_in.push(to_beats(&t).iter().map(|b| TestBeat {
                    data: b.data,
                    sop: b.sop,
                    eop: b.eop,
                    empty: b.empty,
                    ..Default::default()
                }));
            }
        }
        cpl_in.drive(&mut s.uut.cpl);
        rd_mon.drive(&mut s.uut.rd_out);
        wr_mon.drive(&mut s.uut.wr_out);
        s.settle();
        cpl_in.sample(&s.uut.cpl);
        rd_mon.sample(&s.uut.rd_out);
        wr_mon.sample(&s.uut.wr_out);
        for mon in [&mut rd_mon, &mut wr_mon] {
            while let Some(p) = mon.packets.pop_front() {
                let beats: Vec<Beat> = p.iter().map(to_pcie).collect();
                let t = tlp_from_beats(&beats).expect("the DMA sends valid TLPs");
                if t.kind() == TlpKind::MRd {
                    reads.push(t.clone());
                }
                assert!(host.take(cycle, t).is_none(), "only reads and writes");
            }
        }
        s.tick();
        let done = (0..C).all(|c| {
            let st = s.uut.channel[c].status.val().to_u64() as u32;
            ChannelState::from_status(st) != ChannelState::Busy
        });
        if done && cpl_in.pending() == 0 && !s.uut.wr_out.valid.val() {
            break;
        }
        assert!(
            cycle + 1 < limit,
            "{C} channels: still busy after {limit} cycles"
        );
    }

    for (c, descs) in chains.iter().enumerate() {
        let st = s.uut.channel[c].status.val().to_u64() as u32;
        assert_eq!(
            ChannelState::from_status(st),
            ChannelState::Done,
            "channel {c}: cause {:?}",
            ErrorCause::from_status(st)
        );
        assert_eq!(
            s.uut.channel[c].count.val().to_u64(),
            2,
            "channel {c}'s count"
        );
        host.check_golden(descs);
    }
    for r in &reads {
        let addr = r.address().unwrap().0;
        let c = ((addr - BASE) / 0x10_0000) as u32;
        let tag = u32::from(r.tag().0);
        let own_data = (tags::data(c, 0)..tags::data(c, 8)).contains(&tag);
        let own_desc = tag == tags::desc(C as u32, c);
        let is_desc = addr - area(c as usize) < 0x40;
        assert!(
            (is_desc && own_desc) || (!is_desc && own_data),
            "{C} channels: read of {addr:#x} (channel {c}) has tag {tag:#x}"
        );
    }
    println!(
        "{C} channels: {} reads, every channel's data checked",
        reads.len()
    );
}

fn exported_and_linted<const C: usize, const CB: usize>() {
    let name = format!("dmac_{C}ch");
    let v = block_verilog(&mut Dmac::<C, CB>::new(), &name);
    lint_verilog(&v, &name).unwrap();
}

#[test]
fn eight_channels_export_lint_and_move_data_on_every_channel() {
    big_stack(|| {
        exported_and_linted::<8, 3>();
        every_channel_moves_data::<8, 3>(0x8C);
    });
}

#[test]
fn two_channels_export_lint_and_move_data_on_every_channel() {
    big_stack(|| {
        exported_and_linted::<2, 1>();
        every_channel_moves_data::<2, 1>(0x2C);
    });
}

#[test]
#[should_panic(expected = "no tag layout")]
fn a_channel_count_without_a_tag_layout_is_refused() {
    let _ = Dmac::<32, 5>::new();
}
