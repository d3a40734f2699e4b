//! The TCA driver on the Verilated RTL: transfers of every size class, unaligned,
//! 2-D, chained, internal and host descriptors, CPU and GPU memory, all channels at
//! once, several hops; every destination byte checked, guard bytes included.

mod support;

use peach2_driver::{DescList, MemKind, Placement, TcaError, Wait};
use peach2_regmap::dma::CHANNELS;
use support::{buffer, check_buffer, cluster, copy_and_check, pair, pattern, Case, GUARD};

fn case(len: u64, src_off: u64, dst_off: u64) -> Case {
    Case {
        src_kind: MemKind::Host,
        dst_kind: MemKind::Host,
        src_off,
        dst_off,
        len,
        placement: Placement::Internal,
        channel: 0,
    }
}

#[test]
fn every_size_class_arrives_byte_exact() {
    let (_sys, mut d) = cluster("ring2");
    let (a, b) = pair(&mut d, 0, 1);
    let sizes = [
        1,
        2,
        3,
        4,
        8,
        60,
        256,
        257,
        4096,
        4100,
        65_536,
        (2 << 20) + 12,
    ];
    let offsets = [(0, 0), (1, 1), (3, 7), (16, 4), (5, 0)];
    for (i, &len) in sizes.iter().enumerate() {
        let (so, dof) = offsets[i % offsets.len()];
        copy_and_check(a, b, case(len, so, dof), i as u64);
    }
}

#[test]
fn gpu_memory_and_host_descriptors_in_every_combination() {
    let (_sys, mut d) = cluster("ring2");
    let (a, b) = pair(&mut d, 0, 1);
    let kinds = [MemKind::Host, MemKind::Gpu(0)];
    let mut seed = 100;
    for src_kind in kinds {
        for dst_kind in kinds {
            for placement in [Placement::Internal, Placement::Host] {
                for (len, so, dof) in [(8192, 0, 0), (5003, 2, 9)] {
                    seed += 1;
                    let c = Case {
                        src_kind,
                        dst_kind,
                        placement,
                        ..case(len, so, dof)
                    };
                    copy_and_check(a, b, c, seed);
                }
            }
        }
    }
}

#[test]
fn random_unaligned_copies_both_ways() {
    let (_sys, mut d) = cluster("ring2");
    let mut x: u64 = 0x1234_5678;
    let mut next = |m: u64| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) % m
    };
    for i in 0..24 {
        let (from, to) = if i % 2 == 0 { (0, 1) } else { (1, 0) };
        let (a, b) = pair(&mut d, from, to);
        let c = Case {
            src_kind: if next(3) == 0 {
                MemKind::Gpu(0)
            } else {
                MemKind::Host
            },
            dst_kind: if next(3) == 0 {
                MemKind::Gpu(0)
            } else {
                MemKind::Host
            },
            placement: if next(2) == 0 {
                Placement::Internal
            } else {
                Placement::Host
            },
            channel: next(4) as u8,
            ..case(1 + next(3000), next(40), next(40))
        };
        copy_and_check(a, b, c, 1000 + i);
    }
}

