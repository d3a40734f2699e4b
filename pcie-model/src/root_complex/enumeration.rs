//! Enumeration of one type-0 function, as firmware does it: probe the vendor id, check
//! the header type, size every BAR (write all ones, read back the mask) and assign it a
//! naturally aligned base from the 32- or 64-bit MMIO window, find the PCI Express
//! capability and program MPS, MRRS and the RCB, then enable memory space and bus
//! mastering.
//!
//! The [`Enumerator`] is a pure state machine: it says which configuration access to do
//! next and is told the result, so it can be driven by TLPs (the root complex does that)
//! or directly against a [`crate::config_space::ConfigSpace`].

use serde::{Deserialize, Serialize};

use super::AddressRange;
use crate::config_space::{reg, BarKind};
use crate::limits::{MaxPayloadSize, MaxReadRequestSize, Rcb};
use crate::requester::{IssueError, RequestError, RequestOutcome};
use crate::tlp::Bdf;

/// Where BARs go and what the link is programmed to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnumerationPlan {
    /// Window for 32-bit BARs (below 4 GiB).
    pub mmio32: AddressRange,
    /// Window for 64-bit BARs.
    pub mmio64: AddressRange,
    /// Max Payload Size of the root port (the device gets the smaller of this and what
    /// it supports).
    pub max_payload: MaxPayloadSize,
    /// Max Read Request Size programmed into the device.
    pub max_read_request: MaxReadRequestSize,
    /// The root port's read completion boundary, written to the device's Link Control.
    pub rcb: Rcb,
}

/// A BAR as assigned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AssignedBar {
    /// Slot.
    pub index: u8,
    /// Base address written.
    pub base: u64,
    /// Size found by sizing.
    pub size: u64,
    /// 32- or 64-bit.
    pub kind: BarKind,
    /// Prefetchable.
    pub prefetchable: bool,
}

/// What enumeration found and set up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnumeratedDevice {
    /// The function's id.
    pub bdf: Bdf,
    /// Vendor ID.
    pub vendor_id: u16,
    /// Device ID.
    pub device_id: u16,
    /// 24-bit class code.
    pub class_code: u32,
    /// Memory BARs with their bases (I/O BARs are left unassigned).
    pub bars: Vec<AssignedBar>,
    /// Byte offset of the PCI Express capability, if found.
    pub pcie_cap: Option<u16>,
    /// MPS programmed (128 if there is no PCIe capability).
    pub max_payload: MaxPayloadSize,
    /// MRRS programmed (the 512 B default if there is no PCIe capability).
    pub max_read_request: MaxReadRequestSize,
}

impl EnumeratedDevice {
    /// The assigned BAR in slot `index`.
    pub fn bar(&self, index: u8) -> Option<&AssignedBar> {
        self.bars.iter().find(|b| b.index == index)
    }
}

/// One configuration access the enumerator wants done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigOp {
    /// Read DW register `register`.
    Read {
        /// DW register number.
        register: u16,
    },
    /// Write `value` to DW register `register` with `byte_enable`.
    Write {
        /// DW register number.
        register: u16,
        /// Value (byte k in bits 8k+7:8k).
        value: u32,
        /// Byte enables.
        byte_enable: u8,
    },
}

/// What to do next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnumStep {
    /// Perform this access and pass its result to [`Enumerator::advance`].
    Issue(ConfigOp),
    /// Enumeration finished.
    Done(EnumeratedDevice),
}

/// Why enumeration stopped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnumError {
    /// No function answers at the id (UR or vendor id 0xFFFF).
    #[error("no function at {0}")]
    NoDevice(Bdf),
    /// A configuration access failed.
    #[error("config access to register {register:#x} failed: {error}")]
    Access {
        /// Register accessed.
        register: u16,
        /// What went wrong.
        error: RequestError,
    },
    /// The access returned something other than what was asked for.
    #[error("config access to register {register:#x} returned {got:?}")]
    UnexpectedOutcome {
        /// Register accessed.
        register: u16,
        /// Outcome received.
        got: RequestOutcome,
    },
    /// Not a type-0 header.
    #[error("header type {0:#x} is not a type-0 (endpoint) header")]
    HeaderType(u8),
    /// A BAR reads back an impossible value.
    #[error("BAR {index} reads back {value:#x} after sizing")]
    BadBar {
        /// Slot.
        index: u8,
        /// Value read back.
        value: u64,
    },
    /// The MMIO window has no room for a BAR.
    #[error("no room for BAR {index} ({size:#x} bytes) in the MMIO window")]
    WindowExhausted {
        /// Slot.
        index: u8,
        /// Size.
        size: u64,
    },
    /// The capability list does not end.
    #[error("capability list loops or is longer than 48 entries")]
    CapabilityLoop,
    /// A capability pointer into the PCI header.
    #[error("capability pointer {0:#x} points into the PCI header")]
    CapabilityPointer(u8),
    /// A configuration request could not be issued.
    #[error("config request could not be issued: {0}")]
    Issue(IssueError),
    /// A result was given after enumeration ended.
    #[error("enumeration already finished")]
    Finished,
}

