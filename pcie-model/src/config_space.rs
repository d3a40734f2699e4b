//! A type-0 (endpoint) configuration space: the PCI header with memory BARs and the PCI
//! Express capability, accessed by DW register number with byte enables as CfgRd0/CfgWr0
//! do, honouring read-only and write-1-to-clear bits.
//!
//! Layout: the 64-byte type-0 header, then the PCI Express capability (version 2) at
//! 0x40 as the only entry of the capability list. The rest of the 4 KiB space reads 0
//! (an extended capability header of 0 ends the empty extended list) and ignores writes.
//!
//! BAR sizing follows the PCI protocol: software writes all ones, reads back the size
//! mask (address bits below the size read 0, the low four type bits are read-only), then
//! writes the base. A 64-bit BAR takes two consecutive slots, the upper DW second.

use serde::{Deserialize, Serialize};

use crate::limits::{LimitError, MaxPayloadSize, MaxReadRequestSize, Rcb};
use crate::link::timing::{Generation, LinkWidth};

/// Register numbers (DW index) and bits of the registers the model implements.
pub mod reg {
    /// Vendor ID (15:0), Device ID (31:16).
    pub const ID: u16 = 0x00;
    /// Command (15:0), Status (31:16).
    pub const COMMAND_STATUS: u16 = 0x01;
    /// Revision ID (7:0), Class Code (31:8).
    pub const CLASS: u16 = 0x02;
    /// Cache Line Size, Latency Timer, Header Type (23:16), BIST.
    pub const HEADER_TYPE: u16 = 0x03;
    /// BAR0; BARn is `BAR0 + n`.
    pub const BAR0: u16 = 0x04;
    /// Subsystem Vendor ID (15:0), Subsystem ID (31:16).
    pub const SUBSYSTEM: u16 = 0x0b;
    /// Capabilities Pointer (7:0).
    pub const CAP_PTR: u16 = 0x0d;
    /// Interrupt Line (7:0), Interrupt Pin (15:8).
    pub const INTERRUPT: u16 = 0x0f;
    /// PCI Express capability header: ID 0x10 (7:0), next (15:8), capabilities (31:16).
    pub const PCIE_CAP: u16 = 0x10;
    /// Device Capabilities.
    pub const DEVICE_CAPS: u16 = 0x11;
    /// Device Control (15:0), Device Status (31:16).
    pub const DEVICE_CONTROL: u16 = 0x12;
    /// Link Capabilities.
    pub const LINK_CAPS: u16 = 0x13;
    /// Link Control (15:0), Link Status (31:16).
    pub const LINK_CONTROL: u16 = 0x14;
    /// Number of DW registers in the 4 KiB PCIe configuration space.
    pub const COUNT: u16 = 1024;

    /// Command: memory space enable.
    pub const CMD_MEMORY_SPACE: u32 = 1 << 1;
    /// Command: bus master enable.
    pub const CMD_BUS_MASTER: u32 = 1 << 2;
    /// Status (in bits 31:16 of the DW): capabilities list present.
    pub const STATUS_CAP_LIST: u32 = 1 << (16 + 4);
    /// Status: signaled target abort (sent a Completer Abort).
    pub const STATUS_SIGNALED_TARGET_ABORT: u32 = 1 << (16 + 11);
    /// Status: received target abort (got a Completer Abort).
    pub const STATUS_RECEIVED_TARGET_ABORT: u32 = 1 << (16 + 12);
    /// Status: received master abort (got an Unsupported Request).
    pub const STATUS_RECEIVED_MASTER_ABORT: u32 = 1 << (16 + 13);
    /// PCI Express capability ID.
    pub const PCIE_CAP_ID: u8 = 0x10;
    /// Device Status (in bits 31:16 of the DW): Unsupported Request detected.
    pub const DEVSTA_UR_DETECTED: u32 = 1 << (16 + 3);
    /// Link Control: read completion boundary (0: 64 B, 1: 128 B).
    pub const LNKCTL_RCB: u32 = 1 << 3;
}

/// Address decoding and prefetchability of a memory BAR.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BarKind {
    /// 32-bit memory BAR (one slot).
    Mem32,
    /// 64-bit memory BAR (two slots).
    Mem64,
}

/// One memory BAR as the device implements it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BarSpec {
    /// Slot 0..=5 (a 64-bit BAR also uses the next slot).
    pub index: u8,
    /// Size in bytes: a power of two, at least 16.
    pub size: u64,
    /// 32- or 64-bit.
    pub kind: BarKind,
    /// Prefetchable (reads have no side effects).
    pub prefetchable: bool,
}

