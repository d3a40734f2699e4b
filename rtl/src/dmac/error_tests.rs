//! Every error cause the channels detect, in the whole chip: the failing channel stops
//! with its cause in `STATUS`, writes nothing of the failing descriptor, and a transfer on
//! another channel running at the same time completes byte for byte.

use super::tests::rig::{Rig, HOST_BASE};
use super::tests::{big_stack, data_desc};
use peach2_regmap::address::{GLOBAL_BASE, NODE_SHIFT, TARGET_SHIFT};
use peach2_regmap::dma::{self, flags, ChannelState, Descriptor, ErrorCause};

/// The good transfer on channel 0 that runs beside every failing one.
fn good_desc() -> Descriptor {
    data_desc(
        HOST_BASE + 0x10_0000,
        HOST_BASE + 0x20_0000,
        4096,
        flags::LAST,
        0,
    )
}

/// Writes into `[lo, hi)` the chip sent.
fn writes_into(r: &Rig, lo: u64, hi: u64) -> usize {
    r.host
        .writes
        .iter()
        .filter(|(_, w)| (lo..hi).contains(&w.address().unwrap().0))
        .count()
}

/// Runs the good transfer on channel 0 and `bad` (internal descriptor 40) on channel 1;
/// checks channel 1 stops with `cause` having completed `count` descriptors, and that
/// nothing landed in `[HOST_BASE + 0x30_0000, HOST_BASE + 0x40_0000)` nor at the failing
/// descriptor's destination; then a good descriptor on channel 1 completes (what the
/// failing one left in the channel does not carry over).
fn one_bad_descriptor(seed: u64, bad: Descriptor, cause: ErrorCause, setup: impl FnOnce(&mut Rig)) {
    let mut r = Rig::new(seed, 0.9, 256);
    setup(&mut r);
    let good = good_desc();
    r.host.fill_sources(&[good]);
    if bad.src >> peach2_regmap::address::BASE_SHIFT == 0 && bad.length > 0 && bad.length <= 1 << 16
    {
        r.host.fill_sources(&[bad]);
    }
    r.put_internal(4, &good);
    r.put_internal(40, &bad);
    r.start_internal(0, 4);
    r.start_internal(1, 40);
    r.run_until_stopped(&[0, 1], 100_000);
    assert_eq!(r.status(0), (ChannelState::Done, ErrorCause::None, 1));
    r.host.check_golden(&[good]);
    assert_eq!(r.status(1), (ChannelState::Error, cause, 0));
    assert_eq!(
        r.csr_read(dma::channel_reg(1, dma::CH_CURRENT_LO)),
        40,
        "CURRENT names the failing descriptor"
    );
    assert_eq!(
        writes_into(&r, bad.dst, bad.dst + 0x1_0000),
        0,
        "failing descriptor wrote"
    );
    assert_eq!(
        writes_into(&r, HOST_BASE + 0x30_0000, HOST_BASE + 0x40_0000),
        0
    );
    // Only the good channel's data went out: its MWrs and nothing else.
    let total: usize = r.host.writes.iter().map(|(_, w)| w.payload_len()).sum();
    assert_eq!(total, 4096);
    good_again_on_channel_1(&mut r);
}

/// After an error on channel 1: a good descriptor on it now completes.
fn good_again_on_channel_1(r: &mut Rig) {
    let again = data_desc(
        HOST_BASE + 0x31_0000,
        HOST_BASE + 0x39_0000,
        1024,
        flags::LAST,
        0,
    );
    r.host.fill_sources(&[again]);
    r.put_internal(41, &again);
    r.start_internal(1, 41);
    r.run_until_stopped(&[1], 50_000);
    assert_eq!(r.status(1), (ChannelState::Done, ErrorCause::None, 1));
    r.host.check_golden(&[again]);
}

#[test]
fn dma_error_low_bits_differ() {
    big_stack(|| {
        let bad = data_desc(
            HOST_BASE + 0x30_0004,
            HOST_BASE + 0x38_0008,
            256,
            flags::LAST,
            0,
        );
        one_bad_descriptor(11, bad, ErrorCause::LowBitsDiffer, |_| {});
    });
}

