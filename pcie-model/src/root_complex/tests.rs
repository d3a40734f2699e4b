use super::*;
use crate::completion::error_completion;
use crate::tlp::{Addr, CfgType, Tag};

const DEV: Bdf = Bdf(0x0100);

fn rc() -> RootComplex {
    RootComplex::new(RootComplexConfig::default()).unwrap()
}

/// Steps `rc` from `from` through `to` and collects what it sends, with the cycle.
fn run(rc: &mut RootComplex, from: u64, to: u64) -> Vec<(u64, Tlp)> {
    let mut out = Vec::new();
    for t in from..=to {
        rc.step(Cycles(t));
        while let Some(tlp) = rc.pop_to_device() {
            out.push((t, tlp));
        }
    }
    out
}

#[test]
fn serves_host_reads_after_latency_in_rcb_split_completions() {
    let mut rc = rc();
    let data: Vec<u8> = (0..512u32).map(|i| (i * 3) as u8).collect();
    rc.host_memory_mut().write(0x10_0040, &data).unwrap();
    rc.receive(Tlp::mem_read(DEV, Tag(9), Addr(0x10_0040), 512).unwrap());
    let out = run(&mut rc, 0, 200);
    // 0x40..0x240 with MPS 256 and RCB 64: 0x140 is 64-aligned, so two 256 B.
    let sizes: Vec<usize> = out.iter().map(|(_, t)| t.payload_len()).collect();
    assert_eq!(sizes, vec![256, 256]);
    // Arrives at 0, latency 75, 16 B/cycle: 75 + 16, + 16.
    let times: Vec<u64> = out.iter().map(|(t, _)| *t).collect();
    assert_eq!(times, vec![91, 107]);
    let mut got = Vec::new();
    for (_, c) in &out {
        assert_eq!(
            (c.requester_id(), c.tag(), c.status()),
            (DEV, Tag(9), Some(CplStatus::Sc))
        );
        got.extend_from_slice(c.data());
    }
    assert_eq!(got, data);
    assert_eq!(rc.counters().reads_served, 1);
    assert!(rc.is_idle());
}

#[test]
fn unmapped_reads_get_ur_and_unmapped_writes_are_dropped() {
    let mut rc = rc();
    // End of the upper host memory range (4 GiB + 61 GiB).
    let beyond = 65u64 << 30;
    rc.receive(Tlp::mem_read(DEV, Tag(1), Addr(beyond), 64).unwrap());
    // In the 32-bit MMIO hole.
    rc.receive(Tlp::mem_read(DEV, Tag(2), Addr(0xd000_0000), 64).unwrap());
    rc.receive(Tlp::mem_write(DEV, Tag(0), Addr(beyond), &[1; 8]).unwrap());
    let out = run(&mut rc, 0, 100);
    assert_eq!(out.len(), 2);
    for (t, c) in &out {
        assert_eq!(*t, 75);
        assert_eq!(c.status(), Some(CplStatus::Ur));
        assert_eq!(c.payload_len(), 0);
    }
    let c = rc.counters();
    assert_eq!(
        (c.unsupported_reads, c.dropped_writes, c.writes_accepted),
        (2, 1, 0)
    );
    assert_eq!(rc.host_memory().allocated_pages(), 0);
}

#[test]
fn requests_straddling_the_end_of_host_memory_are_refused() {
    let mut rc = RootComplex::new(RootComplexConfig {
        host_memory: vec![AddressRange {
            base: 0x1000_0000,
            size: 0x1010,
        }],
        ..Default::default()
    })
    .unwrap();
    rc.receive(Tlp::mem_read(DEV, Tag(1), Addr(0x1000_1000), 16).unwrap());
    rc.receive(Tlp::mem_read(DEV, Tag(2), Addr(0x1000_1000), 32).unwrap());
    rc.receive(Tlp::mem_write(DEV, Tag(0), Addr(0x1000_100c), &[5; 8]).unwrap());
    let out = run(&mut rc, 0, 100);
    let statuses: Vec<Option<CplStatus>> = out.iter().map(|(_, c)| c.status()).collect();
    assert_eq!(statuses, vec![Some(CplStatus::Sc), Some(CplStatus::Ur)]);
    assert_eq!(rc.counters().dropped_writes, 1);
}