impl BarSpec {
    fn low_bits(&self) -> u32 {
        let ty = match self.kind {
            BarKind::Mem32 => 0b000,
            BarKind::Mem64 => 0b100,
        };
        ty | if self.prefetchable { 0b1000 } else { 0 }
    }
}

/// What the PCIe capability's Device/Port Type field says (type-0 functions only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndpointType {
    /// PCI Express Endpoint (type 0b0000).
    Endpoint,
    /// Legacy PCI Express Endpoint (type 0b0001), e.g. GPUs that keep I/O semantics.
    LegacyEndpoint,
}

/// The fixed identity and capabilities of a function.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigSpaceSpec {
    /// Vendor ID.
    pub vendor_id: u16,
    /// Device ID.
    pub device_id: u16,
    /// Revision ID.
    pub revision_id: u8,
    /// 24-bit class code (base class, subclass, programming interface).
    pub class_code: u32,
    /// Subsystem vendor ID.
    pub subsystem_vendor_id: u16,
    /// Subsystem ID.
    pub subsystem_id: u16,
    /// Memory BARs.
    pub bars: Vec<BarSpec>,
    /// Device/Port Type.
    pub endpoint_type: EndpointType,
    /// Max Payload Size Supported (Device Capabilities 2:0).
    pub max_payload_supported: MaxPayloadSize,
    /// Extended (8-bit) tags supported.
    pub extended_tag: bool,
    /// Maximum (and trained) link speed.
    pub link_speed: Generation,
    /// Maximum (and negotiated) link width.
    pub link_width: LinkWidth,
}

/// A spec that cannot be built into a config space.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigSpecError {
    /// BAR slot beyond 5, or a 64-bit BAR in slot 5.
    #[error("BAR {index} does not fit in the six BAR slots")]
    BarSlot {
        /// Slot given.
        index: u8,
    },
    /// Two BARs use the same slot.
    #[error("BAR slot {index} is used twice")]
    BarOverlap {
        /// Slot used twice.
        index: u8,
    },
    /// Size not a power of two of at least 16 bytes, or too large for its kind.
    #[error("BAR {index} size {size:#x} must be a power of two, at least 16 bytes, and at most 2 GiB for a 32-bit BAR")]
    BarSize {
        /// Slot.
        index: u8,
        /// Size given.
        size: u64,
    },
    /// Class code wider than 24 bits.
    #[error("class code {0:#x} is wider than 24 bits")]
    ClassCode(u32),
}

/// A config access the model refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ConfigAccessError {
    /// Register number beyond the 4 KiB space.
    #[error("register {0} is beyond the 1024 DWs of PCIe configuration space")]
    Register(u16),
    /// Byte enables wider than 4 bits.
    #[error("byte enables {0:#x} are wider than 4 bits")]
    ByteEnable(u8),
}

/// A decoded memory address: which BAR and the offset into it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BarHit {
    /// BAR slot.
    pub bar: u8,
    /// Offset from the BAR's base.
    pub offset: u64,
}

const HEADER_DWS: usize = 0x20;

/// A type-0 configuration space.
#[derive(Debug, Clone)]
pub struct ConfigSpace {
    spec: ConfigSpaceSpec,
    regs: [u32; HEADER_DWS],
    writable: [u32; HEADER_DWS],
    rw1c: [u32; HEADER_DWS],
}

fn byte_mask(be: u8) -> u32 {
    (0..4)
        .filter(|k| be & (1 << k) != 0)
        .fold(0, |m, k| m | 0xff << (8 * k))
}

