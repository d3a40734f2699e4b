//! The one error type for building, packing and unpacking TLPs.

use thiserror::Error;

/// Why a TLP (built from fields or unpacked from bytes) is not a valid PCIe 3.0 TLP.
/// Every message names the field at fault.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum TlpError {
    /// Fewer bytes than the header (or the length field) needs.
    #[error("truncated TLP: {what} needs {needed} bytes, got {got}")]
    Truncated {
        /// What was being read (e.g. "DW0", "3-DW header").
        what: &'static str,
        /// Bytes needed.
        needed: usize,
        /// Bytes available.
        got: usize,
    },
    /// The byte count is not a whole number of DWs.
    #[error("TLP is {len} bytes, not a whole number of DWs")]
    NotWholeDws {
        /// Byte count given.
        len: usize,
    },
    /// The length field disagrees with the bytes that follow the header.
    #[error("length field says {length_dw} DW of payload{digest}, so the TLP is {expected} bytes, but {got} bytes were given")]
    LengthMismatch {
        /// Payload DWs the length field announces (0 for TLPs without data).
        length_dw: u16,
        /// Text noting a digest DW, if TD=1.
        digest: &'static str,
        /// Total bytes the header implies.
        expected: usize,
        /// Total bytes given.
        got: usize,
    },
    /// Fmt `101`..`111`.
    #[error("fmt {fmt:#05b} is reserved")]
    ReservedFmt {
        /// The fmt field.
        fmt: u8,
    },
    /// A fmt/type pair PCIe 3.0 Table 2-3 does not define.
    #[error(
        "fmt {fmt:#05b} with type {ty:#07b} is a reserved (or deprecated) fmt/type combination"
    )]
    ReservedFmtType {
        /// The fmt field.
        fmt: u8,
        /// The type field.
        ty: u8,
    },
    /// Fmt `100`: a TLP prefix, which this model does not carry.
    #[error("fmt 0b100 (TLP prefix) is not supported: PEACH2's Gen2 ports carry no prefixes")]
    PrefixUnsupported,
    /// A header feature the model deliberately does not carry (TH, AT).
    #[error("{field} = {value} is not supported: {reason}")]
    Unsupported {
        /// Field name.
        field: &'static str,
        /// Its value.
        value: u64,
        /// Why.
        reason: &'static str,
    },
    /// A reserved field holds a nonzero value.
    #[error("reserved field {field} is {value:#x}, must be 0")]
    ReservedBits {
        /// Field name.
        field: &'static str,
        /// Its value.
        value: u64,
    },
    /// Completion status `011` or `101`..`111`.
    #[error("completion status {status:#05b} is reserved")]
    ReservedCplStatus {
        /// The status field.
        status: u8,
    },
    /// Message routing `r[2:0]` `110` or `111`.
    #[error("message routing r[2:0] = {routing:#05b} is reserved")]
    ReservedRouting {
        /// The routing subfield.
        routing: u8,
    },
    /// A field value the spec forbids.
    #[error("{field} = {value:#x} is invalid: {reason}")]
    InvalidField {
        /// Field name.
        field: &'static str,
        /// Its value.
        value: u64,
        /// The rule it breaks.
        reason: &'static str,
    },
    /// A memory request whose address and length cross a 4 KiB boundary (§2.2.7).
    #[error("address {address:#x} with length {length_dw} DW crosses a 4 KiB boundary")]
    Crosses4KiB {
        /// Header address.
        address: u64,
        /// Length in DWs.
        length_dw: u16,
    },
    /// Not one of the kind mnemonics.
    #[error("unknown TLP kind {0:?} (expected one of MRd, MRdLk, MWr, IORd, IOWr, CfgRd0, CfgWr0, CfgRd1, CfgWr1, Msg, MsgD, Cpl, CplD, CplLk, CplDLk, FetchAdd, Swap, CAS)")]
    UnknownKind(String),
    /// Not one of SC, UR, CRS, CA.
    #[error("unknown completion status {0:?} (expected SC, UR, CRS or CA)")]
    UnknownCplStatus(String),
}
