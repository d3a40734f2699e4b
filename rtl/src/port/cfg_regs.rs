//! A port's config space registers, as the layout (`peach2_regmap::config`) has them:
//! what the register a request's DW number names reads, and what a write changes. The
//! read-only registers are constants; the writable bits take the enabled bytes of a
//! write, the rest of the register keeps its value (one decode serves the read and the
//! write). A number the layout does not list reads 0 and ignores writes.

use crate::csr::byte_mask::ByteMask;
use peach2_regmap::address::NODE_BITS;
use peach2_regmap::config::{
    BAR0, BAR2_HI, BAR2_LO, BAR2_SIZE_LOG2, CLASS_REVISION, COMMAND, DEVICE_CONTROL, DEVICE_ID,
    INFO_PORT_SHIFT, MAX_PAYLOAD_BYTES, PARTNER_INFO, PCIE_CAP, PORT_INFO, VENDOR_DEVICE,
    VENDOR_ID, VSEC_CAP,
};
use peach2_regmap::csr::BAR0_SIZE;
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
/// Vendor and device id, as the identity and the subsystem registers read.
const IDENTITY: u32 = (DEVICE_ID as u32) << 16 | VENDOR_ID as u32;

/// The read-only registers: byte offset, value.
const READ_ONLY: [(u16, u32); 10] = [
    (VENDOR_DEVICE, IDENTITY),
    (CLASS_REV, CLASS_REVISION),
    (BAR2_LO, BAR2_LO_FLAGS),
    (SUBSYSTEM, IDENTITY),
    (CAP_POINTER, PCIE_CAP as u32),
    (PCIE_CAP, PCIE_CAP_HEADER),
    (DEVICE_CAPS, DEVICE_CAPS_VALUE),
    (LINK_CAPS, LINK_GEN2_X8),
    (LINK_CONTROL, LINK_GEN2_X8 << 16),
    (VSEC_CAP, VSEC_HEADER),
];

/// Reset value of max read request size: 512 B (code 2), as PCIe specifies.
const MRRS_DEFAULT: u64 = 0b010;

// The stored BAR widths follow from the BAR sizes.
const _: () = assert!(BAR0_SIZE == 1 << 16, "BAR0 keeps address bits 31:16");
const _: () = assert!(BAR2_SIZE_LOG2 == 42, "BAR2 keeps address bits 63:42");
// `PORT_INFO` and `PARTNER_INFO`: the node id in bits 5:0, the port in bits 9:8.
const _: () = assert!(NODE_BITS == 6 && INFO_PORT_SHIFT == 8);

/// DW register number of a byte offset (the 10 bits ext reg : reg of a config request).
fn reg(offset: u16) -> Constant<Bits<10>> {
    Constant::new(u64::from(offset >> 2).into())
}

fn value(v: u32) -> Constant<Bits<32>> {
    Constant::new(u64::from(v).into())
}

