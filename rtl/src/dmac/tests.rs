//! The DMA controller in the whole chip, against a golden model: a host on N serves the
//! chip's reads from its memory (completions split at random 64-byte multiples, and
//! interleaved at random across outstanding reads), takes its writes, and the test checks
//! what each descriptor must have written (bytes, order, sizes, notifications), the status
//! registers, and the error causes.

pub(super) mod host;
pub(super) mod rig;

use peach2_regmap::dma::{flags, ChannelState, Descriptor, ErrorCause};
use rig::{Rig, HOST_BASE};

/// Runs `f` on a thread with a stack big enough for the whole chip.
pub(super) fn big_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

pub(super) fn data_desc(src: u64, dst: u64, len: u32, fl: u32, next: u64) -> Descriptor {
    Descriptor {
        src,
        dst,
        length: len,
        flags: fl,
        next,
        ..Default::default()
    }
}

#[test]
fn internal_chain_one_channel_moves_every_byte_in_order() {
    big_stack(internal_chain_one_channel);
}

fn internal_chain_one_channel() {
    let mut r = Rig::new(1, 1.0, 64);
    let descs = [
        data_desc(HOST_BASE + 0x1_0000, HOST_BASE + 0x8_0000, 4096, 0, 32),
        data_desc(HOST_BASE + 0x2_0004, HOST_BASE + 0x9_0F04, 1000, 0, 64),
        data_desc(
            HOST_BASE + 0x3_0008,
            HOST_BASE + 0xA_0008,
            4,
            flags::LAST,
            0,
        ),
    ];
    r.host.fill_sources(&descs);
    for (i, d) in descs.iter().enumerate() {
        r.put_internal(i as u32, d);
    }
    let start = r.start_internal(0, 0);
    r.run_until_stopped(&[0], 200_000);
    let first = r.host.first_mrd.expect("a read was issued") - start;
    // Pin to pin: the write crosses RX, FIFO, crossbar and completer; the MRd the mux,
    // crossbar and N egress. The DMA itself takes 5 of these cycles.
    assert!(first <= 40, "start write to first MRd took {first} cycles");
    assert_eq!(r.status(0), (ChannelState::Done, ErrorCause::None, 3));
    r.host.check_golden(&descs);
    println!("start write to first MRd at N TX: {first} cycles");
}

#[test]
fn four_channels_host_chains_2d_notify_and_errors() {
    big_stack(four_channels);
}

fn four_channels() {
    let mut r = Rig::new(7, 0.8, 256);
    let notify = HOST_BASE + 0xF_0000;
    // Channel 0: internal chain, 1-D, long.
    let c0 = [data_desc(
        HOST_BASE + 0x10_0010,
        HOST_BASE + 0x20_0010,
        8192,
        flags::LAST,
        0,
    )];
    // Channel 1: host chain of two, the second 2-D, with notify-self after each.
    let h0 = HOST_BASE + 0x40_0000;
    let h1 = HOST_BASE + 0x40_0100;
    let c1 = [
        data_desc(
            HOST_BASE + 0x11_0000,
            HOST_BASE + 0x21_0000,
            700 * 4,
            flags::NOTIFY_SELF,
            h1,
        ),
        Descriptor {
            src: HOST_BASE + 0x12_0008,
            dst: HOST_BASE + 0x22_0018 - 0x10,
            length: 100,
            flags: flags::TWO_D | flags::NOTIFY_SELF | flags::LAST,
            height: 9,
            src_pitch: 512,
            dst_pitch: 256,
            ..Default::default()
        },
    ];
    // Channel 2: a misaligned descriptor; channel 3: a read answered with UR.
    let c2 = data_desc(
        HOST_BASE + 0x13_0002,
        HOST_BASE + 0x23_0002,
        64,
        flags::LAST,
        0,
    );
    let c3 = data_desc(
        HOST_BASE + 0x14_0000,
        HOST_BASE + 0x24_0000,
        1024,
        flags::LAST,
        0,
    );
    r.host
        .fail_ranges
        .push((HOST_BASE + 0x14_0000, HOST_BASE + 0x14_0400));
    r.host.fill_sources(&c0);
    r.host.fill_sources(&c1);
    r.host.fill_sources(&[c3]);
    r.put_internal(10, &c0[0]);
    r.host.put_host(h0, &c1[0]);
    r.host.put_host(h1, &c1[1]);
    r.put_internal(20, &c2);
    r.put_internal(30, &c3);
    r.csr_write(
        peach2_regmap::dma::channel_reg(1, peach2_regmap::dma::CH_NOTIFY_SELF_LO),
        notify as u32,
    );
    r.csr_write(
        peach2_regmap::dma::channel_reg(1, peach2_regmap::dma::CH_NOTIFY_SELF_HI),
        (notify >> 32) as u32,
    );
    r.csr_write(
        peach2_regmap::dma::channel_reg(1, peach2_regmap::dma::CH_NOTIFY_VALUE),
        0x100,
    );
    r.start_internal(0, 10);
    r.start_host(1, h0);
    r.start_internal(2, 20);
    r.start_internal(3, 30);
    r.run_until_stopped(&[0, 1, 2, 3], 400_000);
    assert_eq!(r.status(0), (ChannelState::Done, ErrorCause::None, 1));
    assert_eq!(r.status(1), (ChannelState::Done, ErrorCause::None, 2));
    assert_eq!(
        r.status(2),
        (ChannelState::Error, ErrorCause::Misaligned, 0)
    );
    assert_eq!(r.status(3), (ChannelState::Error, ErrorCause::CplError, 0));
    r.host.check_golden(&c0);
    r.host.check_golden(&c1);
    // Nothing written for the failing descriptors.
    for (_, w) in &r.host.writes {
        let a = w.address().unwrap().0;
        assert!(
            !(HOST_BASE + 0x23_0000..HOST_BASE + 0x25_0000).contains(&a),
            "write at {a:#x}"
        );
    }
    // Notify-self after each descriptor's data: values 0x101 then 0x102, the last one stays.
    let slot: Vec<u32> = r
        .host
        .writes
        .iter()
        .filter(|(_, w)| w.address().unwrap().0 == notify)
        .map(|(_, w)| u32::from_le_bytes(w.data()[..4].try_into().unwrap()))
        .collect();
    assert_eq!(slot, vec![0x101, 0x102]);
}