#[test]
fn writes_honour_byte_enables_and_poison() {
    let mut rc = RootComplex::new(RootComplexConfig {
        memory_fill: 0xee,
        ..Default::default()
    })
    .unwrap();
    rc.receive(Tlp::mem_write(DEV, Tag(0), Addr(0x1001), &[1, 2, 3, 4, 5, 6]).unwrap());
    rc.receive(
        Tlp::mem_write(DEV, Tag(0), Addr(0x2000), &[9; 4])
            .unwrap()
            .with_ep(true),
    );
    rc.step(Cycles(0));
    assert_eq!(
        rc.host_memory().read_vec(0x1000, 8).unwrap(),
        vec![0xee, 1, 2, 3, 4, 5, 6, 0xee]
    );
    assert_eq!(rc.host_memory().read_vec(0x2000, 4).unwrap(), vec![0xee; 4]);
    assert_eq!(rc.counters().writes_accepted, 1);
    assert_eq!(rc.counters().poisoned_writes, 1);
}

#[test]
fn other_requests_and_stray_completions() {
    let mut rc = rc();
    rc.receive(Tlp::io_read(DEV, Tag(3), Addr(0x3f8), 1).unwrap());
    rc.receive(Tlp::cfg_read(CfgType::Type0, DEV, Tag(4), Bdf(0), 0, 0xf).unwrap());
    rc.receive(Tlp::completion(DEV, CplStatus::Sc, Bdf(0), Tag(17), 4, 0, &[0; 4]).unwrap());
    let out = run(&mut rc, 0, 80);
    let tags: Vec<(Tag, Option<CplStatus>)> =
        out.iter().map(|(_, c)| (c.tag(), c.status())).collect();
    assert_eq!(
        tags,
        vec![(Tag(3), Some(CplStatus::Ur)), (Tag(4), Some(CplStatus::Ur))]
    );
    assert_eq!(rc.counters().unsupported_requests, 2);
    assert_eq!(rc.counters().unexpected_completions, 1);
}

#[test]
fn mmio_read_write_and_timeout() {
    let mut rc = rc();
    rc.step(Cycles(10));
    let h = rc.mmio_read(0x3800_0000_0100, 8).unwrap();
    rc.mmio_write(0x3800_0000_0200, &[7; 300]).unwrap();
    let sent: Vec<Tlp> = std::iter::from_fn(|| rc.pop_to_device()).collect();
    let kinds: Vec<String> = sent.iter().map(|t| t.kind().to_string()).collect();
    assert_eq!(kinds, vec!["MRd", "MWr", "MWr"]);
    assert_eq!(sent[0].requester_id(), Bdf(0));
    // The device answers the read.
    let cpl = Tlp::completion(
        DEV,
        CplStatus::Sc,
        Bdf(0),
        sent[0].tag(),
        8,
        0,
        &[1, 2, 3, 4, 5, 6, 7, 8],
    )
    .unwrap();
    rc.receive(cpl);
    rc.step(Cycles(20));
    assert_eq!(
        rc.take_result(h),
        Some(Ok(RequestOutcome::Read(vec![1, 2, 3, 4, 5, 6, 7, 8])))
    );
    // An unanswered read times out after 12 500 cycles; a UR read fails at once.
    let late = rc.mmio_read(0x3800_0000_0100, 4).unwrap();
    let ur = rc.mmio_read(0x3800_0000_0104, 4).unwrap();
    let sent: Vec<Tlp> = std::iter::from_fn(|| rc.pop_to_device()).collect();
    rc.receive(error_completion(&sent[1], DEV, CplStatus::Ur).unwrap());
    rc.step(Cycles(21));
    assert_eq!(
        rc.take_result(ur),
        Some(Err(RequestError::UnsupportedRequest))
    );
    rc.step(Cycles(20 + 12_499));
    assert_eq!(rc.take_result(late), None);
    rc.step(Cycles(20 + 12_500));
    assert_eq!(rc.take_result(late), Some(Err(RequestError::Timeout)));
    assert!(matches!(
        rc.mmio_read(0x3800_0000_0ff0, 32),
        Err(RcError::Issue(IssueError::Rule(_)))
    ));
}

#[test]
fn enumeration_of_an_absent_device_reports_no_device() {
    let mut rc = rc();
    rc.start_enumeration(DEV).unwrap();
    assert_eq!(rc.start_enumeration(DEV), Err(RcError::EnumerationBusy));
    let req = rc.pop_to_device().unwrap();
    assert_eq!(req.kind().to_string(), "CfgRd0");
    rc.receive(error_completion(&req, DEV, CplStatus::Ur).unwrap());
    rc.step(Cycles(1));
    assert_eq!(
        rc.enumeration_result(),
        Some(&Err(EnumError::NoDevice(DEV)))
    );
    assert!(rc.pop_to_device().is_none());
}