#[derive(Debug, Clone, Copy)]
enum State {
    ReadId,
    ReadClass,
    ReadHeaderType,
    DisableDecode,
    BarWriteOnes { slot: u8 },
    BarReadLow { slot: u8 },
    BarWriteOnesHigh { slot: u8, low: u32 },
    BarReadHigh { slot: u8, low: u32 },
    BarWriteBaseLow { bar: AssignedBar },
    BarWriteBaseHigh { bar: AssignedBar },
    ReadCapPtr,
    ReadCap { ptr: u8, hops: u8 },
    ReadDevCaps { cap: u8 },
    ReadDevCtl { cap: u8, mps: MaxPayloadSize },
    WriteDevCtl { cap: u8 },
    ReadLinkCtl { cap: u8 },
    WriteLinkCtl,
    Enable,
    Finished,
}

/// Enumerates one function; see the module documentation.
#[derive(Debug, Clone)]
pub struct Enumerator {
    plan: EnumerationPlan,
    state: State,
    device: EnumeratedDevice,
    next32: u64,
    next64: u64,
}

const ALL_ONES: u32 = 0xffff_ffff;

fn read(register: u16) -> EnumStep {
    EnumStep::Issue(ConfigOp::Read { register })
}

fn write(register: u16, value: u32, byte_enable: u8) -> EnumStep {
    EnumStep::Issue(ConfigOp::Write {
        register,
        value,
        byte_enable,
    })
}

impl Enumerator {
    /// Prepares to enumerate `target` under `plan`.
    pub fn new(target: Bdf, plan: EnumerationPlan) -> Enumerator {
        Enumerator {
            plan,
            state: State::ReadId,
            device: EnumeratedDevice {
                bdf: target,
                vendor_id: 0,
                device_id: 0,
                class_code: 0,
                bars: Vec::new(),
                pcie_cap: None,
                max_payload: MaxPayloadSize::B128,
                max_read_request: MaxReadRequestSize::B512,
            },
            next32: plan.mmio32.base,
            next64: plan.mmio64.base,
        }
    }

    /// The function being enumerated.
    pub fn target(&self) -> Bdf {
        self.device.bdf
    }

    /// The first access.
    pub fn start(&self) -> EnumStep {
        read(reg::ID)
    }

    fn op_register(&self) -> u16 {
        match self.state {
            State::ReadId => reg::ID,
            State::ReadClass => reg::CLASS,
            State::ReadHeaderType => reg::HEADER_TYPE,
            State::DisableDecode | State::Enable => reg::COMMAND_STATUS,
            State::BarWriteOnes { slot } | State::BarReadLow { slot } => {
                reg::BAR0 + u16::from(slot)
            }
            State::BarWriteOnesHigh { slot, .. } | State::BarReadHigh { slot, .. } => {
                reg::BAR0 + u16::from(slot) + 1
            }
            State::BarWriteBaseLow { bar } => reg::BAR0 + u16::from(bar.index),
            State::BarWriteBaseHigh { bar } => reg::BAR0 + u16::from(bar.index) + 1,
            State::ReadCapPtr => reg::CAP_PTR,
            State::ReadCap { ptr, .. } => u16::from(ptr) / 4,
            State::ReadDevCaps { cap } => u16::from(cap) / 4 + 1,
            State::ReadDevCtl { cap, .. } | State::WriteDevCtl { cap } => u16::from(cap) / 4 + 2,
            State::ReadLinkCtl { cap } => u16::from(cap) / 4 + 4,
            State::WriteLinkCtl => self.device.pcie_cap.map_or(0, |c| c / 4 + 4),
            State::Finished => 0,
        }
    }