/// The config space's registers.
#[derive(LogicBlock)]
pub struct CfgRegs {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: the registers to their reset values.
    pub reset: Signal<In, Bit>,
    /// The request's register (DW) number.
    pub index: Signal<In, Bits<10>>,
    /// Pulse: a write to register `index` is taken.
    pub write: Signal<In, Bit>,
    /// Its value (register byte order).
    pub value: Signal<In, Bits<32>>,
    /// Its byte enables (`first_be`).
    pub be: Signal<In, Bits<4>>,
    /// What register `index` reads.
    pub rdata: Signal<Out, Bits<32>>,
    /// This node's id (`PORT_INFO` bits 5:0).
    pub node_id: Signal<In, Bits<6>>,
    /// This port's index (`PORT_INFO` bits 9:8).
    pub port_index: Signal<In, Bits<2>>,
    /// Command register: memory space enable.
    pub mem_en: Signal<Out, Bit>,
    /// Command register: bus master enable.
    pub bus_master_en: Signal<Out, Bit>,
    /// BAR0 base address bits 31:16.
    pub bar0: Signal<Out, Bits<16>>,
    /// BAR2 base address bits 63:42.
    pub bar2_hi: Signal<Out, Bits<22>>,
    /// Device control: max payload size code.
    pub mps: Signal<Out, Bits<3>>,
    /// Device control: max read request size code.
    pub mrrs: Signal<Out, Bits<3>>,
    /// `PARTNER_INFO`'s node.
    pub partner: Signal<Out, Bits<6>>,
    /// `PARTNER_INFO`'s port.
    pub partner_p: Signal<Out, Bits<2>>,
    /// `PARTNER_INFO` bit 31 (the partner's fields are valid).
    pub partner_ok: Signal<Out, Bit>,
    /// Command register: memory space enable.
    q_mem_en: DFF<Bit>,
    /// Command register: bus master enable.
    q_bus_master_en: DFF<Bit>,
    /// BAR0 base address bits 31:16.
    q_bar0: DFF<Bits<16>>,
    /// BAR2 base address bits 63:42.
    q_bar2_hi: DFF<Bits<22>>,
    /// Device control: max payload size code.
    q_mps: DFF<Bits<3>>,
    /// Device control: max read request size code.
    q_mrrs: DFF<Bits<3>>,
    /// `PARTNER_INFO`'s node.
    q_partner: DFF<Bits<6>>,
    /// `PARTNER_INFO`'s port.
    q_partner_p: DFF<Bits<2>>,
    /// `PARTNER_INFO` bit 31.
    q_partner_ok: DFF<Bit>,
    /// The byte enables as a bit mask.
    be_mask: ByteMask,
    /// The register after the write: enabled bytes from the value, the rest kept.
    merged: Signal<Local, Bits<32>>,
    /// The max read request size code at reset: 2, 512 bytes, as PCIe specifies.
    mrrs_default: Constant<Bits<3>>,
    /// The read-only registers' numbers (`READ_ONLY`)...
    ro_at: [Constant<Bits<10>>; READ_ONLY.len()],
    /// ...and values.
    ro_value: [Constant<Bits<32>>; READ_ONLY.len()],
    /// The DW number of the command/status register.
    r_command: Constant<Bits<10>>,
    /// The DW number of BAR0.
    r_bar0: Constant<Bits<10>>,
    /// The DW number of BAR2's high DW.
    r_bar2_hi: Constant<Bits<10>>,
    /// The DW number of the device control register (MPS, MRRS).
    r_device_control: Constant<Bits<10>>,
    /// The DW number of `PORT_INFO`.
    r_port_info: Constant<Bits<10>>,
    /// The DW number of `PARTNER_INFO`.
    r_partner_info: Constant<Bits<10>>,
    /// The status half of the command/status DW: its capabilities-list bit, read-only.
    v_status: Constant<Bits<32>>,
}

impl Default for CfgRegs {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            index: Default::default(),
            write: Default::default(),
            value: Default::default(),
            be: Default::default(),
            rdata: Default::default(),
            node_id: Default::default(),
            port_index: Default::default(),
            mem_en: Default::default(),
            bus_master_en: Default::default(),
            bar0: Default::default(),
            bar2_hi: Default::default(),
            mps: Default::default(),
            mrrs: Default::default(),
            partner: Default::default(),
            partner_p: Default::default(),
            partner_ok: Default::default(),
            q_mem_en: Default::default(),
            q_bus_master_en: Default::default(),
            q_bar0: Default::default(),
            q_bar2_hi: Default::default(),
            q_mps: Default::default(),
            q_mrrs: Default::default(),
            q_partner: Default::default(),
            q_partner_p: Default::default(),
            q_partner_ok: Default::default(),
            be_mask: Default::default(),
            merged: Default::default(),
            mrrs_default: Constant::new(MRRS_DEFAULT.into()),
            ro_at: array_init::array_init(|k| reg(READ_ONLY[k].0)),
            ro_value: array_init::array_init(|k| value(READ_ONLY[k].1)),
            r_command: reg(COMMAND),
            r_bar0: reg(BAR0),
            r_bar2_hi: reg(BAR2_HI),
            r_device_control: reg(DEVICE_CONTROL),
            r_port_info: reg(PORT_INFO),
            r_partner_info: reg(PARTNER_INFO),
            v_status: value(STATUS_CAP_LIST),
        }
    }
}

