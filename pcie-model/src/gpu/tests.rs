use super::*;
use crate::tlp::{Addr, Tag};

const RC: Bdf = Bdf(0x0000);
const GPU: Bdf = Bdf(0x0300);
const BAR1: u64 = 0x3800_0000_0000;

fn run(gpu: &mut GpuEndpoint, from: u64, to: u64) -> Vec<(u64, Tlp)> {
    let mut out = Vec::new();
    for t in from..=to {
        gpu.step(Cycles(t));
        while let Some(tlp) = gpu.pop_to_host() {
            out.push((t, tlp));
        }
    }
    out
}

fn cfg_write(gpu: &mut GpuEndpoint, register: u16, value: u32, be: u8) {
    gpu.receive(Tlp::cfg_write(CfgType::Type0, RC, Tag(0), GPU, register, be, value).unwrap());
}

/// Assigns BAR1 at `BAR1`, sets MPS and enables memory space, through config writes.
fn bring_up(gpu: &mut GpuEndpoint, mps: MaxPayloadSize) {
    cfg_write(gpu, reg::BAR0 + 1, BAR1 as u32, 0xf);
    cfg_write(gpu, reg::BAR0 + 2, (BAR1 >> 32) as u32, 0xf);
    cfg_write(
        gpu,
        reg::DEVICE_CONTROL,
        u32::from(mps.encoding()) << 5,
        0b0001,
    );
    cfg_write(gpu, reg::COMMAND_STATUS, reg::CMD_MEMORY_SPACE, 0b0001);
    let out = run(gpu, 0, 200);
    assert_eq!(out.len(), 4);
    assert!(out
        .iter()
        .all(|(_, c)| c.status() == Some(CplStatus::Sc) && !c.has_data()));
}

#[test]
fn config_reads_and_id_capture() {
    let mut gpu = GpuEndpoint::new(GpuConfig::default()).unwrap();
    assert_eq!(gpu.bdf(), None);
    gpu.receive(Tlp::cfg_read(CfgType::Type0, RC, Tag(5), GPU, reg::ID, 0xf).unwrap());
    let out = run(&mut gpu, 0, 130);
    assert_eq!(out.len(), 1);
    let (t, cpl) = &out[0];
    assert_eq!(*t, 125);
    assert_eq!(cpl.data(), &0x1021_10deu32.to_le_bytes());
    assert_eq!((cpl.tag(), cpl.completer_id()), (Tag(5), Some(GPU)));
    cfg_write(&mut gpu, reg::INTERRUPT, 0x0b, 0b0001);
    run(&mut gpu, 131, 300);
    assert_eq!(gpu.bdf(), Some(GPU));
    assert_eq!(
        gpu.config_space().read(reg::INTERRUPT).unwrap() & 0xff,
        0x0b
    );
    // Function 1 does not exist.
    let f1 = Bdf::new(3, 0, 1).unwrap();
    gpu.receive(Tlp::cfg_read(CfgType::Type0, RC, Tag(6), f1, 0, 0xf).unwrap());
    let out = run(&mut gpu, 301, 500);
    assert_eq!(out[0].1.status(), Some(CplStatus::Ur));
    assert_eq!(gpu.counters().config_accesses, 2);
}

#[test]
fn reads_before_memory_enable_get_ur() {
    let mut gpu = GpuEndpoint::new(GpuConfig::default()).unwrap();
    gpu.receive(Tlp::mem_read(RC, Tag(1), Addr(BAR1), 64).unwrap());
    gpu.receive(Tlp::mem_write(RC, Tag(0), Addr(BAR1), &[1; 64]).unwrap());
    let out = run(&mut gpu, 0, 200);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].1.status(), Some(CplStatus::Ur));
    let c = gpu.counters();
    assert_eq!((c.unsupported_reads, c.dropped_writes), (1, 1));
    let devsta = gpu.config_space().read(reg::DEVICE_CONTROL).unwrap();
    assert_ne!(devsta & reg::DEVSTA_UR_DETECTED, 0);
    assert_eq!(gpu.bar_memory(1).unwrap().allocated_pages(), 0);
}

