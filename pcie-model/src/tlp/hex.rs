//! Hex text for TLP bytes: the form the CLI and the JSON `data` field use.

use thiserror::Error;

/// Why a hex string could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum HexError {
    /// A character that is not a hex digit (after removing spaces and `0x`).
    #[error("invalid hex digit {ch:?} at position {position}")]
    BadDigit {
        /// The character.
        ch: char,
        /// Its character index in the input.
        position: usize,
    },
    /// An odd number of digits: the last byte is incomplete.
    #[error("odd number of hex digits ({count}): bytes need two digits each")]
    OddDigits {
        /// Number of digits found.
        count: usize,
    },
}

/// Reads bytes from hex. Whitespace and `_` are ignored anywhere, and each
/// whitespace-separated group may start with `0x`/`0X`; the groups' digits are
/// concatenated (`"0x00000001 0000000f"` is 8 bytes). Case does not matter.
pub fn parse_hex(text: &str) -> Result<Vec<u8>, HexError> {
    let mut digits = Vec::with_capacity(text.len());
    let mut position = 0;
    for group in text.split_inclusive(char::is_whitespace) {
        let body = group
            .strip_prefix("0x")
            .or_else(|| group.strip_prefix("0X"))
            .unwrap_or(group);
        let skipped = group.chars().count() - body.chars().count();
        for (i, ch) in body.chars().enumerate() {
            if ch.is_whitespace() || ch == '_' {
                continue;
            }
            let value = ch.to_digit(16).ok_or(HexError::BadDigit {
                ch,
                position: position + skipped + i,
            })?;
            digits.push(value as u8);
        }
        position += group.chars().count();
    }
    if !digits.len().is_multiple_of(2) {
        return Err(HexError::OddDigits {
            count: digits.len(),
        });
    }
    Ok(digits.chunks(2).map(|p| p[0] << 4 | p[1]).collect())
}

/// Writes bytes as lowercase hex without separators.
pub fn to_hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_spaces_and_prefixes() {
        assert_eq!(
            parse_hex("0x00000001 0X0000000F\t00001000\n").unwrap(),
            vec![0, 0, 0, 1, 0, 0, 0, 0x0f, 0, 0, 0x10, 0]
        );
        assert_eq!(
            parse_hex("dead_BEEF").unwrap(),
            vec![0xde, 0xad, 0xbe, 0xef]
        );
        assert_eq!(parse_hex("").unwrap(), Vec::<u8>::new());
    }

    #[test]
    fn rejects_bad_digits_and_odd_length() {
        assert_eq!(
            parse_hex("00 0g"),
            Err(HexError::BadDigit {
                ch: 'g',
                position: 4
            })
        );
        assert_eq!(parse_hex("abc"), Err(HexError::OddDigits { count: 3 }));
        assert!(parse_hex("0x").unwrap().is_empty());
        assert!(parse_hex("x0").is_err());
    }

    #[test]
    fn writes_lowercase() {
        assert_eq!(to_hex(&[0xAB, 0x01]), "ab01");
    }
}
