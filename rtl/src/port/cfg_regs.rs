//! A port's config space registers as the layout names them: which register a request's
//! DW number names, and what it reads. The layout is `peach2_regmap::config`'s; the
//! read-only registers are constants here, the writable ones come from `cfg_space`'s
//! registers, so one decode serves both the read and the write. A number the layout does
//! not list reads 0 and names no writable register. Combinational.

use peach2_regmap::address::NODE_BITS;
use peach2_regmap::config::{
    BAR0, BAR2_HI, BAR2_LO, CLASS_REVISION, COMMAND, DEVICE_CONTROL, DEVICE_ID, INFO_PORT_SHIFT,
    MAX_PAYLOAD_BYTES, PARTNER_INFO, PCIE_CAP, PORT_INFO, VENDOR_DEVICE, VENDOR_ID, VSEC_CAP,
};
use rust_hdl::prelude::*;

/// Byte offset of class code / revision (PCI header).
const CLASS_REV: u16 = 0x08;
/// Byte offset of subsystem vendor / subsystem id (PCI header).
const SUBSYSTEM: u16 = 0x2C;
/// Byte offset of the capabilities pointer (PCI header).
const CAP_POINTER: u16 = 0x34;
/// Device capabilities, inside the PCIe capability.
const DEVICE_CAPS: u16 = PCIE_CAP + 0x04;
/// Link capabilities, inside the PCIe capability.
const LINK_CAPS: u16 = PCIE_CAP + 0x0C;
/// Link control (15:0) / link status (31:16), inside the PCIe capability.
const LINK_CONTROL: u16 = PCIE_CAP + 0x10;
/// Vendor-specific capability header (the capability at [`VSEC_CAP`]).
const VSEC_HEADER: u32 = 0x09 | (16 << 16);

/// Status register bit 4 (capabilities list), in the command/status DW.
const STATUS_CAP_LIST: u32 = 1 << 20;
/// PCIe capability: id 0x10, next = the vendor capability, version 2, endpoint (type 0).
const PCIE_CAP_HEADER: u32 = 0x10 | ((VSEC_CAP as u32) << 8) | (2 << 16);
/// Device capabilities: max payload size supported (code `log2(bytes / 128)`).
const DEVICE_CAPS_VALUE: u32 = (MAX_PAYLOAD_BYTES / 128).trailing_zeros();
/// Link speed 5 GT/s (code 2) and width x8, as link capabilities and link status encode them.
const LINK_GEN2_X8: u32 = 2 | (8 << 4);
/// BAR2 low DW, read-only bits: prefetchable (bit 3), 64-bit (bits 2:1 = 10), memory.
const BAR2_LO_FLAGS: u32 = 0b1100;
// `PORT_INFO` and `PARTNER_INFO`: the node id in bits 5:0, the port in bits 9:8.
const _: () = assert!(NODE_BITS == 6 && INFO_PORT_SHIFT == 8);

/// DW register number of a byte offset (the 10 bits ext reg : reg of a config request).
fn reg(offset: u16) -> Constant<Bits<10>> {
    Constant::new(u64::from(offset >> 2).into())
}

fn value(v: u32) -> Constant<Bits<32>> {
    Constant::new(u64::from(v).into())
}

