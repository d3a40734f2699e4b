//! Transfer-size limits negotiated through config space: Max Payload Size (MPS), Max
//! Read Request Size (MRRS) and the Read Completion Boundary (RCB).
//!
//! MPS and MRRS are powers of two from 128 to 4096 bytes, encoded in 3-bit fields of the
//! Device Control register as `log2(bytes) - 7` (PCIe Base spec, Device Control
//! register); encodings 6 and 7 are reserved.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A size or encoding that is not a legal MPS/MRRS/RCB value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum LimitError {
    /// Not a power of two in 128..=4096.
    #[error("{what} must be a power of two from 128 to 4096 bytes, got {bytes}")]
    InvalidSize {
        /// Which limit.
        what: &'static str,
        /// The value given.
        bytes: u32,
    },
    /// A reserved 3-bit field encoding (6 or 7).
    #[error("{what} encoding {code} is reserved")]
    ReservedEncoding {
        /// Which limit.
        what: &'static str,
        /// The field value.
        code: u8,
    },
    /// RCB must be 64 or 128 bytes.
    #[error("read completion boundary must be 64 or 128 bytes, got {0}")]
    InvalidRcb(u32),
}

macro_rules! size_limit {
    ($(#[$doc:meta])* $name:ident, $what:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(try_from = "u32", into = "u32")]
        pub struct $name(u16);

        impl $name {
            /// 128 bytes (encoding 0).
            pub const B128: $name = $name(128);
            /// 256 bytes (encoding 1).
            pub const B256: $name = $name(256);
            /// 512 bytes (encoding 2).
            pub const B512: $name = $name(512);
            /// 1024 bytes (encoding 3).
            pub const B1024: $name = $name(1024);
            /// 2048 bytes (encoding 4).
            pub const B2048: $name = $name(2048);
            /// 4096 bytes (encoding 5).
            pub const B4096: $name = $name(4096);

            /// The limit of `bytes` bytes, which must be a power of two in 128..=4096.
            pub fn new(bytes: u32) -> Result<$name, LimitError> {
                if bytes.is_power_of_two() && (128..=4096).contains(&bytes) {
                    Ok($name(bytes as u16))
                } else {
                    Err(LimitError::InvalidSize { what: $what, bytes })
                }
            }

            /// Decodes the 3-bit config-space field.
            pub fn from_encoding(code: u8) -> Result<$name, LimitError> {
                if code <= 5 {
                    Ok($name(128 << code))
                } else {
                    Err(LimitError::ReservedEncoding { what: $what, code })
                }
            }

            /// The 3-bit config-space field value.
            pub fn encoding(self) -> u8 {
                (self.0.trailing_zeros() - 7) as u8
            }

            /// The limit in bytes.
            pub fn bytes(self) -> u32 {
                u32::from(self.0)
            }
        }

        impl TryFrom<u32> for $name {
            type Error = LimitError;
            fn try_from(bytes: u32) -> Result<$name, LimitError> {
                $name::new(bytes)
            }
        }

        impl From<$name> for u32 {
            fn from(v: $name) -> u32 {
                v.bytes()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{} B", self.0)
            }
        }
    };
}

size_limit!(
    /// Max Payload Size: the largest data payload a TLP may carry on the link.
    MaxPayloadSize,
    "max payload size"
);

size_limit!(
    /// Max Read Request Size: the largest read a requester may ask for in one MRd.
    MaxReadRequestSize,
    "max read request size"
);

/// Read Completion Boundary: a completer that splits a read must end every completion
/// but the last on an RCB-aligned address. Root complexes use 64 or 128 B (Link Control
/// bit 3); other devices always use 128 B.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "u32", into = "u32")]
pub enum Rcb {
    /// 64-byte boundary (Link Control RCB bit = 0).
    B64,
    /// 128-byte boundary (Link Control RCB bit = 1).
    B128,
}

impl Rcb {
    /// The boundary in bytes.
    pub fn bytes(self) -> u32 {
        match self {
            Rcb::B64 => 64,
            Rcb::B128 => 128,
        }
    }

    /// The Link Control register's RCB bit.
    pub fn link_control_bit(self) -> bool {
        self == Rcb::B128
    }

    /// The boundary selected by a Link Control RCB bit.
    pub fn from_link_control_bit(bit: bool) -> Rcb {
        if bit {
            Rcb::B128
        } else {
            Rcb::B64
        }
    }
}

impl TryFrom<u32> for Rcb {
    type Error = LimitError;
    fn try_from(bytes: u32) -> Result<Rcb, LimitError> {
        match bytes {
            64 => Ok(Rcb::B64),
            128 => Ok(Rcb::B128),
            _ => Err(LimitError::InvalidRcb(bytes)),
        }
    }
}

impl From<Rcb> for u32 {
    fn from(r: Rcb) -> u32 {
        r.bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings_round_trip() {
        for code in 0..=5u8 {
            let m = MaxPayloadSize::from_encoding(code).unwrap();
            assert_eq!(m.encoding(), code);
            assert_eq!(m.bytes(), 128 << code);
            assert_eq!(MaxReadRequestSize::new(m.bytes()).unwrap().encoding(), code);
        }
        assert_eq!(MaxPayloadSize::B256.encoding(), 1);
        assert_eq!(MaxReadRequestSize::B512.encoding(), 2);
    }

    #[test]
    fn bad_values_are_typed_errors() {
        assert!(matches!(
            MaxPayloadSize::new(192),
            Err(LimitError::InvalidSize { bytes: 192, .. })
        ));
        assert!(MaxPayloadSize::new(64).is_err());
        assert!(MaxPayloadSize::new(8192).is_err());
        assert!(matches!(
            MaxReadRequestSize::from_encoding(6),
            Err(LimitError::ReservedEncoding { code: 6, .. })
        ));
        assert_eq!(Rcb::try_from(32), Err(LimitError::InvalidRcb(32)));
        assert!(serde_json::from_str::<MaxPayloadSize>("300").is_err());
        assert_eq!(serde_json::from_str::<Rcb>("64").unwrap(), Rcb::B64);
    }

    #[test]
    fn rcb_bit() {
        assert_eq!(Rcb::from_link_control_bit(true), Rcb::B128);
        assert!(!Rcb::B64.link_control_bit());
    }
}