    /// Takes the result of the last access and returns the next step.
    pub fn advance(
        &mut self,
        result: Result<RequestOutcome, RequestError>,
    ) -> Result<EnumStep, EnumError> {
        if let State::Finished = self.state {
            return Err(EnumError::Finished);
        }
        let register = self.op_register();
        let outcome = match (self.state, result) {
            (State::ReadId, Err(RequestError::UnsupportedRequest)) => {
                self.state = State::Finished;
                return Err(EnumError::NoDevice(self.device.bdf));
            }
            (_, Err(error)) => {
                self.state = State::Finished;
                return Err(EnumError::Access { register, error });
            }
            (_, Ok(o)) => o,
        };
        let value = match outcome {
            RequestOutcome::ConfigRead(v) => Some(v),
            RequestOutcome::ConfigWritten => None,
            got => {
                self.state = State::Finished;
                return Err(EnumError::UnexpectedOutcome { register, got });
            }
        };
        let step = self.next(value);
        if step.is_err() {
            self.state = State::Finished;
        }
        step
    }

    fn next(&mut self, value: Option<u32>) -> Result<EnumStep, EnumError> {
        let v = value.unwrap_or(0);
        match self.state {
            State::ReadId => {
                if v & 0xffff == 0xffff {
                    return Err(EnumError::NoDevice(self.device.bdf));
                }
                self.device.vendor_id = v as u16;
                self.device.device_id = (v >> 16) as u16;
                self.state = State::ReadClass;
                Ok(read(reg::CLASS))
            }
            State::ReadClass => {
                self.device.class_code = v >> 8;
                self.state = State::ReadHeaderType;
                Ok(read(reg::HEADER_TYPE))
            }
            State::ReadHeaderType => {
                let header_type = ((v >> 16) & 0x7f) as u8;
                if header_type != 0 {
                    return Err(EnumError::HeaderType(header_type));
                }
                self.state = State::DisableDecode;
                // Decoding stays off while BARs hold sizing patterns.
                Ok(write(reg::COMMAND_STATUS, 0, 0b0011))
            }
            State::DisableDecode => Ok(self.probe_bar(0)),
            State::BarWriteOnes { slot } => {
                self.state = State::BarReadLow { slot };
                Ok(read(reg::BAR0 + u16::from(slot)))
            }
            State::BarReadLow { slot } => {
                if v == 0 || v & 1 == 1 {
                    // Unimplemented, or an I/O BAR (not supported on this platform).
                    return Ok(self.probe_bar(slot + 1));
                }
                match (v >> 1) & 0b11 {
                    0b00 => self.assign(slot, 0xffff_ffff_0000_0000 | u64::from(v & !0xf), v),
                    0b10 if slot < 5 => {
                        self.state = State::BarWriteOnesHigh { slot, low: v };
                        Ok(write(reg::BAR0 + u16::from(slot) + 1, ALL_ONES, 0xf))
                    }
                    _ => Err(EnumError::BadBar {
                        index: slot,
                        value: u64::from(v),
                    }),
                }
            }
            State::BarWriteOnesHigh { slot, low } => {
                self.state = State::BarReadHigh { slot, low };
                Ok(read(reg::BAR0 + u16::from(slot) + 1))
            }
            State::BarReadHigh { slot, low } => {
                self.assign(slot, u64::from(v) << 32 | u64::from(low & !0xf), low)
            }
            State::BarWriteBaseLow { bar } => {
                if bar.kind == BarKind::Mem64 {
                    self.state = State::BarWriteBaseHigh { bar };
                    Ok(write(
                        reg::BAR0 + u16::from(bar.index) + 1,
                        (bar.base >> 32) as u32,
                        0xf,
                    ))
                } else {
                    Ok(self.probe_bar(bar.index + 1))
                }
            }
            State::BarWriteBaseHigh { bar } => Ok(self.probe_bar(bar.index + 2)),
            State::ReadCapPtr => self.visit_cap((v & 0xfc) as u8, 0),
            State::ReadCap { ptr, hops } => {
                if v & 0xff == u32::from(reg::PCIE_CAP_ID) {
                    self.device.pcie_cap = Some(u16::from(ptr));
                    self.state = State::ReadDevCaps { cap: ptr };
                    Ok(read(u16::from(ptr) / 4 + 1))
                } else {
                    self.visit_cap(((v >> 8) & 0xfc) as u8, hops + 1)
                }
            }
            State::ReadDevCaps { cap } => {
                let supported = MaxPayloadSize::from_encoding((v & 0b111) as u8)
                    .unwrap_or(MaxPayloadSize::B128);
                let mps = supported.min(self.plan.max_payload);
                self.state = State::ReadDevCtl { cap, mps };
                Ok(read(u16::from(cap) / 4 + 2))
            }
            State::ReadDevCtl { cap, mps } => {
                let mrrs = self.plan.max_read_request;
                let ctl = (v & 0xffff & !(0b111 << 5) & !(0b111 << 12))
                    | u32::from(mps.encoding()) << 5
                    | u32::from(mrrs.encoding()) << 12;
                self.device.max_payload = mps;
                self.device.max_read_request = mrrs;
                self.state = State::WriteDevCtl { cap };
                // Only the control half: the status half is write-1-to-clear.
                Ok(write(u16::from(cap) / 4 + 2, ctl, 0b0011))
            }
            State::WriteDevCtl { cap } => {
                self.state = State::ReadLinkCtl { cap };
                Ok(read(u16::from(cap) / 4 + 4))
            }
            State::ReadLinkCtl { cap } => {
                let ctl = (v & 0xffff & !reg::LNKCTL_RCB)
                    | if self.plan.rcb.link_control_bit() {
                        reg::LNKCTL_RCB
                    } else {
                        0
                    };
                self.state = State::WriteLinkCtl;
                Ok(write(u16::from(cap) / 4 + 4, ctl, 0b0011))
            }
            State::WriteLinkCtl => Ok(self.enable()),
            State::Enable => {
                self.state = State::Finished;
                Ok(EnumStep::Done(self.device.clone()))
            }
            State::Finished => Err(EnumError::Finished),
        }
    }