#[test]
fn bar_reads_split_at_programmed_mps_and_paced_by_bandwidth() {
    let mut gpu = GpuEndpoint::new(GpuConfig::default()).unwrap();
    bring_up(&mut gpu, MaxPayloadSize::B256);
    let data: Vec<u8> = (0..1024u32).map(|i| (i ^ 0x5a) as u8).collect();
    gpu.bar_memory_mut(1).unwrap().write(0x1000, &data).unwrap();
    gpu.receive(Tlp::mem_read(Bdf(0x0100), Tag(2), Addr(BAR1 + 0x1000), 1024).unwrap());
    let out = run(&mut gpu, 1000, 1400);
    let sizes: Vec<usize> = out.iter().map(|(_, c)| c.payload_len()).collect();
    assert_eq!(sizes, vec![256; 4]);
    // Arrival 1000 + 125 latency, then 256 B per 256 / 11.2 = 22.86 cycles.
    let times: Vec<u64> = out.iter().map(|(t, _)| *t).collect();
    assert_eq!(times, vec![1148, 1171, 1194, 1217]);
    let got: Vec<u8> = out.iter().flat_map(|(_, c)| c.data().to_vec()).collect();
    assert_eq!(got, data);
    assert!(out.iter().all(|(_, c)| c.completer_id() == Some(GPU)));
    // Unaligned read with MPS 128 and a 128 B RCB: ends on 128-byte boundaries.
    bring_up_mps(&mut gpu, MaxPayloadSize::B128);
    gpu.receive(Tlp::mem_read(Bdf(0x0100), Tag(3), Addr(BAR1 + 0x1010), 300).unwrap());
    let out = run(&mut gpu, 2000, 2400);
    let sizes: Vec<usize> = out.iter().map(|(_, c)| c.payload_len()).collect();
    assert_eq!(sizes, vec![112, 128, 60]);
}

fn bring_up_mps(gpu: &mut GpuEndpoint, mps: MaxPayloadSize) {
    cfg_write(
        gpu,
        reg::DEVICE_CONTROL,
        u32::from(mps.encoding()) << 5,
        0b0001,
    );
    run(gpu, 1500, 1700);
    assert_eq!(gpu.config_space().max_payload_size().unwrap(), mps);
}

#[test]
fn writes_land_in_the_bar_and_outside_are_dropped() {
    let mut gpu = GpuEndpoint::new(GpuConfig::default()).unwrap();
    bring_up(&mut gpu, MaxPayloadSize::B256);
    gpu.receive(Tlp::mem_write(Bdf(0x0100), Tag(0), Addr(BAR1 + 0x0fff_fffe), &[7, 8]).unwrap());
    gpu.receive(Tlp::mem_write(Bdf(0x0100), Tag(0), Addr(BAR1 + 0x1000_0000), &[9; 4]).unwrap());
    gpu.receive(
        Tlp::mem_write(Bdf(0x0100), Tag(0), Addr(BAR1 + 8), &[1; 4])
            .unwrap()
            .with_ep(true),
    );
    run(&mut gpu, 300, 301);
    let mem = gpu.bar_memory(1).unwrap();
    assert_eq!(mem.read_vec(0x0fff_fffc, 4).unwrap(), vec![0, 0, 7, 8]);
    assert_eq!(mem.read_vec(8, 4).unwrap(), vec![0; 4]);
    let c = gpu.counters();
    assert_eq!(
        (c.writes_accepted, c.dropped_writes, c.poisoned_writes),
        (1, 1, 1)
    );
}

