use super::*;

fn spec() -> ConfigSpaceSpec {
    ConfigSpaceSpec {
        vendor_id: 0x10de,
        device_id: 0x1021,
        revision_id: 0xa1,
        class_code: 0x03_02_00,
        subsystem_vendor_id: 0x10de,
        subsystem_id: 0x097d,
        bars: vec![
            BarSpec {
                index: 0,
                size: 16 << 20,
                kind: BarKind::Mem32,
                prefetchable: false,
            },
            BarSpec {
                index: 1,
                size: 256 << 20,
                kind: BarKind::Mem64,
                prefetchable: true,
            },
            BarSpec {
                index: 3,
                size: 8 << 30,
                kind: BarKind::Mem64,
                prefetchable: true,
            },
        ],
        endpoint_type: EndpointType::LegacyEndpoint,
        max_payload_supported: MaxPayloadSize::B256,
        extended_tag: true,
        link_speed: Generation::Gen2,
        link_width: LinkWidth::X16,
    }
}

fn cs() -> ConfigSpace {
    ConfigSpace::new(spec()).unwrap()
}

#[test]
fn identity_registers_are_read_only() {
    let mut c = cs();
    assert_eq!(c.read(reg::ID).unwrap(), 0x1021_10de);
    assert_eq!(c.read(reg::CLASS).unwrap(), 0x0302_00a1);
    assert_eq!(c.read(reg::SUBSYSTEM).unwrap(), 0x097d_10de);
    c.write(reg::ID, 0xffff_ffff, 0xf).unwrap();
    c.write(reg::CLASS, 0, 0xf).unwrap();
    assert_eq!(c.read(reg::ID).unwrap(), 0x1021_10de);
    assert_eq!(c.read(reg::CLASS).unwrap(), 0x0302_00a1);
    // Header type 0, single function.
    assert_eq!((c.read(reg::HEADER_TYPE).unwrap() >> 16) & 0xff, 0);
}

#[test]
fn command_register_honours_read_only_bits_and_byte_enables() {
    let mut c = cs();
    assert!(!c.memory_space_enabled() && !c.bus_master_enabled());
    // I/O space (bit 0) is read-only 0: the function has no I/O BARs.
    c.write(reg::COMMAND_STATUS, 0xffff, 0b0011).unwrap();
    assert_eq!(c.command(), 0b0000_0101_0100_0110);
    assert!(c.memory_space_enabled() && c.bus_master_enabled());
    // Byte enable 0b0010 writes only bits 15:8: memory space stays on.
    c.write(reg::COMMAND_STATUS, 0, 0b0010).unwrap();
    assert!(c.memory_space_enabled());
    assert_eq!(c.command() & 0xff00, 0);
    c.write(reg::COMMAND_STATUS, 0, 0b0001).unwrap();
    assert!(!c.memory_space_enabled());
}

#[test]
fn status_bits_are_write_one_to_clear() {
    let mut c = cs();
    assert_ne!(c.status() & 1 << 4, 0, "capabilities list bit");
    c.set_status_bits(reg::COMMAND_STATUS, reg::STATUS_RECEIVED_MASTER_ABORT);
    c.set_status_bits(reg::COMMAND_STATUS, reg::STATUS_SIGNALED_TARGET_ABORT);
    assert_eq!(c.status() & (1 << 13 | 1 << 11), 1 << 13 | 1 << 11);
    // Writing 0s changes nothing; writing 1 to bit 13 clears only it.
    c.write(reg::COMMAND_STATUS, 0, 0xc).unwrap();
    assert_eq!(c.status() & (1 << 13 | 1 << 11), 1 << 13 | 1 << 11);
    c.write(reg::COMMAND_STATUS, reg::STATUS_RECEIVED_MASTER_ABORT, 0xc)
        .unwrap();
    assert_eq!(c.status() & (1 << 13 | 1 << 11), 1 << 11);
    // The capability-list bit is read-only.
    c.write(reg::COMMAND_STATUS, reg::STATUS_CAP_LIST, 0xc)
        .unwrap();
    assert_ne!(c.status() & 1 << 4, 0);
}

