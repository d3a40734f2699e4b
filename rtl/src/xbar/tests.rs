//! Tests of the round-robin arbiter and the crossbar: fairness, delivery under random
//! idle and backpressure, throughput, drops, reset, latency, and the Verilog lint.

use super::bench::{tagged_packet, XbarBench};
use super::{Crossbar, INPUTS, INPUT_COMPLETIONS};
use crate::harness::{packet_beats, Lcg, StreamMonitor, TestBeat};
use crate::stream::{NUM_ENDPOINTS, PORT_E, PORT_INTERNAL, PORT_N, PORT_S, PORT_W};
use crate::verilog::checks::lint_verilog;
use crate::verilog::export::block_verilog;

const N: u8 = PORT_N as u8;
const E: u8 = PORT_E as u8;
const W: u8 = PORT_W as u8;
const S: u8 = PORT_S as u8;
const I: u8 = PORT_INTERNAL as u8;
const C: u8 = INPUT_COMPLETIONS as u8;

fn random_traffic(seed: u64, packets_per_input: usize) -> XbarBench {
    let mut rng = Lcg(seed);
    let p_valid = [0; INPUTS].map(|_| 0.3 + 0.7 * rng.below(1000) as f64 / 1000.0);
    let p_ready = [0; NUM_ENDPOINTS].map(|_| 0.3 + 0.7 * rng.below(1000) as f64 / 1000.0);
    let mut b = XbarBench::new(p_valid, p_ready, seed);
    let mut id = 0;
    for _ in 0..packets_per_input {
        for src in 0..INPUTS as u8 {
            // One packet in ten names no endpoint.
            let dest = if rng.chance(0.1) {
                5 + rng.below(3) as u8
            } else {
                rng.below(5) as u8
            };
            let len = 1 + rng.below(68) as usize;
            id += 1;
            b.send(src, dest, tagged_packet(id, src, dest, len, &mut rng));
        }
    }
    b
}

#[test]
fn xbar_delivers_random_traffic_under_random_idle_and_backpressure() {
    for seed in [1, 2, 3] {
        let mut b = random_traffic(seed, 30);
        b.run_until_idle(40_000).unwrap();
        b.check_delivery().unwrap();
        let sent_beats: u64 = b.sent.iter().map(|p| p.beats.len() as u64).sum();
        assert_eq!(b.beats_in.iter().sum::<u64>(), sent_beats, "seed {seed}");
        assert!(
            b.dropped.iter().sum::<u64>() > 0,
            "seed {seed}: no bad dest exercised"
        );
    }
}

/// Beats per cycle at each output over `window` cycles after `warmup`.
fn rates(b: &mut XbarBench, warmup: u64, window: u64) -> [f64; NUM_ENDPOINTS] {
    for _ in 0..warmup {
        b.step();
    }
    let before = b.beats_out;
    for _ in 0..window {
        b.step();
    }
    std::array::from_fn(|j| (b.beats_out[j] - before[j]) as f64 / window as f64)
}

#[test]
fn xbar_disjoint_flows_keep_line_rate_beside_contention() {
    // N->E, E->W, W->S, S->N, and internal->N competing with S for N. Long and
    // single-beat packets: the grant turnaround must not cost a cycle.
    for max_len in [68, 4] {
        let mut b = XbarBench::new([1.0; INPUTS], [1.0; 5], 5);
        let mut rng = Lcg(max_len);
        let mut id = 0;
        for _ in 0..2200 {
            let len = 1 + rng.below(max_len) as usize;
            for (src, dest) in [(N, E), (E, W), (W, S), (S, N), (I, N)] {
                id += 1;
                b.send(src, dest, tagged_packet(id, src, dest, len, &mut rng));
            }
        }
        let r = rates(&mut b, 100, 2000);
        for j in [E, W, S, N] {
            assert!(
                r[usize::from(j)] >= 0.99,
                "max_len {max_len}: output {j} at {r:?}"
            );
        }
        assert_eq!(r[usize::from(I)], 0.0);
        // S and internal take turns at N packet by packet, with equal packet lengths.
        let at_n = &b.monitors[usize::from(N)].packets;
        let from_s = at_n.iter().filter(|p| p[0].src == S).count() as i64;
        let from_i = at_n.iter().filter(|p| p[0].src == I).count() as i64;
        assert!((from_s - from_i).abs() <= 1, "N shared {from_s}:{from_i}");
    }
}

