//! The driver's error paths on the co-simulated chips, and that the driver is usable
//! after each: a DMA the chip stops (its source reads fail in host memory), a wait that
//! times out, memory that runs out, a device that does not answer. After every failure
//! a clean transfer on the same driver and channel arrives byte-exact. Also refused on
//! the chips: a device whose ID is not a PEACH2's, memory outside the chip's target
//! window, handles garbled in the exchange.
//! (`driver_transfers.rs` has the arguments refused before the hardware is touched.)

mod support;

use peach2_driver::hw::Mmio;
use peach2_driver::{DescList, Handle, MemKind, Placement, Tca, TcaError};
use peach2_regmap::csr::{target_ctrl, TARGET_ENABLE, VERSION_VALUE};
use peach2_regmap::dma::ErrorCause;
use peach2_testbench::sim_backend::SimDevice;
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

/// BAR0 mapped one register off, as a wrong BAR or a wrong mapping would put it.
struct Shifted(SimDevice);

impl Mmio for Shifted {
    fn read32(&mut self, offset: u32) -> Result<u32, TcaError> {
        self.0.read32(offset + 4)
    }
    fn write32(&mut self, offset: u32, value: u32) -> Result<(), TcaError> {
        self.0.write32(offset + 4, value)
    }
    fn write64(&mut self, offset: u32, value: u64) -> Result<(), TcaError> {
        self.0.write64(offset + 4, value)
    }
    fn write_block(&mut self, offset: u32, values: &[u32]) -> Result<(), TcaError> {
        self.0.write_block(offset + 4, values)
    }
    fn window_write(&mut self, offset: u64, data: &[u8]) -> Result<(), TcaError> {
        self.0.window_write(offset, data)
    }
}

#[test]
fn a_device_that_is_not_a_peach2_is_refused_by_its_id() {
    let (sys, mut d) = cluster("ring2");
    // The ID register read through the chip is its neighbour, VERSION.
    let dev = SimDevice::new(&sys, 0).unwrap();
    match Tca::open(Shifted(dev.clone()), dev) {
        Err(TcaError::NotPeach2(id)) => assert_eq!(id, VERSION_VALUE),
        other => panic!("expected NotPeach2, got {:?}", other.map(|_| ())),
    }
    let (a, b) = pair(&mut d, 0, 1);
    clean_copy(a, b, 11);
}

#[test]
fn memory_outside_the_chips_target_window_is_refused() {
    let (sys, mut d) = cluster("ring2");
    let gpu = MemKind::Gpu(0);
    let ctrl = target_ctrl(gpu.target().code() as u32);
    let mut regs = SimDevice::new(&sys, 1).unwrap();
    // System software left GPU 0's window of node 1 disabled.
    regs.write32(ctrl, 0).unwrap();
    let dev = SimDevice::new(&sys, 1).unwrap();
    let mut t = Tca::open(dev.clone(), dev).unwrap();
    match t.malloc(4096, gpu) {
        Err(TcaError::OutsideWindow { kind, .. }) => assert_eq!(kind, gpu),
        other => panic!("expected OutsideWindow, got {other:?}"),
    }
    // Host memory is still inside its window; with the GPU window enabled again a
    // driver opened anew allocates there.
    assert!(t.malloc(4096, MemKind::Host).is_ok());
    regs.write32(ctrl, TARGET_ENABLE).unwrap();
    let dev = SimDevice::new(&sys, 1).unwrap();
    let mut t = Tca::open(dev.clone(), dev).unwrap();
    assert!(t.malloc(4096, gpu).is_ok());
    let (a, b) = pair(&mut d, 0, 1);
    clean_copy(a, b, 12);
}

#[test]
fn invalid_handles_and_nodes_are_refused() {
    let (sys, mut d) = cluster("ring2");
    let (a, b) = pair(&mut d, 0, 1);
    let buf = a.malloc(4096, MemKind::Host).unwrap();
    let bytes = a.create_handle(&buf).unwrap().to_bytes();
    // Cut short, or claiming another node than its addresses name, in the exchange.
    let mut other_node = bytes;
    other_node[0] ^= 1;
    for bad in [&bytes[..bytes.len() - 1], &other_node[..]] {
        assert!(matches!(Handle::from_bytes(bad), Err(TcaError::Invalid(_))));
    }
    assert!(matches!(SimDevice::new(&sys, 2), Err(TcaError::Invalid(_))));
    clean_copy(a, b, 13);
}