#[test]
fn block_stride_copies_legal_and_staged() {
    let (_sys, mut d) = cluster("ring2");
    let (a, b) = pair(&mut d, 0, 1);
    // (width, height, src pitch, dst pitch, src off, dst off): the first is one 2-D
    // descriptor; the others need bounce buffers and edges.
    let shapes = [
        (256, 16, 1024, 512, 0, 0),
        (100, 7, 300, 128, 3, 1),
        (64, 9, 80, 72, 4, 8),
        (3, 5, 10, 4, 0, 2),
    ];
    for (k, &(w, h, sp, dp, so, dof)) in shapes.iter().enumerate() {
        let src_len = so + sp * (h - 1) + w + 32;
        let dst_len = dof + dp * (h - 1) + w + 32;
        let data = pattern(k as u64, src_len as usize);
        let src = buffer(a, MemKind::Host, src_len, &data);
        let dst = buffer(b, MemKind::Host, dst_len, &vec![GUARD; dst_len as usize]);
        let (hs, hd) = (
            a.create_handle(&src).unwrap(),
            b.create_handle(&dst).unwrap(),
        );
        let wait = Wait { slot: 3, tag: 77 };
        let mut l = DescList::new();
        l.memcpy_2d(&hd, dof, dp, &hs, so, sp, w, h, Some(wait));
        a.set_chain(1, &l, Placement::Host).unwrap();
        a.start(1).unwrap();
        b.wait_recv(0, 3, 77).unwrap();
        a.wait_dmac(1).unwrap();
        let mut want = vec![GUARD; dst_len as usize];
        for r in 0..h {
            for x in 0..w {
                want[(dof + r * dp + x) as usize] = data[(so + r * sp + x) as usize];
            }
        }
        check_buffer(b, &dst, 0, &want, &format!("2-D shape {k}"));
    }
    // The legal shape is one hardware descriptor.
    let src = a.malloc(1 << 16, MemKind::Host).unwrap();
    let dst = b.malloc(1 << 16, MemKind::Host).unwrap();
    let mut l = DescList::new();
    l.memcpy_2d(&dst.handle, 0, 512, &src.handle, 0, 1024, 256, 16, None);
    a.set_chain(1, &l, Placement::Internal).unwrap();
    assert_eq!(a.chain_len(1).unwrap(), 1);
}

#[test]
fn chains_of_copies_run_in_order_and_notify_once() {
    let (_sys, mut d) = cluster("ring2");
    let (a, b) = pair(&mut d, 0, 1);
    for placement in [Placement::Internal, Placement::Host] {
        let data = pattern(9, 40_000);
        let src = buffer(a, MemKind::Host, 40_000, &data);
        let d1 = buffer(b, MemKind::Host, 20_000, &[GUARD; 20_000]);
        let d2 = buffer(b, MemKind::Gpu(0), 20_000, &[GUARD; 20_000]);
        let (hs, h1, h2) = (src.handle, d1.handle, d2.handle);
        let mut l = DescList::new();
        l.memcpy(&h1, 0, &hs, 0, 4096, None)
            .memcpy(&h2, 100, &hs, 4096, 9000, None)
            .memcpy(&h1, 5000, &hs, 20_001, 3, None)
            .memcpy_2d(&h1, 6000, 100, &hs, 30_000, 64, 64, 8, None)
            .memcpy(&h2, 12_000, &hs, 1, 999, Some(Wait { slot: 9, tag: 5 }));
        a.set_chain(2, &l, placement).unwrap();
        assert!(a.chain_len(2).unwrap() >= 5);
        a.start(2).unwrap();
        b.wait_recv(0, 9, 5).unwrap();
        let done = a.wait_dmac(2).unwrap();
        assert_eq!(done as usize, a.chain_len(2).unwrap());
        let mut w1 = vec![GUARD; 20_000];
        w1[..4096].copy_from_slice(&data[..4096]);
        w1[5000..5003].copy_from_slice(&data[20_001..20_004]);
        for r in 0..8 {
            let s = 30_000 + r * 64;
            w1[6000 + r * 100..][..64].copy_from_slice(&data[s..s + 64]);
        }
        check_buffer(b, &d1, 0, &w1, "chain, host destination");
        let mut w2 = vec![GUARD; 20_000];
        w2[100..9100].copy_from_slice(&data[4096..13_096]);
        w2[12_000..12_999].copy_from_slice(&data[1..1000]);
        check_buffer(b, &d2, 0, &w2, "chain, GPU destination");
        for buf in [d1, d2] {
            b.free(&buf).unwrap();
        }
        a.free(&src).unwrap();
    }
}

