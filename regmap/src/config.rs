//! Config-space identity of PEACH2's endpoint ports, and the link bring-up protocol.
//!
//! Every port in the endpoint role (N always, E always, S when strapped EP) answers type-0
//! config requests with this header. A port in the root-complex role (W always, S when
//! strapped RC) brings its link up by configuring its partner, in this order, each step
//! waiting for a successful completion:
//!
//! 1. `CfgRd0` of [`VENDOR_DEVICE`]: the partner must answer with [`VENDOR_ID`]/[`DEVICE_ID`]
//!    (a UR completion means the partner is a root complex too: [`LinkError::PartnerNotEndpoint`];
//!    other ids: [`LinkError::PartnerNotPeach2`]; no answer: [`LinkError::NoResponse`]).
//! 2. `CfgRd0` of [`PORT_INFO`]: the partner's port must be the one this port may meet
//!    (W meets E, S meets S), else [`LinkError::WrongPartnerPort`].
//! 3. `CfgWr0` of BAR2 (low then high DW) = the global space base ([`crate::address::GLOBAL_BASE`]).
//! 4. `CfgWr0` of [`PARTNER_INFO`] = this chip's node id and port, with the valid bit.
//! 5. `CfgWr0` of the command register: memory space and bus master enabled.
//!
//! Then both sides report `READY`. Node ids are exchanged once, at bring-up: software sets
//! `NODE_ID` before the ring links come up (or takes a link down and up after changing
//! it), else the partner fields of `PORT_STATUS` show the old id. An endpoint whose link is up but which nobody configures
//! within [`EP_CONFIG_TIMEOUT_CYCLES`] reports [`LinkError::NotConfigured`] (two endpoints
//! cabled together); a root-complex port answers every config request with UR (counted in
//! its `UR_SENT`), and one that comes while its bring-up runs fails it with
//! [`LinkError::ConfigInRcRole`] (two root complexes cabled together).
//!
//! Config space layout (byte offsets; DW registers):
//!
//! | offset | register        | value / meaning                                             |
//! |--------|-----------------|-------------------------------------------------------------|
//! | 0x00   | vendor/device   | [`VENDOR_ID`] in 15:0, [`DEVICE_ID`] in 31:16 (RO)          |
//! | 0x04   | command/status  | bit 1 memory space, bit 2 bus master (RW); status bit 4 = capabilities list |
//! | 0x08   | class/revision  | [`CLASS_REVISION`] (RO)                                     |
//! | 0x0C   | header type     | 0 (type-0 header)                                           |
//! | 0x10   | BAR0            | 32-bit memory, 64 KiB: CSRs                                 |
//! | 0x18   | BAR2 (low)      | 64-bit prefetchable memory, 4 TiB: the TCA window           |
//! | 0x1C   | BAR2 (high)     |                                                             |
//! | 0x2C   | subsystem       | same as vendor/device                                       |
//! | 0x34   | capabilities    | [`PCIE_CAP`]                                                |
//! | 0x40   | PCIe capability | id 0x10, version 2, endpoint; next = [`VSEC_CAP`]           |
//! | 0x44   | device caps     | max payload supported 256 B                                 |
//! | 0x48   | device control  | max payload size (7:5), max read request size (14:12), RW   |
//! | 0x4C   | link caps       | Gen2 (2), x8                                                |
//! | 0x50   | link status     | (31:16) current speed Gen2, width x8                        |
//! | 0x80   | vendor cap      | id 0x09 (vendor specific), length 16, next 0 (after the 60-byte PCIe capability) |
//! | 0x84   | `PORT_INFO`     | RO: bits 5:0 this node id, bits 9:8 this port ([`crate::csr::Port`] index) |
//! | 0x88   | `PARTNER_INFO`  | RW: bits 5:0 partner node, bits 9:8 partner port, bit 31 valid |

