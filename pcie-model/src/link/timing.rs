//! Wire timing of a PCIe link: how many bytes a TLP and a DLLP occupy on the wire, how
//! long that takes at a given generation and width, how much the Ack/UpdateFC DLLPs
//! cost, and the fixed latency of the hard IPs and the cable, all converted to cycles
//! of the core clock.
//!
//! # Per-TLP wire bytes
//! | part | 8b/10b (Gen1, Gen2) | 128b/130b (Gen3) |
//! |---|---|---|
//! | framing | STP + END symbols: 2 B | STP token: 4 B |
//! | sequence number | 2 B | inside the STP token: 0 B |
//! | header | 12 or 16 B | 12 or 16 B |
//! | payload | 4 x length DW | 4 x length DW |
//! | ECRC (TD = 1) | 4 B | 4 B |
//! | LCRC | 4 B | 4 B |
//!
//! Gen3's 4-byte STP token carries the TLP length, its check bits and the 12-bit sequence
//! number (PCIe 3.0 section 4.2.2.3.2) and there is no END token, so the framing overhead
//! is 8 B per TLP in every generation. A DLLP is 8 B on the wire in both encodings (SDP +
//! 6 B + END, or a 2 B SDP token + 6 B).
//!
//! # Gen2 x8 (the [`LinkTiming::gen2_x8`] preset)
//! 5 GT/s x 8 lanes = 40 Gbit/s of symbols; 8b/10b carries 8 bits in 10, so 4.0 GB/s per
//! direction, 16 bytes per 250 MHz cycle. A MWr with 256 B of payload and a 4-DW header
//! is 256 + 16 + 2 + 4 + 2 = 280 B on the wire: 91.4 % efficiency, 3.66 GB/s of payload
//! before DLLPs, and 17.5 cycles of link time per TLP.
//!
//! # What is not modelled
//! SKP ordered sets (about 0.3 % at Gen2), lane-alignment padding of STP to a 4-lane
//! boundary on x8+ links, replays and NAKs.

use std::num::NonZeroU32;

use serde::{Deserialize, Serialize};

use crate::bandwidth::{Bandwidth, BandwidthGate};
use crate::time::{Clock, Cycles, Picos};
use crate::tlp::Tlp;

/// Bytes of LCRC on every TLP.
pub const LCRC_BYTES: u32 = 4;
/// Bytes of the optional end-to-end CRC (TLP digest, TD = 1).
pub const ECRC_BYTES: u32 = 4;
/// Bytes of one DLLP on the wire, framing included, in every encoding.
pub const DLLP_WIRE_BYTES: u32 = 8;

/// PCIe generation: the per-lane transfer rate and line encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Generation {
    /// 2.5 GT/s, 8b/10b.
    Gen1,
    /// 5.0 GT/s, 8b/10b.
    Gen2,
    /// 8.0 GT/s, 128b/130b.
    Gen3,
}

impl Generation {
    /// Per-lane transfer rate in megatransfers per second.
    pub fn rate_mtps(self) -> u64 {
        match self {
            Generation::Gen1 => 2500,
            Generation::Gen2 => 5000,
            Generation::Gen3 => 8000,
        }
    }

    /// The line encoding this generation uses.
    pub fn encoding(self) -> LineEncoding {
        match self {
            Generation::Gen1 | Generation::Gen2 => LineEncoding::Enc8b10b,
            Generation::Gen3 => LineEncoding::Enc128b130b,
        }
    }

    /// The Link Capabilities / Link Status speed code (1 = 2.5, 2 = 5.0, 3 = 8.0 GT/s).
    pub fn speed_code(self) -> u8 {
        match self {
            Generation::Gen1 => 1,
            Generation::Gen2 => 2,
            Generation::Gen3 => 3,
        }
    }

    /// The generation of a Link Capabilities / Link Status speed code.
    pub fn from_speed_code(code: u8) -> Result<Generation, LinkConfigError> {
        match code {
            1 => Ok(Generation::Gen1),
            2 => Ok(Generation::Gen2),
            3 => Ok(Generation::Gen3),
            _ => Err(LinkConfigError::SpeedCode(code)),
        }
    }
}

