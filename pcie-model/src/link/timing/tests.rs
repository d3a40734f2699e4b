use super::*;

fn mwr256() -> TlpShape {
    TlpShape::new(true, 256)
}

#[test]
fn gen2_x8_is_4_gbytes_per_second_16_bytes_per_cycle() {
    let l = LinkTiming::gen2_x8();
    assert_eq!(l.raw_bytes_per_second(), 4.0e9);
    let bw = l.wire_bandwidth();
    assert_eq!((bw.bytes(), bw.cycles()), (16, 1));
}

#[test]
fn mwr_256_with_4dw_header_is_280_bytes_91_percent() {
    let l = LinkTiming::gen2_x8();
    assert_eq!(l.tlp_wire_bytes(&mwr256()), 280);
    let eff = l.efficiency(&mwr256(), false);
    assert!((eff - 256.0 / 280.0).abs() < 1e-12);
    assert!((0.914..0.915).contains(&eff));
    let gbs = l.payload_bytes_per_second(&mwr256(), false) / 1e9;
    assert!((3.657..3.658).contains(&gbs), "{gbs}");
    // DLLPs (8/3 + 8/4 B per TLP) take it lower still.
    let with = l.payload_bytes_per_second(&mwr256(), true) / 1e9;
    assert!((3.59..3.61).contains(&with), "{with}");
}

#[test]
fn cycles_on_a_250mhz_clock() {
    let l = LinkTiming::gen2_x8();
    // 280 B at 16 B/cycle = 17.5 cycles: one alone takes 18, a pair exactly 35.
    assert_eq!(l.tlp_cycles(&mwr256()), Cycles(18));
    let mut ser = l.serializer();
    ser.reserve(Cycles(0), u64::from(l.tlp_wire_bytes(&mwr256())));
    assert_eq!(ser.reserve(Cycles(0), 280), Cycles(35));
    assert_eq!(l.wire_time(280), Picos(70_000));
    // 100 + 5 + 120 ns = 225 ns = 56.25 cycles, rounded up.
    assert_eq!(l.latency_cycles(), Cycles(57));
}

#[test]
fn small_tlps_and_other_generations() {
    let l = LinkTiming::gen2_x8();
    // MRd, 3-DW header: 12 + 8 = 20 B. CplD of 64 B: 12 + 64 + 8 = 84 B.
    assert_eq!(l.tlp_wire_bytes(&TlpShape::new(false, 0)), 20);
    assert_eq!(l.tlp_wire_bytes(&TlpShape::new(false, 64)), 84);
    let digest = TlpShape {
        digest: true,
        ..mwr256()
    };
    assert_eq!(l.tlp_wire_bytes(&digest), 284);

    let gen1_x1 = LinkTiming {
        generation: Generation::Gen1,
        width: LinkWidth::new(1).unwrap(),
        ..l.clone()
    };
    assert_eq!(gen1_x1.raw_bytes_per_second(), 250.0e6);
    assert_eq!(gen1_x1.wire_time(1), Picos(4000));

    let gen3_x8 = LinkTiming {
        generation: Generation::Gen3,
        ..l
    };
    // 8 GT/s x 8 x 128/130 / 8 = 7.877 GB/s; still 8 B of framing per TLP.
    assert!((gen3_x8.raw_bytes_per_second() / 1e9 - 7.876_923).abs() < 1e-6);
    assert_eq!(gen3_x8.tlp_wire_bytes(&mwr256()), 280);
    assert!((gen3_x8.wire_bandwidth().bytes_per_cycle() - 31.507_692).abs() < 1e-5);
}

#[test]
fn shape_of_real_tlps() {
    use crate::tlp::{Addr, Bdf, Tag};
    let l = LinkTiming::gen2_x8();
    let mwr = Tlp::mem_write(Bdf(0x100), Tag(0), Addr(0x1_0000_0000), &[0; 256]).unwrap();
    assert_eq!(TlpShape::of_tlp(&mwr), mwr256());
    assert_eq!(l.tlp_wire_bytes(&TlpShape::of_tlp(&mwr)), 280);
    let mrd = Tlp::mem_read(Bdf(0x100), Tag(0), Addr(0x1000), 512).unwrap();
    assert_eq!(l.tlp_wire_bytes(&TlpShape::of_tlp(&mrd)), 20);
    let with_digest = mrd.with_digest(Some(0));
    assert_eq!(l.tlp_wire_bytes(&TlpShape::of_tlp(&with_digest)), 24);
}

#[test]
fn dllp_schedule_counts_tlps() {
    let mut s = LinkTiming::gen2_x8().dllp_schedule();
    let dues: Vec<DllpsDue> = (0..12).map(|_| s.on_tlp()).collect();
    assert_eq!(dues.iter().filter(|d| d.ack).count(), 4);
    assert_eq!(dues.iter().filter(|d| d.update_fc).count(), 3);
    assert_eq!(dues[11].wire_bytes(), 16);
    assert_eq!(dues[0].wire_bytes(), 0);
}

#[test]
fn config_is_validated_and_round_trips() {
    assert_eq!(LinkWidth::new(3), Err(LinkConfigError::Width(3)));
    assert_eq!(Generation::from_speed_code(2), Ok(Generation::Gen2));
    assert!(Generation::from_speed_code(7).is_err());
    let json = serde_json::to_string(&LinkTiming::gen2_x8()).unwrap();
    let back: LinkTiming = serde_json::from_str(&json).unwrap();
    assert_eq!(back, LinkTiming::gen2_x8());
    let bad = json.replace(r#""width":8"#, r#""width":6"#);
    assert!(serde_json::from_str::<LinkTiming>(&bad).is_err());
    let zero_ack = json.replace(r#""ack_every_tlps":3"#, r#""ack_every_tlps":0"#);
    assert!(serde_json::from_str::<LinkTiming>(&zero_ack).is_err());
}
