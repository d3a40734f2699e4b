//! [`LinkCtrl`] in the endpoint role, driven the way a host enumerates a device, with
//! random idle cycles on `rx` and random backpressure on `tx`; and its Verilog.

use super::link_bench::{Bench, PortConfig};
use super::link_ctrl::LinkCtrl;
use super::test_tlp::{CfgReq, Cpl, CA, SC, UR};
use crate::harness::packet_beats;
use peach2_regmap::config::{LinkError, LinkState};

/// Root port 00:00.0 enumerating the device as 02:00.0.
const HOST: u16 = 0x0000;
const DEV: u16 = 0x0200;

struct Host {
    b: Bench,
    tag: u8,
}

impl Host {
    fn new(seed: u64, p: f64) -> Self {
        let mut b = Bench::new(PortConfig::ep(0, 5), p, p, seed);
        b.set_link(true);
        b.run(3);
        Self { b, tag: 0 }
    }

    fn next_tag(&mut self) -> u8 {
        self.tag = self.tag.wrapping_add(1);
        self.tag
    }

    /// CfgRd0 that must succeed; returns the value. `completer` is the id the completion
    /// must carry.
    fn read(&mut self, offset: u16, completer: u16) -> u32 {
        let tag = self.next_tag();
        let c = self.b.transact(CfgReq::rd0(HOST, tag, DEV, offset));
        assert_eq!(c.status, SC, "read of {offset:#x}: {c:x?}");
        let data = c
            .data
            .unwrap_or_else(|| panic!("read of {offset:#x} without data: {c:x?}"));
        assert_eq!(
            c,
            Cpl::cfg(completer, SC, HOST, tag, Some(data)),
            "read of {offset:#x}"
        );
        data
    }

    /// CfgWr0 that must succeed with a Cpl from the device's new id.
    fn write(&mut self, offset: u16, first_be: u8, value: u32) {
        let tag = self.next_tag();
        let c = self
            .b
            .transact(CfgReq::wr0(HOST, tag, DEV, offset, first_be, value));
        assert_eq!(
            c,
            Cpl::cfg(DEV, SC, HOST, tag, None),
            "write of {offset:#x}"
        );
    }

    /// A request that must be answered by a Cpl with status UR.
    fn unsupported(&mut self, req: CfgReq, completer: u16) {
        let tag = self.next_tag();
        let c = self.b.transact(CfgReq { tag, ..req });
        assert_eq!(
            c,
            Cpl::cfg(completer, UR, req.requester, tag, None),
            "{req:x?}"
        );
    }

    fn ready(&self) -> bool {
        self.b.status().ready
    }
}

