//! The Verilated core fuzzed (`peach2_sim::fuzz`): random and malformed traffic on all
//! four ports with random backpressure and links going down, then the drain, the
//! counters and a clean forward checked. Fixed seeds; `peach2 fuzz` runs longer ones.
//! Seed 0x78110000 stopped the chip at cycle 12155 before the internal port looped the
//! DMA's writes to itself back inside (`rtl::internal::mux`).

use peach2_sim::chip::VlChip;
use peach2_sim::fuzz::{fuzz_chip, FuzzConfig};
use peach2_sim::verilated::VlContext;

#[test]
fn the_chip_survives_random_and_malformed_traffic() {
    let ctx = VlContext::new().unwrap();
    for (seed, p_link_down) in [(0x7811_0000u64, 0.0), (0x7811_0001, 0.0005)] {
        let mut chip = VlChip::new(&ctx, "fuzz").unwrap();
        let cfg = FuzzConfig {
            seed,
            cycles: 300_000,
            p_link_down,
        };
        let r = fuzz_chip(&mut chip, &cfg).unwrap_or_else(|e| panic!("{e}"));
        println!("{r:?}");
        // Real work on every port, in and out, and malformed TLPs among it.
        for (p, s) in r.seen.iter().enumerate() {
            assert!(s.tlps_in > 1_000 && s.tlps_out > 100, "port {p}: {s:?}");
            assert!(r.counted[p].errors > 0, "port {p}: {:?}", r.counted[p]);
        }
        assert_eq!(r.forwarded_after, 3);
    }
}