/// Every input in `inputs` sends packets to `out` without pause while `out` takes beats
/// with probability `p_ready`; returns the inputs of the packets `out` delivered, in order.
fn arbitration_order(out: u8, inputs: &[u8], p_ready: f64, seed: u64) -> Vec<u8> {
    let mut p = [0.0; NUM_ENDPOINTS];
    p[usize::from(out)] = p_ready;
    let mut b = XbarBench::new([1.0; INPUTS], p, seed);
    let mut rng = Lcg(seed);
    let mut id = 0;
    for _ in 0..40 {
        for &src in inputs {
            let len = 1 + rng.below(68) as usize;
            id += 1;
            b.send(src, out, tagged_packet(id, src, out, len, &mut rng));
        }
    }
    for _ in 0..1200 {
        b.step();
    }
    b.monitors[usize::from(out)]
        .packets
        .iter()
        .map(|p| p[0].src)
        .collect()
}

#[test]
fn xbar_each_arbiter_rotates_grants_among_asking_inputs() {
    // With every input asking all the time, grants go 0, 1, 2, 3, 4, 5, 0, ... at every
    // output, also under backpressure (a grant not taken must be offered again, not
    // skipped); idle inputs are skipped.
    for out in 0..NUM_ENDPOINTS as u8 {
        for (inputs, p_ready) in [
            (&[0, 1, 2, 3, 4, 5][..], 0.7),
            (&[2, 5][..], 0.8),
            (&[1, 3][..], 1.0),
            (&[4][..], 0.5),
        ] {
            let got = arbitration_order(out, inputs, p_ready, 40 + u64::from(out));
            assert!(
                got.len() >= 3 * inputs.len(),
                "output {out}: {} packets",
                got.len()
            );
            for (k, src) in got.iter().enumerate() {
                assert_eq!(
                    *src,
                    inputs[k % inputs.len()],
                    "output {out}, packet {k}: {got:?}"
                );
            }
        }
    }
}

fn fragment(dws: &[u32], src: u8) -> Vec<TestBeat> {
    let mut beats = packet_beats(dws, E, src, false);
    beats[0].sop = false;
    beats
}

#[test]
fn xbar_drops_bad_dest_and_fragments_without_blocking_the_input() {
    let mut b = XbarBench::new([0.7; INPUTS], [0.6; 5], 21);
    let mut rng = Lcg(21);
    b.send(N, 6, tagged_packet(1, N, 6, 20, &mut rng));
    b.send(N, E, tagged_packet(2, N, E, 9, &mut rng));
    b.send(N, 7, tagged_packet(3, N, 7, 1, &mut rng));
    b.send(N, 5, tagged_packet(4, N, 5, 68, &mut rng));
    b.send(N, S, tagged_packet(5, N, S, 3, &mut rng));
    // A tail without `sop` at an idle input (as after a reset), then a good packet.
    b.drivers[usize::from(W)].push(fragment(&[9; 10], W));
    b.send(W, I, tagged_packet(6, W, I, 5, &mut rng));
    b.run_until_idle(2_000).unwrap();
    assert_eq!(b.dropped, [3, 0, 1, 0, 0, 0]);
    assert_eq!(b.monitors[usize::from(E)].packets.len(), 1);
    assert_eq!(b.monitors[usize::from(S)].packets.len(), 1);
    assert_eq!(b.monitors[usize::from(I)].packets.len(), 1);
    // The fragment is not a sent packet; everything else must check out.
    b.dropped[usize::from(W)] = 0;
    b.check_delivery().unwrap();
}