#[test]
fn every_channel_at_once() {
    let (_sys, mut d) = cluster("ring2");
    let (a, b) = pair(&mut d, 0, 1);
    let len = 64 * 1024 + 12;
    let mut bufs = Vec::new();
    for ch in 0..CHANNELS as u8 {
        let data = pattern(40 + u64::from(ch), len);
        let kind = if ch % 2 == 0 {
            MemKind::Host
        } else {
            MemKind::Gpu(0)
        };
        let src = buffer(a, kind, len as u64, &data);
        let dst = buffer(b, MemKind::Host, len as u64 + 64, &vec![GUARD; len + 64]);
        let mut l = DescList::new();
        l.memcpy(
            &dst.handle,
            4 * u64::from(ch),
            &src.handle,
            0,
            len as u64,
            Some(Wait {
                slot: 20 + u16::from(ch),
                tag: 1,
            }),
        );
        let placement = if u32::from(ch) < CHANNELS / 2 {
            Placement::Internal
        } else {
            Placement::Host
        };
        a.set_chain(ch, &l, placement).unwrap();
        bufs.push((ch, data, dst));
    }
    for ch in 0..CHANNELS as u8 {
        a.start(ch).unwrap();
    }
    assert_eq!(a.start(0), Err(TcaError::ChannelBusy(0)));
    for (ch, data, dst) in &bufs {
        b.wait_recv(0, 20 + u16::from(*ch), 1).unwrap();
        a.wait_dmac(*ch).unwrap();
        check_buffer(b, dst, 4 * u64::from(*ch), data, &format!("channel {ch}"));
    }
}

#[test]
fn transfers_cross_several_hops() {
    for (preset, from, to) in [("ring4", 0, 2), ("ring4", 3, 1), ("2x8", 0, 11)] {
        let (_sys, mut d) = cluster(preset);
        let (a, b) = pair(&mut d, from, to);
        for (i, len) in [4u64, 1000, 70_001].into_iter().enumerate() {
            let c = Case {
                placement: if i == 1 {
                    Placement::Host
                } else {
                    Placement::Internal
                },
                ..case(len, i as u64, 2 * i as u64)
            };
            copy_and_check(a, b, c, 500 + i as u64);
        }
    }
}

#[test]
fn copies_within_one_node_and_pio_writes() {
    let (_sys, mut d) = cluster("ring2");
    let data = pattern(3, 10_000);
    {
        let a = &mut d[0];
        let src = buffer(a, MemKind::Host, 10_000, &data);
        let dst = buffer(a, MemKind::Gpu(0), 10_000, &[GUARD; 10_000]);
        let mut l = DescList::new();
        l.memcpy(
            &dst.handle,
            7,
            &src.handle,
            2,
            9000,
            Some(Wait { slot: 1, tag: 9 }),
        );
        a.set_chain(3, &l, Placement::Internal).unwrap();
        a.start(3).unwrap();
        a.wait_recv(0, 1, 9).unwrap();
        a.wait_dmac(3).unwrap();
        check_buffer(a, &dst, 7, &data[2..9002], "local copy");
    }
    let (a, b) = pair(&mut d, 0, 1);
    let dst = buffer(b, MemKind::Host, 300, &[GUARD; 300]);
    a.pio_write(&dst.handle, 13, &data[..101]).unwrap();
    // PIO writes are posted: a copy started after them arrives after them.
    let src = buffer(a, MemKind::Host, 16, &data[..16]);
    let mut l = DescList::new();
    l.memcpy(
        &dst.handle,
        200,
        &src.handle,
        0,
        8,
        Some(Wait { slot: 2, tag: 3 }),
    );
    a.set_chain(0, &l, Placement::Internal).unwrap();
    a.start(0).unwrap();
    b.wait_recv(0, 2, 3).unwrap();
    let mut want = vec![GUARD; 300];
    want[13..114].copy_from_slice(&data[..101]);
    want[200..208].copy_from_slice(&data[..8]);
    check_buffer(b, &dst, 0, &want, "PIO then DMA");
}

