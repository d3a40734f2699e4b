//! The spec rules a TLP must satisfy, checked once for every way a TLP is built.

use super::error::TlpError;
use super::fields::{AddrWidth, Attr};
use super::header::{Header, MemRequest};
use super::{Common, MAX_PAYLOAD_BYTES};

/// Checks header, common fields and payload together.
pub(super) fn check(header: &Header, common: &Common, payload: &[u8]) -> Result<(), TlpError> {
    if common.tc > 7 {
        return Err(invalid(
            "tc",
            common.tc.into(),
            "traffic class is 3 bits (0..=7)",
        ));
    }
    if !payload.len().is_multiple_of(4) {
        return Err(invalid(
            "data",
            payload.len() as u64,
            "payload must be a whole number of DWs",
        ));
    }
    if payload.len() > MAX_PAYLOAD_BYTES {
        return Err(invalid(
            "data",
            payload.len() as u64,
            "payload exceeds 1024 DW (4096 bytes)",
        ));
    }
    let payload_dw = (payload.len() / 4) as u16;
    match header {
        Header::MemRead { req, length_dw, .. } => {
            no_payload(payload)?;
            if !(1..=1024).contains(length_dw) {
                return Err(invalid(
                    "length",
                    (*length_dw).into(),
                    "memory read length must be 1..=1024 DW",
                ));
            }
            check_mem(req, *length_dw)
        }
        Header::MemWrite(req) => {
            if payload.is_empty() {
                return Err(invalid("data", 0, "MWr needs a payload of at least 1 DW"));
            }
            check_mem(req, payload_dw)
        }
        Header::IoRead(r) | Header::IoWrite(r) => {
            let write = matches!(header, Header::IoWrite(_));
            one_dw_request(common, payload, write)?;
            check_byte_enables(r.first_be, 0, 1, r.address.0)?;
            if r.address.0 & 3 != 0 {
                return Err(reserved("address[1:0]", r.address.0 & 3));
            }
            if r.address.needs_64bit() {
                return Err(invalid(
                    "address",
                    r.address.0,
                    "I/O addresses are 32 bits (3-DW header)",
                ));
            }
            Ok(())
        }
        Header::CfgRead(r) | Header::CfgWrite(r) => {
            let write = matches!(header, Header::CfgWrite(_));
            one_dw_request(common, payload, write)?;
            check_byte_enables(r.first_be, 0, 1, 0)?;
            if r.register > 1023 {
                return Err(invalid(
                    "register",
                    r.register.into(),
                    "configuration register number is 10 bits (0..=1023 DW)",
                ));
            }
            Ok(())
        }
        Header::Completion(c) => {
            if !(1..=4096).contains(&c.byte_count) {
                return Err(invalid(
                    "byte_count",
                    c.byte_count.into(),
                    "byte count must be 1..=4096",
                ));
            }
            if c.lower_address > 0x7f {
                return Err(invalid(
                    "lower_address",
                    c.lower_address.into(),
                    "lower address is 7 bits",
                ));
            }
            Ok(())
        }
        Header::Message(_) => Ok(()),
        Header::Atomic(a) => {
            let Some(operand) = a.op.operand_size(payload.len()) else {
                return Err(invalid(
                    "length",
                    payload_dw.into(),
                    "AtomicOp length must be 1 or 2 DW (FetchAdd, Swap) or 2, 4 or 8 DW (CAS)",
                ));
            };
            if !a.address.0.is_multiple_of(operand as u64) {
                return Err(invalid(
                    "address",
                    a.address.0,
                    "AtomicOp address must be naturally aligned to the operand size",
                ));
            }
            check_width(a.width, a.address.0)
        }
    }
}

fn invalid(field: &'static str, value: u64, reason: &'static str) -> TlpError {
    TlpError::InvalidField {
        field,
        value,
        reason,
    }
}

fn reserved(field: &'static str, value: u64) -> TlpError {
    TlpError::ReservedBits { field, value }
}

