//! The internal port's multiplexer under random traffic on its three inputs and random
//! backpressure on its three outputs: every packet arrives whole, once, at the output
//! its kind says, in order per stream.

use super::mux::InternalMux;
use crate::harness::{packet_beats, Lcg, Stepper, StreamDriver, StreamMonitor, TestBeat};
use crate::stream::PORT_INTERNAL;
use std::collections::VecDeque;

pub(super) const INTERNAL: u8 = PORT_INTERNAL as u8;

/// A packet's identity: DW1, unique per run (the mux reads DW0 and DW2 only).
pub(super) fn id_of(p: &[TestBeat]) -> u32 {
    (p[0].data >> 32) as u32
}

/// What the crossbar may deliver to the internal port, and where it must go.
pub(super) fn inbound(id: u32, rng: &mut Lcg) -> (Vec<TestBeat>, bool) {
    let len = 1 + rng.below(40) as u32;
    let (dw0, tag, to_dma) = match rng.below(5) {
        // CplD and Cpl with a DMA tag (tag bits 7:6 clear): the DMA's.
        0 | 1 => {
            let tag = rng.below(64) as u32;
            (0x4A00_0000 | len, tag, true)
        }
        2 => (0x0A00_0000, rng.below(64) as u32, true),
        // A completion with a tag outside the DMA's range: nobody's, the completer's.
        3 => (0x4A00_0000 | len, 64 + rng.below(192) as u32, false),
        // A request (MWr): the completer's, whatever its DW2 holds.
        _ => (0x4000_0000 | len, rng.below(256) as u32, false),
    };
    let mut dws = vec![dw0, id, (0x0100 << 16) | (tag << 8)];
    if dw0 >> 30 & 1 == 1 {
        dws.extend((0..len).map(|_| rng.next_u64() as u32));
    }
    (
        packet_beats(&dws, INTERNAL, rng.below(4) as u8, false),
        to_dma,
    )
}

/// Packets taken from two inputs that each offered at once, as (from the second input,
/// the other input still had one) per packet in order: after a packet, the other input
/// goes next whenever it has one.
pub(super) fn assert_alternate(ends: &[(bool, bool)], seed: u64) {
    for (k, w) in ends.windows(2).enumerate() {
        if w[0].1 {
            assert_ne!(
                w[0].0,
                w[1].0,
                "seed {seed}: packets {k} and {} from one input",
                k + 1
            );
        }
    }
}

/// A DMA packet of `dws` DWs to `dest`.
pub(super) fn dma_packet(id: u32, dest: u8, dws: usize, rng: &mut Lcg) -> Vec<TestBeat> {
    let mut d = vec![0x4000_0000 | dws as u32, id, rng.next_u64() as u32];
    d.extend((3..dws).map(|_| rng.next_u64() as u32));
    packet_beats(&d, dest, INTERNAL, false)
}

#[test]
fn every_packet_reaches_its_output_whole_and_in_stream_order() {
    for (seed, p_valid, p_ready) in [(1, 0.8, 0.7), (2, 1.0, 1.0), (3, 0.4, 0.3), (4, 1.0, 0.5)] {
        let mut rng = Lcg(seed);
        let mut s = Stepper::new(InternalMux::default(), |u| &mut u.clock);
        s.uut.reset.next = true;
        s.tick();
        s.uut.reset.next = false;
        let mut xbar_in = StreamDriver::new(p_valid, seed + 10);
        let mut rd_in = StreamDriver::new(p_valid, seed + 20);
        let mut wr_in = StreamDriver::new(p_valid, seed + 30);
        let mut to_completer = StreamMonitor::new(p_ready, seed + 40);
        let mut to_dma = StreamMonitor::new(p_ready, seed + 50);
        let mut to_xbar = StreamMonitor::new(p_ready, seed + 60);
        // Expected, per output and per stream, in order.
        let mut want_dma = VecDeque::new();
        let mut want_completer_xbar = VecDeque::new();
        let mut want_loop = VecDeque::new();
        let mut want_rd = VecDeque::new();
        let mut want_wr = VecDeque::new();
        let mut id = 0;
        for _ in 0..300 {
            id += 1;
            let (p, dma) = inbound(id, &mut rng);
            xbar_in.push(p.iter().copied());
            if dma {
                want_dma.push_back(p);
            } else {
                want_completer_xbar.push_back(p);
            }
            id += 1;
            let p = dma_packet(id, rng.below(4) as u8, 3 + rng.below(2) as usize, &mut rng);
            rd_in.push(p.iter().copied());
            want_rd.push_back(p);
            id += 1;
            let dest = if rng.chance(0.3) {
                INTERNAL
            } else {
                rng.below(4) as u8
            };
            let p = dma_packet(id, dest, 3 + rng.below(68) as usize, &mut rng);
            wr_in.push(p.iter().copied());
            if dest == INTERNAL {
                want_loop.push_back(p);
            } else {
                want_wr.push_back(p);
            }
        }
        let total = [
            &want_dma,
            &want_completer_xbar,
            &want_loop,
            &want_rd,
            &want_wr,
        ]
        .iter()
        .map(|q| q.len())
        .sum::<usize>();
        let mut got = 0;
        while got < total {
            assert!(
                s.cycle < 60_000,
                "seed {seed}: stalled with {got} of {total} packets"
            );
            let u = &mut s.uut;
            xbar_in.drive(&mut u.from_xbar);
            rd_in.drive(&mut u.from_dma_rd);
            wr_in.drive(&mut u.from_dma_wr);
            to_completer.drive(&mut u.to_completer);
            to_dma.drive(&mut u.to_dma);
            to_xbar.drive(&mut u.to_xbar);
            s.settle();
            let u = &s.uut;
            xbar_in.sample(&u.from_xbar);
            rd_in.sample(&u.from_dma_rd);
            wr_in.sample(&u.from_dma_wr);
            to_completer.sample(&u.to_completer);
            to_dma.sample(&u.to_dma);
            to_xbar.sample(&u.to_xbar);
            s.tick();
            for (mon, mut queues) in [
                (&mut to_dma, [&mut want_dma, &mut VecDeque::new()]),
                (
                    &mut to_completer,
                    [&mut want_completer_xbar, &mut want_loop],
                ),
                (&mut to_xbar, [&mut want_rd, &mut want_wr]),
            ] {
                while let Some(p) = mon.packets.pop_front() {
                    let q = queues
                        .iter_mut()
                        .find(|q| q.front().is_some_and(|w| id_of(w) == id_of(&p)))
                        .unwrap_or_else(|| {
                            panic!(
                                "seed {seed}: packet {} out of order or misrouted",
                                id_of(&p)
                            )
                        });
                    assert_eq!(q.pop_front().unwrap(), p, "seed {seed}: packet changed");
                    got += 1;
                }
            }
        }
    }
}
