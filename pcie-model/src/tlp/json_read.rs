//! Reading the JSON form of a TLP (see `json` for the schema): typed field access
//! with errors that name the field, then the spec checks of [`Tlp::from_parts`].

use serde_json::{Map, Value};

use super::error::TlpError;
use super::fields::{AddrWidth, AtomicOp, Attr, CfgType, CplStatus, MsgRouting, TlpKind};
use super::header::{
    AtomicRequest, CfgRequest, Completion, Header, IoRequest, MemRequest, Message,
};
use super::hex::parse_hex;
use super::ids::{Addr, Bdf, Tag};
use super::json::JsonError;
use super::{Common, Tlp};

/// Typed access to the fields of one JSON object.
pub(super) struct Fields<'a> {
    pub(super) map: &'a Map<String, Value>,
    pub(super) kind: TlpKind,
}

impl Fields<'_> {
    fn opt_uint(&self, field: &'static str, max: u64) -> Result<Option<u64>, JsonError> {
        match self.map.get(field) {
            None => Ok(None),
            Some(v) => {
                let n = v.as_u64().ok_or(JsonError::WrongType {
                    field,
                    expected: "a non-negative integer",
                })?;
                if n > max {
                    return Err(JsonError::OutOfRange {
                        field,
                        value: n,
                        max,
                    });
                }
                Ok(Some(n))
            }
        }
    }

    fn uint(&self, field: &'static str, max: u64) -> Result<u64, JsonError> {
        self.opt_uint(field, max)?.ok_or(self.missing(field))
    }

    fn opt_bool(&self, field: &'static str) -> Result<Option<bool>, JsonError> {
        match self.map.get(field) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(JsonError::WrongType {
                field,
                expected: "true or false",
            }),
        }
    }

    fn opt_str(&self, field: &'static str) -> Result<Option<&str>, JsonError> {
        match self.map.get(field) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(JsonError::WrongType {
                field,
                expected: "a string",
            }),
        }
    }

    fn opt_hex(&self, field: &'static str) -> Result<Option<Vec<u8>>, JsonError> {
        self.opt_str(field)?
            .map(|s| parse_hex(s).map_err(|source| JsonError::BadHex { field, source }))
            .transpose()
    }

    fn hex(&self, field: &'static str) -> Result<Vec<u8>, JsonError> {
        self.opt_hex(field)?.ok_or(self.missing(field))
    }

    fn missing(&self, field: &'static str) -> JsonError {
        JsonError::MissingField {
            kind: self.kind.as_str(),
            field,
        }
    }

    fn bdf(&self, field: &'static str) -> Result<Bdf, JsonError> {
        Ok(Bdf(self.uint(field, 0xffff)? as u16))
    }

    fn be(&self, field: &'static str) -> Result<u8, JsonError> {
        Ok(self.uint(field, 0xf)? as u8)
    }

    fn address(&self) -> Result<Addr, JsonError> {
        Ok(Addr(self.uint("address", u64::MAX)?))
    }

    /// The address width: from `fmt` if given, else what the address needs.
    fn width(&self, address: Addr) -> Result<AddrWidth, JsonError> {
        Ok(match self.opt_uint("fmt", 7)? {
            Some(f) if f & 1 == 1 => AddrWidth::Bits64,
            Some(_) => AddrWidth::Bits32,
            None => AddrWidth::for_address(address.0),
        })
    }

    /// `last_be` of a 1-DW request (I/O, config): optional, must be 0.
    fn zero_last_be(&self) -> Result<(), JsonError> {
        match self.opt_uint("last_be", 0xf)? {
            None | Some(0) => Ok(()),
            Some(v) => Err(TlpError::InvalidField {
                field: "last_be",
                value: v,
                reason: "must be 0 when the length is 1 DW",
            }
            .into()),
        }
    }

    /// The fields derived from the TLP, when given, must agree with it.
    pub(super) fn check_derived(&self, tlp: &Tlp) -> Result<(), JsonError> {
        let checks: [(&'static str, Option<u64>, u64); 3] = [
            ("fmt", self.opt_uint("fmt", 7)?, tlp.fmt().bits().into()),
            ("type", self.opt_uint("type", 31)?, tlp.type_bits().into()),
            (
                "length",
                self.opt_uint("length", 1024)?,
                tlp.length_dw().into(),
            ),
        ];
        for (field, given, derived) in checks {
            if let Some(given) = given {
                if given != derived {
                    return Err(JsonError::Inconsistent {
                        field,
                        reason: format!("is {given} but the other fields make it {derived}"),
                    });
                }
            }
        }
        Ok(())
    }
}