/// The config space's decode and read values.
#[derive(LogicBlock)]
pub struct CfgRegs {
    /// The request's register (DW) number.
    pub index: Signal<In, Bits<10>>,
    /// Command register: memory space enable.
    pub mem_en: Signal<In, Bit>,
    /// Command register: bus master enable.
    pub bus_master_en: Signal<In, Bit>,
    /// BAR0 base address bits 31:16.
    pub bar0: Signal<In, Bits<16>>,
    /// BAR2 base address bits 63:42.
    pub bar2_hi: Signal<In, Bits<22>>,
    /// Device control: max payload size code.
    pub mps: Signal<In, Bits<3>>,
    /// Device control: max read request size code.
    pub mrrs: Signal<In, Bits<3>>,
    /// `PARTNER_INFO`'s node.
    pub partner: Signal<In, Bits<6>>,
    /// `PARTNER_INFO`'s port.
    pub partner_p: Signal<In, Bits<2>>,
    /// `PARTNER_INFO` bit 31.
    pub partner_ok: Signal<In, Bit>,
    /// This node's id (`PORT_INFO` bits 5:0).
    pub node_id: Signal<In, Bits<6>>,
    /// This port's index (`PORT_INFO` bits 9:8).
    pub port_index: Signal<In, Bits<2>>,
    /// The register's value (also the base of a partial write).
    pub rdata: Signal<Out, Bits<32>>,
    /// The number names the command/status register.
    pub at_command: Signal<Out, Bit>,
    /// ... BAR0.
    pub at_bar0: Signal<Out, Bit>,
    /// ... BAR2's high DW.
    pub at_bar2_hi: Signal<Out, Bit>,
    /// ... device control/status.
    pub at_device_control: Signal<Out, Bit>,
    /// ... `PARTNER_INFO`.
    pub at_partner_info: Signal<Out, Bit>,
    r_vendor_device: Constant<Bits<10>>,
    r_command: Constant<Bits<10>>,
    r_class_rev: Constant<Bits<10>>,
    r_bar0: Constant<Bits<10>>,
    r_bar2_lo: Constant<Bits<10>>,
    r_bar2_hi: Constant<Bits<10>>,
    r_subsystem: Constant<Bits<10>>,
    r_cap_pointer: Constant<Bits<10>>,
    r_pcie_cap: Constant<Bits<10>>,
    r_device_caps: Constant<Bits<10>>,
    r_device_control: Constant<Bits<10>>,
    r_link_caps: Constant<Bits<10>>,
    r_link_control: Constant<Bits<10>>,
    r_vsec: Constant<Bits<10>>,
    r_port_info: Constant<Bits<10>>,
    r_partner_info: Constant<Bits<10>>,
    v_identity: Constant<Bits<32>>,
    v_status: Constant<Bits<32>>,
    v_class_rev: Constant<Bits<32>>,
    v_bar2_lo: Constant<Bits<32>>,
    v_cap_pointer: Constant<Bits<32>>,
    v_pcie_cap: Constant<Bits<32>>,
    v_device_caps: Constant<Bits<32>>,
    v_link_caps: Constant<Bits<32>>,
    v_link_status: Constant<Bits<32>>,
    v_vsec: Constant<Bits<32>>,
}

impl Default for CfgRegs {
    fn default() -> Self {
        Self {
            index: Default::default(),
            mem_en: Default::default(),
            bus_master_en: Default::default(),
            bar0: Default::default(),
            bar2_hi: Default::default(),
            mps: Default::default(),
            mrrs: Default::default(),
            partner: Default::default(),
            partner_p: Default::default(),
            partner_ok: Default::default(),
            node_id: Default::default(),
            port_index: Default::default(),
            rdata: Default::default(),
            at_command: Default::default(),
            at_bar0: Default::default(),
            at_bar2_hi: Default::default(),
            at_device_control: Default::default(),
            at_partner_info: Default::default(),
            r_vendor_device: reg(VENDOR_DEVICE),
            r_command: reg(COMMAND),
            r_class_rev: reg(CLASS_REV),
            r_bar0: reg(BAR0),
            r_bar2_lo: reg(BAR2_LO),
            r_bar2_hi: reg(BAR2_HI),
            r_subsystem: reg(SUBSYSTEM),
            r_cap_pointer: reg(CAP_POINTER),
            r_pcie_cap: reg(PCIE_CAP),
            r_device_caps: reg(DEVICE_CAPS),
            r_device_control: reg(DEVICE_CONTROL),
            r_link_caps: reg(LINK_CAPS),
            r_link_control: reg(LINK_CONTROL),
            r_vsec: reg(VSEC_CAP),
            r_port_info: reg(PORT_INFO),
            r_partner_info: reg(PARTNER_INFO),
            v_identity: value((u32::from(DEVICE_ID) << 16) | u32::from(VENDOR_ID)),
            v_status: value(STATUS_CAP_LIST),
            v_class_rev: value(CLASS_REVISION),
            v_bar2_lo: value(BAR2_LO_FLAGS),
            v_cap_pointer: value(u32::from(PCIE_CAP)),
            v_pcie_cap: value(PCIE_CAP_HEADER),
            v_device_caps: value(DEVICE_CAPS_VALUE),
            v_link_caps: value(LINK_GEN2_X8),
            v_link_status: value(LINK_GEN2_X8 << 16),
            v_vsec: value(VSEC_HEADER),
        }
    }
}