#[test]
fn bad_configs_are_rejected() {
    let mut c = RootComplexConfig::default();
    c.host_memory.push(AddressRange {
        base: 0xc800_0000,
        size: 4096,
    });
    assert!(matches!(
        RootComplex::new(c),
        Err(RcConfigError::Overlap(..))
    ));
    let mut c = RootComplexConfig::default();
    c.host_memory.push(AddressRange {
        base: 0x2_0000_0000,
        size: 4096,
    });
    assert!(matches!(
        RootComplex::new(c),
        Err(RcConfigError::Overlap(..))
    ));
    let mut c = RootComplexConfig::default();
    c.host_memory[0].size = 0;
    assert!(matches!(
        RootComplex::new(c),
        Err(RcConfigError::BadRange { .. })
    ));
    let c = RootComplexConfig {
        mmio32: AddressRange {
            base: 0xf000_0000,
            size: 1 << 29,
        },
        ..Default::default()
    };
    assert_eq!(
        RootComplex::new(c).unwrap_err(),
        RcConfigError::Mmio32Above4G
    );
    let c = RootComplexConfig {
        tags: 0,
        ..Default::default()
    };
    assert!(matches!(
        RootComplex::new(c),
        Err(RcConfigError::Requester(_))
    ));
    let json = serde_json::to_string(&RootComplexConfig::default()).unwrap();
    let back: RootComplexConfig = serde_json::from_str(&json).unwrap();
    assert_eq!(back, RootComplexConfig::default());
}

#[test]
fn address_ranges() {
    let r = AddressRange {
        base: 0x1000,
        size: 0x1000,
    };
    assert!(r.contains(0x1000, 0x1000));
    assert!(!r.contains(0x1000, 0x1001));
    assert!(!r.contains(0xfff, 1));
    assert!(r.contains(0x1fff, 0));
    let top = AddressRange {
        base: u64::MAX - 15,
        size: 16,
    };
    assert!(top.contains(u64::MAX, 1));
    assert!(!top.contains(u64::MAX, 2));
}

/// A failing range: reads that touch it (even by one byte) get Completer Abort, reads
/// beside it and writes into it go through; healed, it reads again.
#[test]
fn reads_of_a_failing_range_get_completer_abort() {
    let mut rc = rc();
    rc.host_memory_mut().write(0x10_0000, &[7; 256]).unwrap();
    rc.fail_reads(0x10_0100, 64);
    rc.receive(Tlp::mem_read(DEV, Tag(1), Addr(0x10_00c0), 68).unwrap());
    rc.receive(Tlp::mem_read(DEV, Tag(2), Addr(0x10_0000), 64).unwrap());
    rc.receive(Tlp::mem_write(DEV, Tag(0), Addr(0x10_0100), &[9; 8]).unwrap());
    let out = run(&mut rc, 0, 200);
    let status: Vec<_> = out.iter().map(|(_, c)| (c.tag(), c.status())).collect();
    assert_eq!(
        status,
        vec![(Tag(1), Some(CplStatus::Ca)), (Tag(2), Some(CplStatus::Sc))]
    );
    assert_eq!(rc.counters().failed_reads, 1);
    assert_eq!(rc.counters().writes_accepted, 1);
    rc.heal_reads();
    rc.receive(Tlp::mem_read(DEV, Tag(3), Addr(0x10_0100), 8).unwrap());
    let out = run(&mut rc, 201, 400);
    assert_eq!(out[0].1.status(), Some(CplStatus::Sc));
    assert_eq!(out[0].1.data(), &[9; 8]);
}

/// A losing range: reads that touch it get no completion at all, reads beside it are
/// answered; healed, it is answered again.
#[test]
fn reads_of_a_losing_range_are_never_answered() {
    let mut rc = rc();
    rc.host_memory_mut().write(0x10_0000, &[7; 256]).unwrap();
    rc.lose_reads(0x10_0100, 64);
    rc.receive(Tlp::mem_read(DEV, Tag(1), Addr(0x10_00c0), 68).unwrap());
    rc.receive(Tlp::mem_read(DEV, Tag(2), Addr(0x10_0000), 64).unwrap());
    let out = run(&mut rc, 0, 2000);
    let tags: Vec<_> = out.iter().map(|(_, c)| c.tag()).collect();
    assert_eq!(tags, vec![Tag(2)]);
    assert_eq!(rc.counters().lost_reads, 1);
    rc.heal_reads();
    rc.receive(Tlp::mem_read(DEV, Tag(3), Addr(0x10_0100), 8).unwrap());
    let out = run(&mut rc, 2001, 2400);
    assert_eq!(out[0].1.status(), Some(CplStatus::Sc));
}
