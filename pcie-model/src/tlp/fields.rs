//! Enumerated header fields: fmt, the TLP kinds that fmt/type encode, completion
//! status, message routing, attributes (PCIe Base Spec 3.0, §2.2.1-2.2.9).

use std::fmt;
use std::str::FromStr;

use super::error::TlpError;

/// The 3-bit Fmt field (DW0 bits 31:29): header size and whether a payload follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fmt {
    /// 3-DW header, no data (`000`).
    ThreeDwNoData = 0b000,
    /// 4-DW header, no data (`001`).
    FourDwNoData = 0b001,
    /// 3-DW header, with data (`010`).
    ThreeDwData = 0b010,
    /// 4-DW header, with data (`011`).
    FourDwData = 0b011,
    /// TLP prefix (`100`); decoding rejects prefixes, see [`TlpError::PrefixUnsupported`].
    Prefix = 0b100,
}

impl Fmt {
    /// Decodes the 3-bit field; `101`..`111` are reserved.
    pub fn from_bits(bits: u8) -> Result<Fmt, TlpError> {
        match bits {
            0b000 => Ok(Fmt::ThreeDwNoData),
            0b001 => Ok(Fmt::FourDwNoData),
            0b010 => Ok(Fmt::ThreeDwData),
            0b011 => Ok(Fmt::FourDwData),
            0b100 => Ok(Fmt::Prefix),
            _ => Err(TlpError::ReservedFmt { fmt: bits }),
        }
    }

    /// The field's value.
    pub fn bits(self) -> u8 {
        self as u8
    }

    /// Builds the fmt for a header size and data presence.
    pub fn new(four_dw: bool, with_data: bool) -> Fmt {
        match (four_dw, with_data) {
            (false, false) => Fmt::ThreeDwNoData,
            (true, false) => Fmt::FourDwNoData,
            (false, true) => Fmt::ThreeDwData,
            (true, true) => Fmt::FourDwData,
        }
    }

    /// True for the 4-DW header formats.
    pub fn is_four_dw(self) -> bool {
        matches!(self, Fmt::FourDwNoData | Fmt::FourDwData)
    }

    /// True for the formats that carry a payload.
    pub fn has_data(self) -> bool {
        matches!(self, Fmt::ThreeDwData | Fmt::FourDwData)
    }
}

/// What a TLP is, as fmt and type together say (PCIe 3.0 Table 2-3). The address
/// width (3-DW vs 4-DW) is not part of the kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TlpKind {
    /// Memory read request.
    MRd,
    /// Memory read request, locked.
    MRdLk,
    /// Memory write request.
    MWr,
    /// I/O read request.
    IORd,
    /// I/O write request.
    IOWr,
    /// Configuration read, type 0.
    CfgRd0,
    /// Configuration write, type 0.
    CfgWr0,
    /// Configuration read, type 1.
    CfgRd1,
    /// Configuration write, type 1.
    CfgWr1,
    /// Message without data.
    Msg,
    /// Message with data.
    MsgD,
    /// Completion without data.
    Cpl,
    /// Completion with data.
    CplD,
    /// Completion for a locked read, without data.
    CplLk,
    /// Completion for a locked read, with data.
    CplDLk,
    /// AtomicOp fetch-and-add request.
    FetchAdd,
    /// AtomicOp unconditional swap request.
    Swap,
    /// AtomicOp compare-and-swap request.
    Cas,
}

impl TlpKind {
    /// Every kind, in the order of PCIe 3.0 Table 2-3.
    pub const ALL: [TlpKind; 18] = [
        TlpKind::MRd,
        TlpKind::MRdLk,
        TlpKind::MWr,
        TlpKind::IORd,
        TlpKind::IOWr,
        TlpKind::CfgRd0,
        TlpKind::CfgWr0,
        TlpKind::CfgRd1,
        TlpKind::CfgWr1,
        TlpKind::Msg,
        TlpKind::MsgD,
        TlpKind::Cpl,
        TlpKind::CplD,
        TlpKind::CplLk,
        TlpKind::CplDLk,
        TlpKind::FetchAdd,
        TlpKind::Swap,
        TlpKind::Cas,
    ];

    /// The kind that fmt (3 bits) and type (5 bits) encode (PCIe 3.0 Table 2-3), or
    /// `None` for a reserved combination (a TLP prefix's fmt among them).
    pub fn from_fmt_type(fmt: u8, ty: u8) -> Option<TlpKind> {
        use TlpKind::*;
        Some(match (fmt, ty) {
            (0 | 1, 0b00000) => MRd,
            (2 | 3, 0b00000) => MWr,
            (0 | 1, 0b00001) => MRdLk,
            (0, 0b00010) => IORd,
            (2, 0b00010) => IOWr,
            (0, 0b00100) => CfgRd0,
            (2, 0b00100) => CfgWr0,
            (0, 0b00101) => CfgRd1,
            (2, 0b00101) => CfgWr1,
            (0, 0b01010) => Cpl,
            (2, 0b01010) => CplD,
            (0, 0b01011) => CplLk,
            (2, 0b01011) => CplDLk,
            (2 | 3, 0b01100) => FetchAdd,
            (2 | 3, 0b01101) => Swap,
            (2 | 3, 0b01110) => Cas,
            (1, 0b10000..=0b10111) => Msg,
            (3, 0b10000..=0b10111) => MsgD,
            _ => return None,
        })
    }