fn enumerate(seed: u64, p: f64) {
    let mut h = Host::new(seed, p);
    assert_eq!(h.b.status().state, LinkState::Identify as u8);
    // Identity, before any write: completer id 0 (nothing captured yet).
    assert_eq!(h.read(0x00, 0), 0x5032_1172);
    assert_eq!(h.read(0x08, 0), 0x1180_0001);
    assert_eq!(h.read(0x0C, 0), 0, "header type 0, single function");
    assert_eq!(h.read(0x2C, 0), 0x5032_1172, "subsystem ids");
    assert_eq!(
        h.read(0x04, 0),
        0x0010_0000,
        "status: capabilities list; command 0"
    );

    // BAR sizing; the first write captures the id.
    h.write(0x10, 0xF, 0xFFFF_FFFF);
    assert_eq!(
        h.read(0x10, DEV),
        0xFFFF_0000,
        "BAR0: 64 KiB, 32-bit, non-prefetchable"
    );
    h.write(0x14, 0xF, 0xFFFF_FFFF);
    assert_eq!(h.read(0x14, DEV), 0, "BAR1 not implemented");
    h.write(0x18, 0xF, 0xFFFF_FFFF);
    h.write(0x1C, 0xF, 0xFFFF_FFFF);
    let lo = h.read(0x18, DEV);
    let hi = h.read(0x1C, DEV);
    assert_eq!(
        (lo, hi),
        (0x0000_000C, 0xFFFF_FC00),
        "BAR2: 64-bit prefetchable"
    );
    let mask = (u64::from(hi) << 32) | u64::from(lo & !0xF);
    assert_eq!(!mask + 1, 1 << 42, "BAR2 is 4 TiB");
    assert!(!h.ready());

    // Assign: read-only bits keep their value.
    h.write(0x10, 0xF, 0xF7E1_2345);
    h.write(0x18, 0xF, 0x0000_0000);
    h.write(0x1C, 0xF, 0x0000_3A85);
    assert_eq!(h.read(0x10, DEV), 0xF7E1_0000);
    assert_eq!(h.read(0x18, DEV), 0x0000_000C);
    assert_eq!(h.read(0x1C, DEV), 0x0000_3800);
    // Byte enables: only byte 3 of BAR0 changes.
    h.write(0x10, 0b1000, 0xA0FF_FFFF);
    assert_eq!(h.read(0x10, DEV), 0xA0E1_0000);
    h.write(0x10, 0b1100, 0xF7E1_0000);

    // Capability list: PCIe capability, then the vendor capability.
    assert_eq!(h.read(0x34, DEV) & 0xFF, 0x40);
    let pcie = h.read(0x40, DEV);
    assert_eq!(pcie & 0xFF, 0x10, "PCIe capability id");
    assert_eq!((pcie >> 16) & 0xF, 2, "version 2");
    assert_eq!((pcie >> 20) & 0xF, 0, "endpoint");
    assert_eq!(h.read(0x44, DEV) & 7, 1, "max payload supported 256 B");
    assert_eq!(h.read(0x4C, DEV) & 0x3FF, 0x82, "link caps Gen2 x8");
    assert_eq!(h.read(0x50, DEV) >> 16 & 0x3FF, 0x82, "link status Gen2 x8");
    let next = (pcie >> 8) & 0xFF;
    assert_eq!(next, 0x80);
    assert_eq!(
        h.read(0x80, DEV),
        0x0010_0009,
        "vendor capability, length 16, last"
    );
    assert_eq!(h.read(0x84, DEV), 0x05, "PORT_INFO: node 5, port N");
    h.write(0x84, 0xF, 0xFFFF_FFFF);
    assert_eq!(h.read(0x84, DEV), 0x05, "PORT_INFO is read-only");
    assert_eq!(h.read(0x88, DEV), 0, "PARTNER_INFO reset value");
    assert_eq!(h.read(0x90, DEV), 0, "unlisted register");
    assert_eq!(h.read(0x100, DEV), 0, "extended space: no capabilities");

    // Device control: defaults MPS 128 B, MRRS 512 B; MPS 256 B, MRRS 4 KiB by bytes.
    assert_eq!(h.read(0x48, DEV), 0x0000_2000);
    h.write(0x48, 0xF, 0xFFFF_0030);
    assert_eq!(h.read(0x48, DEV), 0x0000_0020, "only MPS/MRRS are writable");
    h.write(0x48, 0b0010, 0x0000_5000);
    assert_eq!(h.read(0x48, DEV), 0x0000_5020);
    assert_eq!(h.b.status().device_control, (1, 5));

    // Type-1 and other functions are not this device's.
    h.unsupported(
        CfgReq {
            type1: true,
            ..CfgReq::rd0(HOST, 0, DEV, 0)
        },
        DEV,
    );
    h.unsupported(
        CfgReq {
            type1: true,
            ..CfgReq::wr0(HOST, 0, DEV, 0x04, 0xF, 6)
        },
        DEV,
    );
    h.unsupported(CfgReq::rd0(HOST, 0, DEV | 1, 0), DEV);
    h.unsupported(CfgReq::wr0(HOST, 0, DEV | 1, 0x04, 0xF, 6), DEV);
    assert!(!h.ready());

    // Enable memory, then bus master: ready only when both are on; byte 0 only.
    h.write(0x04, 0xF, 0x0000_0002);
    assert!(!h.ready(), "memory space alone is not ready");
    h.write(0x04, 0b1110, 0x0000_0006);
    assert!(!h.ready(), "byte 0 not enabled: nothing written");
    assert_eq!(h.b.status().state, LinkState::Identify as u8);
    h.write(0x04, 0b0001, 0xFFFF_FF06);
    assert_eq!(h.read(0x04, DEV), 0x0010_0006);
    let s = h.b.status();
    assert!(s.ready && s.mem_enable && s.bus_master);
    assert_eq!(s.state, LinkState::Ready as u8);
    assert_eq!(s.error, LinkError::None as u8);
    assert_eq!(s.device_id, DEV);
    assert_eq!(s.bar0_base, 0xF7E1_0000);
    assert_eq!(s.bar2_base_hi, 0x3800 >> 10, "address bits 63:42");
    assert_eq!(s.partner, (0, 0, false), "a host writes no PARTNER_INFO");
    assert!(h.b.mon.packets.is_empty());
}

#[test]
fn ep_answers_a_host_enumeration_under_random_flow_control() {
    enumerate(1, 1.0);
    enumerate(2, 0.5);
    enumerate(3, 0.3);
}