#[test]
fn xbar_reset_clears_grants_mid_packet() {
    let mut b = XbarBench::new([1.0; INPUTS], [1.0; 5], 3);
    let mut rng = Lcg(3);
    b.send(N, E, tagged_packet(1, N, E, 80, &mut rng));
    for _ in 0..6 {
        b.step();
    }
    assert_eq!(b.s.uut.busy.val().to_u64(), 1 << E, "E carries a packet");
    b.s.uut.reset.next = true;
    b.step();
    b.s.uut.reset.next = false;
    b.s.settle();
    assert_eq!(b.s.uut.busy.val().to_u64(), 0, "reset frees every output");
    assert!(b.s.uut.sources.iter().all(|s| !s.valid.val()));
    // E's monitor saw half a packet; start it afresh.
    b.monitors[usize::from(E)] = StreamMonitor::new(1.0, 4);
    // The rest of the cut packet is a fragment and is dropped; W gets E meanwhile.
    b.send(W, E, tagged_packet(2, W, E, 30, &mut rng));
    b.send(N, E, tagged_packet(3, N, E, 12, &mut rng));
    b.run_until_idle(1_000).unwrap();
    assert_eq!(b.dropped, [1, 0, 0, 0, 0, 0]);
    let got: Vec<u32> = b.monitors[usize::from(E)]
        .packets
        .iter()
        .map(|p| p[0].data as u32)
        .collect();
    assert_eq!(got, [2, 3], "whole packets after the reset, W's first");
}

#[test]
fn xbar_forwards_a_beat_one_cycle_after_taking_it() {
    let mut b = XbarBench::new([1.0; INPUTS], [1.0; 5], 8);
    let mut rng = Lcg(8);
    b.send(S, W, tagged_packet(1, S, W, 16, &mut rng));
    let mut taken = Vec::new();
    let mut delivered = Vec::new();
    for _ in 0..10 {
        let (before_in, before_out) = (b.beats_in[usize::from(S)], b.beats_out[usize::from(W)]);
        let cycle = b.s.cycle;
        b.step();
        if b.beats_in[usize::from(S)] > before_in {
            taken.push(cycle);
        }
        if b.beats_out[usize::from(W)] > before_out {
            delivered.push(cycle);
        }
    }
    assert_eq!(taken.len(), 4);
    assert_eq!(delivered, taken.iter().map(|c| c + 1).collect::<Vec<_>>());
}

/// The internal port's requests and its completions enter by separate inputs: with a
/// DMA packet stuck half-way into an output that takes nothing, completions still reach
/// another output (and the stuck packet follows whole once its output moves).
#[test]
fn xbar_completions_pass_a_request_stuck_on_another_output() {
    let mut p_ready = [1.0; NUM_ENDPOINTS];
    p_ready[usize::from(E)] = 0.0;
    let mut b = XbarBench::new([1.0; INPUTS], p_ready, 11);
    let mut rng = Lcg(11);
    b.send(I, E, tagged_packet(1, I, E, 68, &mut rng));
    for _ in 0..5 {
        b.step();
    }
    assert!(
        b.beats_in[usize::from(I)] > 0,
        "the stuck packet has started"
    );
    for k in 0..4 {
        b.send(C, N, tagged_packet(2 + k, C, N, 3 + k as usize, &mut rng));
    }
    for _ in 0..40 {
        b.step();
    }
    assert_eq!(
        b.monitors[usize::from(N)].packets.len(),
        4,
        "completions at N"
    );
    assert!(b.monitors[usize::from(E)].packets.is_empty());
    b.monitors[usize::from(E)] = StreamMonitor::new(0.5, 12);
    b.run_until_idle(2_000).unwrap();
    b.check_delivery().unwrap();
}

#[test]
fn xbar_verilog_passes_verilator_lint() {
    let v = block_verilog(&mut Crossbar::new(), "peach2_xbar");
    assert!(v.contains("module peach2_xbar"));
    if let Err(e) = lint_verilog(&v, "peach2_xbar") {
        panic!("{e}");
    }
}
