//! The 128-bit beat format: how a TLP crosses PEACH2's port interface.
//!
//! This module is the one place the format is defined; the RTL, the simulator and
//! the `peach2 tlp beats` command all follow it.
//!
//! A TLP crosses the chip's port interface as beats of 128 bits (the core's data
//! path width: 128 bits at 250 MHz, the Gen2 x8 rate):
//!
//! - `data[127:0]` holds 4 DW lanes; lane k = `data[32k+31:32k]`. The TLP's DWs in
//!   wire order (header DWs, then payload DWs, then the ECRC digest DW if TD = 1)
//!   fill the lanes in order: DW i goes to beat i/4, lane i%4. There are no gaps
//!   (no qword-alignment hole as in Altera's hard IP interface), so a 3-DW header's
//!   first payload DW sits in lane 3 of the first beat.
//! - Every lane holds its 4 wire bytes as a big-endian u32: wire byte 4i is in bits
//!   31:24 of the lane, so a header DW reads exactly as in the PCIe spec's figures.
//!   Payload DWs are treated the same way (payload byte 0 of a DW in bits 31:24).
//! - `sop` = 1 on the first beat of a TLP and only there; `eop` = 1 on the last and
//!   only there (a one-beat TLP has both). `empty` (2 bits) is the number of unused
//!   lanes in the eop beat, 0..=3, always the top lanes; it is 0 on every other
//!   beat. Unused lanes are zero.
//! - Printed form, one line per beat (MSB first, as a waveform viewer shows the bus):
//!   `data=<32 hex digits, data[127:0] MSB first> sop=<0|1> eop=<0|1> empty=<0..3>`
//!
//! Example: the 3-DW MRd `00000001 0000000f 00001000` is one beat,
//! `data=00000000000010000000000f00000001 sop=1 eop=1 empty=1`.
//!
//! [`to_beats`] and [`bytes_to_beats`] cut a TLP into beats; [`from_beats`] and
//! [`tlp_from_beats`] check the framing (sop/eop placement, `empty` range and
//! placement, zero unused lanes) and reassemble the bytes; [`split_packets`] does
//! the same for a stream of back-to-back TLPs.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use crate::tlp::{Tlp, TlpError};

/// Number of 32-bit lanes in a beat.
pub const LANES: usize = 4;

/// One 128-bit beat of the port interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Beat {
    /// Lane k is bits 32k+31:32k.
    pub data: u128,
    /// First beat of a TLP.
    pub sop: bool,
    /// Last beat of a TLP.
    pub eop: bool,
    /// Unused lanes (the top ones) in the eop beat, 0..=3; 0 on other beats.
    pub empty: u8,
}

impl Beat {
    /// Lane `k` (0..4) as a u32 (wire byte 0 of the DW in bits 31:24).
    pub fn lane(&self, k: usize) -> u32 {
        (self.data >> (32 * (k % LANES))) as u32
    }

    /// Lanes carrying TLP DWs: 4, or 4 - `empty` on the eop beat.
    pub fn used_lanes(&self) -> usize {
        if self.eop {
            LANES - usize::from(self.empty.min(3))
        } else {
            LANES
        }
    }
}

impl fmt::Display for Beat {
    /// `data=<32 hex digits> sop=<0|1> eop=<0|1> empty=<0..3>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "data={:032x} sop={} eop={} empty={}",
            self.data,
            u8::from(self.sop),
            u8::from(self.eop),
            self.empty
        )
    }
}

impl FromStr for Beat {
    type Err = BeatError;

    /// Parses the printed form (fields in that order, single spaces or any
    /// whitespace between them). Does not check framing; see [`from_beats`].
    fn from_str(s: &str) -> Result<Beat, BeatError> {
        let bad = |reason: &'static str| BeatError::Syntax {
            text: s.trim().to_string(),
            reason,
        };
        let mut fields = s.split_whitespace();
        let mut field = |name: &str| -> Option<&str> { fields.next()?.strip_prefix(name) };
        let data = field("data=").ok_or(bad("expected data=<32 hex digits>"))?;
        if data.len() != 32 {
            return Err(bad("data must be exactly 32 hex digits"));
        }
        let data = u128::from_str_radix(data, 16).map_err(|_| bad("data is not hex"))?;
        let flag = |v: Option<&str>, what: &'static str| match v {
            Some("0") => Ok(false),
            Some("1") => Ok(true),
            _ => Err(bad(what)),
        };
        let sop = flag(field("sop="), "expected sop=0 or sop=1")?;
        let eop = flag(field("eop="), "expected eop=0 or eop=1")?;
        let empty = field("empty=")
            .and_then(|v| v.parse::<u8>().ok())
            .filter(|e| *e <= 3)
            .ok_or(bad("expected empty=0..3"))?;
        if fields.next().is_some() {
            return Err(bad("unexpected text after empty="));
        }
        Ok(Beat {
            data,
            sop,
            eop,
            empty,
        })
    }
}