impl Logic for CfgRegs {
    #[hdl_gen]
    fn update(&mut self) {
        self.at_command.next = self.index.val() == self.r_command.val();
        self.at_bar0.next = self.index.val() == self.r_bar0.val();
        self.at_bar2_hi.next = self.index.val() == self.r_bar2_hi.val();
        self.at_device_control.next = self.index.val() == self.r_device_control.val();
        self.at_partner_info.next = self.index.val() == self.r_partner_info.val();
        self.rdata.next = 0.into();
        if self.index.val() == self.r_vendor_device.val() {
            self.rdata.next = self.v_identity.val();
        }
        if self.index.val() == self.r_command.val() {
            self.rdata.next = self.v_status.val()
                | (bit_cast::<32, 1>(self.mem_en.val().into()) << 1)
                | (bit_cast::<32, 1>(self.bus_master_en.val().into()) << 2);
        }
        if self.index.val() == self.r_class_rev.val() {
            self.rdata.next = self.v_class_rev.val();
        }
        if self.index.val() == self.r_bar0.val() {
            self.rdata.next = bit_cast::<32, 16>(self.bar0.val()) << 16;
        }
        if self.index.val() == self.r_bar2_lo.val() {
            self.rdata.next = self.v_bar2_lo.val();
        }
        if self.index.val() == self.r_bar2_hi.val() {
            self.rdata.next = bit_cast::<32, 22>(self.bar2_hi.val()) << 10;
        }
        if self.index.val() == self.r_subsystem.val() {
            self.rdata.next = self.v_identity.val();
        }
        if self.index.val() == self.r_cap_pointer.val() {
            self.rdata.next = self.v_cap_pointer.val();
        }
        if self.index.val() == self.r_pcie_cap.val() {
            self.rdata.next = self.v_pcie_cap.val();
        }
        if self.index.val() == self.r_device_caps.val() {
            self.rdata.next = self.v_device_caps.val();
        }
        if self.index.val() == self.r_device_control.val() {
            self.rdata.next = (bit_cast::<32, 3>(self.mps.val()) << 5)
                | (bit_cast::<32, 3>(self.mrrs.val()) << 12);
        }
        if self.index.val() == self.r_link_caps.val() {
            self.rdata.next = self.v_link_caps.val();
        }
        if self.index.val() == self.r_link_control.val() {
            self.rdata.next = self.v_link_status.val();
        }
        if self.index.val() == self.r_vsec.val() {
            self.rdata.next = self.v_vsec.val();
        }
        if self.index.val() == self.r_port_info.val() {
            self.rdata.next = bit_cast::<32, 6>(self.node_id.val())
                | (bit_cast::<32, 2>(self.port_index.val()) << 8);
        }
        if self.index.val() == self.r_partner_info.val() {
            self.rdata.next = bit_cast::<32, 6>(self.partner.val())
                | (bit_cast::<32, 2>(self.partner_p.val()) << 8)
                | (bit_cast::<32, 1>(self.partner_ok.val().into()) << 31);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::Lcg;
    use peach2_regmap::config::{COMMAND_BUS_MASTER, COMMAND_MEMORY, PARTNER_VALID};

    /// The writable registers' state.
    #[derive(Clone, Copy, Debug)]
    struct State {
        mem_en: bool,
        bus_master_en: bool,
        bar0: u32,
        bar2_hi: u32,
        mps: u32,
        mrrs: u32,
        partner: u32,
        partner_p: u32,
        partner_ok: bool,
        node_id: u32,
        port_index: u32,
    }

    /// What the register at byte `offset` reads, as the PCI and PCIe specifications and
    /// the layout say.
    fn reads(offset: u16, st: &State) -> u32 {
        let identity = u32::from(DEVICE_ID) << 16 | u32::from(VENDOR_ID);
        match offset {
            o if o == VENDOR_DEVICE || o == SUBSYSTEM => identity,
            o if o == COMMAND => {
                // Status: capabilities list (bit 4 of the status half).
                0x0010_0000
                    | if st.mem_en { COMMAND_MEMORY } else { 0 }
                    | if st.bus_master_en {
                        COMMAND_BUS_MASTER
                    } else {
                        0
                    }
            }
            o if o == CLASS_REV => CLASS_REVISION,
            o if o == BAR0 => st.bar0 << 16,
            o if o == BAR2_LO => 0xC,
            o if o == BAR2_HI => st.bar2_hi << 10,
            o if o == CAP_POINTER => u32::from(PCIE_CAP),
            o if o == PCIE_CAP => 0x10 | u32::from(VSEC_CAP) << 8 | 2 << 16,
            o if o == DEVICE_CAPS => 1,
            o if o == DEVICE_CONTROL => st.mps << 5 | st.mrrs << 12,
            o if o == LINK_CAPS => 0x82,
            o if o == LINK_CONTROL => 0x82 << 16,
            o if o == VSEC_CAP => 0x0010_0009,
            o if o == PORT_INFO => st.node_id | st.port_index << INFO_PORT_SHIFT,
            o if o == PARTNER_INFO => {
                st.partner
                    | st.partner_p << INFO_PORT_SHIFT
                    | if st.partner_ok { PARTNER_VALID } else { 0 }
            }
            _ => 0,
        }
    }

    /// Every register number, under random states of the writable registers, reads what
    /// the specifications say, and names a writable register exactly where the layout
    /// puts one.
    #[test]
    fn every_register_number_reads_as_the_layout_says() {
        let mut uut = CfgRegs::default();
        uut.connect_all();
        let mut rng = Lcg(0xCF6_4E65);
        let mut nonzero = 0;
        for round in 0..8 {
            let st = State {
                mem_en: rng.chance(0.5),
                bus_master_en: rng.chance(0.5),
                bar0: rng.below(1 << 16) as u32,
                bar2_hi: rng.below(1 << 22) as u32,
                mps: rng.below(8) as u32,
                mrrs: rng.below(8) as u32,
                partner: rng.below(64) as u32,
                partner_p: rng.below(4) as u32,
                partner_ok: rng.chance(0.5),
                node_id: rng.below(64) as u32,
                port_index: rng.below(4) as u32,
            };
            uut.mem_en.next = st.mem_en;
            uut.bus_master_en.next = st.bus_master_en;
            uut.bar0.next = u64::from(st.bar0).into();
            uut.bar2_hi.next = u64::from(st.bar2_hi).into();
            uut.mps.next = u64::from(st.mps).into();
            uut.mrrs.next = u64::from(st.mrrs).into();
            uut.partner.next = u64::from(st.partner).into();
            uut.partner_p.next = u64::from(st.partner_p).into();
            uut.partner_ok.next = st.partner_ok;
            uut.node_id.next = u64::from(st.node_id).into();
            uut.port_index.next = u64::from(st.port_index).into();
            for index in 0..1024u16 {
                uut.index.next = u64::from(index).into();
                assert!(simulate(&mut uut, 100), "settles");
                let offset = index << 2;
                let want = reads(offset, &st);
                nonzero += usize::from(want != 0);
                assert_eq!(
                    uut.rdata.val().to_u64() as u32,
                    want,
                    "round {round}: offset {offset:#x} in {st:x?}"
                );
                let hits = [
                    (uut.at_command.val(), COMMAND),
                    (uut.at_bar0.val(), BAR0),
                    (uut.at_bar2_hi.val(), BAR2_HI),
                    (uut.at_device_control.val(), DEVICE_CONTROL),
                    (uut.at_partner_info.val(), PARTNER_INFO),
                ];
                for (hit, at) in hits {
                    assert_eq!(hit, offset == at, "offset {offset:#x} against {at:#x}");
                }
            }
        }
        assert!(nonzero > 8 * 12, "{nonzero} nonzero reads");
    }

    #[test]
    fn cfg_regs_verilog_lints_clean() {
        let mut uut = CfgRegs::default();
        let v = crate::verilog::export::block_verilog(&mut uut, "port_cfg_regs");
        crate::verilog::checks::lint_verilog(&v, "port_cfg_regs").unwrap();
    }
}