    fn probe_bar(&mut self, slot: u8) -> EnumStep {
        if slot >= 6 {
            self.state = State::ReadCapPtr;
            return read(reg::CAP_PTR);
        }
        self.state = State::BarWriteOnes { slot };
        write(reg::BAR0 + u16::from(slot), ALL_ONES, 0xf)
    }

    fn assign(&mut self, slot: u8, mask: u64, low: u32) -> Result<EnumStep, EnumError> {
        let kind = if (low >> 1) & 0b11 == 0b10 {
            BarKind::Mem64
        } else {
            BarKind::Mem32
        };
        // Address bits that read back 1 give the size: their complement plus one. A
        // 32-bit BAR must have some writable address bit; the mask must be contiguous.
        let size = (!mask).wrapping_add(1);
        let no_bits = mask == 0 || (kind == BarKind::Mem32 && mask as u32 == 0);
        if no_bits || !size.is_power_of_two() || size < 16 {
            return Err(EnumError::BadBar {
                index: slot,
                value: mask,
            });
        }
        let (window, next) = match kind {
            BarKind::Mem32 => (self.plan.mmio32, &mut self.next32),
            BarKind::Mem64 => (self.plan.mmio64, &mut self.next64),
        };
        let base = next
            .checked_next_multiple_of(size)
            .filter(|b| window.contains(*b, size))
            .ok_or(EnumError::WindowExhausted { index: slot, size })?;
        *next = base + size;
        let bar = AssignedBar {
            index: slot,
            base,
            size,
            kind,
            prefetchable: low & 0b1000 != 0,
        };
        self.device.bars.push(bar);
        self.state = State::BarWriteBaseLow { bar };
        Ok(write(reg::BAR0 + u16::from(slot), base as u32, 0xf))
    }

    fn visit_cap(&mut self, ptr: u8, hops: u8) -> Result<EnumStep, EnumError> {
        if ptr == 0 {
            return Ok(self.enable());
        }
        if ptr < 0x40 {
            return Err(EnumError::CapabilityPointer(ptr));
        }
        if hops >= 48 {
            return Err(EnumError::CapabilityLoop);
        }
        self.state = State::ReadCap { ptr, hops };
        Ok(read(u16::from(ptr) / 4))
    }

    fn enable(&mut self) -> EnumStep {
        self.state = State::Enable;
        write(
            reg::COMMAND_STATUS,
            reg::CMD_MEMORY_SPACE | reg::CMD_BUS_MASTER,
            0b0011,
        )
    }
}

#[cfg(test)]
mod tests;
