//! Transaction Layer Packets, bit-exact to PCIe Base Specification 3.0 (§2.2).
//!
//! A [`Tlp`] is always valid: it is only built by constructors that check the spec's
//! rules ([`Tlp::from_parts`], the convenience constructors in `constructors`, and
//! [`Tlp::from_bytes`]), so [`Tlp::to_bytes`] cannot fail.
//!
//! Decisions where the spec leaves room (all enforced the same way when building
//! and when unpacking):
//! - Reserved header bits must be zero; a nonzero one is a [`TlpError::ReservedBits`]
//!   naming the field. The spec asks receivers to ignore them, but this model is
//!   also a checker, and `from_bytes(x).to_bytes() == x` must hold for every
//!   accepted `x`. The length field of Cpl, CplLk and Msg (no data) is reserved.
//! - A 4-DW memory or AtomicOp header with an address below 4 GiB is accepted and
//!   kept 4-DW (§2.2.4.1 says requesters must use the 3-DW form there but leaves
//!   the receiver's behaviour unspecified; real devices emit it). Constructors
//!   always pick the 3-DW form below 4 GiB. A 3-DW header cannot hold an address
//!   at or above 4 GiB.
//! - TLP prefixes (fmt `100`), TH = 1 (processing hints) and AT != 0 (address
//!   translation) are rejected as unsupported: PEACH2's Gen2 ports use none of them.
//! - The ECRC digest (TD = 1) is carried as an opaque big-endian DW, not checked.
//! - TCfgRd/TCfgWr (type `11011`) are deprecated and rejected as reserved.

mod constructors;
mod error;
mod fields;
mod header;
pub mod hex;
mod ids;
mod json;
mod json_read;
mod validate;
mod wire;

pub use error::TlpError;
pub use fields::{
    AddrWidth, AtomicOp, Attr, CfgType, CplStatus, FlowClass, Fmt, MsgRouting, TlpKind,
};
pub use header::{AtomicRequest, CfgRequest, Completion, Header, IoRequest, MemRequest, Message};
pub use ids::{Addr, Bdf, CompleterId, RequesterId, Tag};
pub use json::JsonError;
pub use validate::check_byte_enables;

/// The largest payload a TLP can carry: 1024 DWs.
pub const MAX_PAYLOAD_BYTES: usize = 4096;

/// DW0 fields every TLP has, apart from fmt, type and length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Common {
    /// Traffic class, 0..=7.
    pub tc: u8,
    /// Ordering and snoop attributes.
    pub attr: Attr,
    /// EP: the payload is poisoned.
    pub ep: bool,
    /// The ECRC digest DW when TD = 1 (as a big-endian DW on the wire), else `None`.
    pub digest: Option<u32>,
}

/// One valid TLP: header, payload (whole DWs, wire order) and optional digest.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Tlp {
    header: Header,
    common: Common,
    payload: Vec<u8>,
}

impl Tlp {
    /// Builds a TLP with TC 0, no attributes, not poisoned, no digest.
    pub fn new(header: Header, payload: Vec<u8>) -> Result<Tlp, TlpError> {
        Tlp::from_parts(header, Common::default(), payload)
    }

    /// Builds a TLP from all its parts, checking every rule of the spec that this
    /// model enforces. `payload` is the wire payload (whole DWs; empty for kinds
    /// without data).
    pub fn from_parts(header: Header, common: Common, payload: Vec<u8>) -> Result<Tlp, TlpError> {
        validate::check(&header, &common, &payload)?;
        Ok(Tlp {
            header,
            common,
            payload,
        })
    }

    /// Unpacks a TLP from its wire bytes (header, payload, digest). Never panics.
    pub fn from_bytes(bytes: &[u8]) -> Result<Tlp, TlpError> {
        wire::unpack(bytes)
    }