#[test]
fn illegal_requests_fail_before_touching_the_hardware() {
    let (sys, mut d) = cluster("ring2");
    let (a, b) = pair(&mut d, 0, 1);
    let src = a.malloc(4096, MemKind::Host).unwrap();
    let dst = b.malloc(4096, MemKind::Host).unwrap();
    let other = b.malloc(64, MemKind::Host).unwrap();
    b.free(&other).unwrap();
    let cycle = || sys.borrow().cluster.cycle;
    let t0 = cycle();
    let w = Some(Wait { slot: 0, tag: 1 });
    let mut refused = |l: &DescList, want: &dyn Fn(&TcaError) -> bool| {
        let e = a.set_chain(0, l, Placement::Internal).unwrap_err();
        assert!(want(&e), "unexpected error {e:?}");
    };
    let list = |f: &dyn Fn(&mut DescList)| {
        let mut l = DescList::new();
        f(&mut l);
        l
    };
    let (hs, hd) = (src.handle, dst.handle);
    refused(
        &list(&|l| {
            l.memcpy(&hd, 4000, &hs, 0, 97, w);
        }),
        &|e| matches!(e, TcaError::OutOfRange { .. }),
    );
    refused(
        &list(&|l| {
            l.memcpy(&hd, 0, &hs, u64::MAX, 2, w);
        }),
        &|e| matches!(e, TcaError::OutOfRange { .. }),
    );
    refused(
        &list(&|l| {
            l.memcpy(&hd, 0, &hd, 0, 64, w);
        }),
        &|e| matches!(e, TcaError::ForeignHandle { .. }),
    );
    refused(
        &list(&|l| {
            l.memcpy(&hs, 0, &other.handle, 0, 8, w);
        }),
        &|e| matches!(e, TcaError::ForeignHandle { .. }),
    );
    let mut far = hd;
    far.node = 9;
    refused(
        &list(&|l| {
            l.memcpy(&far, 0, &hs, 0, 8, w);
        }),
        &|e| *e == TcaError::UnknownNode(9),
    );
    refused(
        &list(&|l| {
            l.memcpy(&hd, 0, &hs, 0, 0, w);
        }),
        &|e| *e == TcaError::ZeroSize,
    );
    refused(
        &list(&|l| {
            l.memcpy(&hd, 0, &hs, 0, 8, Some(Wait { slot: 64, tag: 1 }));
        }),
        &|e| matches!(e, TcaError::NoSlot(64, _)),
    );
    refused(
        &list(&|l| {
            l.memcpy(&hd, 0, &hs, 0, 8, Some(Wait { slot: 1, tag: 0 }));
        }),
        &|e| matches!(e, TcaError::Notification(_)),
    );
    refused(
        &list(&|l| {
            l.memcpy(&hd, 0, &hs, 0, 8, w)
                .notify_self(Wait { slot: 64, tag: 1 });
        }),
        &|e| matches!(e, TcaError::NoSlot(64, _)),
    );
    refused(
        &list(&|l| {
            l.memcpy_2d(&hd, 0, 8, &hs, 0, 16, 16, 4, w);
        }),
        &|e| matches!(e, TcaError::BadShape(_)),
    );
    refused(
        &list(&|l| {
            l.memcpy_2d(&hd, 0, 64, &hs, 0, 64, 16, 0, w);
        }),
        &|e| matches!(e, TcaError::BadShape(_)),
    );
    refused(&DescList::new(), &|e| *e == TcaError::EmptyList);
    // 1025 internal descriptors do not fit the 1024-entry memory; the same chain in host memory does.
    let big = list(&|l| {
        for i in 0..1025 {
            l.memcpy(&hd, 0, &hs, 0, 4 + 4 * (i % 2), None);
        }
    });
    refused(&big, &|e| {
        matches!(e, TcaError::DescriptorMemoryFull { needed: 1025, .. })
    });
    assert_eq!(
        a.set_chain(7, &big, Placement::Host),
        Err(TcaError::NoChannel(7))
    );
    assert_eq!(a.start(1), Err(TcaError::NoChain(1)));
    assert_eq!(
        a.pio_write(&hd, 4090, &[0; 7]),
        Err(TcaError::OutOfRange {
            offset: 4090,
            len: 7,
            size: 4096
        })
    );
    assert_eq!(
        a.free(&dst),
        Err(TcaError::ForeignHandle {
            id: dst.handle.id,
            node: 1
        })
    );
    assert_eq!(a.malloc(0, MemKind::Host), Err(TcaError::ZeroSize));
    assert_eq!(
        a.malloc(64, MemKind::Gpu(3)),
        Err(TcaError::NoMemory(MemKind::Gpu(3)))
    );
    assert_eq!(cycle(), t0, "a refused request must not touch the hardware");
    // A freed source stops a chain that was set before the free.
    let s2 = a.malloc(64, MemKind::Host).unwrap();
    let mut l = DescList::new();
    l.memcpy(&hd, 0, &s2.handle, 0, 64, w);
    a.set_chain(0, &l, Placement::Internal).unwrap();
    a.free(&s2).unwrap();
    assert!(matches!(a.start(0), Err(TcaError::ForeignHandle { .. })));
}

