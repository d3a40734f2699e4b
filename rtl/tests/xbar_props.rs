//! Property test of the crossbar: random packets (random inputs, destinations including
//! ones that name no endpoint, lengths of 1..=68 DWs) under random idle and random
//! backpressure on every port. Every packet with a valid `dest` arrives whole, exactly
//! once, at output `dest`, in order per (input, output) flow and never interleaved with
//! another packet; every other packet is dropped and reported once.

use peach2_rtl::harness::Lcg;
use peach2_rtl::stream::NUM_ENDPOINTS;
use peach2_rtl::xbar::bench::{tagged_packet, XbarBench};
use peach2_rtl::xbar::INPUTS;
use proptest::prelude::*;

/// (input, dest, length in DWs); one dest in ten names no endpoint.
fn packet() -> impl Strategy<Value = (u8, u8, usize)> {
    (
        0..INPUTS as u8,
        prop_oneof![9 => 0..NUM_ENDPOINTS as u8, 1 => NUM_ENDPOINTS as u8..8],
        1..=68usize,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn xbar_delivers_every_packet_whole_once_in_order(
        packets in prop::collection::vec(packet(), 1..40),
        p_valid in prop::array::uniform6(0.2f64..=1.0),
        p_ready in prop::array::uniform5(0.1f64..=1.0),
        seed in any::<u64>(),
    ) {
        let mut b = XbarBench::new(p_valid, p_ready, seed);
        let mut rng = Lcg(seed);
        for (k, &(src, dest, len)) in packets.iter().enumerate() {
            b.send(src, dest, tagged_packet(k as u32 + 1, src, dest, len, &mut rng));
        }
        let beats: u64 = b.sent.iter().map(|p| p.beats.len() as u64).sum();
        // Even one output taking a beat in ten cycles drains everything well within this.
        let limit = 1_000 + 20 * beats;
        prop_assert_eq!(b.run_until_idle(limit), Ok(()));
        prop_assert_eq!(b.beats_in.iter().sum::<u64>(), beats);
        prop_assert_eq!(b.check_delivery(), Ok(()));
    }
}