/// Why a sequence of beats is not a well-framed TLP.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum BeatError {
    /// No beats, or no bytes to cut into beats.
    #[error("no beats: a TLP needs at least one")]
    Empty,
    /// Bytes that are not whole DWs.
    #[error("{len} bytes is not a whole number of DWs")]
    NotWholeDws {
        /// Byte count.
        len: usize,
    },
    /// A TLP's first beat lacks sop.
    #[error("beat {index}: first beat of a TLP must have sop=1")]
    MissingSop {
        /// Beat index.
        index: usize,
    },
    /// sop on a beat inside a TLP.
    #[error("beat {index}: sop=1 inside a TLP (previous TLP has no eop)")]
    UnexpectedSop {
        /// Beat index.
        index: usize,
    },
    /// The last beat lacks eop.
    #[error("beat {index}: last beat has eop=0, the TLP is unterminated")]
    MissingEop {
        /// Beat index.
        index: usize,
    },
    /// eop before the last beat of a single TLP.
    #[error("beat {index}: eop=1 before the last beat")]
    EarlyEop {
        /// Beat index.
        index: usize,
    },
    /// `empty` out of 0..=3, or nonzero on a beat without eop.
    #[error("beat {index}: empty={empty} is invalid ({reason})")]
    BadEmpty {
        /// Beat index.
        index: usize,
        /// The value.
        empty: u8,
        /// Why.
        reason: &'static str,
    },
    /// An unused lane of the eop beat holds data.
    #[error("beat {index}: unused lane {lane} is {value:#010x}, must be 0")]
    NonZeroUnusedLane {
        /// Beat index.
        index: usize,
        /// Lane number.
        lane: usize,
        /// Its content.
        value: u32,
    },
    /// The printed form could not be parsed.
    #[error("cannot parse beat {text:?}: {reason}")]
    Syntax {
        /// The line.
        text: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// The reassembled bytes are not a valid TLP.
    #[error("invalid TLP in beats: {0}")]
    Tlp(#[from] TlpError),
}

/// Cuts a TLP into beats.
pub fn to_beats(tlp: &Tlp) -> Vec<Beat> {
    cut(&tlp.to_bytes())
}

/// Cuts a TLP's wire bytes (whole DWs, at least one) into beats. The bytes are
/// not checked as a TLP.
pub fn bytes_to_beats(bytes: &[u8]) -> Result<Vec<Beat>, BeatError> {
    if bytes.is_empty() {
        return Err(BeatError::Empty);
    }
    if !bytes.len().is_multiple_of(4) {
        return Err(BeatError::NotWholeDws { len: bytes.len() });
    }
    Ok(cut(bytes))
}

fn cut(bytes: &[u8]) -> Vec<Beat> {
    let chunks: Vec<&[u8]> = bytes.chunks(16).collect();
    let last = chunks.len() - 1;
    chunks
        .iter()
        .enumerate()
        .map(|(i, chunk)| {
            let data = chunk
                .chunks(4)
                .enumerate()
                .map(|(k, dw)| {
                    u128::from(u32::from_be_bytes([dw[0], dw[1], dw[2], dw[3]])) << (32 * k)
                })
                .fold(0, |acc, lane| acc | lane);
            Beat {
                data,
                sop: i == 0,
                eop: i == last,
                empty: if i == last {
                    (LANES - chunk.len() / 4) as u8
                } else {
                    0
                },
            }
        })
        .collect()
}

/// Reassembles one TLP's wire bytes from its beats, checking the framing.
pub fn from_beats(beats: &[Beat]) -> Result<Vec<u8>, BeatError> {
    if beats.is_empty() {
        return Err(BeatError::Empty);
    }
    let mut bytes = Vec::with_capacity(beats.len() * 16);
    for (index, beat) in beats.iter().enumerate() {
        check_beat(index, beat, index == 0, index == beats.len() - 1)?;
        push_lanes(&mut bytes, beat);
    }
    Ok(bytes)
}

/// Reassembles and unpacks one TLP from its beats.
pub fn tlp_from_beats(beats: &[Beat]) -> Result<Tlp, BeatError> {
    Ok(Tlp::from_bytes(&from_beats(beats)?)?)
}

/// Splits a stream of back-to-back TLPs (each from a sop beat to an eop beat)
/// into their wire bytes, checking the framing of each.
pub fn split_packets(beats: &[Beat]) -> Result<Vec<Vec<u8>>, BeatError> {
    if beats.is_empty() {
        return Err(BeatError::Empty);
    }
    let mut packets = Vec::new();
    let mut current: Option<Vec<u8>> = None;
    for (index, beat) in beats.iter().enumerate() {
        let first = current.is_none();
        if !first && beat.sop {
            return Err(BeatError::UnexpectedSop { index });
        }
        check_beat(index, beat, first, beat.eop)?;
        let bytes = current.get_or_insert_with(Vec::new);
        push_lanes(bytes, beat);
        if beat.eop {
            packets.extend(current.take());
        }
    }
    if current.is_some() {
        return Err(BeatError::MissingEop {
            index: beats.len() - 1,
        });
    }
    Ok(packets)
}

/// Checks one beat given whether it must be the first and the last of its TLP.
fn check_beat(index: usize, beat: &Beat, first: bool, last: bool) -> Result<(), BeatError> {
    if first && !beat.sop {
        return Err(BeatError::MissingSop { index });
    }
    if !first && beat.sop {
        return Err(BeatError::UnexpectedSop { index });
    }
    if last && !beat.eop {
        return Err(BeatError::MissingEop { index });
    }
    if !last && beat.eop {
        return Err(BeatError::EarlyEop { index });
    }
    if beat.empty > 3 {
        return Err(BeatError::BadEmpty {
            index,
            empty: beat.empty,
            reason: "the field is 2 bits, 0..=3",
        });
    }
    if !beat.eop && beat.empty != 0 {
        return Err(BeatError::BadEmpty {
            index,
            empty: beat.empty,
            reason: "must be 0 on a beat without eop",
        });
    }
    for lane in beat.used_lanes()..LANES {
        let value = beat.lane(lane);
        if value != 0 {
            return Err(BeatError::NonZeroUnusedLane { index, lane, value });
        }
    }
    Ok(())
}

fn push_lanes(bytes: &mut Vec<u8>, beat: &Beat) {
    for lane in 0..beat.used_lanes() {
        bytes.extend_from_slice(&beat.lane(lane).to_be_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn beat(data: u128, sop: bool, eop: bool, empty: u8) -> Beat {
        Beat {
            data,
            sop,
            eop,
            empty,
        }
    }

    #[test]
    fn mrd_3dw_is_one_beat() {
        let bytes = [0, 0, 0, 1, 0, 0, 0, 0x0f, 0, 0, 0x10, 0];
        let beats = bytes_to_beats(&bytes).unwrap();
        assert_eq!(beats.len(), 1);
        assert_eq!(
            beats[0].to_string(),
            "data=00000000000010000000000f00000001 sop=1 eop=1 empty=1"
        );
        assert_eq!(from_beats(&beats).unwrap(), bytes);
    }

    #[test]
    fn lanes_fill_without_gaps() {
        let bytes: Vec<u8> = (0..24).collect(); // 6 DWs
        let beats = bytes_to_beats(&bytes).unwrap();
        assert_eq!(beats.len(), 2);
        assert_eq!(beats[0].lane(0), 0x0001_0203);
        assert_eq!(beats[0].lane(3), 0x0c0d_0e0f);
        assert_eq!(beats[1].lane(1), 0x1415_1617);
        assert_eq!(
            (beats[0].sop, beats[0].eop, beats[0].empty),
            (true, false, 0)
        );
        assert_eq!(
            (beats[1].sop, beats[1].eop, beats[1].empty),
            (false, true, 2)
        );
    }

    #[test]
    fn framing_errors() {
        let one = beat(1, true, true, 3);
        assert!(from_beats(&[one]).is_ok());
        assert_eq!(from_beats(&[]), Err(BeatError::Empty));
        assert_eq!(
            from_beats(&[beat(1, false, true, 3)]),
            Err(BeatError::MissingSop { index: 0 })
        );
        assert_eq!(
            from_beats(&[beat(1, true, false, 0)]),
            Err(BeatError::MissingEop { index: 0 })
        );
        assert_eq!(
            from_beats(&[beat(1, true, true, 0), beat(1, false, true, 0)]),
            Err(BeatError::EarlyEop { index: 0 })
        );
        assert_eq!(
            from_beats(&[beat(1, true, false, 0), beat(1, true, true, 0)]),
            Err(BeatError::UnexpectedSop { index: 1 })
        );
        assert!(matches!(
            from_beats(&[beat(1, true, true, 4)]),
            Err(BeatError::BadEmpty { empty: 4, .. })
        ));
        assert!(matches!(
            from_beats(&[beat(1, true, false, 1), beat(1, false, true, 0)]),
            Err(BeatError::BadEmpty { index: 0, .. })
        ));
        assert_eq!(
            from_beats(&[beat(1 << 96, true, true, 1)]),
            Err(BeatError::NonZeroUnusedLane {
                index: 0,
                lane: 3,
                value: 1
            })
        );
    }

    #[test]
    fn printed_form_parses_back() {
        let b = beat(0x0123_4567_89ab_cdef_0011_2233_4455_6677, false, true, 2);
        assert_eq!(b.to_string().parse::<Beat>().unwrap(), b);
        assert!("data=00 sop=1 eop=1 empty=0".parse::<Beat>().is_err());
        assert!(format!("data={:032x} sop=1 eop=1 empty=4", 0)
            .parse::<Beat>()
            .is_err());
    }

    #[test]
    fn splits_back_to_back_packets() {
        let mut stream = bytes_to_beats(&[0; 12]).unwrap();
        stream.extend(bytes_to_beats(&[1; 20]).unwrap());
        let packets = split_packets(&stream).unwrap();
        assert_eq!(packets, vec![vec![0; 12], vec![1; 20]]);
        stream.pop();
        assert!(matches!(
            split_packets(&stream),
            Err(BeatError::MissingEop { .. })
        ));
    }
}
