//! The driver's waits (MMIO reads, polls of host memory) let the cluster run in windows:
//! the ping-pong's round trips are the same, cycle for cycle, as with the cluster run one
//! cycle at a time.

use peach2_driver::{NotifyPlace, Placement};
use peach2_sim::topology::Topology;
use peach2_testbench::pingpong::{run, Mem, PingPong};
use peach2_testbench::profile::Profile;

#[test]
fn ping_pong_round_trips_are_the_same_in_windows_as_cycle_by_cycle() {
    // `default`: no CPU cost to the root port, so a read's completion bounds a window to
    // one cycle past it; `ha-pacs`: host-memory polls bound windows to a miss's cost.
    for profile in [Profile::ha_pacs(), Profile::model_default()] {
        for notify in [NotifyPlace::Host, NotifyPlace::Chip] {
            let trips = |window_limit| {
                let cfg = PingPong {
                    topology: Topology::load("ring2").unwrap(),
                    src: 0,
                    dst: 1,
                    mem: Mem::Gpu,
                    desc: Placement::Internal,
                    notify,
                    sizes: vec![8, 4096],
                    iters: 2,
                    profile: profile.clone(),
                    window_limit,
                };
                let rows = run(&cfg, &mut |_, _| {}).unwrap();
                rows.iter().map(|r| r.round_trip_cycles).collect::<Vec<_>>()
            };
            let reference = trips(Some(1));
            assert!(reference.iter().all(|&c| c > 100.0), "{reference:?}");
            assert_eq!(
                trips(None),
                reference,
                "{} profile, notifications in {notify:?}",
                profile.name
            );
        }
    }
}