#[test]
fn handles_travel_as_bytes_and_arrivals_can_be_tested() {
    let (_sys, mut d) = cluster("ring2");
    let (a, b) = pair(&mut d, 0, 1);
    let dst = buffer(b, MemKind::Gpu(0), 4096, &[GUARD; 4096]);
    // What B would send A over MPI.
    let wire = b.create_handle(&dst).unwrap().to_bytes();
    let hd = peach2_driver::Handle::from_bytes(&wire).unwrap();
    let data = pattern(77, 4096);
    let src = buffer(a, MemKind::Host, 4096, &data);
    let mut l = DescList::new();
    l.memcpy(
        &hd,
        0,
        &src.handle,
        0,
        4096,
        Some(Wait {
            slot: 5,
            tag: 0xBEEF,
        }),
    );
    a.set_chain(0, &l, Placement::Internal).unwrap();
    assert!(!b.test_recv(0, 5, 0xBEEF).unwrap(), "nothing sent yet");
    a.start(0).unwrap();
    let mut polls = 0;
    while !b.test_recv(0, 5, 0xBEEF).unwrap() {
        polls += 1;
        assert!(polls < 100_000, "the notification never came");
    }
    assert!(polls > 10, "the data needs time to arrive ({polls} polls)");
    check_buffer(b, &dst, 0, &data, "exchanged handle");
    // The slot was cleared when the arrival was seen.
    assert!(!b.test_recv(0, 5, 0xBEEF).unwrap());
    assert_eq!(a.wait_dmac(0), Ok(1));
}

