//! Packing and unpacking the wire bytes (PCIe 3.0 §2.2.1, Figures 2-5..2-22).
//!
//! DW0 (all TLPs): `Fmt[2:0] Type[4:0] | R TC[2:0] R Attr[2] R TH | TD EP Attr[1:0]
//! `AT[1:0]` `Length[9:8]` | `Length[7:0]``. Multi-byte fields are big-endian on the wire.

use super::error::TlpError;
use super::fields::{AddrWidth, AtomicOp, Attr, CfgType, CplStatus, Fmt, MsgRouting, TlpKind};
use super::header::{
    AtomicRequest, CfgRequest, Completion, Header, IoRequest, MemRequest, Message,
};
use super::ids::{Addr, Bdf, Tag};
use super::{Common, Tlp};

/// Packs a (valid) TLP into wire bytes.
pub(super) fn pack(tlp: &Tlp) -> Vec<u8> {
    let mut out = Vec::with_capacity(tlp.total_len());
    let common = tlp.common();
    let attr = common.attr.bits();
    let length = tlp.length_field();
    out.push(tlp.fmt().bits() << 5 | tlp.type_bits());
    out.push(common.tc << 4 | (attr >> 2) << 2);
    out.push(
        u8::from(common.digest.is_some()) << 7
            | u8::from(common.ep) << 6
            | (attr & 3) << 4
            | (length >> 8) as u8,
    );
    out.push(length as u8);
    let request_dw1 = |id: Bdf, tag: Tag, low: u8| -> u32 {
        u32::from(id.0) << 16 | u32::from(tag.0) << 8 | u32::from(low)
    };
    let mut push = |dw: u32| out.extend_from_slice(&dw.to_be_bytes());
    match tlp.header() {
        Header::MemRead { req, .. } | Header::MemWrite(req) => {
            push(request_dw1(
                req.requester_id,
                req.tag,
                req.last_be << 4 | req.first_be,
            ));
            push_address(&mut push, req.address, req.width);
        }
        Header::IoRead(r) | Header::IoWrite(r) => {
            push(request_dw1(r.requester_id, r.tag, r.first_be));
            push(r.address.0 as u32);
        }
        Header::CfgRead(r) | Header::CfgWrite(r) => {
            push(request_dw1(r.requester_id, r.tag, r.first_be));
            push(u32::from(r.target_id.0) << 16 | u32::from(r.register) << 2);
        }
        Header::Completion(c) => {
            push(
                u32::from(c.completer_id.0) << 16
                    | u32::from(c.status.bits()) << 13
                    | u32::from(c.bcm) << 12
                    | u32::from(c.byte_count & 0xfff),
            );
            push(request_dw1(c.requester_id, c.tag, c.lower_address));
        }
        Header::Message(m) => {
            push(request_dw1(m.requester_id, m.tag, m.code));
            let b = m.bytes_8_15;
            push(u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
            push(u32::from_be_bytes([b[4], b[5], b[6], b[7]]));
        }
        Header::Atomic(a) => {
            push(request_dw1(a.requester_id, a.tag, 0));
            push_address(&mut push, a.address, a.width);
        }
    }
    out.extend_from_slice(tlp.data());
    if let Some(digest) = common.digest {
        out.extend_from_slice(&digest.to_be_bytes());
    }
    out
}

fn push_address(push: &mut impl FnMut(u32), address: Addr, width: AddrWidth) {
    if width == AddrWidth::Bits64 {
        push((address.0 >> 32) as u32);
    }
    push(address.0 as u32);
}

/// The kind fmt and type encode (PCIe 3.0 Table 2-3).
fn kind_of(fmt: Fmt, ty: u8) -> Result<TlpKind, TlpError> {
    let f = fmt.bits();
    TlpKind::from_fmt_type(f, ty).ok_or(TlpError::ReservedFmtType { fmt: f, ty })
}

fn be_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

fn reserved(field: &'static str, value: u64) -> Result<(), TlpError> {
    if value == 0 {
        Ok(())
    } else {
        Err(TlpError::ReservedBits { field, value })
    }
}

/// Unpacks wire bytes into a TLP, checking every field.
pub(super) fn unpack(bytes: &[u8]) -> Result<Tlp, TlpError> {
    if bytes.len() < 4 {
        return Err(TlpError::Truncated {
            what: "DW0",
            needed: 4,
            got: bytes.len(),
        });
    }
    let fmt = Fmt::from_bits(bytes[0] >> 5)?;
    if fmt == Fmt::Prefix {
        return Err(TlpError::PrefixUnsupported);
    }
    let ty = bytes[0] & 0x1f;
    let kind = kind_of(fmt, ty)?;
    let header_len = if fmt.is_four_dw() { 16 } else { 12 };
    if bytes.len() < header_len {
        return Err(TlpError::Truncated {
            what: if fmt.is_four_dw() {
                "4-DW header"
            } else {
                "3-DW header"
            },
            needed: header_len,
            got: bytes.len(),
        });
    }
    if !bytes.len().is_multiple_of(4) {
        return Err(TlpError::NotWholeDws { len: bytes.len() });
    }
    let (b1, b2) = (bytes[1], bytes[2]);
    reserved("DW0 bit 23", u64::from(b1 >> 7))?;
    reserved("DW0 bit 19", u64::from(b1 >> 3 & 1))?;
    reserved("DW0 bit 17", u64::from(b1 >> 1 & 1))?;
    if b1 & 1 != 0 {
        return Err(TlpError::Unsupported {
            field: "TH",
            value: 1,
            reason: "TLP processing hints are not modelled (PEACH2's Gen2 ports do not use them)",
        });
    }
    let at = b2 >> 2 & 3;
    if at != 0 {
        let memory_like = matches!(
            kind,
            TlpKind::MRd
                | TlpKind::MRdLk
                | TlpKind::MWr
                | TlpKind::FetchAdd
                | TlpKind::Swap
                | TlpKind::Cas
        );
        if !memory_like {
            return Err(TlpError::ReservedBits {
                field: "AT",
                value: at.into(),
            });
        }
        return Err(TlpError::Unsupported {
            field: "AT",
            value: at.into(),
            reason: "address translation services are not modelled; AT must be 00 (untranslated)",
        });
    }
    let td = b2 & 0x80 != 0;
    let length_field = u16::from(b2 & 3) << 8 | u16::from(bytes[3]);
    let length_dw = if length_field == 0 {
        1024
    } else {
        length_field
    };
    let payload_dw = if fmt.has_data() { length_dw } else { 0 };
    let expected = header_len + 4 * usize::from(payload_dw) + if td { 4 } else { 0 };
    if bytes.len() != expected {
        return Err(TlpError::LengthMismatch {
            length_dw: payload_dw,
            digest: if td { " plus a digest DW (TD=1)" } else { "" },
            expected,
            got: bytes.len(),
        });
    }
    let common = Common {
        tc: b1 >> 4 & 7,
        attr: Attr::from_bits((b1 >> 2 & 1) << 2 | (b2 >> 4 & 3)),
        ep: b2 & 0x40 != 0,
        digest: td.then(|| be_u32(bytes, expected - 4)),
    };
    let header = unpack_header(kind, fmt, bytes, length_field, length_dw)?;
    let payload = bytes[header_len..header_len + 4 * usize::from(payload_dw)].to_vec();
    Tlp::from_parts(header, common, payload)
}

/// Decodes DW1.. for `kind`; `bytes` holds at least the whole header.
fn unpack_header(
    kind: TlpKind,
    fmt: Fmt,
    bytes: &[u8],
    length_field: u16,
    length_dw: u16,
) -> Result<Header, TlpError> {
    let dw1 = be_u32(bytes, 4);
    let dw2 = be_u32(bytes, 8);
    let requester_id = Bdf((dw1 >> 16) as u16);
    let tag = Tag((dw1 >> 8) as u8);
    let first_be = (dw1 & 0xf) as u8;
    let last_be = (dw1 >> 4 & 0xf) as u8;
    let width = if fmt.is_four_dw() {
        AddrWidth::Bits64
    } else {
        AddrWidth::Bits32
    };
    let address = || -> Result<Addr, TlpError> {
        let raw = if fmt.is_four_dw() {
            u64::from(dw2) << 32 | u64::from(be_u32(bytes, 12))
        } else {
            u64::from(dw2)
        };
        reserved("address[1:0]", raw & 3)?;
        Ok(Addr(raw))
    };
    let one_dw = || -> Result<(), TlpError> {
        if length_field != 1 {
            return Err(TlpError::InvalidField {
                field: "length",
                value: length_field.into(),
                reason: "I/O and configuration requests have length 1",
            });
        }
        if last_be != 0 {
            return Err(TlpError::InvalidField {
                field: "last_be",
                value: last_be.into(),
                reason: "must be 0 when the length is 1 DW",
            });
        }
        Ok(())
    };
    Ok(match kind {
        TlpKind::MRd | TlpKind::MRdLk | TlpKind::MWr => {
            let req = MemRequest {
                requester_id,
                tag,
                first_be,
                last_be,
                address: address()?,
                width,
            };
            if kind == TlpKind::MWr {
                Header::MemWrite(req)
            } else {
                Header::MemRead {
                    req,
                    length_dw,
                    locked: kind == TlpKind::MRdLk,
                }
            }
        }
        TlpKind::IORd | TlpKind::IOWr => {
            one_dw()?;
            let io = IoRequest {
                requester_id,
                tag,
                first_be,
                address: address()?,
            };
            if kind == TlpKind::IORd {
                Header::IoRead(io)
            } else {
                Header::IoWrite(io)
            }
        }
        TlpKind::CfgRd0 | TlpKind::CfgWr0 | TlpKind::CfgRd1 | TlpKind::CfgWr1 => {
            one_dw()?;
            reserved("DW2 bits 15:12", u64::from(dw2 >> 12 & 0xf))?;
            reserved("DW2 bits 1:0", u64::from(dw2 & 3))?;
            let cfg = CfgRequest {
                cfg_type: if matches!(kind, TlpKind::CfgRd0 | TlpKind::CfgWr0) {
                    CfgType::Type0
                } else {
                    CfgType::Type1
                },
                requester_id,
                tag,
                first_be,
                target_id: Bdf((dw2 >> 16) as u16),
                register: (dw2 >> 2 & 0x3ff) as u16,
            };
            if matches!(kind, TlpKind::CfgRd0 | TlpKind::CfgRd1) {
                Header::CfgRead(cfg)
            } else {
                Header::CfgWrite(cfg)
            }
        }
        TlpKind::Cpl | TlpKind::CplD | TlpKind::CplLk | TlpKind::CplDLk => {
            if !fmt.has_data() {
                reserved("length", length_field.into())?;
            }
            reserved("DW2 bit 7", u64::from(dw2 >> 7 & 1))?;
            let byte_count = (dw1 & 0xfff) as u16;
            Header::Completion(Completion {
                completer_id: requester_id,
                status: CplStatus::from_bits((dw1 >> 13 & 7) as u8)?,
                bcm: dw1 >> 12 & 1 != 0,
                byte_count: if byte_count == 0 { 4096 } else { byte_count },
                requester_id: Bdf((dw2 >> 16) as u16),
                tag: Tag((dw2 >> 8) as u8),
                lower_address: (dw2 & 0x7f) as u8,
                locked: matches!(kind, TlpKind::CplLk | TlpKind::CplDLk),
            })
        }
        TlpKind::Msg | TlpKind::MsgD => {
            if !fmt.has_data() {
                reserved("length", length_field.into())?;
            }
            let mut bytes_8_15 = [0; 8];
            bytes_8_15.copy_from_slice(&bytes[8..16]);
            Header::Message(Message {
                requester_id,
                tag,
                routing: MsgRouting::from_bits(bytes[0] & 7)?,
                code: dw1 as u8,
                bytes_8_15,
            })
        }
        TlpKind::FetchAdd | TlpKind::Swap | TlpKind::Cas => {
            // The byte enables are reserved for AtomicOps (§2.2.7).
            reserved("first_be/last_be", u64::from(dw1 & 0xff))?;
            Header::Atomic(AtomicRequest {
                op: match kind {
                    TlpKind::FetchAdd => AtomicOp::FetchAdd,
                    TlpKind::Swap => AtomicOp::Swap,
                    _ => AtomicOp::Cas,
                },
                requester_id,
                tag,
                address: address()?,
                width,
            })
        }
    })
}