impl Logic for CfgRegs {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            q_mem_en,
            q_bus_master_en,
            q_bar0,
            q_bar2_hi,
            q_mps,
            q_mrrs,
            q_partner,
            q_partner_p,
            q_partner_ok
        );
        self.mem_en.next = self.q_mem_en.q.val();
        self.bus_master_en.next = self.q_bus_master_en.q.val();
        self.bar0.next = self.q_bar0.q.val();
        self.bar2_hi.next = self.q_bar2_hi.q.val();
        self.mps.next = self.q_mps.q.val();
        self.mrrs.next = self.q_mrrs.q.val();
        self.partner.next = self.q_partner.q.val();
        self.partner_p.next = self.q_partner_p.q.val();
        self.partner_ok.next = self.q_partner_ok.q.val();

        self.rdata.next = 0.into();
        for k in 0..READ_ONLY.len() {
            if self.index.val() == self.ro_at[k].val() {
                self.rdata.next = self.ro_value[k].val();
            }
        }
        if self.index.val() == self.r_command.val() {
            self.rdata.next = self.v_status.val()
                | (bit_cast::<32, 1>(self.q_mem_en.q.val().into()) << 1)
                | (bit_cast::<32, 1>(self.q_bus_master_en.q.val().into()) << 2);
        }
        if self.index.val() == self.r_bar0.val() {
            self.rdata.next = bit_cast::<32, 16>(self.q_bar0.q.val()) << 16;
        }
        if self.index.val() == self.r_bar2_hi.val() {
            self.rdata.next = bit_cast::<32, 22>(self.q_bar2_hi.q.val()) << 10;
        }
        if self.index.val() == self.r_device_control.val() {
            self.rdata.next = (bit_cast::<32, 3>(self.q_mps.q.val()) << 5)
                | (bit_cast::<32, 3>(self.q_mrrs.q.val()) << 12);
        }
        if self.index.val() == self.r_port_info.val() {
            self.rdata.next = bit_cast::<32, 6>(self.node_id.val())
                | (bit_cast::<32, 2>(self.port_index.val()) << 8);
        }
        if self.index.val() == self.r_partner_info.val() {
            self.rdata.next = bit_cast::<32, 6>(self.q_partner.q.val())
                | (bit_cast::<32, 2>(self.q_partner_p.q.val()) << 8)
                | (bit_cast::<32, 1>(self.q_partner_ok.q.val().into()) << 31);
        }

        // Writable bits only: the read-only ones are rebuilt from constants on read.
        self.be_mask.be.next = self.be.val();
        self.merged.next = (self.value.val() & self.be_mask.mask.val())
            | (self.rdata.val() & !self.be_mask.mask.val());
        if self.write.val() {
            if self.index.val() == self.r_command.val() {
                self.q_mem_en.d.next = self.merged.val().get_bit(1);
                self.q_bus_master_en.d.next = self.merged.val().get_bit(2);
            }
            if self.index.val() == self.r_bar0.val() {
                self.q_bar0.d.next = self.merged.val().get_bits::<16>(16);
            }
            if self.index.val() == self.r_bar2_hi.val() {
                self.q_bar2_hi.d.next = self.merged.val().get_bits::<22>(10);
            }
            if self.index.val() == self.r_device_control.val() {
                self.q_mps.d.next = self.merged.val().get_bits::<3>(5);
                self.q_mrrs.d.next = self.merged.val().get_bits::<3>(12);
            }
            if self.index.val() == self.r_partner_info.val() {
                self.q_partner.d.next = self.merged.val().get_bits::<6>(0);
                self.q_partner_p.d.next = self.merged.val().get_bits::<2>(8);
                self.q_partner_ok.d.next = self.merged.val().get_bit(31);
            }
        }
        if self.reset.val() {
            self.q_mem_en.d.next = false;
            self.q_bus_master_en.d.next = false;
            self.q_bar0.d.next = 0.into();
            self.q_bar2_hi.d.next = 0.into();
            self.q_mps.d.next = 0.into();
            self.q_mrrs.d.next = self.mrrs_default.val();
            self.q_partner.d.next = 0.into();
            self.q_partner_p.d.next = 0.into();
            self.q_partner_ok.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{byte_mask, Lcg, Stepper};
    use peach2_regmap::config::{COMMAND_BUS_MASTER, COMMAND_MEMORY, PARTNER_VALID};

    /// The writable registers' state.
    #[derive(Clone, Copy, Debug, Default, PartialEq)]
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
    }

    const RESET: State = State {
        mem_en: false,
        bus_master_en: false,
        bar0: 0,
        bar2_hi: 0,
        mps: 0,
        mrrs: 2,
        partner: 0,
        partner_p: 0,
        partner_ok: false,
    };

    /// What the register at byte `offset` reads, as the PCI and PCIe specifications and
    /// the layout say.
    fn reads(offset: u16, st: &State, node: u32, port: u32) -> u32 {
        let identity = u32::from(DEVICE_ID) << 16 | u32::from(VENDOR_ID);
        let bit = |b: bool, v: u32| if b { v } else { 0 };
        match offset {
            o if o == VENDOR_DEVICE || o == SUBSYSTEM => identity,
            // Status: capabilities list (bit 4 of the status half).
            o if o == COMMAND => {
                0x0010_0000
                    | bit(st.mem_en, COMMAND_MEMORY)
                    | bit(st.bus_master_en, COMMAND_BUS_MASTER)
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
            o if o == PORT_INFO => node | port << INFO_PORT_SHIFT,
            o if o == PARTNER_INFO => {
                st.partner | st.partner_p << INFO_PORT_SHIFT | bit(st.partner_ok, PARTNER_VALID)
            }
            _ => 0,
        }
    }

    /// The state after a write of `value` with byte enables `be` to `offset`: the
    /// enabled bytes of the writable fields change.
    fn written(st: State, offset: u16, value: u32, be: u64, node: u32, port: u32) -> State {
        let mask = byte_mask(be);
        let v = value & mask | reads(offset, &st, node, port) & !mask;
        let mut st = st;
        match offset {
            o if o == COMMAND => {
                st.mem_en = v & COMMAND_MEMORY != 0;
                st.bus_master_en = v & COMMAND_BUS_MASTER != 0;
            }
            o if o == BAR0 => st.bar0 = v >> 16,
            o if o == BAR2_HI => st.bar2_hi = v >> 10,
            o if o == DEVICE_CONTROL => {
                st.mps = v >> 5 & 7;
                st.mrrs = v >> 12 & 7;
            }
            o if o == PARTNER_INFO => {
                st.partner = v & 0x3F;
                st.partner_p = v >> INFO_PORT_SHIFT & 3;
                st.partner_ok = v & PARTNER_VALID != 0;
            }
            _ => {}
        }
        st
    }

    /// Random reads of every register number and random writes (mostly to the listed
    /// registers, random byte enables), with random resets, against the model: every read,
    /// and the register outputs after every cycle.
    #[test]
    fn registers_read_and_take_writes_as_the_layout_says() {
        let mut s = Stepper::new(CfgRegs::default(), |b| &mut b.clock);
        let mut rng = Lcg(0xCF6_4E65);
        let listed: Vec<u16> = READ_ONLY
            .iter()
            .map(|r| r.0)
            .chain([
                COMMAND,
                BAR0,
                BAR2_HI,
                DEVICE_CONTROL,
                PORT_INFO,
                PARTNER_INFO,
            ])
            .collect();
        let mut st = RESET;
        let (mut writes, mut nonzero) = (0, 0);
        s.uut.reset.next = true;
        s.tick();
        for cycle in 0..20_000 {
            let (node, port) = (rng.below(64) as u32, rng.below(4) as u32);
            let offset = if rng.chance(0.8) {
                listed[rng.below(listed.len() as u64) as usize]
            } else {
                (rng.below(1024) << 2) as u16
            };
            let write = rng.chance(0.4);
            let (value, be) = (rng.next_u64() as u32, rng.below(16));
            let reset = rng.chance(0.002);
            let u = &mut s.uut;
            u.reset.next = reset;
            u.index.next = u64::from(offset >> 2).into();
            u.write.next = write;
            u.value.next = u64::from(value).into();
            u.be.next = be.into();
            u.node_id.next = u64::from(node).into();
            u.port_index.next = u64::from(port).into();
            s.settle();
            let u = &s.uut;
            let want = reads(offset, &st, node, port);
            assert_eq!(
                u.rdata.val().to_u64() as u32,
                want,
                "cycle {cycle}: offset {offset:#x} in {st:x?}"
            );
            let outputs = (
                u.mem_en.val(),
                u.bus_master_en.val(),
                u.bar0.val().to_u64() as u32,
                u.bar2_hi.val().to_u64() as u32,
                u.mps.val().to_u64() as u32,
                u.mrrs.val().to_u64() as u32,
                u.partner.val().to_u64() as u32,
                u.partner_p.val().to_u64() as u32,
                u.partner_ok.val(),
            );
            let model = (
                st.mem_en,
                st.bus_master_en,
                st.bar0,
                st.bar2_hi,
                st.mps,
                st.mrrs,
                st.partner,
                st.partner_p,
                st.partner_ok,
            );
            assert_eq!(outputs, model, "cycle {cycle}: registers");
            nonzero += usize::from(want != 0);
            if reset {
                st = RESET;
            } else if write {
                let next = written(st, offset, value, be, node, port);
                writes += usize::from(next != st);
                st = next;
            }
            s.tick();
        }
        assert!(
            writes > 1_000 && nonzero > 5_000,
            "{writes} changes, {nonzero} reads"
        );
    }

    #[test]
    fn cfg_regs_verilog_lints_clean() {
        let mut uut = CfgRegs::default();
        let v = crate::verilog::export::block_verilog(&mut uut, "port_cfg_regs");
        crate::verilog::checks::lint_verilog(&v, "port_cfg_regs").unwrap();
    }
}
