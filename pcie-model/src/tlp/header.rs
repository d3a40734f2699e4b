//! The kind-specific part of a TLP header, as typed values.
//!
//! Fields common to every TLP (TC, Attr, EP, TD/digest) live on [`super::Tlp`];
//! fmt, type and length are derived from the variant and the payload, except a
//! memory read's length, which is requested, not carried.

use super::fields::{AddrWidth, AtomicOp, CfgType, CplStatus, MsgRouting, TlpKind};
use super::ids::{Addr, Bdf, Tag};

/// Header fields of a memory request (MRd, MRdLk, MWr).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MemRequest {
    /// Requester ID.
    pub requester_id: Bdf,
    /// Tag (posted writes may use any value).
    pub tag: Tag,
    /// First DW byte enables, bit k enables byte k of the first DW.
    pub first_be: u8,
    /// Last DW byte enables; 0 when the length is 1 DW.
    pub last_be: u8,
    /// DW-aligned start address (bits 1:0 are zero).
    pub address: Addr,
    /// 3-DW (32-bit) or 4-DW (64-bit) header.
    pub width: AddrWidth,
}

/// Header fields of an I/O request (IORd, IOWr): always 3-DW, length 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IoRequest {
    /// Requester ID.
    pub requester_id: Bdf,
    /// Tag.
    pub tag: Tag,
    /// First DW byte enables (last DW BE is always 0).
    pub first_be: u8,
    /// DW-aligned address below 4 GiB.
    pub address: Addr,
}

/// Header fields of a configuration request (CfgRd0/1, CfgWr0/1): length 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CfgRequest {
    /// Type 0 or type 1.
    pub cfg_type: CfgType,
    /// Requester ID.
    pub requester_id: Bdf,
    /// Tag.
    pub tag: Tag,
    /// First DW byte enables (last DW BE is always 0).
    pub first_be: u8,
    /// Bus/device/function addressed.
    pub target_id: Bdf,
    /// Register number in DWs, 0..=1023: Extended Register Number (bits 9:6) and
    /// Register Number (bits 5:0). The byte offset is `4 * register`.
    pub register: u16,
}

/// Header fields of a completion (Cpl, CplD, CplLk, CplDLk). Whether it carries
/// data is given by the payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Completion {
    /// Completer ID.
    pub completer_id: Bdf,
    /// Completion status.
    pub status: CplStatus,
    /// Byte Count Modified (set only by PCI-X completers).
    pub bcm: bool,
    /// Bytes left to complete the request, including this completion's: 1..=4096
    /// (the 12-bit field encodes 4096 as 0).
    pub byte_count: u16,
    /// Requester ID of the request completed.
    pub requester_id: Bdf,
    /// Tag of the request completed.
    pub tag: Tag,
    /// Low 7 bits of the byte address of the first payload byte (0 for I/O and
    /// configuration completions).
    pub lower_address: u8,
    /// True for the completion of a locked read (CplLk, CplDLk).
    pub locked: bool,
}

/// Header fields of a message (Msg, MsgD): always 4-DW.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Message {
    /// Requester ID.
    pub requester_id: Bdf,
    /// Tag.
    pub tag: Tag,
    /// Routing subfield `r[2:0]` of the type.
    pub routing: MsgRouting,
    /// Message code (DW1 bits 7:0).
    pub code: u8,
    /// Header bytes 8..15, whose meaning depends on routing and code: the address
    /// for [`MsgRouting::ByAddress`], the target id in bytes 8..9 for
    /// [`MsgRouting::ById`], vendor fields for vendor-defined messages.
    pub bytes_8_15: [u8; 8],
}

impl Message {
    /// The address of an address-routed message (bytes 8..15, bits 1:0 cleared).
    pub fn address(&self) -> Option<Addr> {
        (self.routing == MsgRouting::ByAddress)
            .then(|| Addr(u64::from_be_bytes(self.bytes_8_15) & !3))
    }

    /// The target id of an id-routed message (bytes 8..9).
    pub fn target_id(&self) -> Option<Bdf> {
        (self.routing == MsgRouting::ById)
            .then(|| Bdf(u16::from_be_bytes([self.bytes_8_15[0], self.bytes_8_15[1]])))
    }
}

/// Header fields of an AtomicOp request (FetchAdd, Swap, CAS). The operands are
/// the payload; the byte enables are reserved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AtomicRequest {
    /// Which operation.
    pub op: AtomicOp,
    /// Requester ID.
    pub requester_id: Bdf,
    /// Tag.
    pub tag: Tag,
    /// Address, naturally aligned to the operand size.
    pub address: Addr,
    /// 3-DW (32-bit) or 4-DW (64-bit) header.
    pub width: AddrWidth,
}

