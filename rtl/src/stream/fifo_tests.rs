//! Self-checking tests of [`TlpFifo`] with random idle and backpressure.

use super::fifo::TlpFifo;
use super::{TlpSink, TlpSource};
use crate::harness::{packet_beats, BeatIn, Lcg, Stepper, StreamDriver, StreamMonitor, TestBeat};
use rust_hdl::prelude::*;

fn run(p_valid: f64, p_ready: f64, seed: u64) {
    let mut s = Stepper::new(TlpFifo::<4, 5>::new(), |u| &mut u.clock);
    let mut drv = StreamDriver::new(p_valid, seed);
    let mut mon = StreamMonitor::new(p_ready, seed ^ 0x55);
    let mut rng = Lcg(seed);
    let mut expect = Vec::new();
    for p in 0..60u32 {
        let len = 1 + rng.below(40) as usize;
        let dws: Vec<u32> = (0..len).map(|_| rng.next_u64() as u32).collect();
        let beats = packet_beats(&dws, (p % 5) as u8, ((p + 1) % 5) as u8, p % 3 == 0);
        expect.push(beats.clone());
        drv.push(beats);
    }
    s.uut.reset.next = true;
    s.tick();
    s.uut.reset.next = false;
    let limit = 20_000;
    while mon.packets.len() < expect.len() {
        assert!(
            s.cycle < limit,
            "FIFO stalled: {} packets of {}",
            mon.packets.len(),
            expect.len()
        );
        drv.drive(&mut s.uut.sink);
        mon.drive(&mut s.uut.source);
        s.settle();
        drv.sample(&s.uut.sink);
        mon.sample(&s.uut.source);
        assert!(s.uut.fill.val().to_u64() <= 16, "fill beyond depth");
        s.tick();
    }
    for (got, want) in mon.packets.iter().zip(&expect) {
        assert_eq!(got, want);
    }
}

#[test]
fn fifo_passes_packets_in_order_under_random_flow_control() {
    run(0.5, 0.5, 1);
    run(1.0, 0.3, 2);
    run(0.3, 1.0, 3);
}

/// With both sides always ready, a 100-beat packet through a FIFO (`sink` and `source`
/// its two ends) for `cycles` cycles: the beats that came out, and the packets whole.
pub(super) fn full_rate<B: Block>(
    uut: B,
    clock: fn(&mut B) -> &mut Signal<In, Clock>,
    sink: fn(&mut B) -> &mut TlpSink,
    source: fn(&mut B) -> &mut TlpSource,
    cycles: usize,
) -> (usize, usize) {
    let mut s = Stepper::new(uut, clock);
    let mut drv = StreamDriver::new(1.0, 9);
    let mut mon = StreamMonitor::new(1.0, 9);
    let dws: Vec<u32> = (0..400).collect();
    drv.push(packet_beats(&dws, 0, 0, false));
    let mut moved = 0;
    for _ in 0..cycles {
        drv.drive(sink(&mut s.uut));
        mon.drive(source(&mut s.uut));
        s.settle();
        drv.sample(sink(&mut s.uut));
        moved += usize::from(mon.sample(source(&mut s.uut)).is_some());
        s.tick();
    }
    (moved, mon.packets.len())
}

#[test]
fn fifo_keeps_full_throughput() {
    // 100 beats; one cycle of RAM latency plus one of write visibility.
    let fifo = TlpFifo::<4, 5>::new();
    let moved = full_rate(
        fifo,
        |u| &mut u.clock,
        |u| &mut u.sink,
        |u| &mut u.source,
        102,
    );
    assert_eq!(moved, (100, 1));
}

/// Store-and-forward: random packets, some dropped part-way with `discard`, under random
/// idle and backpressure; long packets, then short ones (most of one beat, back to back).
/// Only whole, kept packets come out, in order, and a packet's first beat leaves only
/// after its last one was written.
#[test]
fn whole_packet_fifo_drops_discarded_packets_and_holds_until_eop() {
    whole_packets_under_random_flow(56, 0.6, 23);
    whole_packets_under_random_flow(6, 0.5, 24);
    whole_packets_under_random_flow(6, 0.9, 25);
}