impl ConfigSpace {
    /// Builds the power-on config space of `spec`.
    pub fn new(spec: ConfigSpaceSpec) -> Result<ConfigSpace, ConfigSpecError> {
        if spec.class_code > 0xff_ffff {
            return Err(ConfigSpecError::ClassCode(spec.class_code));
        }
        let mut regs = [0u32; HEADER_DWS];
        let mut writable = [0u32; HEADER_DWS];
        let mut rw1c = [0u32; HEADER_DWS];
        let mut used = [false; 6];
        for bar in &spec.bars {
            let slots = match bar.kind {
                BarKind::Mem32 => 1,
                BarKind::Mem64 => 2,
            };
            let i = usize::from(bar.index);
            if i + slots > 6 {
                return Err(ConfigSpecError::BarSlot { index: bar.index });
            }
            let max = match bar.kind {
                BarKind::Mem32 => 1 << 31,
                BarKind::Mem64 => 1 << 63,
            };
            if !bar.size.is_power_of_two() || bar.size < 16 || bar.size > max {
                return Err(ConfigSpecError::BarSize {
                    index: bar.index,
                    size: bar.size,
                });
            }
            for (s, slot_used) in used.iter_mut().enumerate().skip(i).take(slots) {
                if *slot_used {
                    return Err(ConfigSpecError::BarOverlap { index: s as u8 });
                }
                *slot_used = true;
            }
            let r = usize::from(reg::BAR0) + i;
            regs[r] = bar.low_bits();
            writable[r] = !((bar.size - 1) as u32) & !0xf;
            if bar.kind == BarKind::Mem64 {
                writable[r + 1] = !((bar.size - 1) >> 32) as u32;
            }
        }
        regs[reg::ID as usize] = u32::from(spec.device_id) << 16 | u32::from(spec.vendor_id);
        regs[reg::COMMAND_STATUS as usize] = reg::STATUS_CAP_LIST;
        // Memory space, bus master, parity error response, SERR# enable, INTx disable.
        writable[reg::COMMAND_STATUS as usize] = 0b0000_0101_0100_0110;
        // Status error bits 8, 11..=15 are write-1-to-clear.
        rw1c[reg::COMMAND_STATUS as usize] = 0b1111_1001_0000_0000 << 16;
        regs[reg::CLASS as usize] = spec.class_code << 8 | u32::from(spec.revision_id);
        writable[reg::HEADER_TYPE as usize] = 0xff; // cache line size
        regs[reg::SUBSYSTEM as usize] =
            u32::from(spec.subsystem_id) << 16 | u32::from(spec.subsystem_vendor_id);
        regs[reg::CAP_PTR as usize] = u32::from(reg::PCIE_CAP) * 4;
        regs[reg::INTERRUPT as usize] = 0x01 << 8; // INTA
        writable[reg::INTERRUPT as usize] = 0xff; // interrupt line

        let port_type = match spec.endpoint_type {
            EndpointType::Endpoint => 0b0000,
            EndpointType::LegacyEndpoint => 0b0001,
        };
        // Capability version 2, no next capability.
        regs[reg::PCIE_CAP as usize] = (0x2 | port_type << 4) << 16 | u32::from(reg::PCIE_CAP_ID);
        // Role-based error reporting (bit 15) is mandatory since PCIe 1.1.
        regs[reg::DEVICE_CAPS as usize] = u32::from(spec.max_payload_supported.encoding())
            | u32::from(spec.extended_tag) << 5
            | 1 << 15;
        // Device Control defaults: relaxed ordering and no snoop enabled, MPS 128 B,
        // MRRS 512 B (PCIe Base spec register defaults).
        regs[reg::DEVICE_CONTROL as usize] = 1 << 4 | 1 << 11 | 0b010 << 12;
        writable[reg::DEVICE_CONTROL as usize] =
            0xf | 1 << 4 | 0b111 << 5 | u32::from(spec.extended_tag) << 8 | 1 << 11 | 0b111 << 12;
        rw1c[reg::DEVICE_CONTROL as usize] = 0xf << 16;
        let speed = u32::from(spec.link_speed.speed_code());
        let width = u32::from(spec.link_width.lanes());
        regs[reg::LINK_CAPS as usize] = speed | width << 4;
        // Link Status: trained at the maximum speed and width.
        regs[reg::LINK_CONTROL as usize] = (speed | width << 4) << 16;
        // ASPM control, RCB, common clock, extended synch.
        writable[reg::LINK_CONTROL as usize] = 0b11 | reg::LNKCTL_RCB | 1 << 6 | 1 << 7;

        Ok(ConfigSpace {
            spec,
            regs,
            writable,
            rw1c,
        })
    }

    /// The spec the space was built from.
    pub fn spec(&self) -> &ConfigSpaceSpec {
        &self.spec
    }

    fn check_reg(register: u16) -> Result<(), ConfigAccessError> {
        if register >= reg::COUNT {
            Err(ConfigAccessError::Register(register))
        } else {
            Ok(())
        }
    }

    /// Reads DW register `register` (0..=1023). Unimplemented registers read 0.
    pub fn read(&self, register: u16) -> Result<u32, ConfigAccessError> {
        Self::check_reg(register)?;
        Ok(self.regs.get(usize::from(register)).copied().unwrap_or(0))
    }

