//! Config requests and completions for the link controller's tests, written by hand from
//! the PCIe 3.0 header figures (not from the RTL's constants), and a checker that pulls a
//! one-beat TLP apart field by field.
//!
//! Two models of one thing: every TLP built here is also built by `pcie_model::tlp` and
//! must give the same beats, and every TLP the chip sends is also unpacked by
//! `pcie_model` (which checks the spec's rules) and must give the same fields.

use crate::harness::{packet_beats, TestBeat};
use pcie_model::beats::{self, Beat};
use pcie_model::tlp::{Bdf, CfgType, Completion, CplStatus, Header, Tag, Tlp};

fn model_beats(t: &Tlp) -> Vec<TestBeat> {
    beats::to_beats(t)
        .into_iter()
        .map(|b| TestBeat {
            data: b.data,
            sop: b.sop,
            eop: b.eop,
            empty: b.empty,
            ..TestBeat::default()
        })
        .collect()
}

/// Unpacks beats the chip sent with `pcie_model`, which rejects any spec violation.
fn model_tlp(b: &[TestBeat]) -> Tlp {
    let beats: Vec<Beat> = b
        .iter()
        .map(|b| Beat {
            data: b.data,
            sop: b.sop,
            eop: b.eop,
            empty: b.empty,
        })
        .collect();
    let t =
        beats::tlp_from_beats(&beats).unwrap_or_else(|e| panic!("pcie-model rejects {b:x?}: {e}"));
    let c = t.common();
    assert!(
        c.tc == 0 && c.attr.bits() == 0 && !c.ep && c.digest.is_none(),
        "{c:?}"
    );
    t
}

fn status_of(bits: u8) -> CplStatus {
    CplStatus::from_bits(bits).expect("a defined completion status")
}

/// A config request as the tests build it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CfgReq {
    /// Type 1 (else type 0).
    pub type1: bool,
    /// `Some(value)` for a write.
    pub write: Option<u32>,
    /// Requester id.
    pub requester: u16,
    /// Tag.
    pub tag: u8,
    /// First DW byte enables.
    pub first_be: u8,
    /// Target bus/dev/fn.
    pub target: u16,
    /// Byte offset of the register (DW aligned).
    pub offset: u16,
}

impl CfgReq {
    /// A CfgRd0 of `offset` with all bytes enabled.
    pub fn rd0(requester: u16, tag: u8, target: u16, offset: u16) -> Self {
        Self {
            type1: false,
            write: None,
            requester,
            tag,
            first_be: 0xF,
            target,
            offset,
        }
    }

    /// A CfgWr0 of `value` to `offset` with byte enables `first_be`.
    pub fn wr0(
        requester: u16,
        tag: u8,
        target: u16,
        offset: u16,
        first_be: u8,
        value: u32,
    ) -> Self {
        Self {
            write: Some(value),
            first_be,
            ..Self::rd0(requester, tag, target, offset)
        }
    }

    /// The DWs on the wire. DW0: fmt 000/010, type 00100/00101, length 1. The payload
    /// carries register byte k as wire byte k, so its lane is the value byte-swapped.
    pub fn dws(&self) -> Vec<u32> {
        let typ = if self.type1 { 0x05 } else { 0x04 };
        let fmt = if self.write.is_some() { 0b010 } else { 0b000 };
        let mut d = vec![
            (fmt << 29) | (typ << 24) | 1,
            (u32::from(self.requester) << 16)
                | (u32::from(self.tag) << 8)
                | u32::from(self.first_be),
            (u32::from(self.target) << 16) | u32::from(self.offset & 0xFFC),
        ];
        if let Some(v) = self.write {
            d.push(v.swap_bytes());
        }
        d
    }

    /// The same request built by `pcie_model`.
    pub fn model(&self) -> Tlp {
        let ty = if self.type1 {
            CfgType::Type1
        } else {
            CfgType::Type0
        };
        let (rq, tag, tgt, reg) = (
            Bdf(self.requester),
            Tag(self.tag),
            Bdf(self.target),
            self.offset / 4,
        );
        match self.write {
            None => Tlp::cfg_read(ty, rq, tag, tgt, reg, self.first_be),
            Some(v) => Tlp::cfg_write(ty, rq, tag, tgt, reg, self.first_be, v),
        }
        .expect("a valid config request")
    }