#[test]
fn ep_records_partner_info_written_by_the_rc() {
    let mut h = Host::new(4, 0.7);
    h.write(0x88, 0xF, 0x8000_0206);
    assert_eq!(h.read(0x88, DEV), 0x8000_0206);
    assert_eq!(h.b.status().partner, (6, 2, true));
    h.write(0x88, 0b1000, 0);
    assert_eq!(h.b.status().partner, (6, 2, false));
}

#[test]
fn ep_reports_not_configured_until_configured_and_resets_on_link_down() {
    let mut h = Host::new(5, 0.8);
    let timeout = u64::from(PortConfig::ep(0, 0).ep_timeout);
    h.b.run(timeout - 10);
    assert_eq!(h.b.status().error, LinkError::None as u8);
    h.b.run(20);
    let s = h.b.status();
    assert_eq!(
        (s.state, s.error),
        (LinkState::Identify as u8, LinkError::NotConfigured as u8)
    );
    // The host enumerates late: the error clears.
    h.write(0x04, 0xF, 0x6);
    let s = h.b.status();
    assert!(s.ready);
    assert_eq!(
        (s.state, s.error),
        (LinkState::Ready as u8, LinkError::None as u8)
    );
    // Software disables the port: not ready again, but no cabling error.
    h.write(0x04, 0xF, 0x0);
    let s = h.b.status();
    assert_eq!(
        (s.ready, s.state, s.error),
        (false, LinkState::Identify as u8, 0)
    );
    h.write(0x04, 0xF, 0x6);
    h.write(0x1C, 0xF, 0x400);
    // Link down resets the function.
    h.b.set_link(false);
    h.b.run(2);
    let s = h.b.status();
    assert_eq!(
        (s.ready, s.state, s.error),
        (false, LinkState::Down as u8, 0)
    );
    assert_eq!(
        (s.mem_enable, s.bus_master, s.device_id, s.bar2_base_hi),
        (false, false, 0, 0)
    );
    h.b.set_link(true);
    h.b.run(2);
    assert_eq!(h.read(0x04, 0), 0x0010_0000);
    assert_eq!(h.b.status().state, LinkState::Identify as u8);
}

#[test]
fn ep_drops_and_counts_malformed_requests_and_stray_completions_without_answer() {
    let mut h = Host::new(6, 0.6);
    // Length 2, three beats: consumed to eop, no answer.
    let mut long = CfgReq::wr0(HOST, 9, DEV, 0x04, 0xF, 6).dws();
    long[0] = 0x4400_0002;
    long.extend([0x0600_0000, 1, 2, 3, 4, 5, 6]);
    h.b.drv.push(packet_beats(&long, 0, 0, false));
    // One beat, but last_be set: malformed.
    let mut bad_be = CfgReq::rd0(HOST, 10, DEV, 0).dws();
    bad_be[1] |= 0xF0;
    h.b.drv.push(packet_beats(&bad_be, 0, 0, false));
    // A completion reaching an endpoint: dropped.
    h.b.drv
        .push(Cpl::cfg(0x0100, SC, 0, 1, Some(0x1234)).beats());
    h.b.drv.push(Cpl::cfg(0x0100, CA, 0, 2, None).beats());
    h.b.run(60);
    assert!(
        h.b.mon.packets.is_empty(),
        "answered: {:x?}",
        h.b.mon.packets
    );
    assert_eq!(h.b.drv.pending(), 0);
    assert_eq!(h.b.dropped, 4, "each dropped TLP counted once");
    assert!(
        !h.b.status().mem_enable,
        "the malformed write changed nothing"
    );
    // The next well-formed request is answered.
    assert_eq!(h.read(0x00, 0), 0x5032_1172);
}

#[test]
fn ep_answers_requests_marked_unsupported_with_ur() {
    let mut h = Host::new(7, 1.0);
    let req = CfgReq::wr0(HOST, 1, DEV, 0x04, 0xF, 6);
    let mut beats = req.beats();
    beats[0].unsupported = true;
    h.b.drv.push(beats);
    h.b.run(10);
    let p = h.b.mon.packets.pop_front().expect("an answer");
    assert_eq!(Cpl::from_beats(&p), Cpl::cfg(0, UR, HOST, 1, None));
    assert!(!h.b.status().mem_enable);
}

#[test]
fn link_ctrl_verilog_lints_clean() {
    let mut uut = LinkCtrl::default();
    let v = crate::verilog::export::block_verilog(&mut uut, "link_ctrl");
    crate::verilog::checks::lint_verilog(&v, "link_ctrl").unwrap();
}