#[test]
fn dma_error_2d_pitches_low_bits_differ() {
    big_stack(|| {
        let bad = Descriptor {
            src: HOST_BASE + 0x30_0000,
            dst: HOST_BASE + 0x38_0000,
            length: 64,
            flags: flags::TWO_D | flags::LAST,
            height: 4,
            src_pitch: 256,
            dst_pitch: 260,
            ..Default::default()
        };
        one_bad_descriptor(12, bad, ErrorCause::LowBitsDiffer, |_| {});
    });
}

#[test]
fn dma_error_zero_length() {
    big_stack(|| {
        let bad = data_desc(
            HOST_BASE + 0x30_0000,
            HOST_BASE + 0x38_0000,
            0,
            flags::LAST,
            0,
        );
        one_bad_descriptor(13, bad, ErrorCause::ZeroLength, |_| {});
    });
}

#[test]
fn dma_error_zero_height() {
    big_stack(|| {
        let bad = Descriptor {
            src: HOST_BASE + 0x30_0000,
            dst: HOST_BASE + 0x38_0000,
            length: 64,
            flags: flags::TWO_D | flags::LAST,
            height: 0,
            src_pitch: 256,
            dst_pitch: 256,
            ..Default::default()
        };
        one_bad_descriptor(14, bad, ErrorCause::ZeroLength, |_| {});
    });
}

#[test]
fn dma_error_oversized_length() {
    big_stack(|| {
        let bad = data_desc(
            HOST_BASE + 0x30_0000,
            HOST_BASE + 0x38_0000,
            dma::MAX_LENGTH + 16,
            flags::LAST,
            0,
        );
        one_bad_descriptor(15, bad, ErrorCause::Oversized, |_| {});
    });
}

#[test]
fn dma_error_misaligned_notify_slot() {
    big_stack(|| {
        let bad = data_desc(
            HOST_BASE + 0x30_0000,
            HOST_BASE + 0x38_0000,
            256,
            flags::NOTIFY_SELF | flags::LAST,
            0,
        );
        one_bad_descriptor(16, bad, ErrorCause::Misaligned, |r| {
            r.csr_write(
                dma::channel_reg(1, dma::CH_NOTIFY_SELF_LO),
                (HOST_BASE + 0x3F_0002) as u32,
            );
            r.csr_write(dma::channel_reg(1, dma::CH_NOTIFY_SELF_HI), 1);
        });
    });
}

#[test]
fn dma_error_global_source() {
    big_stack(|| {
        let bad = data_desc(
            GLOBAL_BASE | 0x30_0000,
            HOST_BASE + 0x38_0000,
            256,
            flags::LAST,
            0,
        );
        one_bad_descriptor(17, bad, ErrorCause::SourceNotLocal, |_| {});
    });
}

#[test]
fn dma_error_unroutable_destination_node() {
    big_stack(|| {
        // Node 5: no valid ROUTE entry (this node is 0).
        let bad = data_desc(
            HOST_BASE + 0x30_0000,
            GLOBAL_BASE | (5 << NODE_SHIFT) | 0x38_0000,
            256,
            flags::LAST,
            0,
        );
        one_bad_descriptor(18, bad, ErrorCause::Unroutable, |_| {});
    });
}

#[test]
fn dma_error_unroutable_target_of_this_node() {
    big_stack(|| {
        // This node, target 6 (no such target).
        let bad = data_desc(
            HOST_BASE + 0x30_0000,
            GLOBAL_BASE | (6 << TARGET_SHIFT) | 0x38_0000,
            256,
            flags::LAST,
            0,
        );
        one_bad_descriptor(19, bad, ErrorCause::Unroutable, |_| {});
    });
}

#[test]
fn dma_error_unroutable_receiver_slot() {
    big_stack(|| {
        // A local destination, but the receiver's slot is on node 9, which has no route.
        let bad = data_desc(
            HOST_BASE + 0x30_0000,
            HOST_BASE + 0x38_0000,
            256,
            flags::NOTIFY_RX | flags::LAST,
            0,
        );
        one_bad_descriptor(20, bad, ErrorCause::Unroutable, |r| {
            let slot = GLOBAL_BASE | (9 << NODE_SHIFT) | 0x100;
            r.csr_write(dma::channel_reg(1, dma::CH_NOTIFY_RX_LO), slot as u32);
            r.csr_write(
                dma::channel_reg(1, dma::CH_NOTIFY_RX_HI),
                (slot >> 32) as u32,
            );
        });
    });
}