fn whole_packets_under_random_flow(max_dws: u64, p_ready: f64, seed: u64) {
    let mut s = Stepper::new(TlpFifo::<4, 5>::whole_packets(), |u| &mut u.clock);
    let mut mon = StreamMonitor::new(p_ready, seed ^ 0x11);
    let mut rng = Lcg(seed);
    // The writer's script: beats, and `None` for a discard.
    let mut script = std::collections::VecDeque::new();
    let mut expect = Vec::new();
    for p in 0..200u32 {
        let len = 1 + rng.below(max_dws) as usize;
        let dws: Vec<u32> = (0..len).map(|_| rng.next_u64() as u32).collect();
        let beats = packet_beats(&dws, (p % 5) as u8, 0, false);
        if rng.chance(0.3) {
            let keep = rng.below(beats.len() as u64) as usize;
            script.extend(beats[..keep].iter().copied().map(Some));
            script.push_back(None);
        } else {
            expect.push(beats.clone());
            script.extend(beats.into_iter().map(Some));
        }
    }
    s.uut.reset.next = true;
    s.tick();
    s.uut.reset.next = false;
    let mut eops_written = 0;
    while mon.packets.len() < expect.len() {
        assert!(s.cycle < 20_000, "FIFO stalled");
        let head = script.front().copied();
        s.uut.discard.next = head == Some(None);
        let beat = head.flatten();
        let valid = beat.is_some() && rng.chance(0.7);
        s.uut.sink.put(&beat.unwrap_or_default(), valid);
        mon.drive(&mut s.uut.source);
        s.settle();
        if head == Some(None) {
            script.pop_front();
        } else if s.uut.sink.moved() {
            eops_written += usize::from(beat.is_some_and(|b| b.eop));
            script.pop_front();
        }
        let out = mon.packets.len();
        if let Some(b) = mon.sample(&s.uut.source) {
            if b.sop {
                assert!(eops_written > out, "a packet left before its eop");
            }
        }
        s.tick();
    }
    assert_eq!(mon.packets, expect);
}

/// Store-and-forward latency, each packet alone in the FIFO with the reader ready: a
/// packet is offered the cycle after its `eop` is written (a one-beat packet from the
/// copy of its beat, its slot being written that cycle), whatever the writer's gaps and
/// whether a discarded part of a packet came before it. The beats are the ones written.
#[test]
fn whole_packets_are_offered_the_cycle_after_their_eop() {
    let mut s = Stepper::new(TlpFifo::<4, 5>::whole_packets(), |u| &mut u.clock);
    let mut mon = StreamMonitor::new(1.0, 5);
    let mut rng = Lcg(41);
    s.uut.reset.next = true;
    s.tick();
    s.uut.reset.next = false;
    let (mut one_beat, mut longer) = (0, 0);
    for p in 0..300u32 {
        let len = 1 + rng.below(12) as usize;
        let dws: Vec<u32> = (0..len).map(|_| rng.next_u64() as u32).collect();
        let beats = packet_beats(&dws, (p % 5) as u8, 0, false);
        // Sometimes a part of a packet first, dropped with `discard` on the cycle that
        // writes the packet's first beat or on a cycle of its own.
        let mut script: Vec<Option<TestBeat>> = Vec::new();
        if rng.chance(0.3) {
            let part = packet_beats(&[1, 2, 3, 4, 5, 6, 7, 8], 1, 0, false);
            let keep = 1 + rng.below(part.len() as u64 - 1) as usize;
            script.extend(part[..keep].iter().copied().map(Some));
            script.push(None);
        }
        script.extend(beats.iter().copied().map(Some));
        let (mut eop_at, mut sop_at) = (None, None);
        let mut i = 0;
        while sop_at.is_none() {
            assert!(s.cycle < 100_000, "FIFO stalled");
            // A discard takes effect on the cycle it is shown, with or without a beat.
            let discard = script.get(i) == Some(&None);
            if discard {
                i += 1;
            }
            let beat = if discard && rng.chance(0.5) {
                None
            } else {
                script.get(i).copied().flatten()
            };
            s.uut.discard.next = discard;
            let valid = beat.is_some() && rng.chance(0.6);
            s.uut.sink.put(&beat.unwrap_or_default(), valid);
            mon.drive(&mut s.uut.source);
            s.settle();
            if s.uut.sink.moved() {
                if beat.is_some_and(|b| b.eop) {
                    eop_at = Some(s.cycle);
                }
                i += 1;
            }
            if s.uut.source.valid.val() && s.uut.source.sop.val() {
                sop_at = Some(s.cycle);
            }
            mon.sample(&s.uut.source);
            s.tick();
        }
        while mon.packets.len() <= p as usize {
            assert!(s.cycle < 100_000, "packet {p} never left whole");
            s.uut.sink.put(&TestBeat::default(), false);
            s.uut.discard.next = false;
            mon.drive(&mut s.uut.source);
            s.settle();
            mon.sample(&s.uut.source);
            s.tick();
        }
        assert_eq!(mon.packets[p as usize], beats, "packet {p}");
        let wait = sop_at.unwrap() - eop_at.expect("the eop was written first");
        if beats.len() == 1 {
            one_beat += 1;
        } else {
            longer += 1;
        }
        assert_eq!(wait, 1, "packet {p}: {} beats", beats.len());
    }
    assert!(
        one_beat > 20 && longer > 200,
        "{one_beat} one-beat, {longer} longer"
    );
}

#[test]
fn fifo_verilog_lints_clean() {
    let mut uut = TlpFifo::<4, 5>::new();
    let v = crate::verilog::export::block_verilog(&mut uut, "tlp_fifo");
    crate::verilog::checks::lint_verilog(&v, "tlp_fifo").unwrap();
}