    /// The request as one beat (checked against `pcie_model`'s beats).
    pub fn beats(&self) -> Vec<TestBeat> {
        let b = packet_beats(&self.dws(), 0, 0, false);
        assert_eq!(
            b,
            model_beats(&self.model()),
            "hand-built and pcie-model beats differ"
        );
        b
    }

    /// Decodes a one-beat config request sent by the chip, checking its framing and the
    /// fields a root complex always sets (length 1, TC 0, no attributes, last_be 0).
    pub fn from_beats(beats: &[TestBeat]) -> Self {
        assert_eq!(beats.len(), 1, "a config request is one beat: {beats:x?}");
        let b = beats[0];
        assert!(b.sop && b.eop, "{b:x?}");
        assert_eq!(
            (b.dest, b.src, b.unsupported),
            (0, 0, false),
            "metadata {b:x?}"
        );
        let dw = |k: u32| (b.data >> (32 * k)) as u32;
        let fmt = dw(0) >> 29;
        let typ = (dw(0) >> 24) & 0x1F;
        assert!(
            typ == 0x04 || typ == 0x05,
            "not a config request: {:08x}",
            dw(0)
        );
        assert_eq!(
            dw(0) & 0x00FF_FFFF,
            1,
            "TC/attr/TD/EP 0, length 1: {:08x}",
            dw(0)
        );
        assert_eq!((dw(1) >> 4) & 0xF, 0, "last_be must be 0");
        assert_eq!(
            dw(2) & 0x0000_F003,
            0,
            "reserved bits of DW2: {:08x}",
            dw(2)
        );
        let write = match fmt {
            0b000 => {
                assert_eq!(b.empty, 1, "3-DW request without data");
                assert_eq!(dw(3), 0, "unused lane must be zero");
                None
            }
            0b010 => {
                assert_eq!(b.empty, 0, "3-DW request with one data DW");
                Some(dw(3).swap_bytes())
            }
            f => panic!("fmt {f:03b} is not a config request's"),
        };
        let r = Self {
            type1: typ == 0x05,
            write,
            requester: (dw(1) >> 16) as u16,
            tag: (dw(1) >> 8) as u8,
            first_be: (dw(1) & 0xF) as u8,
            target: (dw(2) >> 16) as u16,
            offset: (dw(2) & 0xFFC) as u16,
        };
        assert_eq!(
            model_tlp(beats),
            r.model(),
            "pcie-model reads the request differently"
        );
        r
    }
}

/// Completion status: successful.
pub const SC: u8 = 0b000;
/// Completion status: unsupported request.
pub const UR: u8 = 0b001;
/// Completion status: configuration request retry.
pub const CRS: u8 = 0b010;
/// Completion status: completer abort.
pub const CA: u8 = 0b100;

/// A completion, field by field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cpl {
    /// Completer id.
    pub completer: u16,
    /// Status (SC, UR, CRS, CA).
    pub status: u8,
    /// Byte count modified.
    pub bcm: bool,
    /// Byte count.
    pub byte_count: u16,
    /// Requester id.
    pub requester: u16,
    /// Tag.
    pub tag: u8,
    /// Lower address.
    pub lower_address: u8,
    /// The register value of a CplD.
    pub data: Option<u32>,
}

impl Cpl {
    /// A config completion: byte count 4, lower address 0.
    pub fn cfg(completer: u16, status: u8, requester: u16, tag: u8, data: Option<u32>) -> Self {
        Self {
            completer,
            status,
            bcm: false,
            byte_count: 4,
            requester,
            tag,
            lower_address: 0,
            data,
        }
    }