#[test]
fn other_traffic_and_bad_configs() {
    let mut gpu = GpuEndpoint::new(GpuConfig::default()).unwrap();
    gpu.receive(Tlp::io_read(RC, Tag(1), Addr(0x100), 4).unwrap());
    gpu.receive(Tlp::completion(RC, CplStatus::Sc, GPU, Tag(1), 4, 0, &[0; 4]).unwrap());
    let out = run(&mut gpu, 0, 200);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].1.status(), Some(CplStatus::Ur));
    assert_eq!(gpu.counters().unexpected_completions, 1);
    assert!(gpu.is_idle());
    let bad = GpuConfig {
        completion_limit: Some(192),
        ..GpuConfig::default()
    };
    assert_eq!(
        GpuEndpoint::new(bad).unwrap_err(),
        GpuConfigError::CompletionLimit(192)
    );
    let mut bad = GpuConfig::default();
    bad.config_space.bars[0].index = 5;
    assert!(matches!(
        GpuEndpoint::new(bad),
        Err(GpuConfigError::ConfigSpace(_))
    ));
    let json = serde_json::to_string(&GpuConfig::default()).unwrap();
    assert_eq!(
        serde_json::from_str::<GpuConfig>(&json).unwrap(),
        GpuConfig::default()
    );
}

#[test]
fn completion_limit_caps_completion_size() {
    let cfg = GpuConfig {
        completion_limit: Some(128),
        ..GpuConfig::default()
    };
    let mut gpu = GpuEndpoint::new(cfg).unwrap();
    bring_up(&mut gpu, MaxPayloadSize::B256);
    gpu.receive(Tlp::mem_read(Bdf(0x0100), Tag(2), Addr(BAR1), 512).unwrap());
    let out = run(&mut gpu, 300, 600);
    let sizes: Vec<usize> = out.iter().map(|(_, c)| c.payload_len()).collect();
    assert_eq!(sizes, vec![128; 4]);
}

/// With a translation cache, a read of a page whose translation is not cached waits for
/// it, and the reads behind it wait too (misses of reads that arrive together overlap);
/// once the pages are cached, reads do not wait; a sweep over more pages than the cache
/// holds misses on every page, every pass.
#[test]
fn reads_wait_for_translations_the_gpu_has_not_cached() {
    let page = 4096u64;
    let mut gpu = GpuEndpoint::new(GpuConfig {
        translation: Some(TranslationConfig {
            page_bytes: page,
            entries: 2,
            miss: Cycles(1000),
        }),
        ..GpuConfig::default()
    })
    .unwrap();
    bring_up(&mut gpu, MaxPayloadSize::B256);
    // One 64-byte read per page, `pages` pages, all arriving at `from`: the cycle the last
    // completion leaves.
    let sweep = |gpu: &mut GpuEndpoint, pages: u64, from: u64| -> u64 {
        for p in 0..pages {
            let tag = Tag(p as u8);
            gpu.receive(Tlp::mem_read(RC, tag, Addr(BAR1 + p * page), 64).unwrap());
        }
        let out = run(gpu, from, from + 10_000);
        assert_eq!(out.len() as u64, pages);
        out.last().unwrap().0 - from
    };
    let cold = sweep(&mut gpu, 2, 1000);
    let warm = sweep(&mut gpu, 2, 20_000);
    assert_eq!(cold, 1000 + warm, "cold {cold}, warm {warm}");
    assert_eq!(gpu.translation_misses(), 2);
    // Three pages through two entries: after the first pass (pages 0 and 1 cached, 2
    // missed), every read misses, pass after pass.
    sweep(&mut gpu, 3, 40_000);
    assert_eq!(gpu.translation_misses(), 2 + 1);
    let thrash = sweep(&mut gpu, 3, 60_000);
    assert!(thrash >= 1000 + warm, "{thrash}");
    assert_eq!(gpu.translation_misses(), 2 + 1 + 3);
    // A configuration the cache refuses is an error, not a panic.
    let bad = GpuConfig {
        translation: Some(TranslationConfig {
            page_bytes: 1000,
            entries: 2,
            miss: Cycles(1),
        }),
        ..GpuConfig::default()
    };
    assert!(matches!(
        GpuEndpoint::new(bad),
        Err(GpuConfigError::Translation(_))
    ));
}