fn no_payload(payload: &[u8]) -> Result<(), TlpError> {
    if payload.is_empty() {
        Ok(())
    } else {
        Err(invalid(
            "data",
            payload.len() as u64,
            "a read request carries no payload",
        ))
    }
}

/// I/O and configuration requests: TC 0, Attr 0, exactly one DW (§2.2.7).
fn one_dw_request(common: &Common, payload: &[u8], write: bool) -> Result<(), TlpError> {
    if common.tc != 0 {
        return Err(invalid(
            "tc",
            common.tc.into(),
            "I/O and configuration requests must use TC 0",
        ));
    }
    if common.attr != Attr::default() {
        return Err(invalid(
            "attr",
            common.attr.bits().into(),
            "I/O and configuration requests must have Attr 0",
        ));
    }
    if write && payload.len() != 4 {
        return Err(invalid(
            "data",
            payload.len() as u64,
            "I/O and configuration writes carry exactly 1 DW",
        ));
    }
    if !write {
        no_payload(payload)?;
    }
    Ok(())
}

fn check_width(width: AddrWidth, address: u64) -> Result<(), TlpError> {
    if width == AddrWidth::Bits32 && address >= 1 << 32 {
        return Err(invalid(
            "address",
            address,
            "a 3-DW header holds only addresses below 4 GiB",
        ));
    }
    Ok(())
}

fn check_mem(req: &MemRequest, length_dw: u16) -> Result<(), TlpError> {
    if req.address.0 & 3 != 0 {
        return Err(reserved("address[1:0]", req.address.0 & 3));
    }
    check_width(req.width, req.address.0)?;
    check_byte_enables(req.first_be, req.last_be, length_dw, req.address.0)?;
    // §2.2.7: a memory request must not cross a 4 KiB boundary.
    if (req.address.0 & 0xfff) + 4 * u64::from(length_dw) > 4096 {
        return Err(TlpError::Crosses4KiB {
            address: req.address.0,
            length_dw,
        });
    }
    Ok(())
}

/// Byte-enable rules of PCIe 3.0 §2.2.5 for a memory request of `length_dw` DWs at
/// `address`: a 1-DW request has `last_be` 0; a longer one has both nonzero and
/// contiguous, unless it is a QW-aligned 2-DW request.
pub fn check_byte_enables(
    first_be: u8,
    last_be: u8,
    length_dw: u16,
    address: u64,
) -> Result<(), TlpError> {
    if first_be > 0xf {
        return Err(invalid(
            "first_be",
            first_be.into(),
            "byte enables are 4 bits",
        ));
    }
    if last_be > 0xf {
        return Err(invalid(
            "last_be",
            last_be.into(),
            "byte enables are 4 bits",
        ));
    }
    if length_dw == 1 {
        if last_be != 0 {
            return Err(invalid(
                "last_be",
                last_be.into(),
                "must be 0 when the length is 1 DW",
            ));
        }
        return Ok(());
    }
    if first_be == 0 {
        return Err(invalid(
            "first_be",
            0,
            "must not be 0 when the length is more than 1 DW",
        ));
    }
    if last_be == 0 {
        return Err(invalid(
            "last_be",
            0,
            "must not be 0 when the length is more than 1 DW",
        ));
    }
    // Only a QW-aligned 2-DW request may have holes in its byte enables.
    let qw_aligned_pair = length_dw == 2 && address & 7 == 0;
    if !qw_aligned_pair {
        if !matches!(first_be, 0b1111 | 0b1110 | 0b1100 | 0b1000) {
            return Err(invalid(
                "first_be",
                first_be.into(),
                "enabled bytes must be contiguous up to the end of the first DW \
                 (only 1-DW and QW-aligned 2-DW requests may be non-contiguous)",
            ));
        }
        if !matches!(last_be, 0b0001 | 0b0011 | 0b0111 | 0b1111) {
            return Err(invalid(
                "last_be",
                last_be.into(),
                "enabled bytes must be contiguous from the start of the last DW \
                 (only 1-DW and QW-aligned 2-DW requests may be non-contiguous)",
            ));
        }
    }
    Ok(())
}

