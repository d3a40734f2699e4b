//! TLP streams inside the chip: one beat of the 128-bit port format per cycle.
//!
//! The beat layout (lanes, `sop`, `eop`, `empty`) is the one documented in
//! `pcie_model::beats`; it is not repeated here. Inside the chip every beat also carries
//! crossbar metadata (`dest`, `src`, `unsupported`), meaningful on the `sop` beat and held
//! for the rest of the packet.

pub mod beat_slot;
pub mod fifo;
pub mod pick;
pub mod reg_fifo;
pub mod skid;

use rust_hdl::prelude::*;

/// Bits of per-beat metadata the FIFOs store beside the data, in this order from bit 0:
/// sop, eop, empty(2), dest(3), src(3), unsupported.
pub(crate) const META_BITS: usize = 11;

/// Crossbar endpoint index of the N port (to the host).
pub const PORT_N: u64 = 0;
/// Crossbar endpoint index of the E port.
pub const PORT_E: u64 = 1;
/// Crossbar endpoint index of the W port.
pub const PORT_W: u64 = 2;
/// Crossbar endpoint index of the S port.
pub const PORT_S: u64 = 3;
/// Crossbar endpoint index of the internal requester/completer (CSRs, DMA, UR replies).
pub const PORT_INTERNAL: u64 = 4;
/// Number of crossbar endpoints.
pub const NUM_ENDPOINTS: usize = 5;

/// Width of the beat data bus.
pub const DATA_BITS: usize = 128;
/// Width of a crossbar endpoint index.
pub const ENDPOINT_BITS: usize = 3;

/// The sending side of a TLP stream (valid/ready handshake, a beat moves when both are 1).
#[derive(LogicInterface, Default)]
#[join = "TlpSink"]
pub struct TlpSource {
    /// Beat data, 4 DW lanes.
    pub data: Signal<Out, Bits<DATA_BITS>>,
    /// First beat of a TLP.
    pub sop: Signal<Out, Bit>,
    /// Last beat of a TLP.
    pub eop: Signal<Out, Bit>,
    /// Unused DW lanes in the `eop` beat.
    pub empty: Signal<Out, Bits<2>>,
    /// Crossbar endpoint the TLP is going to.
    pub dest: Signal<Out, Bits<ENDPOINT_BITS>>,
    /// Crossbar endpoint the TLP came from.
    pub src: Signal<Out, Bits<ENDPOINT_BITS>>,
    /// The TLP is a request the chip cannot serve: the internal completer answers it with
    /// an Unsupported Request completion instead of executing it.
    pub unsupported: Signal<Out, Bit>,
    /// The beat is valid.
    pub valid: Signal<Out, Bit>,
    /// The receiver takes the beat.
    pub ready: Signal<In, Bit>,
}

/// The receiving side of a TLP stream; the mirror of [`TlpSource`].
#[derive(LogicInterface, Default)]
#[join = "TlpSource"]
pub struct TlpSink {
    /// Beat data, 4 DW lanes.
    pub data: Signal<In, Bits<DATA_BITS>>,
    /// First beat of a TLP.
    pub sop: Signal<In, Bit>,
    /// Last beat of a TLP.
    pub eop: Signal<In, Bit>,
    /// Unused DW lanes in the `eop` beat.
    pub empty: Signal<In, Bits<2>>,
    /// Crossbar endpoint the TLP is going to.
    pub dest: Signal<In, Bits<ENDPOINT_BITS>>,
    /// Crossbar endpoint the TLP came from.
    pub src: Signal<In, Bits<ENDPOINT_BITS>>,
    /// See [`TlpSource::unsupported`].
    pub unsupported: Signal<In, Bit>,
    /// The beat is valid.
    pub valid: Signal<In, Bit>,
    /// The receiver takes the beat.
    pub ready: Signal<Out, Bit>,
}

/// The sending side of a port stream: a [`TlpSource`] without chip metadata, as the
/// hard IP's application interface carries it.
#[derive(LogicInterface, Default)]
#[join = "PortSink"]
pub struct PortSource {
    /// Beat data, 4 DW lanes.
    pub data: Signal<Out, Bits<DATA_BITS>>,
    /// First beat of a TLP.
    pub sop: Signal<Out, Bit>,
    /// Last beat of a TLP.
    pub eop: Signal<Out, Bit>,
    /// Unused DW lanes in the `eop` beat.
    pub empty: Signal<Out, Bits<2>>,
    /// The beat is valid.
    pub valid: Signal<Out, Bit>,
    /// The receiver takes the beat.
    pub ready: Signal<In, Bit>,
}

/// The receiving side of a port stream; the mirror of [`PortSource`].
#[derive(LogicInterface, Default)]
#[join = "PortSource"]
pub struct PortSink {
    /// Beat data, 4 DW lanes.
    pub data: Signal<In, Bits<DATA_BITS>>,
    /// First beat of a TLP.
    pub sop: Signal<In, Bit>,
    /// Last beat of a TLP.
    pub eop: Signal<In, Bit>,
    /// Unused DW lanes in the `eop` beat.
    pub empty: Signal<In, Bits<2>>,
    /// The beat is valid.
    pub valid: Signal<In, Bit>,
    /// The receiver takes the beat.
    pub ready: Signal<Out, Bit>,
}

#[cfg(test)]
mod fifo_tests;
