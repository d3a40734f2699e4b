//! The BAR0 register map: the one place it is written down.
//!
//! BAR0 of the N port is 64 KiB of 32-bit registers, reached by the host with memory
//! reads and writes of 1 DW (the chip answers multi-DW reads with the registers in order,
//! and applies multi-DW writes DW by DW). Unmapped offsets read 0 and ignore writes.
//!
//! | offset              | name             | access | meaning                                                  |
//! |---------------------|------------------|--------|----------------------------------------------------------|
//! | 0x0000              | `ID`             | RO     | [`ID_VALUE`] ("PEC2")                                    |
//! | 0x0004              | `VERSION`        | RO     | [`VERSION_VALUE`]: major in 31:16, minor in 15:0          |
//! | 0x0008              | `NODE_ID`        | RW     | this node's id, bits 5:0                                 |
//! | 0x000C              | `SCRATCH`        | RW     | free for software (link checks)                          |
//! | 0x0100 + 4n         | `ROUTE[n]`       | RW     | n = 0..63: bit 31 valid, bits 1:0 output [`Port`] for node n |
//! | 0x0200 + 0x10t + 0  | `TARGET_LO[t]`   | RW     | t = 0..4 (host, GPU0..3): local base address, bits 31:0   |
//! | 0x0200 + 0x10t + 4  | `TARGET_HI[t]`   | RW     | local base address, bits 63:32                           |
//! | 0x0200 + 0x10t + 8  | `TARGET_CTRL[t]` | RW     | bit 0: window enabled                                    |
//! | 0x0400 + 0x40p + 0  | `PORT_STATUS[p]` | RO     | p = 0..3 (N, E, W, S): see [`port_status`]               |
//! | 0x0400 + 0x40p + 4  | `TLPS_IN[p]`     | RO     | TLPs received (32-bit, wraps)                            |
//! | 0x0400 + 0x40p + 8  | `BYTES_IN[p]`    | RO     | bytes received, headers included (wraps)                 |
//! | 0x0400 + 0x40p + 12 | `TLPS_OUT[p]`    | RO     | TLPs sent                                                |
//! | 0x0400 + 0x40p + 16 | `BYTES_OUT[p]`   | RO     | bytes sent                                               |
//! | 0x0400 + 0x40p + 20 | `DROPS[p]`       | RO     | TLPs dropped at this port's ingress (no window, no route, link down, messages) |
//! | 0x0400 + 0x40p + 24 | `ERRORS[p]`      | RO     | malformed TLPs received (bad fmt/type, length mismatch) |
//! | 0x0400 + 0x40p + 28 | `UR_SENT[p]`     | RO     | Unsupported Request completions sent for requests from this port |
//! | 0x0400 + 0x40p + 32 | `PORT_CONFIG[p]` | RO     | what the partner configured: see [`port_config`]          |
//! | 0x0500              | `CPL_UNEXPECTED` | RO     | completions that matched no outstanding request          |
//! | 0x1000 .. 0x10FF    | DMA global       | RW     | chain limit, completion timeout, MSI: see [`crate::dma`] |
//! | 0x1100 + 0x40c      | DMA channel c    | mixed  | c = 0..3: control, status, count, notification slots: see [`crate::dma`] |
//! | 0x4000 + 0x100s + 4k | `NOTIFY[s][k]`  | RW     | notification store: sender s = 0..63, slot k = 0..63: see [`crate::notify`] |
//! | 0x8000 .. 0xFFFF    | `DESC[0..1023]`  | W      | internal descriptor memory, 32 B per descriptor: see [`crate::dma`] |
//!
//! Ordering: a CSR write is a posted write executed by the chip's internal completer, after
//! the RX stage has already routed the TLPs queued behind it. Software that changes
//! `ROUTE`, `TARGET_*` or `NODE_ID` and then sends traffic that depends on the change must
//! first read any register back (the read's completion returns after the write took
//! effect), as PCIe drivers do to flush posted writes.

/// Size of BAR0 in bytes.
pub const BAR0_SIZE: u64 = 64 * 1024;

/// `ID` register offset.
pub const ID: u32 = 0x0000;
/// Value of the `ID` register: ASCII "PEC2".
pub const ID_VALUE: u32 = 0x5045_4332;
/// `VERSION` register offset.
pub const VERSION: u32 = 0x0004;
/// Value of the `VERSION` register (1.0).
pub const VERSION_VALUE: u32 = 0x0001_0000;
/// `NODE_ID` register offset.
pub const NODE_ID: u32 = 0x0008;
/// `SCRATCH` register offset.
pub const SCRATCH: u32 = 0x000C;

/// Offset of `ROUTE[node]`.
pub const fn route(node: u32) -> u32 {
    0x0100 + 4 * node
}
/// `ROUTE` valid bit.
pub const ROUTE_VALID: u32 = 1 << 31;
const _: () = assert!(route(crate::address::MAX_NODES as u32 - 1) < target_lo(0));

/// Offset of `TARGET_LO[t]`.
pub const fn target_lo(t: u32) -> u32 {
    0x0200 + 0x10 * t
}
/// Offset of `TARGET_HI[t]`: the DW after `TARGET_LO[t]`, so one 64-bit or three-DW
/// write programs a window.
pub const fn target_hi(t: u32) -> u32 {
    target_lo(t) + 4
}
/// Offset of `TARGET_CTRL[t]`: the DW after `TARGET_HI[t]`.
pub const fn target_ctrl(t: u32) -> u32 {
    target_hi(t) + 4
}
/// `TARGET_CTRL` enable bit.
pub const TARGET_ENABLE: u32 = 1;

