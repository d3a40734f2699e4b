//! The HA-PACS/TCA profile reproduces the paper's anchors (seed 001, figures 2 and 3)
//! within 10 %, on the Verilated RTL through the driver: adjacent-node minimum latency
//! 2.0 us (internal descriptors) and 2.2 us (host descriptors), CPU or GPU memory; peak
//! bandwidth 3.5 GB/s (CPU memory) and 2.8 GB/s (GPU memory).

use peach2_driver::{NotifyPlace, Placement};
use peach2_sim::topology::Topology;
use peach2_testbench::pingpong::{run, Mem, PingPong};
use peach2_testbench::profile::Profile;

fn within(got: f64, want: f64, what: &str) {
    let err = (got - want).abs() / want;
    assert!(
        err <= 0.10,
        "{what}: {got:.3} against the paper's {want} ({:.1} % off)",
        100.0 * err
    );
}

#[test]
fn ha_pacs_profile_reproduces_figures_2_and_3() {
    for mem in [Mem::Cpu, Mem::Gpu] {
        for desc in [Placement::Internal, Placement::Host] {
            let cfg = PingPong {
                topology: Topology::load("ring2").unwrap(),
                src: 0,
                dst: 1,
                mem,
                desc,
                notify: NotifyPlace::Host,
                // 1 MiB: the 2 us start-up is under 1 % of the transfer time.
                sizes: vec![8, 1 << 20],
                iters: 1,
                profile: Profile::ha_pacs(),
            };
            let rows = run(&cfg, &mut |_, _| {}).unwrap();
            let what = format!("{mem:?} memory, {desc:?} descriptors");
            let latency = if desc == Placement::Internal {
                2.0
            } else {
                2.2
            };
            within(
                rows[0].latency_us,
                latency,
                &format!("{what}: 8-byte latency [us]"),
            );
            let peak = if mem == Mem::Cpu { 3.5 } else { 2.8 };
            within(
                rows[1].bandwidth_gb_s,
                peak,
                &format!("{what}: 1 MiB bandwidth [GB/s]"),
            );
        }
    }
}

#[test]
fn bandwidth_grows_with_size_and_latency_with_distance() {
    let mut cfg = PingPong {
        topology: Topology::load("ring4").unwrap(),
        src: 0,
        dst: 1,
        mem: Mem::Cpu,
        desc: Placement::Internal,
        notify: NotifyPlace::Host,
        sizes: vec![8, 4096, 65_536],
        iters: 2,
        profile: Profile::ha_pacs(),
    };
    let near = run(&cfg, &mut |_, _| {}).unwrap();
    assert!(
        near.windows(2)
            .all(|w| w[1].bandwidth_gb_s > w[0].bandwidth_gb_s),
        "{near:?}"
    );
    cfg.dst = 2;
    let far = run(&cfg, &mut |_, _| {}).unwrap();
    for (n, f) in near.iter().zip(&far) {
        // One more chip and cable each way: tens of nanoseconds, not more than a microsecond.
        let extra = f.latency_us - n.latency_us;
        assert!(extra > 0.02 && extra < 1.0, "{} B: {n:?} vs {f:?}", n.bytes);
    }
}

/// `tcaDMAUseNotifyInternal`: the receiver's notification lands in its chip and the
/// waiting CPU reads it over PCIe. The transfer is checked byte for byte by `run`; the
/// latency is one MMIO read round trip away from the host-memory figure.
#[test]
fn notifications_in_the_chip_ping_pong() {
    let mut rows = Vec::new();
    for notify in [NotifyPlace::Host, NotifyPlace::Chip] {
        let cfg = PingPong {
            topology: Topology::load("ring2").unwrap(),
            src: 0,
            dst: 1,
            mem: Mem::Gpu,
            desc: Placement::Internal,
            notify,
            sizes: vec![8, 4096],
            iters: 2,
            profile: Profile::ha_pacs(),
        };
        rows.push(run(&cfg, &mut |_, _| {}).unwrap());
        eprintln!("{notify:?}: {:?}", rows.last().unwrap());
    }
    for (host, chip) in rows[0].iter().zip(&rows[1]) {
        let extra = chip.latency_us - host.latency_us;
        assert!(
            (-0.5..1.5).contains(&extra),
            "{} B: host {:.2} us, chip {:.2} us",
            host.bytes,
            host.latency_us,
            chip.latency_us
        );
    }
}