/// Builds the TLP the fields describe.
pub(super) fn build(f: &Fields<'_>) -> Result<Tlp, JsonError> {
    use TlpKind::*;
    let kind = f.kind;
    let requester_id = f.bdf("requester_id")?;
    let tag = Tag(f.uint("tag", 0xff)? as u8);
    let digest = f.opt_uint("digest", u64::from(u32::MAX))?.map(|d| d as u32);
    match (f.opt_bool("td")?, digest) {
        (Some(true), None) => return Err(f.missing("digest")),
        (Some(false), Some(_)) => {
            return Err(JsonError::Inconsistent {
                field: "digest",
                reason: "is given but td is false".to_string(),
            })
        }
        _ => {}
    }
    let common = Common {
        tc: f.opt_uint("tc", 7)?.unwrap_or(0) as u8,
        attr: Attr::from_bits(f.opt_uint("attr", 7)?.unwrap_or(0) as u8),
        ep: f.opt_bool("ep")?.unwrap_or(false),
        digest,
    };
    let data = || {
        if kind.has_data() {
            f.hex("data")
        } else {
            Ok(Vec::new())
        }
    };
    let header = match kind {
        MRd | MRdLk | MWr => {
            let address = f.address()?;
            let req = MemRequest {
                requester_id,
                tag,
                first_be: f.be("first_be")?,
                last_be: f.be("last_be")?,
                address,
                width: f.width(address)?,
            };
            if kind == MWr {
                Header::MemWrite(req)
            } else {
                Header::MemRead {
                    req,
                    length_dw: f.uint("length", 1024)? as u16,
                    locked: kind == MRdLk,
                }
            }
        }
        IORd | IOWr => {
            f.zero_last_be()?;
            let io = IoRequest {
                requester_id,
                tag,
                first_be: f.be("first_be")?,
                address: f.address()?,
            };
            if kind == IORd {
                Header::IoRead(io)
            } else {
                Header::IoWrite(io)
            }
        }
        CfgRd0 | CfgWr0 | CfgRd1 | CfgWr1 => {
            f.zero_last_be()?;
            let cfg = CfgRequest {
                cfg_type: if matches!(kind, CfgRd0 | CfgWr0) {
                    CfgType::Type0
                } else {
                    CfgType::Type1
                },
                requester_id,
                tag,
                first_be: f.be("first_be")?,
                target_id: f.bdf("target_id")?,
                register: f.uint("register", 1023)? as u16,
            };
            if matches!(kind, CfgRd0 | CfgRd1) {
                Header::CfgRead(cfg)
            } else {
                Header::CfgWrite(cfg)
            }
        }
        Cpl | CplD | CplLk | CplDLk => {
            let status: CplStatus = f.opt_str("status")?.ok_or(f.missing("status"))?.parse()?;
            Header::Completion(Completion {
                completer_id: f.bdf("completer_id")?,
                status,
                bcm: f.opt_bool("bcm")?.unwrap_or(false),
                byte_count: f.uint("byte_count", 4096)? as u16,
                requester_id,
                tag,
                lower_address: f.uint("lower_address", 0x7f)? as u8,
                locked: matches!(kind, CplLk | CplDLk),
            })
        }
        Msg | MsgD => Header::Message(message(f, requester_id, tag)?),
        FetchAdd | Swap | Cas => {
            let address = f.address()?;
            Header::Atomic(AtomicRequest {
                op: match kind {
                    FetchAdd => AtomicOp::FetchAdd,
                    Swap => AtomicOp::Swap,
                    _ => AtomicOp::Cas,
                },
                requester_id,
                tag,
                address,
                width: f.width(address)?,
            })
        }
    };
    let payload = data()?;
    if kind.has_data() && payload.is_empty() {
        return Err(JsonError::Inconsistent {
            field: "data",
            reason: format!("is empty but {kind} carries at least 1 DW"),
        });
    }
    Ok(Tlp::from_parts(header, common, payload)?)
}

/// The message header: routing, code and bytes 8..15 (given, or built from
/// `address` / `target_id`).
fn message(f: &Fields<'_>, requester_id: Bdf, tag: Tag) -> Result<Message, JsonError> {
    let routing = MsgRouting::from_bits(f.uint("routing", 7)? as u8)?;
    let code = f.uint("message_code", 0xff)? as u8;
    let given = match f.opt_hex("bytes_8_15")? {
        None => None,
        Some(b) => {
            Some(
                <[u8; 8]>::try_from(b.as_slice()).map_err(|_| JsonError::Inconsistent {
                    field: "bytes_8_15",
                    reason: format!("has {} bytes, must have 8", b.len()),
                })?,
            )
        }
    };
    let address = f.opt_uint("address", u64::MAX)?;
    let target_id = f.opt_uint("target_id", 0xffff)?;
    if address.is_some() && routing != MsgRouting::ByAddress {
        return Err(JsonError::Inconsistent {
            field: "address",
            reason: "is only for messages routed by address (routing 1)".to_string(),
        });
    }
    if target_id.is_some() && routing != MsgRouting::ById {
        return Err(JsonError::Inconsistent {
            field: "target_id",
            reason: "is only for messages routed by id (routing 2)".to_string(),
        });
    }
    let built = match (address, target_id) {
        (Some(a), _) => Some(a.to_be_bytes()),
        (_, Some(t)) => {
            let mut b = [0; 8];
            b[..2].copy_from_slice(&(t as u16).to_be_bytes());
            Some(b)
        }
        _ => None,
    };
    let bytes_8_15 = match (given, built) {
        (Some(g), Some(b)) => {
            // Address bits 1:0 are reserved in the bytes and dropped from `address`.
            let agrees = match routing {
                MsgRouting::ById => g[..2] == b[..2],
                _ => u64::from_be_bytes(g) & !3 == u64::from_be_bytes(b),
            };
            if !agrees {
                return Err(JsonError::Inconsistent {
                    field: "bytes_8_15",
                    reason: "disagrees with address/target_id".to_string(),
                });
            }
            g
        }
        (Some(g), None) => g,
        (None, Some(b)) => b,
        (None, None) => match routing {
            MsgRouting::ByAddress => return Err(f.missing("address")),
            MsgRouting::ById => return Err(f.missing("target_id")),
            _ => [0; 8],
        },
    };
    Ok(Message {
        requester_id,
        tag,
        routing,
        code,
        bytes_8_15,
    })
}
