//! Self-checking tests of [`TlpFifo`] with random idle and backpressure.

use super::fifo::TlpFifo;
use super::{TlpSink, TlpSource};
use crate::harness::{packet_beats, BeatIn, Lcg, Stepper, StreamDriver, StreamMonitor};
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
/// idle and backpressure. Only whole, kept packets come out, in order, and a packet's
/// first beat leaves only after its last one was written.
#[test]
fn whole_packet_fifo_drops_discarded_packets_and_holds_until_eop() {
    let mut s = Stepper::new(TlpFifo::<4, 5>::whole_packets(), |u| &mut u.clock);
    let mut mon = StreamMonitor::new(0.6, 17);
    let mut rng = Lcg(23);
    // The writer's script: beats, and `None` for a discard.
    let mut script = std::collections::VecDeque::new();
    let mut expect = Vec::new();
    for p in 0..80u32 {
        let len = 1 + rng.below(56) as usize;
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

#[test]
fn fifo_verilog_lints_clean() {
    let mut uut = TlpFifo::<4, 5>::new();
    let v = crate::verilog::export::block_verilog(&mut uut, "tlp_fifo");
    crate::verilog::checks::lint_verilog(&v, "tlp_fifo").unwrap();
}
