//! Newtypes for the identifiers a TLP header carries: routing ids, tags, addresses.

use std::fmt;

use super::error::TlpError;

/// A PCIe routing id: bus (8 bits), device (5 bits), function (3 bits), packed as the
/// 16-bit Requester ID / Completer ID / target id fields are on the wire (bus in 15:8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Bdf(pub u16);

/// The requester's id in a request or completion.
pub type RequesterId = Bdf;
/// The completer's id in a completion.
pub type CompleterId = Bdf;

impl Bdf {
    /// Builds an id from its parts; device must be < 32 and function < 8.
    pub fn new(bus: u8, device: u8, function: u8) -> Result<Bdf, TlpError> {
        if device > 31 {
            return Err(TlpError::InvalidField {
                field: "device",
                value: device.into(),
                reason: "device number must be 0..=31",
            });
        }
        if function > 7 {
            return Err(TlpError::InvalidField {
                field: "function",
                value: function.into(),
                reason: "function number must be 0..=7",
            });
        }
        Ok(Bdf(u16::from(bus) << 8
            | u16::from(device) << 3
            | u16::from(function)))
    }

    /// Bus number (bits 15:8).
    pub fn bus(self) -> u8 {
        (self.0 >> 8) as u8
    }

    /// Device number (bits 7:3).
    pub fn device(self) -> u8 {
        ((self.0 >> 3) & 0x1f) as u8
    }

    /// Function number (bits 2:0).
    pub fn function(self) -> u8 {
        (self.0 & 0x7) as u8
    }

    /// The raw 16-bit value as carried on the wire.
    pub fn raw(self) -> u16 {
        self.0
    }
}

impl fmt::Display for Bdf {
    /// `bus:device.function` in hex, as lspci prints it, e.g. `01:00.0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:02x}:{:02x}.{:x}",
            self.bus(),
            self.device(),
            self.function()
        )
    }
}

impl std::str::FromStr for Bdf {
    type Err = TlpError;

    /// Parses `bus:device.function` in hex, as [`Bdf`]'s `Display` prints it.
    fn from_str(s: &str) -> Result<Bdf, TlpError> {
        let bad = TlpError::InvalidField {
            field: "bdf",
            value: 0,
            reason: "expected bus:device.function in hex, e.g. 01:00.0",
        };
        let (bus, rest) = s.split_once(':').ok_or(bad.clone())?;
        let (device, function) = rest.split_once('.').ok_or(bad.clone())?;
        let part = |t: &str| u8::from_str_radix(t, 16).map_err(|_| bad.clone());
        Bdf::new(part(bus)?, part(device)?, part(function)?)
    }
}

impl From<u16> for Bdf {
    fn from(raw: u16) -> Bdf {
        Bdf(raw)
    }
}

/// The transaction tag that, with the requester id, identifies an outstanding
/// non-posted request (8 bits: PCIe 3.0 with the Extended Tag field enabled).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Tag(pub u8);

impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#04x}", self.0)
    }
}

impl From<u8> for Tag {
    fn from(raw: u8) -> Tag {
        Tag(raw)
    }
}

/// A byte address in PCIe memory or I/O space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Addr(pub u64);

impl Addr {
    /// Addresses at or above this need the 4-DW (64-bit address) header format.
    pub const FOUR_GIB: u64 = 1 << 32;

    /// True when the address cannot be carried by a 3-DW header.
    pub fn needs_64bit(self) -> bool {
        self.0 >= Self::FOUR_GIB
    }

    /// The address rounded down to a DW boundary (what the header carries).
    pub fn dw_aligned(self) -> Addr {
        Addr(self.0 & !3)
    }

    /// The raw 64-bit value.
    pub fn raw(self) -> u64 {
        self.0
    }
}

impl fmt::Display for Addr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#x}", self.0)
    }
}

impl From<u64> for Addr {
    fn from(raw: u64) -> Addr {
        Addr(raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bdf_parts_and_display() {
        let id = Bdf::new(0x01, 0x1f, 7).unwrap();
        assert_eq!(id.raw(), 0x01ff);
        assert_eq!((id.bus(), id.device(), id.function()), (1, 31, 7));
        assert_eq!(id.to_string(), "01:1f.7");
        assert_eq!(Bdf(0x0100).to_string(), "01:00.0");
        assert!(Bdf::new(0, 32, 0).is_err());
        assert!(Bdf::new(0, 0, 8).is_err());
        assert_eq!("01:1f.7".parse::<Bdf>().unwrap(), id);
        for bad in [
            "", "01:00", "01.00:0", "1ff:00.0", "01:20.0", "01:00.8", "zz:00.0",
        ] {
            assert!(bad.parse::<Bdf>().is_err(), "{bad}");
        }
    }

    #[test]
    fn addr_width() {
        assert!(!Addr(0xffff_fffc).needs_64bit());
        assert!(Addr(0x1_0000_0000).needs_64bit());
        assert_eq!(Addr(0x1003).dw_aligned(), Addr(0x1000));
    }
}
