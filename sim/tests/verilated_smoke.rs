//! One Verilated chip stepped from Rust: it comes out of reset, answers a config read
//! of its vendor/device id on N, and Verilator fatal errors come back as Rust errors.

use pcie_model::beats::{tlp_from_beats, to_beats, Beat};
use pcie_model::tlp::{Bdf, CfgType, Tag, Tlp, TlpKind};
use peach2_regmap::config::{DEVICE_ID, VENDOR_DEVICE, VENDOR_ID};
use peach2_regmap::csr::Port;
use peach2_sim::chip::{reset, Chip, ChipPorts, VlChip};
use peach2_sim::pins::{PortDir, PORTS};
use peach2_sim::verilated::VlContext;
use peach2_sim::SimError;

/// Sends `tlp` into `port` and collects the first TLP the chip sends back on it.
fn exchange(chip: &mut dyn Chip, port: Port, tlp: &Tlp, limit: u32) -> Option<Tlp> {
    let mut to_send: std::collections::VecDeque<Beat> = to_beats(tlp).into();
    let mut got = Vec::new();
    for _ in 0..limit {
        chip.drive_rx(port, to_send.front().copied());
        chip.set_tx_ready(port, true);
        chip.settle().expect("settle");
        if chip.rx_ready(port) && !to_send.is_empty() {
            to_send.pop_front();
        }
        if let Some(b) = chip.tx_beat(port) {
            got.push(b);
            if b.eop {
                return Some(tlp_from_beats(&got).expect("the chip sends well-framed TLPs"));
            }
        }
        chip.tick().expect("tick");
    }
    None
}

#[test]
fn port_table_matches_the_design() {
    assert_eq!(PORTS[0].name, "clk");
    let wide: Vec<_> = PORTS.iter().filter(|p| p.width == 128).collect();
    assert_eq!(wide.len(), 8, "4 RX and 4 TX data buses");
    assert!(wide
        .iter()
        .all(|p| (p.dir == PortDir::In) == p.name.contains("_rx_")));
}

#[test]
fn chip_answers_config_read_on_n() {
    let ctx = VlContext::new().unwrap();
    let mut chip = VlChip::new(&ctx, "node0").unwrap();
    reset(&mut chip, 4).unwrap();
    chip.set_link_up(Port::N, true);
    let rd = Tlp::cfg_read(
        CfgType::Type0,
        Bdf(peach2_regmap::host::HOST_RID),
        Tag(3),
        Bdf(peach2_regmap::host::CHIP_BDF),
        VENDOR_DEVICE / 4,
        0xf,
    )
    .unwrap();
    let cpl = exchange(&mut chip, Port::N, &rd, 200).expect("a completion within 200 cycles");
    assert_eq!(cpl.kind(), TlpKind::CplD, "{cpl:?}");
    assert_eq!(cpl.tag(), Tag(3));
    let v = u32::from_le_bytes(cpl.data()[..4].try_into().unwrap());
    assert_eq!(v, u32::from(VENDOR_ID) | (u32::from(DEVICE_ID) << 16));
}

#[test]
fn several_chips_share_one_context() {
    let ctx = VlContext::new().unwrap();
    let mut chips: Vec<VlChip> = (0..3)
        .map(|i| VlChip::new(&ctx, &format!("node{i}")).unwrap())
        .collect();
    for c in &mut chips {
        reset(c, 2).unwrap();
        c.set_link_up(Port::N, true);
    }
    // Only chip 1 gets a request: the others stay silent.
    let rd = Tlp::cfg_read(CfgType::Type0, Bdf(8), Tag(1), Bdf(0x500), 0, 0xf).unwrap();
    assert!(exchange(&mut chips[1], Port::N, &rd, 200).is_some());
    for i in [0, 2] {
        chips[i].settle().unwrap();
        assert_eq!(chips[i].tx_beat(Port::N), None, "chip {i}");
    }
}

#[test]
fn verilator_fatal_errors_are_rust_errors() {
    let ctx = VlContext::new().unwrap();
    // Zero simulation threads is a fatal error inside the Verilator runtime.
    match ctx.set_threads(0) {
        Err(SimError::Verilator { message, .. }) => {
            assert!(message.contains("threads"), "{message}")
        }
        other => panic!("expected a Verilator error, got {other:?}"),
    }
    // The process is still alive and models still work.
    let mut chip = VlChip::new(&ctx, "after_fatal").unwrap();
    reset(&mut chip, 2).unwrap();
    // A poisoned model refuses to run instead of running on from a broken state.
    chip.core_mut().fail("injected");
    assert!(matches!(chip.tick(), Err(SimError::Verilator { .. })));
}