/// Vendor id answered by PEACH2 ports (Altera, the FPGA vendor, as on the real board).
pub const VENDOR_ID: u16 = 0x1172;
/// Device id answered by PEACH2 ports (project-defined: "P2").
pub const DEVICE_ID: u16 = 0x5032;
/// Byte offset of the vendor/device register.
pub const VENDOR_DEVICE: u16 = 0x00;
/// Byte offset of the command/status register.
pub const COMMAND: u16 = 0x04;
/// Command register: memory space enable.
pub const COMMAND_MEMORY: u32 = 1 << 1;
/// Command register: bus master enable.
pub const COMMAND_BUS_MASTER: u32 = 1 << 2;
/// Class code (0x11 signal processing, 0x80 other) and revision 1.
pub const CLASS_REVISION: u32 = 0x1180_0001;
/// Byte offset of BAR0.
pub const BAR0: u16 = 0x10;
/// Byte offset of BAR2's low DW.
pub const BAR2_LO: u16 = 0x18;
/// Byte offset of BAR2's high DW.
pub const BAR2_HI: u16 = 0x1C;
/// BAR2 size as a power of two: the global space's (4 TiB).
pub const BAR2_SIZE_LOG2: u32 = crate::address::BASE_SHIFT;
/// Byte offset of the PCIe capability.
pub const PCIE_CAP: u16 = 0x40;
/// Byte offset of the device control register (MPS, MRRS).
pub const DEVICE_CONTROL: u16 = 0x48;
/// Max_Payload_Size Supported of every port (device capabilities), in bytes. A TLP with
/// a longer payload is malformed (PCIe 2.0, 2.2.2) and the chip drops it.
pub const MAX_PAYLOAD_BYTES: u32 = 256;
/// Byte offset of the vendor-specific capability.
pub const VSEC_CAP: u16 = 0x80;
/// Byte offset of `PORT_INFO`.
pub const PORT_INFO: u16 = 0x84;
/// Byte offset of `PARTNER_INFO`.
pub const PARTNER_INFO: u16 = 0x88;
/// `PARTNER_INFO` valid bit.
pub const PARTNER_VALID: u32 = 1 << 31;
/// Lowest bit of the port field of `PORT_INFO` and `PARTNER_INFO` (the node id is in the
/// bits below it).
pub const INFO_PORT_SHIFT: u32 = 8;
const _: () = assert!(crate::address::NODE_BITS <= INFO_PORT_SHIFT);

/// Bus number a root-complex port assigns to its partner (the partner captures it from
/// the config write, as PCIe endpoints do).
pub const PARTNER_BUS: u8 = 1;
/// Cycles (250 MHz) an RC port waits for each config completion: 64 us.
pub const CONFIG_TIMEOUT_CYCLES: u32 = 16_384;
/// Cycles an endpoint waits, link up, to be configured before reporting `NotConfigured`: 1 ms.
pub const EP_CONFIG_TIMEOUT_CYCLES: u32 = 250_000;

/// Bring-up state of a port, as in `PORT_STATUS` bits 7:4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LinkState {
    /// Physical link down.
    Down = 0,
    /// RC: reading the partner's identity; EP: waiting to be configured.
    Identify = 1,
    /// RC: writing the partner's BAR, partner info and command register.
    Configure = 2,
    /// Configured: memory traffic flows.
    Ready = 3,
    /// Stopped on an error (see [`LinkError`]); leaves on link down.
    Failed = 4,
}

/// Bring-up / cabling error, as in `PORT_STATUS` bits 11:8.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LinkError {
    /// No error.
    None = 0,
    /// RC: a config request got no completion in time.
    NoResponse = 1,
    /// RC: the partner answered config with UR: it is a root complex too.
    PartnerNotEndpoint = 2,
    /// RC: the partner's vendor/device id is not PEACH2's.
    PartnerNotPeach2 = 3,
    /// RC: the partner is the wrong port (W must meet E, S must meet S).
    WrongPartnerPort = 4,
    /// EP: the link is up but nobody configured this port in time (two endpoints cabled).
    NotConfigured = 5,
    /// RC: a config request arrived: the partner is a root complex too.
    ConfigInRcRole = 6,
}

impl LinkError {
    /// The error of a 4-bit code.
    pub fn from_code(code: u32) -> Option<Self> {
        use LinkError::*;
        [
            None,
            NoResponse,
            PartnerNotEndpoint,
            PartnerNotPeach2,
            WrongPartnerPort,
            NotConfigured,
            ConfigInRcRole,
        ]
        .get(code as usize)
        .copied()
    }
}
