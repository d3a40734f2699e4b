use super::*;
use crate::config_space::{BarSpec, ConfigSpace, ConfigSpaceSpec, EndpointType};
use crate::link::timing::{Generation, LinkWidth};

fn plan() -> EnumerationPlan {
    EnumerationPlan {
        mmio32: AddressRange {
            base: 0xc000_0000,
            size: 1 << 30,
        },
        mmio64: AddressRange {
            base: 0x3800_0000_0000,
            size: 1 << 40,
        },
        max_payload: MaxPayloadSize::B256,
        max_read_request: MaxReadRequestSize::B1024,
        rcb: Rcb::B64,
    }
}

fn gpu_like() -> ConfigSpaceSpec {
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
                size: 32 << 20,
                kind: BarKind::Mem64,
                prefetchable: true,
            },
        ],
        endpoint_type: EndpointType::LegacyEndpoint,
        max_payload_supported: MaxPayloadSize::B128,
        extended_tag: true,
        link_speed: Generation::Gen2,
        link_width: LinkWidth::X16,
    }
}

/// Runs the enumerator directly against a config space; returns the result and the
/// number of accesses.
fn run(cs: &mut ConfigSpace) -> (Result<EnumeratedDevice, EnumError>, usize) {
    let mut e = Enumerator::new(Bdf(0x0100), plan());
    let mut step = e.start();
    let mut accesses = 0;
    loop {
        let op = match step {
            EnumStep::Done(d) => return (Ok(d), accesses),
            EnumStep::Issue(op) => op,
        };
        accesses += 1;
        let result = match op {
            ConfigOp::Read { register } => {
                Ok(RequestOutcome::ConfigRead(cs.read(register).unwrap()))
            }
            ConfigOp::Write {
                register,
                value,
                byte_enable,
            } => {
                cs.write(register, value, byte_enable).unwrap();
                Ok(RequestOutcome::ConfigWritten)
            }
        };
        step = match e.advance(result) {
            Ok(s) => s,
            Err(err) => return (Err(err), accesses),
        };
    }
}

#[test]
fn sizes_assigns_and_enables() {
    let mut cs = ConfigSpace::new(gpu_like()).unwrap();
    let (dev, accesses) = run(&mut cs);
    let dev = dev.unwrap();
    assert!(accesses > 20);
    assert_eq!(
        (dev.vendor_id, dev.device_id, dev.class_code),
        (0x10de, 0x1021, 0x030200)
    );
    assert_eq!(
        dev.bars,
        vec![
            AssignedBar {
                index: 0,
                base: 0xc000_0000,
                size: 16 << 20,
                kind: BarKind::Mem32,
                prefetchable: false
            },
            AssignedBar {
                index: 1,
                base: 0x3800_0000_0000,
                size: 256 << 20,
                kind: BarKind::Mem64,
                prefetchable: true
            },
            AssignedBar {
                index: 3,
                base: 0x3800_1000_0000,
                size: 32 << 20,
                kind: BarKind::Mem64,
                prefetchable: true
            },
        ]
    );
    // The device agrees.
    assert_eq!(cs.bar_base(0), Some(0xc000_0000));
    assert_eq!(cs.bar_base(1), Some(0x3800_0000_0000));
    assert_eq!(cs.bar_base(3), Some(0x3800_1000_0000));
    assert!(cs.memory_space_enabled() && cs.bus_master_enabled());
    // MPS is the smaller of the plan (256) and the device (128); MRRS as planned.
    assert_eq!(dev.max_payload, MaxPayloadSize::B128);
    assert_eq!(cs.max_payload_size().unwrap(), MaxPayloadSize::B128);
    assert_eq!(
        cs.max_read_request_size().unwrap(),
        MaxReadRequestSize::B1024
    );
    assert_eq!(cs.rcb(), Rcb::B64);
    assert_eq!(dev.pcie_cap, Some(0x40));
    assert_eq!(cs.decode(0x3800_0000_1000, 4).map(|h| h.bar), Some(1));
    assert_eq!(e_finished_error(), EnumError::Finished);
}

fn e_finished_error() -> EnumError {
    let mut e = Enumerator::new(Bdf(0x0100), plan());
    e.advance(Err(RequestError::UnsupportedRequest))
        .unwrap_err();
    e.advance(Ok(RequestOutcome::ConfigWritten)).unwrap_err()
}

#[test]
fn absent_device() {
    let mut e = Enumerator::new(Bdf(0x0200), plan());
    assert_eq!(e.start(), EnumStep::Issue(ConfigOp::Read { register: 0 }));
    assert_eq!(
        e.advance(Err(RequestError::UnsupportedRequest)),
        Err(EnumError::NoDevice(Bdf(0x0200)))
    );
    let mut e = Enumerator::new(Bdf(0x0200), plan());
    assert_eq!(
        e.advance(Ok(RequestOutcome::ConfigRead(0xffff_ffff))),
        Err(EnumError::NoDevice(Bdf(0x0200)))
    );
}

#[test]
fn window_too_small() {
    let mut cs = ConfigSpace::new(gpu_like()).unwrap();
    let mut e = Enumerator::new(
        Bdf(0x0100),
        EnumerationPlan {
            mmio64: AddressRange {
                base: 0x1_0000_0000,
                size: 128 << 20,
            },
            ..plan()
        },
    );
    let mut step = e.start();
    let err = loop {
        let EnumStep::Issue(op) = step else {
            panic!("finished despite the small window")
        };
        let result = match op {
            ConfigOp::Read { register } => {
                Ok(RequestOutcome::ConfigRead(cs.read(register).unwrap()))
            }
            ConfigOp::Write {
                register,
                value,
                byte_enable,
            } => {
                cs.write(register, value, byte_enable).unwrap();
                Ok(RequestOutcome::ConfigWritten)
            }
        };
        match e.advance(result) {
            Ok(s) => step = s,
            Err(err) => break err,
        }
    };
    assert_eq!(
        err,
        EnumError::WindowExhausted {
            index: 1,
            size: 256 << 20
        }
    );
}

#[test]
fn access_failures_and_wrong_outcomes_stop_enumeration() {
    let mut e = Enumerator::new(Bdf(0x0100), plan());
    e.advance(Ok(RequestOutcome::ConfigRead(0x1021_10de)))
        .unwrap();
    assert_eq!(
        e.advance(Err(RequestError::Timeout)),
        Err(EnumError::Access {
            register: 2,
            error: RequestError::Timeout
        })
    );
    let mut e = Enumerator::new(Bdf(0x0100), plan());
    assert!(matches!(
        e.advance(Ok(RequestOutcome::Read(vec![1]))),
        Err(EnumError::UnexpectedOutcome { register: 0, .. })
    ));
}

#[test]
fn type1_header_is_refused() {
    let mut e = Enumerator::new(Bdf(0x0100), plan());
    e.advance(Ok(RequestOutcome::ConfigRead(0x1021_10de)))
        .unwrap();
    e.advance(Ok(RequestOutcome::ConfigRead(0x0604_0000)))
        .unwrap();
    assert_eq!(
        e.advance(Ok(RequestOutcome::ConfigRead(0x0001_0000))),
        Err(EnumError::HeaderType(1))
    );
}