#[test]
fn bar_sizing_protocol() {
    let mut c = cs();
    // 32-bit non-prefetchable 16 MiB BAR.
    c.write(reg::BAR0, 0xffff_ffff, 0xf).unwrap();
    assert_eq!(c.read(reg::BAR0).unwrap(), 0xff00_0000);
    // 64-bit prefetchable 256 MiB BAR: type bits 0b1100 read back.
    c.write(reg::BAR0 + 1, 0xffff_ffff, 0xf).unwrap();
    c.write(reg::BAR0 + 2, 0xffff_ffff, 0xf).unwrap();
    assert_eq!(c.read(reg::BAR0 + 1).unwrap(), 0xf000_000c);
    assert_eq!(c.read(reg::BAR0 + 2).unwrap(), 0xffff_ffff);
    // 8 GiB BAR: the size reaches into the upper DW.
    c.write(reg::BAR0 + 3, 0xffff_ffff, 0xf).unwrap();
    c.write(reg::BAR0 + 4, 0xffff_ffff, 0xf).unwrap();
    assert_eq!(c.read(reg::BAR0 + 3).unwrap(), 0x0000_000c);
    assert_eq!(c.read(reg::BAR0 + 4).unwrap(), 0xffff_fffe);
    // Unimplemented BAR slot reads 0 even after all ones.
    c.write(reg::BAR0 + 5, 0xffff_ffff, 0xf).unwrap();
    assert_eq!(c.read(reg::BAR0 + 5).unwrap(), 0);
    // Assign bases; low bits below the size are dropped.
    c.write(reg::BAR0, 0xd000_1234, 0xf).unwrap();
    c.write(reg::BAR0 + 1, 0x1000_0000, 0xf).unwrap();
    c.write(reg::BAR0 + 2, 0x0000_0038, 0xf).unwrap();
    assert_eq!(c.bar_base(0), Some(0xd000_0000));
    assert_eq!(c.bar_base(1), Some(0x38_1000_0000));
    assert_eq!(c.bar_base(2), None);
    assert_eq!(c.bar_spec(1).unwrap().size, 256 << 20);
}

#[test]
fn decode_only_with_memory_space_enabled() {
    let mut c = cs();
    c.write(reg::BAR0, 0xd000_0000, 0xf).unwrap();
    c.write(reg::BAR0 + 1, 0, 0xf).unwrap();
    c.write(reg::BAR0 + 2, 0x38, 0xf).unwrap();
    c.write(reg::BAR0 + 3, 0, 0xf).unwrap();
    c.write(reg::BAR0 + 4, 0x40, 0xf).unwrap();
    assert_eq!(c.decode(0xd000_0010, 4), None);
    c.write(reg::COMMAND_STATUS, reg::CMD_MEMORY_SPACE, 0x1)
        .unwrap();
    assert_eq!(
        c.decode(0xd000_0010, 4),
        Some(BarHit {
            bar: 0,
            offset: 0x10
        })
    );
    assert_eq!(
        c.decode(0x38_0fff_fffc, 4),
        Some(BarHit {
            bar: 1,
            offset: 0x0fff_fffc
        })
    );
    // Straddling the end of a BAR, or just past it, is not decoded.
    assert_eq!(c.decode(0x38_0fff_fffc, 8), None);
    assert_eq!(c.decode(0x38_1000_0000, 4), None);
    assert_eq!(
        c.decode(0x41_0000_0000, 0),
        Some(BarHit {
            bar: 3,
            offset: 1 << 32
        })
    );
    assert_eq!(c.decode(u64::MAX, 2), None);
}