    /// Packs the TLP into its wire bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        wire::pack(self)
    }

    /// Splits the TLP into its parts.
    pub fn into_parts(self) -> (Header, Common, Vec<u8>) {
        (self.header, self.common, self.payload)
    }

    /// The same TLP with traffic class `tc` (I/O and configuration requests need 0).
    pub fn with_tc(self, tc: u8) -> Result<Tlp, TlpError> {
        let common = Common { tc, ..self.common };
        Tlp::from_parts(self.header, common, self.payload)
    }

    /// The same TLP with attributes `attr` (I/O and configuration requests need none).
    pub fn with_attr(self, attr: Attr) -> Result<Tlp, TlpError> {
        let common = Common {
            attr,
            ..self.common
        };
        Tlp::from_parts(self.header, common, self.payload)
    }

    /// The same TLP with EP (poisoned) set to `ep`.
    pub fn with_ep(mut self, ep: bool) -> Tlp {
        self.common.ep = ep;
        self
    }

    /// The same TLP with the digest (TD = 1) set to `digest`, or removed with `None`.
    pub fn with_digest(mut self, digest: Option<u32>) -> Tlp {
        self.common.digest = digest;
        self
    }

    /// The kind-specific header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// TC, Attr, EP and the digest.
    pub fn common(&self) -> Common {
        self.common
    }

    /// What the TLP is (MRd, CplD, ...).
    pub fn kind(&self) -> TlpKind {
        self.header.kind(!self.payload.is_empty())
    }

    /// The fmt field.
    pub fn fmt(&self) -> Fmt {
        Fmt::new(self.header.is_four_dw(), self.has_data())
    }

    /// The 5-bit type field.
    pub fn type_bits(&self) -> u8 {
        self.header.type_bits()
    }

    /// Traffic class.
    pub fn tc(&self) -> u8 {
        self.common.tc
    }

    /// Attributes.
    pub fn attr(&self) -> Attr {
        self.common.attr
    }

    /// TD: a digest DW follows the payload.
    pub fn td(&self) -> bool {
        self.common.digest.is_some()
    }

    /// EP: the payload is poisoned.
    pub fn ep(&self) -> bool {
        self.common.ep
    }

    /// The digest DW when TD = 1.
    pub fn digest(&self) -> Option<u32> {
        self.common.digest
    }

    /// The length the header's length field means, in DWs (1..=1024); 0 for the
    /// kinds whose length field is reserved (Cpl, CplLk, Msg).
    pub fn length_dw(&self) -> u16 {
        match self.header {
            Header::MemRead { length_dw, .. } => length_dw,
            Header::IoRead(_) | Header::CfgRead(_) => 1,
            _ => (self.payload.len() / 4) as u16,
        }
    }

    /// The raw 10-bit length field (1024 DWs encode as 0).
    pub fn length_field(&self) -> u16 {
        self.length_dw() & 0x3ff
    }

    /// Requester ID (every kind has one; for completions, the request's requester).
    pub fn requester_id(&self) -> Bdf {
        self.header.requester_id()
    }

    /// Tag (for completions, the request's tag).
    pub fn tag(&self) -> Tag {
        self.header.tag()
    }

    /// The header address of memory, I/O and AtomicOp requests and of
    /// address-routed messages (DW-aligned for all but AtomicOps, which are
    /// naturally aligned).
    pub fn address(&self) -> Option<Addr> {
        match &self.header {
            Header::MemRead { req, .. } | Header::MemWrite(req) => Some(req.address),
            Header::IoRead(r) | Header::IoWrite(r) => Some(r.address),
            Header::Atomic(a) => Some(a.address),
            Header::Message(m) => m.address(),
            _ => None,
        }
    }

    /// First DW byte enables, for the kinds that have them (not AtomicOps).
    pub fn first_be(&self) -> Option<u8> {
        match &self.header {
            Header::MemRead { req, .. } | Header::MemWrite(req) => Some(req.first_be),
            Header::IoRead(r) | Header::IoWrite(r) => Some(r.first_be),
            Header::CfgRead(r) | Header::CfgWrite(r) => Some(r.first_be),
            _ => None,
        }
    }

    /// Last DW byte enables, for the kinds that have them (0 for I/O and configuration).
    pub fn last_be(&self) -> Option<u8> {
        match &self.header {
            Header::MemRead { req, .. } | Header::MemWrite(req) => Some(req.last_be),
            Header::IoRead(_) | Header::IoWrite(_) | Header::CfgRead(_) | Header::CfgWrite(_) => {
                Some(0)
            }
            _ => None,
        }
    }

    /// The completion fields, for completions.
    pub fn as_completion(&self) -> Option<&Completion> {
        match &self.header {
            Header::Completion(c) => Some(c),
            _ => None,
        }
    }

    /// Completer ID, for completions.
    pub fn completer_id(&self) -> Option<Bdf> {
        self.as_completion().map(|c| c.completer_id)
    }

    /// Completion status, for completions.
    pub fn status(&self) -> Option<CplStatus> {
        self.as_completion().map(|c| c.status)
    }

    /// The payload in wire order (whole DWs; empty when the TLP has no data).
    pub fn data(&self) -> &[u8] {
        &self.payload
    }

    /// Payload length in bytes.
    pub fn payload_len(&self) -> usize {
        self.payload.len()
    }

    /// True when a payload follows the header.
    pub fn has_data(&self) -> bool {
        !self.payload.is_empty()
    }

    /// Header length in DWs: 3 or 4.
    pub fn header_len_dw(&self) -> usize {
        if self.header.is_four_dw() {
            4
        } else {
            3
        }
    }

    /// Whole TLP length in bytes: header, payload and digest.
    pub fn total_len(&self) -> usize {
        self.header_len_dw() * 4 + self.payload.len() + if self.td() { 4 } else { 0 }
    }

    /// The flow-control class the TLP consumes credits from.
    pub fn flow_class(&self) -> FlowClass {
        self.kind().flow_class()
    }

    /// For memory reads: the Byte Count the first completion must carry, from the
    /// length and byte enables (PCIe 3.0 §2.3.1.1, Table 2-38).
    pub fn request_byte_count(&self) -> Option<u16> {
        match &self.header {
            Header::MemRead { req, length_dw, .. } => {
                Some(validate::byte_count(*length_dw, req.first_be, req.last_be))
            }
            _ => None,
        }
    }

    /// For memory reads: the Lower Address the first completion must carry,
    /// address bits 6:2 plus the first enabled byte (PCIe 3.0 §2.3.1.1, Table 2-39).
    pub fn request_lower_address(&self) -> Option<u8> {
        match &self.header {
            Header::MemRead { req, .. } => {
                Some((req.address.0 & 0x7c) as u8 | validate::first_enabled_byte(req.first_be))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod json_tests;
