//! The JSON form of a TLP, used by `peach2 tlp decode` / `encode`.
//!
//! One JSON object per TLP. It holds `kind` and exactly the fields that kind's
//! header has; numbers and ids are JSON integers (ids are the raw 16-bit value,
//! bus in bits 15:8), flags are booleans, bytes are lowercase hex strings.
//!
//! | field | type | kinds | meaning |
//! |---|---|---|---|
//! | `kind` | string | all | `MRd` `MRdLk` `MWr` `IORd` `IOWr` `CfgRd0` `CfgWr0` `CfgRd1` `CfgWr1` `Msg` `MsgD` `Cpl` `CplD` `CplLk` `CplDLk` `FetchAdd` `Swap` `CAS` |
//! | `fmt` | int 0..=3 | all | Fmt field |
//! | `type` | int 0..=31 | all | Type field (for messages it includes `r[2:0]`) |
//! | `tc` | int 0..=7 | all | traffic class |
//! | `attr` | int 0..=7 | all | `Attr[2:0]`: bit 2 IDO, bit 1 RO, bit 0 NS |
//! | `td` | bool | all | a digest DW follows the payload |
//! | `ep` | bool | all | poisoned |
//! | `length` | int 1..=1024 | all but Cpl, CplLk, Msg | length in DWs (1024, not 0) |
//! | `requester_id` | int | all | Requester ID |
//! | `completer_id` | int | completions | Completer ID |
//! | `tag` | int 0..=255 | all | Tag |
//! | `status` | string | completions | `SC`, `UR`, `CRS` or `CA` |
//! | `bcm` | bool | completions | Byte Count Modified |
//! | `byte_count` | int 1..=4096 | completions | Byte Count (4096, not 0) |
//! | `lower_address` | int 0..=127 | completions | Lower Address |
//! | `first_be`, `last_be` | int 0..=15 | memory, I/O, config requests | byte enables |
//! | `address` | int | memory, I/O, AtomicOp requests; messages routed by address | DW-aligned address (naturally aligned for AtomicOps) |
//! | `target_id` | int | config requests; messages routed by id | Bus/Device/Function addressed |
//! | `register` | int 0..=1023 | config requests | register number in DWs (byte offset / 4) |
//! | `routing` | int 0..=5 | messages | `r[2:0]` |
//! | `message_code` | int 0..=255 | messages | Message Code |
//! | `bytes_8_15` | hex, 8 bytes | messages | header bytes 8..15 |
//! | `data` | hex | kinds with data | payload, wire order, whole DWs |
//! | `digest` | int | when `td` | the ECRC DW |
//!
//! When reading JSON: `kind`, `requester_id`, `tag` and the kind's own fields
//! are required; `tc`, `attr`, `ep` default to 0/false, `bcm` to false, and
//! `fmt`, `type`, `length`, `td` may be left out (they are derived; when given they
//! must agree). For memory and AtomicOp requests a given `fmt` chooses the 3-DW
//! or 4-DW header, otherwise the address does. I/O and config `last_be` may be
//! left out (it is 0). Messages take `bytes_8_15`, or `address` (routing 1) /
//! `target_id` (routing 2) from which the bytes are built; both must agree. A
//! field the kind does not have is an error.

use serde_json::Value;
use thiserror::Error;

use super::error::TlpError;
use super::fields::TlpKind;
use super::header::Header;
use super::hex::{to_hex, HexError};
use super::json_read::{build, Fields};
use super::Tlp;

/// Why a JSON value is not a TLP.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum JsonError {
    /// The text is not JSON.
    #[error("invalid JSON: {0}")]
    Syntax(String),
    /// The value is not a JSON object.
    #[error("a TLP must be a JSON object")]
    NotAnObject,
    /// A field the kind needs is absent.
    #[error("{kind} needs field `{field}`")]
    MissingField {
        /// The TLP kind.
        kind: &'static str,
        /// The field.
        field: &'static str,
    },
    /// A field the kind does not have.
    #[error("field `{field}` is not a field of {kind}")]
    UnexpectedField {
        /// The TLP kind.
        kind: &'static str,
        /// The field.
        field: String,
    },
    /// A field of the wrong JSON type.
    #[error("field `{field}` must be {expected}")]
    WrongType {
        /// The field.
        field: &'static str,
        /// What it must be.
        expected: &'static str,
    },
    /// An integer outside the field's range.
    #[error("field `{field}` is {value}, must be at most {max}")]
    OutOfRange {
        /// The field.
        field: &'static str,
        /// Its value.
        value: u64,
        /// Largest allowed value.
        max: u64,
    },
    /// A hex field that is not hex.
    #[error("field `{field}`: {source}")]
    BadHex {
        /// The field.
        field: &'static str,
        /// What is wrong.
        source: HexError,
    },
    /// A field that disagrees with the others.
    #[error("field `{field}` {reason}")]
    Inconsistent {
        /// The field.
        field: &'static str,
        /// How it disagrees.
        reason: String,
    },
    /// The fields are well-formed but do not make a valid TLP.
    #[error("invalid TLP: {0}")]
    Tlp(#[from] TlpError),
}