#[test]
fn pcie_capability_fields() {
    let mut c = cs();
    let cap_ptr = c.read(reg::CAP_PTR).unwrap() & 0xff;
    assert_eq!(cap_ptr, 0x40);
    let cap = c.read(cap_ptr as u16 / 4).unwrap();
    assert_eq!(cap & 0xff, u32::from(reg::PCIE_CAP_ID));
    assert_eq!((cap >> 8) & 0xff, 0, "last capability");
    assert_eq!((cap >> 16) & 0xf, 2, "capability version");
    assert_eq!((cap >> 20) & 0xf, 1, "legacy endpoint");
    let devcap = c.read(reg::DEVICE_CAPS).unwrap();
    assert_eq!(devcap & 0b111, 1, "256 B supported");
    assert_ne!(devcap & 1 << 5, 0, "extended tag supported");
    // Defaults: MPS 128, MRRS 512, RCB 64.
    assert_eq!(c.max_payload_size().unwrap(), MaxPayloadSize::B128);
    assert_eq!(c.max_read_request_size().unwrap(), MaxReadRequestSize::B512);
    assert_eq!(c.rcb(), Rcb::B64);
    let devctl = c.read(reg::DEVICE_CONTROL).unwrap();
    let devctl = (devctl & !(0b111 << 5) & !(0b111 << 12)) | 1 << 5 | 5 << 12 | 1 << 8;
    c.write(reg::DEVICE_CONTROL, devctl, 0x3).unwrap();
    assert_eq!(c.max_payload_size().unwrap(), MaxPayloadSize::B256);
    assert_eq!(
        c.max_read_request_size().unwrap(),
        MaxReadRequestSize::B4096
    );
    assert!(c.extended_tag_enabled());
    c.write(reg::DEVICE_CONTROL, 7 << 5, 0x1).unwrap();
    assert!(c.max_payload_size().is_err());
    c.write(reg::LINK_CONTROL, reg::LNKCTL_RCB, 0x1).unwrap();
    assert_eq!(c.rcb(), Rcb::B128);
    // Link capabilities and status: 5 GT/s x16, read-only.
    assert_eq!(c.read(reg::LINK_CAPS).unwrap() & 0x3ff, 2 | 16 << 4);
    c.write(reg::LINK_CONTROL, 0, 0xc).unwrap();
    assert_eq!(
        c.read(reg::LINK_CONTROL).unwrap() >> 16 & 0x3ff,
        2 | 16 << 4
    );
}

#[test]
fn device_status_ur_is_rw1c() {
    let mut c = cs();
    c.set_status_bits(reg::DEVICE_CONTROL, reg::DEVSTA_UR_DETECTED);
    assert_ne!(
        c.read(reg::DEVICE_CONTROL).unwrap() & reg::DEVSTA_UR_DETECTED,
        0
    );
    c.write(reg::DEVICE_CONTROL, reg::DEVSTA_UR_DETECTED, 0x4)
        .unwrap();
    assert_eq!(
        c.read(reg::DEVICE_CONTROL).unwrap() & reg::DEVSTA_UR_DETECTED,
        0
    );
}

#[test]
fn extended_space_and_bad_accesses() {
    let mut c = cs();
    assert_eq!(c.read(0x40).unwrap(), 0, "no extended capabilities");
    c.write(0x40, 0xffff_ffff, 0xf).unwrap();
    assert_eq!(c.read(0x40).unwrap(), 0);
    assert_eq!(c.read(1024), Err(ConfigAccessError::Register(1024)));
    assert_eq!(
        c.write(1, 0, 0x10),
        Err(ConfigAccessError::ByteEnable(0x10))
    );
    assert_eq!(
        c.write(1024, 0, 0xf),
        Err(ConfigAccessError::Register(1024))
    );
}

#[test]
fn bad_specs_are_rejected() {
    let mut s = spec();
    s.bars[2].index = 5;
    assert_eq!(
        ConfigSpace::new(s).unwrap_err(),
        ConfigSpecError::BarSlot { index: 5 }
    );
    let mut s = spec();
    s.bars[0].index = 2;
    assert_eq!(
        ConfigSpace::new(s).unwrap_err(),
        ConfigSpecError::BarOverlap { index: 2 }
    );
    let mut s = spec();
    s.bars[0].size = 3000;
    assert!(matches!(
        ConfigSpace::new(s),
        Err(ConfigSpecError::BarSize { index: 0, .. })
    ));
    let mut s = spec();
    s.bars[0].size = 4 << 30;
    assert!(matches!(
        ConfigSpace::new(s),
        Err(ConfigSpecError::BarSize { .. })
    ));
    let mut s = spec();
    s.class_code = 0x100_0000;
    assert_eq!(
        ConfigSpace::new(s).unwrap_err(),
        ConfigSpecError::ClassCode(0x100_0000)
    );
    let json = serde_json::to_string(&spec()).unwrap();
    assert_eq!(
        serde_json::from_str::<ConfigSpaceSpec>(&json).unwrap(),
        spec()
    );
}