/// Line encoding of the physical layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LineEncoding {
    /// 10 line bits per byte (Gen1, Gen2).
    Enc8b10b,
    /// 130 line bits per 16 bytes (Gen3).
    Enc128b130b,
}

impl LineEncoding {
    /// Line bits per byte as a ratio `(numerator, denominator)`: 10/1 or 130/16.
    pub fn line_bits_per_byte(self) -> (u64, u64) {
        match self {
            LineEncoding::Enc8b10b => (10, 1),
            LineEncoding::Enc128b130b => (130, 16),
        }
    }

    /// Framing bytes per TLP: STP + END (2 B) or the Gen3 STP token (4 B).
    pub fn tlp_framing_bytes(self) -> u32 {
        match self {
            LineEncoding::Enc8b10b => 2,
            LineEncoding::Enc128b130b => 4,
        }
    }

    /// Sequence-number bytes per TLP outside the framing: 2 B, or 0 for Gen3 where the
    /// STP token carries it.
    pub fn sequence_bytes(self) -> u32 {
        match self {
            LineEncoding::Enc8b10b => 2,
            LineEncoding::Enc128b130b => 0,
        }
    }
}

/// Negotiated link width: x1, x2, x4, x8, x12, x16 or x32.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct LinkWidth(u8);

impl LinkWidth {
    /// x8, PEACH2's port width.
    pub const X8: LinkWidth = LinkWidth(8);
    /// x16, a GPU's width.
    pub const X16: LinkWidth = LinkWidth(16);

    /// A width of `lanes` lanes.
    pub fn new(lanes: u8) -> Result<LinkWidth, LinkConfigError> {
        match lanes {
            1 | 2 | 4 | 8 | 12 | 16 | 32 => Ok(LinkWidth(lanes)),
            _ => Err(LinkConfigError::Width(lanes)),
        }
    }

    /// Number of lanes.
    pub fn lanes(self) -> u8 {
        self.0
    }
}

impl TryFrom<u8> for LinkWidth {
    type Error = LinkConfigError;
    fn try_from(lanes: u8) -> Result<LinkWidth, LinkConfigError> {
        LinkWidth::new(lanes)
    }
}

impl From<LinkWidth> for u8 {
    fn from(w: LinkWidth) -> u8 {
        w.0
    }
}

/// A bad link parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum LinkConfigError {
    /// Not a PCIe link width.
    #[error("link width must be 1, 2, 4, 8, 12, 16 or 32 lanes, got {0}")]
    Width(u8),
    /// Not a speed code this model knows.
    #[error("link speed code {0} is not 1 (2.5 GT/s), 2 (5 GT/s) or 3 (8 GT/s)")]
    SpeedCode(u8),
}

/// The shape of a TLP as far as wire time goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TlpShape {
    /// True for a 4-DW header, false for 3-DW.
    pub four_dw_header: bool,
    /// Payload length in DWs.
    pub payload_dw: u32,
    /// True if a 4-byte ECRC digest follows (TD = 1).
    pub digest: bool,
}

impl TlpShape {
    /// A TLP without digest carrying `payload_bytes` (rounded up to whole DWs).
    pub fn new(four_dw_header: bool, payload_bytes: u32) -> TlpShape {
        TlpShape {
            four_dw_header,
            payload_dw: payload_bytes.div_ceil(4),
            digest: false,
        }
    }

    /// The shape of `tlp`.
    pub fn of_tlp(tlp: &Tlp) -> TlpShape {
        TlpShape {
            four_dw_header: tlp.header_len_dw() == 4,
            payload_dw: (tlp.payload_len() / 4) as u32,
            digest: tlp.td(),
        }
    }

    /// Header bytes (12 or 16).
    pub fn header_bytes(&self) -> u32 {
        if self.four_dw_header {
            16
        } else {
            12
        }
    }

    /// Payload bytes (4 per DW).
    pub fn payload_bytes(&self) -> u32 {
        self.payload_dw * 4
    }
}

