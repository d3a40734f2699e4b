//! Shared set-up of the driver co-simulation tests: a brought-up cluster, one driver per
//! node, and a copy-and-check helper that verifies every byte of the destination buffer
//! (the copied range and the untouched guard bytes around it).

#![allow(dead_code)]

use peach2_driver::{Buffer, DescList, MemKind, Placement, Tca, Wait};
use peach2_sim::topology::Topology;
use peach2_testbench::profile::Profile;
use peach2_testbench::sim_backend::{SimDevice, SimSystem};
use std::cell::RefCell;
use std::rc::Rc;

/// A driver on a simulated node.
pub type Driver = Tca<SimDevice, SimDevice>;

/// What a guard byte holds.
pub const GUARD: u8 = 0xA5;

/// A cluster of `preset` with the HA-PACS profile and a driver per node.
pub fn cluster(preset: &str) -> (Rc<RefCell<SimSystem>>, Vec<Driver>) {
    let topo = Topology::load(preset).expect("preset");
    let sys = SimSystem::new(topo, &Profile::ha_pacs())
        .expect("bring-up")
        .shared();
    let n = sys.borrow().cluster.nodes.len();
    let drivers = (0..n)
        .map(|i| {
            let dev = SimDevice::new(&sys, i).expect("node");
            let mut t = Tca::open(dev.clone(), dev).expect("open");
            // A lost transfer fails the test in seconds, not hours.
            t.limits.polls = 200_000;
            t
        })
        .collect();
    (sys, drivers)
}

/// Deterministic bytes.
pub fn pattern(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// Two distinct mutable drivers of `ds` (or one twice is refused: use `local` copies).
pub fn pair(ds: &mut [Driver], a: usize, b: usize) -> (&mut Driver, &mut Driver) {
    assert_ne!(a, b);
    if a < b {
        let (l, r) = ds.split_at_mut(b);
        (&mut l[a], &mut r[0])
    } else {
        let (l, r) = ds.split_at_mut(a);
        (&mut r[0], &mut l[b])
    }
}

/// A buffer of `len` bytes filled with `fill`.
pub fn buffer(t: &mut Driver, kind: MemKind, len: u64, fill: &[u8]) -> Buffer {
    let b = t.malloc(len, kind).expect("malloc");
    t.write(&b, 0, fill).expect("fill");
    b
}

/// One copy to check: `len` bytes from `src_off` of a source buffer on the sender to
/// `dst_off` of a destination buffer on the receiver.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    /// Source memory.
    pub src_kind: MemKind,
    /// Destination memory.
    pub dst_kind: MemKind,
    /// Offset in the source buffer.
    pub src_off: u64,
    /// Offset in the destination buffer.
    pub dst_off: u64,
    /// Bytes.
    pub len: u64,
    /// Descriptor placement.
    pub placement: Placement,
    /// Channel.
    pub channel: u8,
}

/// Runs `case` from `tx` to `rx` (notification in slot = channel), checks every byte of
/// the destination buffer, frees the buffers.
pub fn copy_and_check(tx: &mut Driver, rx: &mut Driver, case: Case, seed: u64) {
    let guard = 64;
    let src_len = case.src_off + case.len + guard;
    let dst_len = case.dst_off + case.len + guard;
    let data = pattern(seed, src_len as usize);
    let src = buffer(tx, case.src_kind, src_len, &data);
    let dst = buffer(rx, case.dst_kind, dst_len, &vec![GUARD; dst_len as usize]);
    let (hs, hd) = (
        tx.create_handle(&src).unwrap(),
        rx.create_handle(&dst).unwrap(),
    );
    let wait = Wait {
        slot: u16::from(case.channel),
        tag: 0x100 + case.channel as u32,
    };
    let mut list = DescList::new();
    list.memcpy(&hd, case.dst_off, &hs, case.src_off, case.len, Some(wait));
    tx.set_chain(case.channel, &list, case.placement)
        .expect("set_chain");
    tx.start(case.channel).expect("start");
    rx.wait_recv(tx.node(), wait.slot, wait.tag)
        .unwrap_or_else(|e| panic!("{case:?}: {e}"));
    tx.wait_dmac(case.channel).expect("channel done");
    check_buffer(
        rx,
        &dst,
        case.dst_off,
        &data[case.src_off as usize..][..case.len as usize],
        &format!("{case:?}"),
    );
    tx.free(&src).unwrap();
    rx.free(&dst).unwrap();
}

/// Checks that `buf` holds `want` at `off` and guard bytes everywhere else.
pub fn check_buffer(t: &mut Driver, buf: &Buffer, off: u64, want: &[u8], what: &str) {
    let mut got = vec![0u8; buf.handle.size as usize];
    t.read(buf, 0, &mut got).unwrap();
    for (i, g) in got.iter().enumerate() {
        let i64_ = i as u64;
        let expect = if (off..off + want.len() as u64).contains(&i64_) {
            want[(i64_ - off) as usize]
        } else {
            GUARD
        };
        assert_eq!(*g, expect, "{what}: byte {i} of the destination buffer");
    }
}