    /// The spec's mnemonic: `MRd`, `MWr`, `CplD`, `CAS`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            TlpKind::MRd => "MRd",
            TlpKind::MRdLk => "MRdLk",
            TlpKind::MWr => "MWr",
            TlpKind::IORd => "IORd",
            TlpKind::IOWr => "IOWr",
            TlpKind::CfgRd0 => "CfgRd0",
            TlpKind::CfgWr0 => "CfgWr0",
            TlpKind::CfgRd1 => "CfgRd1",
            TlpKind::CfgWr1 => "CfgWr1",
            TlpKind::Msg => "Msg",
            TlpKind::MsgD => "MsgD",
            TlpKind::Cpl => "Cpl",
            TlpKind::CplD => "CplD",
            TlpKind::CplLk => "CplLk",
            TlpKind::CplDLk => "CplDLk",
            TlpKind::FetchAdd => "FetchAdd",
            TlpKind::Swap => "Swap",
            TlpKind::Cas => "CAS",
        }
    }

    /// True for the kinds whose fmt says a payload follows the header.
    pub fn has_data(self) -> bool {
        matches!(
            self,
            TlpKind::MWr
                | TlpKind::IOWr
                | TlpKind::CfgWr0
                | TlpKind::CfgWr1
                | TlpKind::MsgD
                | TlpKind::CplD
                | TlpKind::CplDLk
                | TlpKind::FetchAdd
                | TlpKind::Swap
                | TlpKind::Cas
        )
    }

    /// The flow-control class the kind consumes credits from (PCIe 3.0 §2.6.1).
    pub fn flow_class(self) -> FlowClass {
        match self {
            TlpKind::MWr | TlpKind::Msg | TlpKind::MsgD => FlowClass::Posted,
            TlpKind::Cpl | TlpKind::CplD | TlpKind::CplLk | TlpKind::CplDLk => {
                FlowClass::Completion
            }
            _ => FlowClass::NonPosted,
        }
    }
}

impl fmt::Display for TlpKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for TlpKind {
    type Err = TlpError;

    /// Parses the mnemonic [`TlpKind::as_str`] gives (exact spelling).
    fn from_str(s: &str) -> Result<TlpKind, TlpError> {
        TlpKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| TlpError::UnknownKind(s.to_string()))
    }
}

/// The three flow-control classes: each has its own header and data credits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FlowClass {
    /// Posted requests: MWr, Msg, MsgD.
    Posted,
    /// Non-posted requests: reads, I/O, configuration, AtomicOps.
    NonPosted,
    /// Completions.
    Completion,
}

/// Completion status (DW1 bits 15:13 of a completion; PCIe 3.0 §2.2.9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CplStatus {
    /// Successful Completion (`000`).
    Sc = 0b000,
    /// Unsupported Request (`001`).
    Ur = 0b001,
    /// Configuration Request Retry Status (`010`).
    Crs = 0b010,
    /// Completer Abort (`100`).
    Ca = 0b100,
}

impl CplStatus {
    /// Decodes the 3-bit field; `011`, `101`..`111` are reserved.
    pub fn from_bits(bits: u8) -> Result<CplStatus, TlpError> {
        match bits {
            0b000 => Ok(CplStatus::Sc),
            0b001 => Ok(CplStatus::Ur),
            0b010 => Ok(CplStatus::Crs),
            0b100 => Ok(CplStatus::Ca),
            _ => Err(TlpError::ReservedCplStatus { status: bits }),
        }
    }

    /// The field's value.
    pub fn bits(self) -> u8 {
        self as u8
    }

    /// The spec's abbreviation: `SC`, `UR`, `CRS`, `CA`.
    pub fn as_str(self) -> &'static str {
        match self {
            CplStatus::Sc => "SC",
            CplStatus::Ur => "UR",
            CplStatus::Crs => "CRS",
            CplStatus::Ca => "CA",
        }
    }
}

impl fmt::Display for CplStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for CplStatus {
    type Err = TlpError;

    /// Parses `SC`, `UR`, `CRS` or `CA`.
    fn from_str(s: &str) -> Result<CplStatus, TlpError> {
        [CplStatus::Sc, CplStatus::Ur, CplStatus::Crs, CplStatus::Ca]
            .into_iter()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| TlpError::UnknownCplStatus(s.to_string()))
    }
}