/// Timing parameters of one link (both directions alike).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkTiming {
    /// Generation (rate and encoding).
    pub generation: Generation,
    /// Negotiated width.
    pub width: LinkWidth,
    /// The receiver sends one Ack DLLP per this many TLPs received.
    pub ack_every_tlps: NonZeroU32,
    /// The receiver sends one UpdateFC DLLP per this many TLPs consumed.
    pub update_fc_every_tlps: NonZeroU32,
    /// Transmit-side hard IP latency: application interface to the first symbol on the
    /// wire.
    pub tx_latency: Picos,
    /// Receive-side hard IP latency: last symbol off the wire to the application
    /// interface.
    pub rx_latency: Picos,
    /// Propagation delay of the cable or board trace.
    pub cable_latency: Picos,
    /// The core clock the results are converted to.
    pub clock: Clock,
}

impl LinkTiming {
    /// PEACH2's links: Gen2 x8, 250 MHz core clock.
    ///
    /// Defaults and where they come from:
    /// - Ack every 3 TLPs: the spec's Ack latency timer lets a receiver coalesce Acks over
    ///   "AckFactor" maximum-size TLPs, 1.4 to 3 depending on width and MPS; 3 for x8.
    /// - UpdateFC every 4 TLPs: a model assumption (receivers coalesce credit returns;
    ///   256 B writes return 16 data credits each). Calibration may change it.
    /// - Hard IP TX 100 ns (25 cycles) and RX 120 ns (30 cycles): estimates for a Gen2
    ///   hard IP's transaction, data-link and PHY pipeline; Altera does not publish them
    ///   for Stratix IV, so the calibrated profile sets them against the measured 2.0 us
    ///   node-to-node DMA latency.
    /// - Cable 5 ns: about 1 m of copper at 5 ns/m.
    pub fn gen2_x8() -> LinkTiming {
        LinkTiming {
            generation: Generation::Gen2,
            width: LinkWidth::X8,
            ack_every_tlps: NonZeroU32::new(3).expect("non-zero literal"),
            update_fc_every_tlps: NonZeroU32::new(4).expect("non-zero literal"),
            tx_latency: Picos::from_ns(100),
            rx_latency: Picos::from_ns(120),
            cable_latency: Picos::from_ns(5),
            clock: Clock::CORE_250MHZ,
        }
    }

    /// The line encoding.
    pub fn encoding(&self) -> LineEncoding {
        self.generation.encoding()
    }

    /// Raw data rate per direction in bytes per second, after line encoding.
    pub fn raw_bytes_per_second(&self) -> f64 {
        let (num, den) = self.encoding().line_bits_per_byte();
        self.generation.rate_mtps() as f64 * 1e6 * f64::from(self.width.lanes()) * den as f64
            / num as f64
    }

    /// The exact raw data rate per direction in bytes per core-clock cycle.
    pub fn wire_bandwidth(&self) -> Bandwidth {
        let (num, den) = self.encoding().line_bits_per_byte();
        let bytes = self.generation.rate_mtps() * 1_000_000 * u64::from(self.width.lanes()) * den;
        Bandwidth::new(bytes, num * self.clock.hz()).expect("rate, width and clock are non-zero")
    }

    /// Bytes `shape` occupies on the wire, framing, sequence number and CRCs included.
    pub fn tlp_wire_bytes(&self, shape: &TlpShape) -> u32 {
        let enc = self.encoding();
        enc.tlp_framing_bytes()
            + enc.sequence_bytes()
            + shape.header_bytes()
            + shape.payload_bytes()
            + if shape.digest { ECRC_BYTES } else { 0 }
            + LCRC_BYTES
    }

    /// Time `bytes` take on the wire (rounded up to a picosecond).
    pub fn wire_time(&self, bytes: u64) -> Picos {
        let (num, den) = self.encoding().line_bits_per_byte();
        // bits / (rate * lanes): ps = bytes * num/den * 1e6 / (rate_mtps * lanes)
        let n = bytes as u128 * num as u128 * 1_000_000;
        let d = den as u128 * self.generation.rate_mtps() as u128 * u128::from(self.width.lanes());
        Picos(n.div_ceil(d) as u64)
    }

