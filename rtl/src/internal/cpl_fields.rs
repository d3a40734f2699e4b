//! The header of the completion that answers the request the internal completer latched:
//! its three DWs, as PCIe 3.0 §2.2.9 and §2.3.1.1 set them. Combinational.
//!
//! - Byte Count: a memory read's (MRd, MRdLk) bytes from its first to its last enabled
//!   byte (its length and byte enables; 4096 is 0 in the field); an AtomicOp's operand
//!   size (FetchAdd and Swap: the payload, CAS: half of it; its byte enables are
//!   reserved); 4 for any other request.
//! - Lower Address: a memory read's address bits 6:2 and its first enabled byte; 0
//!   otherwise.
//! - Type: CplD carrying the request's length with status SC, Cpl otherwise; CplLk for a
//!   locked read. TC and attributes are the request's.

use rust_hdl::prelude::*;

/// The completion header for a latched request.
#[derive(LogicBlock, Default)]
pub struct CplFields {
    /// The request's header DW 0 (fmt, type, TC, attributes, length).
    pub req_dw0: Signal<In, Bits<32>>,
    /// The request's header DW 1 (requester id, tag, byte enables).
    pub req_dw1: Signal<In, Bits<32>>,
    /// The request's address bits 6:2.
    pub addr_dw: Signal<In, Bits<5>>,
    /// Completion status (SC 0, UR 1, CA 4).
    pub status: Signal<In, Bits<3>>,
    /// Completer id (the N port's bus/device/function).
    pub completer_id: Signal<In, Bits<16>>,
    /// Header DW 0: fmt, type, TC, attributes, length.
    pub dw0: Signal<Out, Bits<32>>,
    /// Header DW 1: completer id, status, byte count.
    pub dw1: Signal<Out, Bits<32>>,
    /// Header DW 2: requester id, tag, lower address.
    pub dw2: Signal<Out, Bits<32>>,
    /// The request's length field (0 means 1024 DWs).
    length: Signal<Local, Bits<10>>,
    /// The request's `first_be` (DW1 bits 3:0).
    first_be: Signal<Local, Bits<4>>,
    /// The request's `last_be` (DW1 bits 7:4).
    last_be: Signal<Local, Bits<4>>,
    /// MRd or MRdLk (fmt 000/001, type 0000x).
    mem_read: Signal<Local, Bit>,
    /// MRdLk.
    locked: Signal<Local, Bit>,
    /// FetchAdd, Swap or CAS (fmt 010/011, type 01100..01110).
    atomic: Signal<Local, Bit>,
    /// The request's length in bytes, cut to the field's 12 bits.
    len_bytes: Signal<Local, Bits<12>>,
    /// Bytes disabled before the first enabled byte.
    lead: Signal<Local, Bits<12>>,
    /// Bytes disabled after the last enabled byte.
    trail: Signal<Local, Bits<12>>,
    /// The completion's Byte Count.
    byte_count: Signal<Local, Bits<12>>,
    /// The completion's Lower Address.
    lower_addr: Signal<Local, Bits<7>>,
}