/// One chain notifies three nodes and itself, in their host memory and in their chips:
/// the first receiver's notification rides the channel's register, the others
/// write-immediate descriptors. Every wait finds its tag after the data, whichever place
/// the receiver polls first, and consumes it: the chain runs twice.
#[test]
fn one_chain_notifies_several_nodes_and_itself_in_both_places() {
    use peach2_driver::NotifyPlace::Chip;
    for placement in [Placement::Internal, Placement::Host] {
        let (_sys, mut d) = cluster("ring4");
        let data = pattern(9, 8192);
        let dst: Vec<_> = (1..4)
            .map(|n| buffer(&mut d[n], MemKind::Gpu(0), 8192, &[GUARD; 8192]))
            .collect();
        let src = buffer(&mut d[0], MemKind::Host, 8192, &data);
        let w = |slot, tag| Wait { slot, tag };
        let mut l = DescList::new();
        l.memcpy(&dst[0].handle, 0, &src.handle, 0, 4000, Some(w(5, 0x100)))
            .notify_in(Chip)
            .memcpy(&dst[2].handle, 1, &src.handle, 1, 3, Some(w(5, 0x100)))
            .notify_self(w(6, 0x100))
            .memcpy(&dst[1].handle, 0, &src.handle, 0, 8192, Some(w(5, 0x100)))
            .notify_self(w(7, 0x200))
            .notify_in(Chip);
        d[0].set_chain(1, &l, placement).unwrap();
        // Receivers that expect host notifications and get them in the chip, and back.
        d[3].set_notify_poll(Chip);
        for round in 0..2 {
            for rx in &mut d[1..] {
                assert!(!rx.test_recv(0, 5, 0x100).unwrap(), "round {round}");
            }
            d[0].start(1).unwrap();
            for rx in &mut d[1..] {
                rx.wait_recv(0, 5, 0x100).unwrap();
            }
            d[0].wait_recv(0, 6, 0x100).unwrap();
            d[0].wait_recv(0, 7, 0x200).unwrap();
            d[0].wait_dmac(1).unwrap();
            check_buffer(&mut d[1], &dst[0], 0, &data[..4000], "node 1");
            check_buffer(&mut d[2], &dst[1], 0, &data, "node 2");
            check_buffer(&mut d[3], &dst[2], 1, &data[1..4], "node 3");
            assert!(!d[0].test_recv(0, 7, 0x200).unwrap(), "consumed");
        }
        // The descriptors: the 4000 B copy (node 1's notification on the register), node
        // 3's and the first self notification, the 8192 B copy, node 2's and the second
        // self notification; the 3 bytes went by PIO.
        assert_eq!(d[0].chain_len(1).unwrap(), 6);
    }
}

/// A chain that cannot be placed leaves the channel's chain as it was; one that fits only
/// where the channel's old chain was takes its place.
#[test]
fn a_chain_that_does_not_fit_leaves_the_old_one_in_place() {
    let (_sys, mut d) = cluster("ring2");
    let (a, b) = pair(&mut d, 0, 1);
    let data = pattern(21, 16 * 600);
    let src = buffer(a, MemKind::Host, data.len() as u64, &data);
    let dst = buffer(
        b,
        MemKind::Host,
        data.len() as u64,
        &vec![GUARD; data.len()],
    );
    // `k` copies of 8 bytes, one descriptor each, the last notifying slot 4 with `tag`.
    let list = |k: u64, tag: u32| {
        let mut l = DescList::new();
        for i in 0..k {
            let wait = (i + 1 == k).then_some(Wait { slot: 4, tag });
            l.memcpy(&dst.handle, 16 * i, &src.handle, 16 * i, 8, wait);
        }
        l
    };
    let run = |a: &mut support::Driver, b: &mut support::Driver, ch: u8, k: u64, tag: u32| {
        a.start(ch).unwrap();
        b.wait_recv(0, 4, tag).unwrap();
        a.wait_dmac(ch).unwrap();
        let mut got = vec![0u8; 16 * k as usize];
        b.read(&dst, 0, &mut got).unwrap();
        for i in 0..k as usize {
            assert_eq!(
                got[16 * i..16 * i + 8],
                data[16 * i..16 * i + 8],
                "copy {i}"
            );
        }
    };
    a.set_chain(0, &list(600, 1), Placement::Internal).unwrap();
    a.set_chain(1, &list(300, 2), Placement::Internal).unwrap();
    // 124 descriptors free, 424 with channel 1's: 500 fit nowhere.
    assert!(matches!(
        a.set_chain(1, &list(500, 3), Placement::Internal),
        Err(TcaError::DescriptorMemoryFull { needed: 500, .. })
    ));
    assert_eq!(a.chain_len(1), Ok(300), "the old chain stays");
    run(a, b, 1, 300, 2);
    // 350 fit only in channel 1's place.
    a.set_chain(1, &list(350, 5), Placement::Internal).unwrap();
    assert_eq!(a.chain_len(1), Ok(350));
    run(a, b, 1, 350, 5);
    run(a, b, 0, 600, 1);
}

