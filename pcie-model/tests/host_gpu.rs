//! A root complex, a GPU and a device-side requester joined by Gen2 x8 links with wire
//! timing: DMA-style reads of host memory, an unmapped read, enumeration of the GPU and
//! MMIO to its BAR.

use std::collections::VecDeque;

use pcie_model::bandwidth::BandwidthGate;
use pcie_model::completion::split_requests;
use pcie_model::gpu::{GpuConfig, GpuEndpoint};
use pcie_model::limits::{MaxPayloadSize, MaxReadRequestSize, Rcb};
use pcie_model::link::timing::{LinkTiming, TlpShape};
use pcie_model::requester::{
    RequestError, RequestHandle, RequestOutcome, Requester, RequesterLimits,
};
use pcie_model::root_complex::{RootComplex, RootComplexConfig};
use pcie_model::time::Cycles;
use pcie_model::{Bdf, CplStatus, Tlp};

/// One direction of a link: TLPs are serialised at the wire rate, then arrive after the
/// fixed latency.
struct Wire {
    timing: LinkTiming,
    serializer: BandwidthGate,
    in_flight: VecDeque<(Cycles, Tlp)>,
    wire_bytes: u64,
}

impl Wire {
    fn new() -> Wire {
        let timing = LinkTiming::gen2_x8();
        Wire {
            serializer: timing.serializer(),
            timing,
            in_flight: VecDeque::new(),
            wire_bytes: 0,
        }
    }

    fn send(&mut self, now: Cycles, tlp: Tlp) {
        let bytes = u64::from(self.timing.tlp_wire_bytes(&TlpShape::of_tlp(&tlp)));
        self.wire_bytes += bytes;
        let done = self.serializer.reserve(now, bytes);
        self.in_flight
            .push_back((done + self.timing.latency_cycles(), tlp));
    }

    fn deliver(&mut self, now: Cycles) -> Vec<Tlp> {
        let mut out = Vec::new();
        while self.in_flight.front().is_some_and(|(t, _)| *t <= now) {
            out.push(self.in_flight.pop_front().expect("checked").1);
        }
        out
    }
}

const DEVICE: Bdf = Bdf(0x0100);

fn device_requester() -> Requester {
    Requester::new(
        DEVICE,
        RequesterLimits {
            tags: 32,
            max_read_request: MaxReadRequestSize::B512,
            max_payload: MaxPayloadSize::B256,
            // The root complex completes at a 64-byte RCB.
            completer_rcb: Some(Rcb::B64),
            completion_timeout: Cycles(12_500),
        },
    )
    .unwrap()
}

/// What [`device_reads`] observed.
struct ReadRun {
    /// Each read's result, in issue order.
    results: Vec<Result<RequestOutcome, RequestError>>,
    /// Every completion the device received, in arrival order.
    completions: Vec<Tlp>,
    /// The cycle after the last read finished.
    end: Cycles,
}

/// Runs a device that issues `reads` (address, length) at cycle 0 against a root
/// complex until all finish.
fn device_reads(rc: &mut RootComplex, reads: &[(u64, usize)]) -> ReadRun {
    let mut dev = device_requester();
    let mut up = Wire::new();
    let mut down = Wire::new();
    let mut handles: Vec<RequestHandle> = Vec::new();
    for &(addr, len) in reads {
        let (h, mrd) = dev.mem_read(Cycles(0), addr, len).unwrap();
        handles.push(h);
        up.send(Cycles(0), mrd);
    }
    let mut seen = Vec::new();
    let mut now = Cycles(0);
    while dev.outstanding() > 0 {
        assert!(now < Cycles(100_000), "reads did not finish");
        for tlp in up.deliver(now) {
            rc.receive(tlp);
        }
        rc.step(now);
        while let Some(tlp) = rc.pop_to_device() {
            down.send(now, tlp);
        }
        for cpl in down.deliver(now) {
            dev.on_completion(&cpl).unwrap();
            seen.push(cpl);
        }
        now += Cycles(1);
    }
    let results = handles
        .iter()
        .map(|h| dev.take_result(*h).unwrap())
        .collect();
    ReadRun {
        results,
        completions: seen,
        end: now,
    }
}

