//! A CPU's store to a BAR on the co-simulated cluster: the core goes on at once, the
//! write reaches the chip exactly one uncached leg later than a write handed to the root
//! port directly, and a load the core makes after it sees it.

use peach2_driver::hw::Mmio;
use peach2_regmap::csr::SCRATCH;
use peach2_sim::cluster::BAR0_BASE;
use peach2_sim::topology::Topology;
use peach2_testbench::profile::Profile;
use peach2_testbench::sim_backend::{SimDevice, SimSystem};

/// Cycles from the call until node 0's root port has put the write on its link.
fn cycles_to_wire(sys: &mut SimSystem, posted: bool) -> u64 {
    let link = |s: &SimSystem| s.cluster.nodes[0].n_link.ends[0].tx.tlps;
    let before = link(sys);
    let t0 = sys.cluster.cycle;
    let addr = BAR0_BASE + u64::from(SCRATCH);
    if posted {
        sys.store(0, addr, &[1, 2, 3, 4]).unwrap();
    } else {
        let rc = sys.cluster.nodes[0].host.cpu();
        rc.mmio_write(addr, &[1, 2, 3, 4]).unwrap();
    }
    while link(sys) == before {
        assert!(sys.cluster.cycle - t0 < 10_000, "the write never left");
        sys.run(1).unwrap();
    }
    sys.cluster.cycle - t0
}

#[test]
fn a_store_leaves_the_root_port_one_uncached_leg_after_the_core_made_it() {
    let profile = Profile::ha_pacs();
    let mut sys = SimSystem::new(Topology::load("ring2").unwrap(), &profile).unwrap();
    let direct = cycles_to_wire(&mut sys, false);
    let posted = cycles_to_wire(&mut sys, true);
    assert_eq!(posted, direct + profile.cpu.uncached_leg);
}

#[test]
fn a_load_after_stores_sees_them_and_the_stores_cost_the_core_little() {
    let profile = Profile::ha_pacs();
    let sys = SimSystem::new(Topology::load("ring2").unwrap(), &profile)
        .unwrap()
        .shared();
    let mut dev = SimDevice::new(&sys, 1).unwrap();
    for v in [0x1234_5678u32, 0xCAFE_F00D, 7] {
        let t0 = sys.borrow().cluster.cycle;
        dev.write32(SCRATCH, v).unwrap();
        dev.write32(SCRATCH, v ^ 1).unwrap();
        dev.write32(SCRATCH, v).unwrap();
        assert_eq!(sys.borrow().cluster.cycle - t0, 3 * profile.cpu.store(4));
        assert_eq!(dev.read32(SCRATCH).unwrap(), v);
    }
}