/// A chain whose last step is this node's own notification has finished once a wait saw
/// that notification: the next start is one register store, with no `STATUS` read (a
/// PCIe round trip of about a microsecond). A chain that ends otherwise is checked with
/// that read before it starts again.
#[test]
fn a_chain_seen_to_end_restarts_without_a_status_read() {
    let (sys, mut d) = cluster("ring2");
    let (a, b) = pair(&mut d, 0, 1);
    let data = pattern(7, 512);
    let src = buffer(a, MemKind::Host, 512, &data);
    let dst = buffer(b, MemKind::Host, 512, &vec![0; 512]);
    let rx = Wait { slot: 3, tag: 9 };
    let own = Wait { slot: 4, tag: 11 };
    let now = || sys.borrow().cluster.cycle;
    for self_notified in [true, false] {
        let mut l = DescList::new();
        l.memcpy(&dst.handle, 0, &src.handle, 0, 512, Some(rx));
        if self_notified {
            l.notify_self(own);
        }
        a.set_chain(0, &l, Placement::Internal).unwrap();
        for round in 0..3 {
            let t0 = now();
            a.start(0).unwrap();
            let cost = now() - t0;
            if round > 0 {
                if self_notified {
                    assert!(cost < 10, "round {round}: the start took {cost} cycles");
                } else {
                    assert!(cost > 100, "round {round}: the start took {cost} cycles");
                }
            }
            b.wait_recv(0, rx.slot, rx.tag).unwrap();
            if self_notified {
                a.wait_recv(0, own.slot, own.tag).unwrap();
            }
            check_buffer(b, &dst, 0, &data, &format!("round {round}"));
        }
    }
}

/// A register read is answered while the chip's DMA writes wait on a cable whose far
/// end takes nothing: the host's completion leaves by N, the writes by E, and one must
/// not wait for the other. Then the cable thaws and every byte arrives.
#[test]
fn a_register_read_passes_dma_writes_stuck_on_a_cable() {
    let (sys, mut d) = cluster("ring2");
    let (a, b) = pair(&mut d, 0, 1);
    let len = 256 * 1024;
    let data = pattern(91, len);
    let src = buffer(a, MemKind::Host, len as u64, &data);
    let dst = buffer(b, MemKind::Host, len as u64, &vec![GUARD; len]);
    let rx = Wait { slot: 5, tag: 77 };
    let mut l = DescList::new();
    l.memcpy(&dst.handle, 0, &src.handle, 0, len as u64, Some(rx));
    a.set_chain(0, &l, Placement::Internal).unwrap();
    let freeze = |frozen: bool| {
        let mut s = sys.borrow_mut();
        let c = &mut s.cluster;
        for cable in 0..c.cables.len() {
            for side in 0..2 {
                if c.cables[cable].ends[side].node == 1 {
                    c.cable_end_mut(cable, side).unwrap().rx.frozen = frozen;
                }
            }
        }
    };
    freeze(true);
    a.start(0).unwrap();
    // Long enough for the writes to fill every buffer up to the frozen receiver.
    sys.borrow_mut().run(4000).unwrap();
    let now = || sys.borrow().cluster.cycle;
    for i in 0..3 {
        let t0 = now();
        assert_eq!(
            a.test_dmac(0),
            Ok(None),
            "read {i}: the chain cannot have ended"
        );
        let took = now() - t0;
        eprintln!("STATUS read {i} behind stuck writes: {took} cycles");
        assert!(took < 1000, "read {i}: the STATUS read took {took} cycles");
    }
    freeze(false);
    b.wait_recv(0, rx.slot, rx.tag).unwrap();
    a.wait_dmac(0).unwrap();
    check_buffer(b, &dst, 0, &data, "after the thaw");
}