/// The fields a kind has in the JSON form, besides the common ones.
pub(super) fn kind_fields(kind: TlpKind) -> &'static [&'static str] {
    use TlpKind::*;
    match kind {
        MRd | MRdLk | IORd => &["length", "first_be", "last_be", "address"],
        MWr | IOWr => &["length", "first_be", "last_be", "address", "data"],
        CfgRd0 | CfgRd1 => &["length", "first_be", "last_be", "target_id", "register"],
        CfgWr0 | CfgWr1 => &[
            "length",
            "first_be",
            "last_be",
            "target_id",
            "register",
            "data",
        ],
        Cpl | CplLk => &[
            "completer_id",
            "status",
            "bcm",
            "byte_count",
            "lower_address",
        ],
        CplD | CplDLk => &[
            "length",
            "completer_id",
            "status",
            "bcm",
            "byte_count",
            "lower_address",
            "data",
        ],
        Msg => &[
            "routing",
            "message_code",
            "bytes_8_15",
            "address",
            "target_id",
        ],
        MsgD => &[
            "length",
            "routing",
            "message_code",
            "bytes_8_15",
            "address",
            "target_id",
            "data",
        ],
        FetchAdd | Swap | Cas => &["length", "address", "data"],
    }
}

const COMMON_FIELDS: [&str; 10] = [
    "kind",
    "fmt",
    "type",
    "tc",
    "attr",
    "td",
    "ep",
    "requester_id",
    "tag",
    "digest",
];

impl Tlp {
    /// The JSON form as one line, fields in a fixed order (see the module docs).
    pub fn to_json(&self) -> String {
        let body: Vec<String> = json_fields(self)
            .into_iter()
            .map(|(k, v)| format!("{}:{}", Value::from(k), v))
            .collect();
        format!("{{{}}}", body.join(","))
    }

    /// The JSON form as a value.
    pub fn to_json_value(&self) -> Value {
        Value::Object(
            json_fields(self)
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        )
    }

    /// Reads a TLP from JSON text.
    pub fn from_json(text: &str) -> Result<Tlp, JsonError> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| JsonError::Syntax(e.to_string()))?;
        Tlp::from_json_value(&value)
    }

    /// Reads a TLP from a JSON value, checking every field.
    pub fn from_json_value(value: &Value) -> Result<Tlp, JsonError> {
        let map = value.as_object().ok_or(JsonError::NotAnObject)?;
        let kind_text = match map.get("kind") {
            None => {
                return Err(JsonError::MissingField {
                    kind: "a TLP",
                    field: "kind",
                })
            }
            Some(Value::String(s)) => s,
            Some(_) => {
                return Err(JsonError::WrongType {
                    field: "kind",
                    expected: "a string",
                })
            }
        };
        let kind: TlpKind = kind_text.parse()?;
        let allowed = kind_fields(kind);
        if let Some(extra) = map
            .keys()
            .find(|k| !COMMON_FIELDS.contains(&k.as_str()) && !allowed.contains(&k.as_str()))
        {
            return Err(JsonError::UnexpectedField {
                kind: kind.as_str(),
                field: extra.clone(),
            });
        }
        let f = Fields { map, kind };
        let tlp = build(&f)?;
        f.check_derived(&tlp)?;
        Ok(tlp)
    }
}

/// The (field, value) pairs of the JSON form, in output order.
fn json_fields(tlp: &Tlp) -> Vec<(&'static str, Value)> {
    let kind = tlp.kind();
    let mut out: Vec<(&'static str, Value)> = vec![
        ("kind", kind.as_str().into()),
        ("fmt", tlp.fmt().bits().into()),
        ("type", tlp.type_bits().into()),
        ("tc", tlp.tc().into()),
        ("attr", tlp.attr().bits().into()),
        ("td", tlp.td().into()),
        ("ep", tlp.ep().into()),
    ];
    if kind_fields(kind).contains(&"length") {
        out.push(("length", tlp.length_dw().into()));
    }
    out.push(("requester_id", tlp.requester_id().0.into()));
    if let Header::Completion(c) = tlp.header() {
        out.push(("completer_id", c.completer_id.0.into()));
    }
    out.push(("tag", tlp.tag().0.into()));
    match tlp.header() {
        Header::MemRead { req, .. } | Header::MemWrite(req) => {
            out.push(("first_be", req.first_be.into()));
            out.push(("last_be", req.last_be.into()));
            out.push(("address", req.address.0.into()));
        }
        Header::IoRead(r) | Header::IoWrite(r) => {
            out.push(("first_be", r.first_be.into()));
            out.push(("last_be", 0.into()));
            out.push(("address", r.address.0.into()));
        }
        Header::CfgRead(r) | Header::CfgWrite(r) => {
            out.push(("first_be", r.first_be.into()));
            out.push(("last_be", 0.into()));
            out.push(("target_id", r.target_id.0.into()));
            out.push(("register", r.register.into()));
        }
        Header::Completion(c) => {
            out.push(("status", c.status.as_str().into()));
            out.push(("bcm", c.bcm.into()));
            out.push(("byte_count", c.byte_count.into()));
            out.push(("lower_address", c.lower_address.into()));
        }
        Header::Message(m) => {
            out.push(("routing", m.routing.bits().into()));
            out.push(("message_code", m.code.into()));
            out.push(("bytes_8_15", to_hex(&m.bytes_8_15).into()));
            if let Some(a) = m.address() {
                out.push(("address", a.0.into()));
            }
            if let Some(t) = m.target_id() {
                out.push(("target_id", t.0.into()));
            }
        }
        Header::Atomic(a) => out.push(("address", a.address.0.into())),
    }
    if tlp.has_data() {
        out.push(("data", to_hex(tlp.data()).into()));
    }
    if let Some(d) = tlp.digest() {
        out.push(("digest", d.into()));
    }
    out
}