/// Offset in its DW of the first enabled byte (0 when none is enabled).
pub(super) fn first_enabled_byte(first_be: u8) -> u8 {
    if first_be & 0xf == 0 {
        0
    } else {
        (first_be & 0xf).trailing_zeros() as u8
    }
}

/// Bytes a read of `length_dw` DWs with these byte enables returns, counting
/// from the first enabled byte to the last (Table 2-38; a zero-length read is 1).
pub(super) fn byte_count(length_dw: u16, first_be: u8, last_be: u8) -> u16 {
    let first_be = first_be & 0xf;
    let last_be = last_be & 0xf;
    if length_dw == 1 {
        if first_be == 0 {
            return 1;
        }
        let high = 7 - first_be.leading_zeros() as u16;
        let low = first_be.trailing_zeros() as u16;
        return high - low + 1;
    }
    let lead = u16::from(first_enabled_byte(first_be));
    let trail = if last_be == 0 {
        4
    } else {
        3 - (7 - last_be.leading_zeros() as u16)
    };
    4 * length_dw - lead - trail
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_count_table_2_38() {
        // Rows of PCIe 3.0 Table 2-38.
        assert_eq!(byte_count(1, 0b1001, 0), 4);
        assert_eq!(byte_count(1, 0b1111, 0), 4);
        assert_eq!(byte_count(1, 0b0101, 0), 3);
        assert_eq!(byte_count(1, 0b1010, 0), 3);
        assert_eq!(byte_count(1, 0b0011, 0), 2);
        assert_eq!(byte_count(1, 0b0110, 0), 2);
        assert_eq!(byte_count(1, 0b1100, 0), 2);
        assert_eq!(byte_count(1, 0b0100, 0), 1);
        assert_eq!(byte_count(1, 0b0000, 0), 1);
        assert_eq!(byte_count(4, 0b1111, 0b1111), 16);
        assert_eq!(byte_count(4, 0b1111, 0b0111), 15);
        assert_eq!(byte_count(4, 0b1111, 0b0011), 14);
        assert_eq!(byte_count(4, 0b1111, 0b0001), 13);
        assert_eq!(byte_count(4, 0b1110, 0b1111), 15);
        assert_eq!(byte_count(4, 0b1100, 0b0001), 11);
        assert_eq!(byte_count(4, 0b1000, 0b0001), 10);
    }

    #[test]
    fn lower_address_table_2_39() {
        assert_eq!(first_enabled_byte(0b0000), 0);
        assert_eq!(first_enabled_byte(0b1111), 0);
        assert_eq!(first_enabled_byte(0b1010), 1);
        assert_eq!(first_enabled_byte(0b0100), 2);
        assert_eq!(first_enabled_byte(0b1000), 3);
    }

    #[test]
    fn be_rules() {
        assert!(
            check_byte_enables(0, 0, 1, 0).is_ok(),
            "zero-length request"
        );
        assert!(
            check_byte_enables(0b0101, 0, 1, 0).is_ok(),
            "holes allowed in 1 DW"
        );
        assert!(check_byte_enables(0xf, 1, 1, 0).is_err());
        assert!(check_byte_enables(0, 0xf, 2, 0).is_err());
        assert!(check_byte_enables(0xf, 0, 2, 0).is_err());
        assert!(
            check_byte_enables(0b0101, 0b1010, 2, 8).is_ok(),
            "QW-aligned 2 DW"
        );
        assert!(
            check_byte_enables(0b0101, 0b1010, 2, 4).is_err(),
            "not QW-aligned"
        );
        assert!(check_byte_enables(0b1111, 0b1010, 3, 0).is_err());
        assert!(check_byte_enables(0b1100, 0b0111, 3, 0).is_ok());
    }
}