#[test]
fn dma_error_completion_timeout() {
    big_stack(|| {
        let mut r = Rig::new(21, 1.0, 256);
        // Well above the host's latency (40..200 cycles plus queueing) so the good
        // channel never trips it.
        r.csr_write(dma::CPL_TIMEOUT, 3000);
        let good = good_desc();
        let bad = data_desc(
            HOST_BASE + 0x30_0000,
            HOST_BASE + 0x38_0000,
            2048,
            flags::LAST,
            0,
        );
        r.host.fill_sources(&[good, bad]);
        r.host
            .silent_ranges
            .push((HOST_BASE + 0x30_0000, HOST_BASE + 0x30_0800));
        r.put_internal(4, &good);
        r.put_internal(40, &bad);
        r.start_internal(0, 4);
        r.start_internal(1, 40);
        // Not early: 2500 cycles after the start the channel still waits.
        r.run(2500);
        assert_eq!(r.status(1).0, ChannelState::Busy);
        r.run_until_stopped(&[0, 1], 100_000);
        assert_eq!(r.status(0), (ChannelState::Done, ErrorCause::None, 1));
        r.host.check_golden(&[good]);
        assert_eq!(
            r.status(1),
            (ChannelState::Error, ErrorCause::CplTimeout, 0)
        );
        assert_eq!(
            writes_into(&r, HOST_BASE + 0x38_0000, HOST_BASE + 0x39_0000),
            0
        );
        // The channel is usable again.
        good_again_on_channel_1(&mut r);
    });
}

/// Channel 1 runs a chain that loops (never `LAST`) under `DMA_CHAIN_LIMIT` = 3, its
/// descriptors with flags `fl`: it stops after the third.
fn chain_limit_stops_a_looping_chain(fl: u32) {
    big_stack(move || {
        let mut r = Rig::new(22, 0.9, 256);
        r.csr_write(dma::CHAIN_LIMIT, 3);
        let own = HOST_BASE + 0x3F_0000;
        r.csr_write(dma::channel_reg(1, dma::CH_NOTIFY_SELF_LO), own as u32);
        r.csr_write(
            dma::channel_reg(1, dma::CH_NOTIFY_SELF_HI),
            (own >> 32) as u32,
        );
        let good = good_desc();
        // 40 -> 41 -> 42 -> 43 -> 40 -> ...: never LAST.
        let ring: Vec<Descriptor> = (0..4u64)
            .map(|k| {
                data_desc(
                    HOST_BASE + 0x30_0000 + 0x1000 * k,
                    HOST_BASE + 0x38_0000 + 0x1000 * k,
                    512,
                    fl,
                    32 * (40 + (k + 1) % 4),
                )
            })
            .collect();
        r.host.fill_sources(&[good]);
        r.host.fill_sources(&ring);
        r.put_internal(4, &good);
        for (k, d) in ring.iter().enumerate() {
            r.put_internal(40 + k as u32, d);
        }
        r.start_internal(0, 4);
        r.start_internal(1, 40);
        r.run_until_stopped(&[0, 1], 100_000);
        assert_eq!(r.status(0), (ChannelState::Done, ErrorCause::None, 1));
        r.host.check_golden(&[good]);
        assert_eq!(
            r.status(1),
            (ChannelState::Error, ErrorCause::ChainLimit, 3)
        );
        // The three allowed descriptors moved, each with its notification; the fourth
        // did not.
        r.host.check_golden(&ring[..3]);
        assert_eq!(
            writes_into(&r, HOST_BASE + 0x38_3000, HOST_BASE + 0x38_4000),
            0
        );
        let notes = if fl & flags::NOTIFY_SELF != 0 { 3 } else { 0 };
        assert_eq!(writes_into(&r, own, own + 4), notes);
        let total: usize = r.host.writes.iter().map(|(_, w)| w.payload_len()).sum();
        assert_eq!(total, 4096 + 3 * 512 + 4 * notes);
    });
}

#[test]
fn dma_error_chain_limit_stops_a_looping_chain() {
    chain_limit_stops_a_looping_chain(0);
}

/// The same with a notification after each descriptor's data: the channel reaches its
/// limit check from the notification's state, not straight from its data.
#[test]
fn dma_error_chain_limit_stops_a_looping_chain_with_notifications() {
    chain_limit_stops_a_looping_chain(flags::NOTIFY_SELF);
}
