//! The driver's error paths on the co-simulated chips, and that the driver is usable
//! after each: a DMA the chip stops (its source reads fail in host memory), a wait that
//! times out, memory that runs out, a device that does not answer. After every failure
//! a clean transfer on the same driver and channel arrives byte-exact.
//! (`driver_transfers.rs` has the arguments refused before the hardware is touched.)

mod support;

use peach2_driver::{DescList, MemKind, Placement, TcaError};
use peach2_regmap::dma::ErrorCause;
use support::{buffer, check_buffer, cluster, copy_and_check, pair, pattern, Case, Driver, GUARD};

/// A clean 4 KiB host-to-host copy on channel 0, every byte checked
/// (`support::copy_and_check`).
fn clean_copy(a: &mut Driver, b: &mut Driver, seed: u64) {
    let case = Case {
        src_kind: MemKind::Host,
        dst_kind: MemKind::Host,
        src_off: 0,
        dst_off: 0,
        len: 4096,
        placement: Placement::Internal,
        channel: 0,
    };
    copy_and_check(a, b, case, seed);
}

#[test]
fn a_dma_whose_reads_fail_stops_with_its_cause_and_the_channel_runs_again() {
    let (sys, mut d) = cluster("ring2");
    let (a, b) = pair(&mut d, 0, 1);
    let data = pattern(3, 8192);
    let src = buffer(a, MemKind::Host, 8192, &data);
    let dst = buffer(b, MemKind::Host, 8192, &[GUARD; 8192]);
    let mut l = DescList::new();
    l.memcpy(&dst.handle, 0, &src.handle, 0, 8192, None);
    a.set_chain(0, &l, Placement::Internal).unwrap();
    // The second 4 KiB of the source sits in failing DRAM.
    sys.borrow_mut().cluster.nodes[0]
        .host
        .rc
        .fail_reads(src.bus_addr + 4096, 4096);
    a.start(0).unwrap();
    match a.wait_dmac(0) {
        Err(TcaError::Dma { channel, cause, .. }) => {
            assert_eq!((channel, cause), (0, ErrorCause::CplError));
        }
        other => panic!("expected the chip to stop the channel, got {other:?}"),
    }
    assert!(
        sys.borrow().cluster.nodes[0]
            .host
            .rc
            .counters()
            .failed_reads
            > 0
    );
    // Nothing of the failed part was written at the destination.
    let mut tail = vec![0u8; 4096];
    b.read(&dst, 4096, &mut tail).unwrap();
    assert!(
        tail.iter().all(|&x| x == GUARD),
        "data of failed reads reached the destination"
    );
    // Healed, the same chain on the same channel runs through.
    sys.borrow_mut().cluster.nodes[0].host.rc.heal_reads();
    a.start(0).unwrap();
    assert_eq!(a.wait_dmac(0), Ok(1));
    check_buffer(b, &dst, 0, &data, "the copy after the fault healed");
    clean_copy(a, b, 7);
}

#[test]
fn a_wait_for_a_notification_that_never_comes_times_out() {
    let (_sys, mut d) = cluster("ring2");
    let (a, b) = pair(&mut d, 0, 1);
    b.limits.polls = 50;
    assert!(matches!(
        b.wait_recv(a.node(), 3, 0x77),
        Err(TcaError::Timeout(_))
    ));
    b.limits.polls = 200_000;
    clean_copy(a, b, 8);
}

#[test]
fn memory_that_runs_out_is_an_error_and_the_driver_goes_on() {
    let (_sys, mut d) = cluster("ring2");
    let (a, b) = pair(&mut d, 0, 1);
    assert_eq!(
        a.malloc(1 << 40, MemKind::Host).map(|_| ()),
        Err(TcaError::OutOfMemory {
            kind: MemKind::Host,
            size: 1 << 40
        })
    );
    clean_copy(a, b, 9);
}

#[test]
fn a_device_that_does_not_answer_is_an_error_and_the_driver_recovers() {
    let (sys, mut d) = cluster("ring2");
    let (a, b) = pair(&mut d, 0, 1);
    // The chip's side of node 0's host link takes nothing: a register read never
    // completes.
    sys.borrow_mut().cluster.nodes[0].n_link.ends[1].rx.frozen = true;
    match a.wait_dmac(0) {
        Err(TcaError::Device(why)) => assert!(!why.is_empty()),
        other => panic!("expected a device error, got {other:?}"),
    }
    sys.borrow_mut().cluster.nodes[0].n_link.ends[1].rx.frozen = false;
    clean_copy(a, b, 10);
}