impl Logic for CplFields {
    #[hdl_gen]
    fn update(&mut self) {
        self.length.next = self.req_dw0.val().get_bits::<10>(0);
        self.first_be.next = self.req_dw1.val().get_bits::<4>(0);
        self.last_be.next = self.req_dw1.val().get_bits::<4>(4);
        self.mem_read.next = (self.req_dw0.val().get_bits::<2>(30) == 0)
            && (self.req_dw0.val().get_bits::<4>(25) == 0);
        self.locked.next = self.mem_read.val() && self.req_dw0.val().get_bit(24);
        self.atomic.next = (self.req_dw0.val().get_bits::<2>(30) == 1)
            && (self.req_dw0.val().get_bits::<5>(24) >= 12)
            && (self.req_dw0.val().get_bits::<5>(24) <= 14);
        self.len_bytes.next = bit_cast::<12, 10>(self.length.val()) << 2;

        self.lead.next = 0.into();
        if self.first_be.val().get_bits::<2>(0) == 2 {
            self.lead.next = 1.into();
        }
        if self.first_be.val().get_bits::<3>(0) == 4 {
            self.lead.next = 2.into();
        }
        if self.first_be.val() == 8 {
            self.lead.next = 3.into();
        }
        self.trail.next = 0.into();
        if self.length.val() == 1 {
            // A 1-DW request: last_be is 0 and first_be bounds both ends.
            if self.first_be.val().get_bits::<2>(2) == 1 {
                self.trail.next = 1.into();
            }
            if self.first_be.val().get_bits::<3>(1) == 1 {
                self.trail.next = 2.into();
            }
            if self.first_be.val() == 1 {
                self.trail.next = 3.into();
            }
            if self.first_be.val() == 0 {
                self.trail.next = 3.into();
            }
        } else {
            if self.last_be.val().get_bits::<2>(2) == 1 {
                self.trail.next = 1.into();
            }
            if self.last_be.val().get_bits::<3>(1) == 1 {
                self.trail.next = 2.into();
            }
            if self.last_be.val() == 1 {
                self.trail.next = 3.into();
            }
        }

        self.byte_count.next = 4.into();
        self.lower_addr.next = 0.into();
        if self.mem_read.val() {
            self.byte_count.next = self.len_bytes.val() - self.lead.val() - self.trail.val();
            self.lower_addr.next = (bit_cast::<7, 5>(self.addr_dw.val()) << 2)
                | bit_cast::<7, 2>(self.lead.val().get_bits::<2>(0));
        } else if self.atomic.val() {
            self.byte_count.next = self.len_bytes.val();
            // CAS carries two operands.
            if self.req_dw0.val().get_bits::<5>(24) == 14 {
                self.byte_count.next = self.len_bytes.val() >> 1;
            }
        }

        // Cpl, or CplLk for a locked read; CplD with the request's length for SC.
        self.dw0.next = (self.req_dw0.val() & 0x0074_3000) | 0x0A00_0000;
        if self.status.val() == 0 {
            self.dw0.next = (self.req_dw0.val() & 0x0074_3000)
                | 0x4A00_0000
                | bit_cast::<32, 10>(self.length.val());
        }
        if self.locked.val() {
            self.dw0.next = self.dw0.val() | 0x0100_0000;
        }
        self.dw1.next = (bit_cast::<32, 16>(self.completer_id.val()) << 16)
            | (bit_cast::<32, 3>(self.status.val()) << 13)
            | bit_cast::<32, 12>(self.byte_count.val());
        self.dw2.next =
            (self.req_dw1.val() & 0xFFFF_FF00u64) | bit_cast::<32, 7>(self.lower_addr.val());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::Lcg;
    use pcie_model::completion::{build_completions, error_completion, CompletionRules};
    use pcie_model::limits::{MaxPayloadSize, Rcb};
    use pcie_model::tlp::{Bdf, CplStatus, Tlp, TlpKind};

    const COMPLETER: u16 = 0x0300;

    /// A random non-posted request the completer can meet, as its header DWs: memory
    /// reads (locked or not, 3- or 4-DW headers, any length, byte enables the rules
    /// allow), I/O reads and writes, AtomicOps; random TC and attributes where allowed.
    fn random_request(rng: &mut Lcg) -> Vec<u32> {
        let tag = rng.below(256) as u32;
        let rid = rng.below(1 << 16) as u32;
        let four_dw = rng.chance(0.3);
        let page = (rng.next_u64() as u32) & !0xFFF;
        let tc_attr =
            (rng.below(8) as u32) << 20 | (rng.below(2) as u32) << 18 | (rng.below(4) as u32) << 12;
        let kind = rng.below(4);
        let (fmt_type, length, be, tc_attr, offset) = match kind {
            // MRd / MRdLk
            0 | 1 => {
                let length = if rng.chance(0.5) {
                    1 + rng.below(4)
                } else {
                    rng.below(1024)
                } as u32;
                let first = rng.below(16) as u32;
                let (first, last) = if length == 1 {
                    (first, 0)
                } else {
                    // Multi-DW: both enables non-zero; contiguous unless two DWs.
                    let f = [0xF, 0xE, 0xC, 0x8][rng.below(4) as usize];
                    let l = [0xF, 0x7, 0x3, 0x1][rng.below(4) as usize];
                    if length == 2 && rng.chance(0.3) {
                        (1 + rng.below(15) as u32, 1 + rng.below(15) as u32)
                    } else {
                        (f, l)
                    }
                };
                let locked = u32::from(kind == 1 && rng.chance(0.8));
                // Inside its 4 KiB page; a 2-DW read with holes in its enables is
                // QW-aligned.
                let room = 1024 - u64::from(length);
                let mut offset = 4 * rng.below(room + 1) as u32;
                if length == 2 && (first, last) != (0xF, 0xF) {
                    offset &= !7;
                }
                (locked, length & 0x3FF, last << 4 | first, tc_attr, offset)
            }
            // IORd / IOWr: TC 0, no attributes, 3-DW header.
            2 => {
                let write = rng.chance(0.5);
                let fmt = if write { 0x40 } else { 0 };
                (
                    fmt | 0x02,
                    1,
                    1 + rng.below(15) as u32,
                    0,
                    4 * rng.below(1024) as u32,
                )
            }
            // FetchAdd, Swap, CAS with their lengths.
            _ => {
                let (op, length) = match rng.below(3) {
                    0 => (0x0C, 1 + rng.below(2)),
                    1 => (0x0D, 1 + rng.below(2)),
                    _ => (0x0E, [2, 4, 8][rng.below(3) as usize]),
                };
                // Aligned to the operand.
                (
                    0x40 | op,
                    length as u32,
                    0,
                    tc_attr,
                    32 * rng.below(128) as u32,
                )
            }
        };
        let four_dw = four_dw && kind != 2;
        let fmt_type = fmt_type | if four_dw { 0x20 } else { 0 };
        let mut dws = vec![fmt_type << 24 | tc_attr | length, rid << 16 | tag << 8 | be];
        if four_dw {
            dws.push(1 + rng.below(0xFFFF) as u32);
        }
        dws.push(page | offset);
        dws
    }

    /// The completion pcie-model builds for the request: the first successful one of a
    /// memory read of up to 4 DWs with `status` SC, else the error completion.
    fn reference(req: &Tlp, status: CplStatus) -> Tlp {
        if status == CplStatus::Sc {
            let rules = CompletionRules::new(Rcb::B64, MaxPayloadSize::B4096);
            let mut cpls =
                build_completions(req, Bdf(COMPLETER), &rules, |_, b| b.fill(0)).unwrap();
            cpls.remove(0)
        } else {
            error_completion(req, Bdf(COMPLETER), status).unwrap()
        }
    }

    fn be_dws(bytes: &[u8]) -> Vec<u32> {
        bytes
            .chunks(4)
            .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    /// The block and pcie-model give the same three DWs for 4,000 random requests.
    #[test]
    fn completion_headers_are_pcie_models() {
        let mut uut = CplFields::default();
        uut.connect_all();
        let mut rng = Lcg(11);
        let mut kinds = std::collections::HashMap::new();
        for _ in 0..4000 {
            let dws = random_request(&mut rng);
            let mut wire: Vec<u8> = dws.iter().flat_map(|d| d.to_be_bytes()).collect();
            // Writes carry a payload: zeros of the request's length.
            let len = match dws[0] & 0x3FF {
                0 => 1024,
                l => l as usize,
            };
            if dws[0] & 0x4000_0000 != 0 {
                wire.extend(std::iter::repeat_n(0, 4 * len));
            }
            let req = Tlp::from_bytes(&wire).unwrap_or_else(|e| panic!("{dws:x?}: {e}"));
            let status = if req.kind() == TlpKind::MRd && len <= 4 && rng.chance(0.5) {
                CplStatus::Sc
            } else if rng.chance(0.5) {
                CplStatus::Ur
            } else {
                CplStatus::Ca
            };
            let want = be_dws(&reference(&req, status).to_bytes()[..12]);
            uut.req_dw0.next = u64::from(dws[0]).into();
            uut.req_dw1.next = u64::from(dws[1]).into();
            uut.addr_dw.next = u64::from(dws[dws.len() - 1] >> 2 & 0x1F).into();
            uut.status.next = u64::from(status.bits()).into();
            uut.completer_id.next = u64::from(COMPLETER).into();
            assert!(simulate(&mut uut, 100), "settles");
            let got = [uut.dw0.val(), uut.dw1.val(), uut.dw2.val()].map(|d| d.to_u64() as u32);
            assert_eq!(got.to_vec(), want, "{} {dws:x?} {status:?}", req.kind());
            *kinds.entry(req.kind()).or_insert(0) += 1;
        }
        // Every kind came up often.
        assert_eq!(kinds.len(), 7, "{kinds:?}");
        assert!(kinds.values().all(|&n| n > 150), "{kinds:?}");
    }

    #[test]
    fn cpl_fields_verilog_lints_clean() {
        let mut uut = CplFields::default();
        let v = crate::verilog::export::block_verilog(&mut uut, "internal_cpl_fields");
        crate::verilog::checks::lint_verilog(&v, "internal_cpl_fields").unwrap();
    }
}