/// The kind-specific header of a TLP.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Header {
    /// MRd or MRdLk.
    MemRead {
        /// Address, ids and byte enables.
        req: MemRequest,
        /// Requested length in DWs, 1..=1024.
        length_dw: u16,
        /// True for MRdLk.
        locked: bool,
    },
    /// MWr; the length is the payload's.
    MemWrite(MemRequest),
    /// IORd.
    IoRead(IoRequest),
    /// IOWr; the payload is one DW.
    IoWrite(IoRequest),
    /// CfgRd0 or CfgRd1.
    CfgRead(CfgRequest),
    /// CfgWr0 or CfgWr1; the payload is one DW.
    CfgWrite(CfgRequest),
    /// Cpl, CplD, CplLk or CplDLk.
    Completion(Completion),
    /// Msg or MsgD.
    Message(Message),
    /// FetchAdd, Swap or CAS.
    Atomic(AtomicRequest),
}

impl Header {
    /// The TLP kind; `with_data` says whether a payload follows (it decides
    /// Cpl vs CplD and Msg vs MsgD).
    pub fn kind(&self, with_data: bool) -> TlpKind {
        match self {
            Header::MemRead { locked: false, .. } => TlpKind::MRd,
            Header::MemRead { locked: true, .. } => TlpKind::MRdLk,
            Header::MemWrite(_) => TlpKind::MWr,
            Header::IoRead(_) => TlpKind::IORd,
            Header::IoWrite(_) => TlpKind::IOWr,
            Header::CfgRead(c) => match c.cfg_type {
                CfgType::Type0 => TlpKind::CfgRd0,
                CfgType::Type1 => TlpKind::CfgRd1,
            },
            Header::CfgWrite(c) => match c.cfg_type {
                CfgType::Type0 => TlpKind::CfgWr0,
                CfgType::Type1 => TlpKind::CfgWr1,
            },
            Header::Completion(c) => match (c.locked, with_data) {
                (false, false) => TlpKind::Cpl,
                (false, true) => TlpKind::CplD,
                (true, false) => TlpKind::CplLk,
                (true, true) => TlpKind::CplDLk,
            },
            Header::Message(_) if with_data => TlpKind::MsgD,
            Header::Message(_) => TlpKind::Msg,
            Header::Atomic(a) => a.op.kind(),
        }
    }

    /// The requester id (every TLP kind carries one).
    pub fn requester_id(&self) -> Bdf {
        match self {
            Header::MemRead { req, .. } | Header::MemWrite(req) => req.requester_id,
            Header::IoRead(r) | Header::IoWrite(r) => r.requester_id,
            Header::CfgRead(r) | Header::CfgWrite(r) => r.requester_id,
            Header::Completion(c) => c.requester_id,
            Header::Message(m) => m.requester_id,
            Header::Atomic(a) => a.requester_id,
        }
    }

    /// The tag (every TLP kind carries one).
    pub fn tag(&self) -> Tag {
        match self {
            Header::MemRead { req, .. } | Header::MemWrite(req) => req.tag,
            Header::IoRead(r) | Header::IoWrite(r) => r.tag,
            Header::CfgRead(r) | Header::CfgWrite(r) => r.tag,
            Header::Completion(c) => c.tag,
            Header::Message(m) => m.tag,
            Header::Atomic(a) => a.tag,
        }
    }

    /// True when the header is 4 DWs long.
    pub fn is_four_dw(&self) -> bool {
        match self {
            Header::MemRead { req, .. } | Header::MemWrite(req) => req.width == AddrWidth::Bits64,
            Header::Atomic(a) => a.width == AddrWidth::Bits64,
            Header::Message(_) => true,
            _ => false,
        }
    }

    /// The 5-bit type field.
    pub fn type_bits(&self) -> u8 {
        match self {
            Header::MemRead { locked, .. } => u8::from(*locked),
            Header::MemWrite(_) => 0b00000,
            Header::IoRead(_) | Header::IoWrite(_) => 0b00010,
            Header::CfgRead(c) | Header::CfgWrite(c) => match c.cfg_type {
                CfgType::Type0 => 0b00100,
                CfgType::Type1 => 0b00101,
            },
            Header::Completion(c) => 0b01010 | u8::from(c.locked),
            Header::Message(m) => 0b10000 | m.routing.bits(),
            Header::Atomic(a) => match a.op {
                AtomicOp::FetchAdd => 0b01100,
                AtomicOp::Swap => 0b01101,
                AtomicOp::Cas => 0b01110,
            },
        }
    }
}
