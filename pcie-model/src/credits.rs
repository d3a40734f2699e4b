//! Transaction-layer flow control: credits per class (posted, non-posted, completion)
//! and kind (header, data), the initial advertisement (InitFC, with infinite credits),
//! consumption when a TLP is sent, return through UpdateFC, and the gating check that
//! refuses a TLP for which the receiver has no buffer space.
//!
//! Counters follow the PCIe Base spec (section 2.6.1): header counters are 8-bit and
//! data counters 12-bit, all arithmetic is modulo 2^field, and a transmitter may send a
//! TLP needing `n` credits only if `(CREDIT_LIMIT - (CREDITS_CONSUMED + n)) mod 2^field
//! <= 2^field / 2`. A receiver must therefore never have more than 127 header or 2047
//! data credits outstanding. An advertised value of 0 means infinite credits.

use serde::{Deserialize, Serialize};

use crate::tlp::{FlowClass, Tlp};

/// Bytes covered by one data credit (4 DW).
pub const DATA_CREDIT_BYTES: u32 = 16;
/// Width of a header credit counter.
pub const HEADER_FIELD_BITS: u32 = 8;
/// Width of a data credit counter.
pub const DATA_FIELD_BITS: u32 = 12;
/// Largest finite header advertisement (2^7 - 1).
pub const MAX_HEADER_CREDITS: u32 = (1 << (HEADER_FIELD_BITS - 1)) - 1;
/// Largest finite data advertisement (2^11 - 1).
pub const MAX_DATA_CREDITS: u32 = (1 << (DATA_FIELD_BITS - 1)) - 1;

/// The classes in DLLP order (posted, non-posted, completion).
pub const FLOW_CLASSES: [FlowClass; 3] = [
    FlowClass::Posted,
    FlowClass::NonPosted,
    FlowClass::Completion,
];

fn class_index(class: FlowClass) -> usize {
    match class {
        FlowClass::Posted => 0,
        FlowClass::NonPosted => 1,
        FlowClass::Completion => 2,
    }
}

/// Header or data credits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CreditKind {
    /// One credit per TLP header.
    Header,
    /// One credit per 16 bytes of payload.
    Data,
}

impl CreditKind {
    fn field_bits(self) -> u32 {
        match self {
            CreditKind::Header => HEADER_FIELD_BITS,
            CreditKind::Data => DATA_FIELD_BITS,
        }
    }

    fn max_finite(self) -> u32 {
        match self {
            CreditKind::Header => MAX_HEADER_CREDITS,
            CreditKind::Data => MAX_DATA_CREDITS,
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Data credits needed for `payload_bytes` bytes: `ceil(payload / 16)`.
pub fn data_credits(payload_bytes: u32) -> u32 {
    payload_bytes.div_ceil(DATA_CREDIT_BYTES)
}

/// The credits one TLP consumes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FcCost {
    /// Class the TLP belongs to.
    pub class: FlowClass,
    /// Header credits (1 for every TLP).
    pub header: u32,
    /// Data credits: `ceil(payload / 16)`.
    pub data: u32,
}

impl FcCost {
    /// A TLP of `class` carrying `payload_bytes` of data.
    pub fn new(class: FlowClass, payload_bytes: u32) -> FcCost {
        FcCost {
            class,
            header: 1,
            data: data_credits(payload_bytes),
        }
    }

    /// The credits `tlp` consumes: one header credit in its class and one data credit
    /// per 16 bytes of its (whole-DW) payload.
    pub fn of_tlp(tlp: &Tlp) -> FcCost {
        FcCost::new(tlp.flow_class(), tlp.payload_len() as u32)
    }

    /// A posted request (MWr, Msg, MsgD).
    pub fn posted(payload_bytes: u32) -> FcCost {
        FcCost::new(FlowClass::Posted, payload_bytes)
    }

    /// A non-posted request (MRd: 0 bytes; CfgWr/IOWr: 4 bytes).
    pub fn non_posted(payload_bytes: u32) -> FcCost {
        FcCost::new(FlowClass::NonPosted, payload_bytes)
    }

    /// A completion (Cpl: 0 bytes; CplD: its payload).
    pub fn completion(payload_bytes: u32) -> FcCost {
        FcCost::new(FlowClass::Completion, payload_bytes)
    }

    fn of(&self, kind: CreditKind) -> u32 {
        match kind {
            CreditKind::Header => self.header,
            CreditKind::Data => self.data,
        }
    }
}

/// An advertised credit amount for one class and kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "u32", into = "u32")]
pub enum CreditLimit {
    /// The receiver never runs out (advertised as 0); no gating, no UpdateFC.
    Infinite,
    /// A finite number of credits (1..=127 headers, 1..=2047 data).
    Finite(u32),
}

impl From<u32> for CreditLimit {
    /// The wire encoding: 0 is infinite.
    fn from(v: u32) -> CreditLimit {
        if v == 0 {
            CreditLimit::Infinite
        } else {
            CreditLimit::Finite(v)
        }
    }
}

impl From<CreditLimit> for u32 {
    fn from(c: CreditLimit) -> u32 {
        match c {
            CreditLimit::Infinite => 0,
            CreditLimit::Finite(n) => n,
        }
    }
}

/// Header and data advertisement of one class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ClassCredits {
    /// Header credits.
    pub header: CreditLimit,
    /// Data credits.
    pub data: CreditLimit,
}

impl ClassCredits {
    fn of(&self, kind: CreditKind) -> CreditLimit {
        match kind {
            CreditKind::Header => self.header,
            CreditKind::Data => self.data,
        }
    }
}

/// The InitFC advertisement of a receiver: credits for each class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FcAdvertisement {
    /// Posted requests.
    pub posted: ClassCredits,
    /// Non-posted requests.
    pub non_posted: ClassCredits,
    /// Completions.
    pub completion: ClassCredits,
}