    /// Writes the bytes of `value` enabled by `byte_enable` (bit k: bits 8k+7:8k) to DW
    /// register `register`. Read-only bits keep their value; write-1-to-clear bits clear
    /// where a 1 is written.
    pub fn write(
        &mut self,
        register: u16,
        value: u32,
        byte_enable: u8,
    ) -> Result<(), ConfigAccessError> {
        Self::check_reg(register)?;
        if byte_enable > 0xf {
            return Err(ConfigAccessError::ByteEnable(byte_enable));
        }
        let r = usize::from(register);
        if r >= HEADER_DWS {
            return Ok(());
        }
        let bytes = byte_mask(byte_enable);
        let set = self.writable[r] & bytes;
        let clear = self.rw1c[r] & bytes & value;
        self.regs[r] = ((self.regs[r] & !set) | (value & set)) & !clear;
        Ok(())
    }

    /// The Command register.
    pub fn command(&self) -> u16 {
        self.regs[reg::COMMAND_STATUS as usize] as u16
    }

    /// The Status register.
    pub fn status(&self) -> u16 {
        (self.regs[reg::COMMAND_STATUS as usize] >> 16) as u16
    }

    /// Command: memory space enable (the function decodes its BARs).
    pub fn memory_space_enabled(&self) -> bool {
        self.regs[reg::COMMAND_STATUS as usize] & reg::CMD_MEMORY_SPACE != 0
    }

    /// Command: bus master enable (the function may issue requests).
    pub fn bus_master_enabled(&self) -> bool {
        self.regs[reg::COMMAND_STATUS as usize] & reg::CMD_BUS_MASTER != 0
    }

    /// Sets Status/Device Status bits the device reports (e.g.
    /// [`reg::STATUS_SIGNALED_TARGET_ABORT`] in the Command/Status DW,
    /// [`reg::DEVSTA_UR_DETECTED`] in the Device Control/Status DW).
    pub fn set_status_bits(&mut self, register: u16, bits: u32) {
        if let Some(r) = self.regs.get_mut(usize::from(register)) {
            *r |= bits & self.rw1c[usize::from(register)];
        }
    }

    /// The BAR spec in slot `index`, if a BAR starts there.
    pub fn bar_spec(&self, index: u8) -> Option<&BarSpec> {
        self.spec.bars.iter().find(|b| b.index == index)
    }

    /// The base address currently programmed into BAR `index`.
    pub fn bar_base(&self, index: u8) -> Option<u64> {
        let bar = self.bar_spec(index)?;
        let r = usize::from(reg::BAR0) + usize::from(index);
        let low = u64::from(self.regs[r] & !0xf);
        Some(match bar.kind {
            BarKind::Mem32 => low,
            BarKind::Mem64 => low | u64::from(self.regs[r + 1]) << 32,
        })
    }

    /// The BAR that decodes all of `[addr, addr + len)` (len 0 counts as 1), if memory
    /// space is enabled.
    pub fn decode(&self, addr: u64, len: u64) -> Option<BarHit> {
        if !self.memory_space_enabled() {
            return None;
        }
        let last = addr.checked_add(len.max(1) - 1)?;
        self.spec.bars.iter().find_map(|bar| {
            let base = self.bar_base(bar.index)?;
            let end = base.checked_add(bar.size - 1)?;
            (addr >= base && last <= end).then(|| BarHit {
                bar: bar.index,
                offset: addr - base,
            })
        })
    }

    /// Device Control: Max Payload Size (an error for the reserved encodings 6 and 7).
    pub fn max_payload_size(&self) -> Result<MaxPayloadSize, LimitError> {
        let code = (self.regs[reg::DEVICE_CONTROL as usize] >> 5) & 0b111;
        MaxPayloadSize::from_encoding(code as u8)
    }

    /// Device Control: Max Read Request Size (an error for reserved encodings).
    pub fn max_read_request_size(&self) -> Result<MaxReadRequestSize, LimitError> {
        let code = (self.regs[reg::DEVICE_CONTROL as usize] >> 12) & 0b111;
        MaxReadRequestSize::from_encoding(code as u8)
    }

    /// Device Control: extended tag field enable (8-bit tags).
    pub fn extended_tag_enabled(&self) -> bool {
        self.regs[reg::DEVICE_CONTROL as usize] & 1 << 8 != 0
    }

    /// Link Control: the read completion boundary of the root port above.
    pub fn rcb(&self) -> Rcb {
        Rcb::from_link_control_bit(self.regs[reg::LINK_CONTROL as usize] & reg::LNKCTL_RCB != 0)
    }
}

#[cfg(test)]
mod tests;