#[test]
fn device_reads_a_host_buffer_exactly_in_split_completions() {
    let mut rc = RootComplex::new(RootComplexConfig::default()).unwrap();
    // 10 000 bytes at an odd address above 4 GiB (4-DW headers, unaligned first DW).
    let base = 0x1_2345_6789u64;
    let data: Vec<u8> = (0..10_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    rc.host_memory_mut().write(base, &data).unwrap();
    let reads: Vec<(u64, usize)> = split_requests(base, data.len() as u64, 512)
        .unwrap()
        .iter()
        .map(|c| (c.addr.0, c.len as usize))
        .collect();
    assert_eq!(reads.len(), 21);
    let ReadRun {
        results,
        completions: cpls,
        end,
    } = device_reads(&mut rc, &reads);

    let mut got = Vec::new();
    for r in results {
        match r {
            Ok(RequestOutcome::Read(bytes)) => got.extend(bytes),
            other => panic!("read failed: {other:?}"),
        }
    }
    assert_eq!(got, data);

    // Completions: none above MPS, every partial one ending on a 64-byte boundary (the
    // requester's checker enforces that too), byte counts falling to the end of each read.
    assert!(cpls.iter().all(|c| c.payload_len() <= 256));
    let first = &cpls[0];
    let c = first.as_completion().unwrap();
    assert_eq!(u32::from(c.lower_address), (base & 0x7f) as u32);
    assert_eq!(usize::from(c.byte_count), reads[0].1);
    assert!(cpls.iter().map(|c| c.payload_len()).sum::<usize>() >= data.len());
    assert_eq!(rc.counters().reads_served, 21);

    // The completions needed at least their wire time at 16 B/cycle after the first
    // request's round trip, and the model did not take much longer than that.
    let timing = LinkTiming::gen2_x8();
    let wire: u64 = cpls
        .iter()
        .map(|c| u64::from(timing.tlp_wire_bytes(&TlpShape::of_tlp(c))))
        .sum();
    let floor = wire / 16 + 2 * timing.latency_cycles().0 + 75;
    assert!(end.0 >= floor, "{} cycles, floor {floor}", end.0);
    assert!(end.0 <= floor + 100, "{} cycles, floor {floor}", end.0);
}

#[test]
fn read_to_unmapped_address_gets_unsupported_request() {
    let mut rc = RootComplex::new(RootComplexConfig::default()).unwrap();
    rc.host_memory_mut().write(0x1000, &[1, 2, 3, 4]).unwrap();
    // 0xd000_0000 is in the MMIO hole below 4 GiB, not host memory.
    let run = device_reads(&mut rc, &[(0xd000_0000, 64), (0x1000, 4)]);
    let (results, cpls) = (run.results, run.completions);
    assert_eq!(results[0], Err(RequestError::UnsupportedRequest));
    assert_eq!(results[1], Ok(RequestOutcome::Read(vec![1, 2, 3, 4])));
    assert_eq!(cpls[0].status(), Some(CplStatus::Ur));
    assert_eq!(rc.counters().unsupported_reads, 1);
}

/// Runs the root complex and the GPU joined by a link until `done` says stop.
fn run_host_gpu(
    rc: &mut RootComplex,
    gpu: &mut GpuEndpoint,
    now: &mut Cycles,
    mut done: impl FnMut(&mut RootComplex) -> bool,
) {
    let mut down = Wire::new();
    let mut up = Wire::new();
    let limit = *now + Cycles(200_000);
    while !done(rc) {
        assert!(*now < limit, "did not finish");
        rc.step(*now);
        while let Some(t) = rc.pop_to_device() {
            down.send(*now, t);
        }
        for t in down.deliver(*now) {
            gpu.receive(t);
        }
        gpu.step(*now);
        while let Some(t) = gpu.pop_to_host() {
            up.send(*now, t);
        }
        for t in up.deliver(*now) {
            rc.receive(t);
        }
        *now += Cycles(1);
    }
}

#[test]
fn host_enumerates_the_gpu_and_uses_its_bar() {
    let mut rc = RootComplex::new(RootComplexConfig::default()).unwrap();
    let mut gpu = GpuEndpoint::new(GpuConfig::default()).unwrap();
    let gpu_id = Bdf::new(2, 0, 0).unwrap();
    let mut now = Cycles(0);

    rc.start_enumeration(gpu_id).unwrap();
    run_host_gpu(&mut rc, &mut gpu, &mut now, |rc| {
        rc.enumeration_result().is_some()
    });
    let dev = rc.enumeration_result().unwrap().clone().unwrap();
    assert_eq!((dev.vendor_id, dev.device_id), (0x10de, 0x1021));
    let bar1 = dev.bar(1).unwrap();
    assert_eq!((bar1.base, bar1.size), (0x3800_0000_0000, 256 << 20));
    assert_eq!(dev.max_payload, MaxPayloadSize::B256);
    assert_eq!(gpu.bdf(), Some(gpu_id));
    assert!(gpu.config_space().memory_space_enabled());

    // The CPU writes 3000 bytes into GPU memory through BAR1 and reads part back.
    let data: Vec<u8> = (0..3000u32).map(|i| (i % 251) as u8).collect();
    rc.mmio_write(bar1.base + 0x4010, &data).unwrap();
    let h = rc.mmio_read(bar1.base + 0x4010, 512).unwrap();
    run_host_gpu(&mut rc, &mut gpu, &mut now, |rc| {
        rc.to_device_len() == 0 && rc.is_idle()
    });
    assert_eq!(
        rc.take_result(h),
        Some(Ok(RequestOutcome::Read(data[..512].to_vec())))
    );
    assert_eq!(
        gpu.bar_memory(1).unwrap().read_vec(0x4010, 3000).unwrap(),
        data
    );

    // Past the end of BAR1: UR for the read, the write dropped.
    let end = bar1.base + bar1.size;
    rc.mmio_write(end, &[1; 4]).unwrap();
    let h = rc.mmio_read(end, 4).unwrap();
    run_host_gpu(&mut rc, &mut gpu, &mut now, |rc| rc.is_idle());
    assert_eq!(
        rc.take_result(h),
        Some(Err(RequestError::UnsupportedRequest))
    );
    assert_eq!(gpu.counters().dropped_writes, 1);
    assert_eq!(gpu.counters().unsupported_reads, 1);
}

#[test]
fn root_port_follows_a_smaller_device_mps() {
    let mut rc = RootComplex::new(RootComplexConfig::default()).unwrap();
    let mut cfg = GpuConfig::default();
    cfg.config_space.max_payload_supported = MaxPayloadSize::B128;
    let mut gpu = GpuEndpoint::new(cfg).unwrap();
    let mut now = Cycles(0);
    rc.start_enumeration(Bdf::new(2, 0, 0).unwrap()).unwrap();
    run_host_gpu(&mut rc, &mut gpu, &mut now, |rc| {
        rc.enumeration_result().is_some()
    });
    let dev = rc.enumeration_result().unwrap().clone().unwrap();
    assert_eq!(dev.max_payload, MaxPayloadSize::B128);
    assert_eq!(
        gpu.config_space().max_payload_size().unwrap(),
        MaxPayloadSize::B128
    );
    assert_eq!(
        rc.config().completion_rules.max_payload(),
        MaxPayloadSize::B128
    );
    assert_eq!(rc.config().completion_rules.chunk_limit(), 128);
    // MMIO writes are now split at 128 bytes.
    let base = dev.bar(1).unwrap().base;
    rc.mmio_write(base, &[3; 300]).unwrap();
    let sizes: Vec<usize> = std::iter::from_fn(|| rc.pop_to_device())
        .map(|t| t.payload_len())
        .collect();
    assert_eq!(sizes, vec![128, 128, 44]);
}