    /// The DWs on the wire: DW0 fmt 000 (Cpl) or 010 (CplD, length 1), type 01010.
    pub fn dws(&self) -> Vec<u32> {
        let dw0 = match self.data {
            Some(_) => 0x4A00_0001,
            None => 0x0A00_0000,
        };
        let mut d = vec![
            dw0,
            (u32::from(self.completer) << 16)
                | (u32::from(self.status) << 13)
                | (u32::from(self.bcm) << 12)
                | u32::from(self.byte_count & 0xFFF),
            (u32::from(self.requester) << 16)
                | (u32::from(self.tag) << 8)
                | u32::from(self.lower_address & 0x7F),
        ];
        if let Some(v) = self.data {
            d.push(v.swap_bytes());
        }
        d
    }

    /// The same completion built by `pcie_model`.
    pub fn model(&self) -> Tlp {
        let t = Tlp::new(
            Header::Completion(Completion {
                completer_id: Bdf(self.completer),
                status: status_of(self.status),
                bcm: self.bcm,
                byte_count: self.byte_count,
                requester_id: Bdf(self.requester),
                tag: Tag(self.tag),
                lower_address: self.lower_address,
                locked: false,
            }),
            self.data
                .map(|v| v.to_le_bytes().to_vec())
                .unwrap_or_default(),
        );
        t.expect("a valid completion")
    }

    /// The completion as one beat (checked against `pcie_model`'s beats).
    pub fn beats(&self) -> Vec<TestBeat> {
        let b = packet_beats(&self.dws(), 0, 0, false);
        assert_eq!(
            b,
            model_beats(&self.model()),
            "hand-built and pcie-model beats differ"
        );
        b
    }

    /// Decodes a one-beat completion sent by the chip, checking framing and the fields
    /// that must be zero.
    pub fn from_beats(beats: &[TestBeat]) -> Self {
        assert_eq!(
            beats.len(),
            1,
            "a config completion is one beat: {beats:x?}"
        );
        let b = beats[0];
        assert!(b.sop && b.eop, "{b:x?}");
        assert_eq!(
            (b.dest, b.src, b.unsupported),
            (0, 0, false),
            "metadata {b:x?}"
        );
        let dw = |k: u32| (b.data >> (32 * k)) as u32;
        let data = match dw(0) {
            0x4A00_0001 => {
                assert_eq!(b.empty, 0, "CplD of one DW fills the beat");
                Some(dw(3).swap_bytes())
            }
            0x0A00_0000 => {
                assert_eq!(b.empty, 1, "Cpl is 3 DWs");
                assert_eq!(dw(3), 0, "unused lane must be zero");
                None
            }
            x => panic!("not a TC-0 Cpl/CplD of length 0/1: DW0 {x:08x}"),
        };
        assert_eq!(dw(2) & 0x80, 0, "reserved bit 7 of DW2");
        let c = Self {
            completer: (dw(1) >> 16) as u16,
            status: ((dw(1) >> 13) & 7) as u8,
            bcm: dw(1) & (1 << 12) != 0,
            byte_count: (dw(1) & 0xFFF) as u16,
            requester: (dw(2) >> 16) as u16,
            tag: (dw(2) >> 8) as u8,
            lower_address: (dw(2) & 0x7F) as u8,
            data,
        };
        assert_eq!(
            model_tlp(beats),
            c.model(),
            "pcie-model reads the completion differently"
        );
        c
    }
}

#[test]
fn hand_vectors_match_the_spec_examples() {
    // CfgRd0 from 00:00.0 tag 3 to 01:00.0, offset 0x64.
    assert_eq!(
        CfgReq::rd0(0, 3, 0x0100, 0x64).dws(),
        vec![0x0400_0001, 0x0000_030F, 0x0100_0064]
    );
    let w = CfgReq::wr0(0, 4, 0x0100, 0x04, 0x1, 0x0000_0006);
    assert_eq!(
        w.dws(),
        vec![0x4400_0001, 0x0000_0401, 0x0100_0004, 0x0600_0000]
    );
    assert_eq!(CfgReq::from_beats(&w.beats()), w);
    let c = Cpl::cfg(0x0100, SC, 0, 3, Some(0x5032_1172));
    assert_eq!(
        c.dws(),
        vec![0x4A00_0001, 0x0100_0004, 0x0000_0300, 0x7211_3250]
    );
    assert_eq!(Cpl::from_beats(&c.beats()), c);
}