    /// Whole cycles one TLP of `shape` occupies the link when sent alone (rounded up).
    /// Streams of TLPs should be timed with [`LinkTiming::serializer`], which keeps the
    /// fractions.
    pub fn tlp_cycles(&self, shape: &TlpShape) -> Cycles {
        self.wire_bandwidth()
            .cycles_for(u64::from(self.tlp_wire_bytes(shape)))
    }

    /// A gate that serialises one direction of the link at the raw wire rate: reserve
    /// [`LinkTiming::tlp_wire_bytes`] per TLP and [`DLLP_WIRE_BYTES`] per DLLP.
    pub fn serializer(&self) -> BandwidthGate {
        BandwidthGate::new(self.wire_bandwidth())
    }

    /// Average DLLP bytes the receiver of a TLP stream sends back per TLP (Acks plus
    /// UpdateFCs). They travel in the opposite direction to the TLPs.
    pub fn dllp_bytes_per_tlp(&self) -> f64 {
        f64::from(DLLP_WIRE_BYTES) / f64::from(self.ack_every_tlps.get())
            + f64::from(DLLP_WIRE_BYTES) / f64::from(self.update_fc_every_tlps.get())
    }

    /// Payload bytes divided by wire bytes for a stream of `shape`. With
    /// `with_dllps`, the DLLPs for an equal stream in the other direction share the wire
    /// (the case of symmetric bidirectional traffic).
    pub fn efficiency(&self, shape: &TlpShape, with_dllps: bool) -> f64 {
        let mut wire = f64::from(self.tlp_wire_bytes(shape));
        if with_dllps {
            wire += self.dllp_bytes_per_tlp();
        }
        f64::from(shape.payload_bytes()) / wire
    }

    /// Payload bandwidth per direction in bytes per second for a stream of `shape`.
    pub fn payload_bytes_per_second(&self, shape: &TlpShape, with_dllps: bool) -> f64 {
        self.raw_bytes_per_second() * self.efficiency(shape, with_dllps)
    }

    /// Fixed latency from the sender's application interface to the receiver's, not
    /// counting the time the TLP itself takes on the wire.
    pub fn one_way_latency(&self) -> Picos {
        self.tx_latency + self.cable_latency + self.rx_latency
    }

    /// [`LinkTiming::one_way_latency`] in core-clock cycles (rounded up).
    pub fn latency_cycles(&self) -> Cycles {
        self.clock.cycles_ceil(self.one_way_latency())
    }

    /// A fresh DLLP schedule for the receiving side of one direction.
    pub fn dllp_schedule(&self) -> DllpSchedule {
        DllpSchedule {
            ack_every: self.ack_every_tlps.get(),
            update_fc_every: self.update_fc_every_tlps.get(),
            since_ack: 0,
            since_update_fc: 0,
        }
    }
}

/// The DLLPs a receiver owes after a TLP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DllpsDue {
    /// An Ack DLLP is due.
    pub ack: bool,
    /// An UpdateFC DLLP is due.
    pub update_fc: bool,
}

impl DllpsDue {
    /// Wire bytes of the DLLPs due.
    pub fn wire_bytes(&self) -> u32 {
        DLLP_WIRE_BYTES * (u32::from(self.ack) + u32::from(self.update_fc))
    }
}

/// Counts received TLPs and says when the receiver sends an Ack or UpdateFC (on the
/// opposite direction of the link).
#[derive(Debug, Clone)]
pub struct DllpSchedule {
    ack_every: u32,
    update_fc_every: u32,
    since_ack: u32,
    since_update_fc: u32,
}

impl DllpSchedule {
    /// Records one received TLP and returns the DLLPs due because of it.
    pub fn on_tlp(&mut self) -> DllpsDue {
        self.since_ack += 1;
        self.since_update_fc += 1;
        let mut due = DllpsDue::default();
        if self.since_ack == self.ack_every {
            self.since_ack = 0;
            due.ack = true;
        }
        if self.since_update_fc == self.update_fc_every {
            self.since_update_fc = 0;
            due.update_fc = true;
        }
        due
    }
}

#[cfg(test)]
mod tests;