impl FcAdvertisement {
    /// A model default for an endpoint receiver: 32 posted headers with 4 KiB of posted
    /// data (256 credits: sixteen 256 B writes), 32 non-posted headers with 8 data
    /// credits (reads carry no data), and infinite completion credits, which the spec
    /// requires of endpoints and root complexes (a requester reserves completion space
    /// before it issues a read).
    pub fn endpoint_default() -> FcAdvertisement {
        FcAdvertisement {
            posted: ClassCredits {
                header: CreditLimit::Finite(32),
                data: CreditLimit::Finite(256),
            },
            non_posted: ClassCredits {
                header: CreditLimit::Finite(32),
                data: CreditLimit::Finite(8),
            },
            completion: ClassCredits {
                header: CreditLimit::Infinite,
                data: CreditLimit::Infinite,
            },
        }
    }

    /// The advertisement of one class.
    pub fn class(&self, class: FlowClass) -> ClassCredits {
        match class {
            FlowClass::Posted => self.posted,
            FlowClass::NonPosted => self.non_posted,
            FlowClass::Completion => self.completion,
        }
    }

    /// Checks that every finite value is 1..=127 (headers) or 1..=2047 (data).
    pub fn validate(&self) -> Result<(), FcError> {
        for class in FLOW_CLASSES {
            for kind in [CreditKind::Header, CreditKind::Data] {
                if let CreditLimit::Finite(n) = self.class(class).of(kind) {
                    if n == 0 || n > kind.max_finite() {
                        return Err(FcError::BadAdvertisement {
                            class,
                            kind,
                            credits: n,
                        });
                    }
                }
            }
        }
        Ok(())
    }
}

/// The contents of an UpdateFC DLLP: the receiver's CREDITS_ALLOCATED counters for one
/// class (8-bit header field, 12-bit data field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UpdateFc {
    /// Class updated.
    pub class: FlowClass,
    /// HdrFC field.
    pub header: u32,
    /// DataFC field.
    pub data: u32,
}

/// Why a TLP may not be sent now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("no {kind:?} credit for {class:?}: need {needed}, {available} available")]
pub struct FcBlocked {
    /// Class of the TLP.
    pub class: FlowClass,
    /// The kind of credit that ran out (header is checked first).
    pub kind: CreditKind,
    /// Credits the TLP needs.
    pub needed: u32,
    /// Credits currently available.
    pub available: u32,
}

/// Flow-control protocol errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum FcError {
    /// An InitFC value outside the legal range.
    #[error("illegal {kind:?} advertisement for {class:?}: {credits} (finite values are 1..=127 headers, 1..=2047 data)")]
    BadAdvertisement {
        /// Class.
        class: FlowClass,
        /// Kind.
        kind: CreditKind,
        /// Value given.
        credits: u32,
    },
    /// An UpdateFC that would leave more credits outstanding than a counter can express
    /// (the receiver returned credits it never had), or a value too wide for its field.
    #[error(
        "UpdateFC for {class:?} {kind:?} to {value} is not consistent with {consumed} consumed"
    )]
    BadUpdate {
        /// Class.
        class: FlowClass,
        /// Kind.
        kind: CreditKind,
        /// Field value received.
        value: u32,
        /// Transmitter's CREDITS_CONSUMED.
        consumed: u32,
    },
    /// A TLP arrived for which the receiver had not advertised space.
    #[error(
        "receiver overflow: {class:?} {kind:?} needs {needed}, {available} allocated and free"
    )]
    ReceiverOverflow {
        /// Class.
        class: FlowClass,
        /// Kind.
        kind: CreditKind,
        /// Credits the TLP needs.
        needed: u32,
        /// Credits that were free.
        available: u32,
    },
    /// Buffer space released that was never occupied.
    #[error("released {released} {kind:?} credits of {class:?} but only {held} are held")]
    ReleaseExceedsHeld {
        /// Class.
        class: FlowClass,
        /// Kind.
        kind: CreditKind,
        /// Credits released.
        released: u32,
        /// Credits held in the buffer.
        held: u32,
    },
}

/// Header then data.
const KINDS: [CreditKind; 2] = [CreditKind::Header, CreditKind::Data];

fn modulo(kind: CreditKind) -> u32 {
    1 << kind.field_bits()
}

fn sub_mod(a: u32, b: u32, kind: CreditKind) -> u32 {
    a.wrapping_sub(b) & (modulo(kind) - 1)
}

mod receiver;
mod transmitter;

pub use receiver::FcReceiver;
pub use transmitter::FcTransmitter;

#[cfg(test)]
mod tests;