/// Offset of the per-port register `reg` (one of the `PORT_*` offsets) of port `p`.
pub const fn port_reg(p: Port, reg: u32) -> u32 {
    0x0400 + 0x40 * p.index() + reg
}
/// Per-port register: status.
pub const PORT_STATUS: u32 = 0;
/// Per-port register: TLPs received.
pub const PORT_TLPS_IN: u32 = 4;
/// Per-port register: bytes received.
pub const PORT_BYTES_IN: u32 = 8;
/// Per-port register: TLPs sent.
pub const PORT_TLPS_OUT: u32 = 12;
/// Per-port register: bytes sent.
pub const PORT_BYTES_OUT: u32 = 16;
/// Per-port register: TLPs dropped at ingress.
pub const PORT_DROPS: u32 = 20;
/// Per-port register: malformed TLPs received.
pub const PORT_ERRORS: u32 = 24;
/// Per-port register: UR completions sent for this port's requests.
pub const PORT_UR_SENT: u32 = 28;
/// Per-port register: configuration the partner wrote (endpoint role).
pub const PORT_CONFIG: u32 = 32;
/// `CPL_UNEXPECTED` register offset.
pub const CPL_UNEXPECTED: u32 = 0x0500;

/// The four PCIe ports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Port {
    /// To the host; always an endpoint.
    N,
    /// Ring, endpoint; cabled to the neighbour's W.
    E,
    /// Ring, root complex; cabled to the neighbour's E.
    W,
    /// Joins two rings; RC or EP by strap; cabled S to S.
    S,
}

impl Port {
    /// All ports in index order.
    pub const ALL: [Port; 4] = [Port::N, Port::E, Port::W, Port::S];

    /// Index 0..3 (also the crossbar endpoint index and the `ROUTE` port code).
    pub const fn index(self) -> u32 {
        match self {
            Port::N => 0,
            Port::E => 1,
            Port::W => 2,
            Port::S => 3,
        }
    }

    /// The port of an index 0..3.
    pub fn from_index(i: u32) -> Option<Port> {
        Port::ALL.get(i as usize).copied()
    }

    /// Lower-case name as used in the Verilog port names (`n`, `e`, `w`, `s`).
    pub fn name(self) -> &'static str {
        ["n", "e", "w", "s"][self.index() as usize]
    }
}

/// Fields of `PORT_STATUS`.
pub mod port_status {
    /// Physical link up (from the hard IP).
    pub const LINK_UP: u32 = 1 << 0;
    /// The port plays the root complex role.
    pub const ROLE_RC: u32 = 1 << 1;
    /// Link configured; memory traffic flows.
    pub const READY: u32 = 1 << 2;
    /// Bits 7:4: bring-up state (see `config::LinkState`).
    pub const STATE_SHIFT: u32 = 4;
    /// Bits 11:8: cabling/bring-up error code (see `config::LinkError`).
    pub const ERROR_SHIFT: u32 = 8;
    /// Bits 13:12: port of the partner chip.
    pub const PARTNER_PORT_SHIFT: u32 = 12;
    /// Bits 21:16: node id of the partner chip (valid if `PARTNER_VALID`).
    pub const PARTNER_NODE_SHIFT: u32 = 16;
    /// The partner identified itself.
    pub const PARTNER_VALID: u32 = 1 << 22;
    /// The crossbar output to this port is carrying a packet.
    pub const XBAR_BUSY: u32 = 1 << 23;
    /// Bits 29:24: beats waiting in the port's ingress FIFO.
    pub const FIFO_FILL_SHIFT: u32 = 24;
    /// The bring-up state's field, shifted down.
    pub const STATE_MASK: u32 = 0xF;
    /// The error code's field, shifted down.
    pub const ERROR_MASK: u32 = 0xF;
    /// The partner port's field, shifted down.
    pub const PARTNER_PORT_MASK: u32 = 0x3;
    /// The partner node's field, shifted down.
    pub const PARTNER_NODE_MASK: u32 = 0x3F;
    /// The ingress FIFO's fill, shifted down.
    pub const FIFO_FILL_MASK: u32 = 0x3F;
}
// The partner's node id field holds any node id.
const _: () = assert!(port_status::PARTNER_NODE_MASK as usize + 1 == crate::address::MAX_NODES);

/// Fields of `PORT_CONFIG` (meaningful for ports in the endpoint role).
pub mod port_config {
    /// Memory space enabled by the partner (the host, for N).
    pub const MEMORY: u32 = 1 << 0;
    /// Bus master enabled.
    pub const BUS_MASTER: u32 = 1 << 1;
    /// Bits 6:4: max payload size code (128 << code bytes).
    pub const MAX_PAYLOAD_SHIFT: u32 = 4;
    /// Bits 10:8: max read request size code (128 << code bytes).
    pub const MAX_READ_REQ_SHIFT: u32 = 8;
    /// Bits 31:16: bus/device/function captured from config writes.
    pub const DEVICE_ID_SHIFT: u32 = 16;
}