/// Message routing, the `r[2:0]` subfield of a message's type (PCIe 3.0 Table 2-17).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MsgRouting {
    /// `000`: routed to the root complex.
    ToRootComplex = 0b000,
    /// `001`: routed by address (bytes 8..15 hold the address).
    ByAddress = 0b001,
    /// `010`: routed by id (bytes 8..9 hold the target id).
    ById = 0b010,
    /// `011`: broadcast from the root complex.
    Broadcast = 0b011,
    /// `100`: local, terminated at the receiver.
    Local = 0b100,
    /// `101`: gathered and routed to the root complex (PME_TO_Ack).
    Gathered = 0b101,
}

impl MsgRouting {
    /// Decodes `r[2:0]`; `110` and `111` are reserved.
    pub fn from_bits(bits: u8) -> Result<MsgRouting, TlpError> {
        match bits {
            0b000 => Ok(MsgRouting::ToRootComplex),
            0b001 => Ok(MsgRouting::ByAddress),
            0b010 => Ok(MsgRouting::ById),
            0b011 => Ok(MsgRouting::Broadcast),
            0b100 => Ok(MsgRouting::Local),
            0b101 => Ok(MsgRouting::Gathered),
            _ => Err(TlpError::ReservedRouting { routing: bits }),
        }
    }

    /// The subfield's value.
    pub fn bits(self) -> u8 {
        self as u8
    }
}

/// Which AtomicOp a request performs (PCIe 3.0 §2.2.7, types `01100`..`01110`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    /// Fetch and add; one operand of 4 or 8 bytes.
    FetchAdd,
    /// Unconditional swap; one operand of 4 or 8 bytes.
    Swap,
    /// Compare and swap; two operands (compare, swap) of 4, 8 or 16 bytes each.
    Cas,
}

impl AtomicOp {
    /// The kind a request of this op has.
    pub fn kind(self) -> TlpKind {
        match self {
            AtomicOp::FetchAdd => TlpKind::FetchAdd,
            AtomicOp::Swap => TlpKind::Swap,
            AtomicOp::Cas => TlpKind::Cas,
        }
    }

    /// The operand size in bytes for a payload of `payload_len` bytes, or `None`
    /// when the spec has no such size (PCIe 3.0 §2.2.7, AtomicOp length values:
    /// FetchAdd/Swap 1 or 2 DW, CAS 2, 4 or 8 DW).
    pub fn operand_size(self, payload_len: usize) -> Option<usize> {
        match (self, payload_len) {
            (AtomicOp::FetchAdd | AtomicOp::Swap, 4 | 8) => Some(payload_len),
            (AtomicOp::Cas, 8 | 16 | 32) => Some(payload_len / 2),
            _ => None,
        }
    }
}

/// Configuration request type: 0 targets a function on the link, 1 is forwarded by bridges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CfgType {
    /// Type 0.
    Type0,
    /// Type 1.
    Type1,
}

/// The width of the address field in a memory or AtomicOp header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddrWidth {
    /// 3-DW header, `address[31:2]`.
    Bits32,
    /// 4-DW header, `address[63:2]`.
    Bits64,
}

impl AddrWidth {
    /// The width the spec requires for `address`: 64-bit only at or above 4 GiB.
    pub fn for_address(address: u64) -> AddrWidth {
        if address >= 1 << 32 {
            AddrWidth::Bits64
        } else {
            AddrWidth::Bits32
        }
    }
}

/// The Attr field: `Attr[2]` = ID-based ordering, `Attr[1]` = relaxed ordering,
/// `Attr[0]` = no snoop (PCIe 3.0 §2.2.6.3-2.2.6.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Attr {
    /// `Attr[1]`, RO.
    pub relaxed_ordering: bool,
    /// `Attr[0]`, NS.
    pub no_snoop: bool,
    /// `Attr[2]`, IDO.
    pub id_based_ordering: bool,
}

impl Attr {
    /// Packs as `Attr[2:0]`.
    pub fn bits(self) -> u8 {
        u8::from(self.id_based_ordering) << 2
            | u8::from(self.relaxed_ordering) << 1
            | u8::from(self.no_snoop)
    }

    /// Unpacks `Attr[2:0]`; bits above 2 are ignored.
    pub fn from_bits(bits: u8) -> Attr {
        Attr {
            relaxed_ordering: bits & 2 != 0,
            no_snoop: bits & 1 != 0,
            id_based_ordering: bits & 4 != 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_names_round_trip() {
        for k in TlpKind::ALL {
            assert_eq!(k.as_str().parse::<TlpKind>().unwrap(), k);
        }
        assert!("MRD".parse::<TlpKind>().is_err());
    }

    #[test]
    fn status_codes() {
        assert_eq!(CplStatus::from_bits(4).unwrap(), CplStatus::Ca);
        for bad in [3, 5, 6, 7] {
            assert!(CplStatus::from_bits(bad).is_err());
        }
        assert_eq!("CRS".parse::<CplStatus>().unwrap(), CplStatus::Crs);
    }

    #[test]
    fn attr_bits() {
        for b in 0..8 {
            assert_eq!(Attr::from_bits(b).bits(), b);
        }
        assert!(Attr::from_bits(2).relaxed_ordering);
    }
}
