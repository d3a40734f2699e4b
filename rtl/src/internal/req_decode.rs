//! What the internal completer does with the request whose `sop` beat is on its input, and
//! where in BAR0 it lands. Combinational; the completer latches the answer with the header.
//!
//! In order: a request the RX stage marked `unsupported` is answered with UR; a completion
//! (nobody here asked for it: the DMA's are taken off before) is counted; a memory write
//! (MWr) to this node's global internal-memory target lands in the descriptor memory
//! (offset `o` below 32 KiB: BAR0 0x8000 + `o`) or the notification store (`o` in its 16
//! KiB window: BAR0 0x4000 + the offset in it) and is dropped elsewhere (`outside`), while
//! any other write reaching here is a BAR0 register write; a memory read (MRd) of 1 to 4 DWs reads
//! registers, a longer one is answered with Completer Abort (BAR0 is registers, not
//! memory); a locked read (MRdLk) is answered with UR (an endpoint supports no locked
//! access); anything else is dropped.
//!
//! `kind` depends on the header's type, format and length only, not on the address: the
//! completer's `ready` follows it, and the DMA's writes looped back to the completer wait
//! on that `ready`, so the address compares stay off that path (`outside` carries them).

use peach2_regmap::address::{BASE_SHIFT, GLOBAL_BASE_HI};
use peach2_regmap::{dma, notify};
use rust_hdl::prelude::*;

// The internal window's decode below: descriptors at offsets below 2^15 (BAR0 DW 0x2000),
// the notification store in the 16 KiB from 2 << 14 (BAR0 DW 0x1000); the global space's
// base is address bits 63:42.
const _: () = assert!(dma::DESC_COUNT * dma::DESC_BYTES == 1 << 15);
const _: () = assert!(dma::DESC_BASE == 0x2000 * 4);
const _: () = assert!(notify::INTERNAL_BASE == 2 << 14 && notify::DWS * 4 == 1 << 14);
const _: () = assert!(BASE_SHIFT == 42);
const _: () = assert!(notify::BAR0_BASE == 0x1000 * 4);

/// What the completer does with a request.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum RequestKind {
    /// Consume it and answer Unsupported Request (marked unsupported, or a locked read).
    Unsupported,
    /// A completion nobody here awaits: consume and count it.
    Completion,
    /// Write its payload at `dw_addr` (registers, descriptor memory or notification
    /// store), unless `outside` says it is dropped.
    Write,
    /// Consume and drop it (a kind the chip does not serve).
    Dropped,
    /// Read 1 to 4 DWs at `dw_addr` and answer with a CplD.
    Read,
    /// A read of more than 4 DWs: consume it and answer Completer Abort.
    LongRead,
}

/// The request decode of the internal completer.
#[derive(LogicBlock)]
pub struct ReqDecode {
    /// The `sop` beat on the completer's input (a TLP header's first DWs).
    pub data: Signal<In, Bits<128>>,
    /// The RX stage marked the request unsupported.
    pub unsupported: Signal<In, Bit>,
    /// What to do with it.
    pub kind: Signal<Out, RequestKind>,
    /// Its first DW's BAR0 DW address (meaningful for `Write` and `Read`).
    pub dw_addr: Signal<Out, Bits<14>>,
    /// Its length in DWs (a length field of 0 means 1024).
    pub len: Signal<Out, Bits<11>>,
    /// A 4-DW header: the payload starts in the next beat (else in lane 3).
    pub four_dw: Signal<Out, Bit>,
    /// A `Write` to the internal-memory target outside its windows: dropped.
    pub outside: Signal<Out, Bit>,
    /// A `Read` or a `LongRead`: a memory read, whatever its length. The completer takes
    /// a read's only beat on this, so its `ready` waits on no length compare.
    pub is_read: Signal<Out, Bit>,
    /// The header's fmt (DW0 bits 31:29).
    fmt: Signal<Local, Bits<3>>,
    /// The header's type (DW0 bits 28:24).
    kind_type: Signal<Local, Bits<5>>,
    /// The length field says 1 to 4 DWs: taken from the field itself, not from `len`,
    /// whose 0-means-1024 choice would sit before the compare on the completer's
    /// deepest path.
    short: Signal<Local, Bit>,
    /// Address bits 31:0.
    addr_lo: Signal<Local, Bits<32>>,
    /// A 4-DW header whose address bits 63:42 are the global space's base.
    in_global: Signal<Local, Bit>,
    /// The global offset is in the descriptor memory.
    in_desc: Signal<Local, Bit>,
    /// The global offset is in the notification store.
    in_notify: Signal<Local, Bit>,
    /// The global space's base (address bits 63:42), to tell a global address.
    global_base_hi: Constant<Bits<22>>,
}

impl Default for ReqDecode {
    fn default() -> Self {
        Self {
            data: Default::default(),
            unsupported: Default::default(),
            kind: Default::default(),
            dw_addr: Default::default(),
            len: Default::default(),
            four_dw: Default::default(),
            outside: Default::default(),
            is_read: Default::default(),
            fmt: Default::default(),
            kind_type: Default::default(),
            short: Default::default(),
            addr_lo: Default::default(),
            in_global: Default::default(),
            in_desc: Default::default(),
            in_notify: Default::default(),
            global_base_hi: Constant::new(GLOBAL_BASE_HI.into()),
        }
    }
}

impl Logic for ReqDecode {
    #[hdl_gen]
    fn update(&mut self) {
        self.fmt.next = self.data.val().get_bits::<3>(29);
        self.kind_type.next = self.data.val().get_bits::<5>(24);
        self.four_dw.next = self.fmt.val().get_bit(0);
        self.addr_lo.next = self.data.val().get_bits::<32>(64);
        self.in_global.next = false;
        if self.fmt.val().get_bit(0) {
            self.addr_lo.next = self.data.val().get_bits::<32>(96);
            self.in_global.next = self.data.val().get_bits::<22>(74) == self.global_base_hi.val();
        }
        // Offset bits 32:15 zero: descriptors; bits 32:14 = 2: the notification store.
        self.in_desc.next =
            !self.data.val().get_bit(64) && (self.addr_lo.val().get_bits::<17>(15) == 0);
        self.in_notify.next =
            !self.data.val().get_bit(64) && (self.addr_lo.val().get_bits::<18>(14) == 2);
        self.len.next = bit_cast::<11, 10>(self.data.val().get_bits::<10>(0));
        if self.data.val().get_bits::<10>(0) == 0 {
            self.len.next = 1024.into();
        }
        self.short.next = (self.data.val().get_bits::<7>(3) == 0)
            && (self.data.val().get_bits::<3>(0) != 0)
            && (self.data.val().get_bits::<3>(0) <= 4);

        // Where a write lands.
        self.dw_addr.next = self.addr_lo.val().get_bits::<14>(2);
        self.outside.next = false;
        if self.in_global.val() {
            if self.in_desc.val() {
                self.dw_addr.next =
                    bit_cast::<14, 13>(self.addr_lo.val().get_bits::<13>(2)) | 0x2000;
            } else if self.in_notify.val() {
                self.dw_addr.next =
                    bit_cast::<14, 12>(self.addr_lo.val().get_bits::<12>(2)) | 0x1000;
            } else {
                self.outside.next = true;
            }
        }

        self.kind.next = RequestKind::Dropped;
        if self.unsupported.val() {
            self.kind.next = RequestKind::Unsupported;
        } else if (self.kind_type.val() == 10) || (self.kind_type.val() == 11) {
            self.kind.next = RequestKind::Completion;
        } else if (self.kind_type.val() == 0) && self.fmt.val().get_bit(1) {
            self.kind.next = RequestKind::Write;
        } else if (self.kind_type.val() == 0) && !self.fmt.val().get_bit(1) {
            self.kind.next = RequestKind::Read;
            if !self.short.val() {
                self.kind.next = RequestKind::LongRead;
            }
        } else if (self.kind_type.val() == 1) && !self.fmt.val().get_bit(1) {
            self.kind.next = RequestKind::Unsupported;
        }
        self.is_read.next =
            !self.unsupported.val() && (self.kind_type.val() == 0) && !self.fmt.val().get_bit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{bits128, Lcg};
    use peach2_regmap::address::GLOBAL_SIZE;

    /// A request's first beat: header DWs 0..3 in lanes 0..3.
    fn beat(fmt: u32, kind_type: u32, len: u32, addr: u64) -> u128 {
        let dw0 = (fmt << 29) | (kind_type << 24) | (len & 0x3FF);
        let (dw2, dw3) = if fmt & 1 == 1 {
            ((addr >> 32) as u32, addr as u32 & !3)
        } else {
            (addr as u32 & !3, 0x5A5A_5A5A)
        };
        u128::from(dw0)
            | (0x0100_0AFFu128 << 32)
            | (u128::from(dw2) << 64)
            | (u128::from(dw3) << 96)
    }

    /// The rule written plainly: what the module documentation says. The kind, the BAR0
    /// DW address of a write or read, and whether a write is outside the internal windows.
    fn rule(
        unsupported: bool,
        fmt: u32,
        kind_type: u32,
        len: u32,
        addr: u64,
    ) -> (RequestKind, u64, bool) {
        let len = if len == 0 { 1024 } else { len };
        let four_dw = fmt & 1 == 1;
        let addr = if four_dw {
            addr & !3
        } else {
            addr & 0xFFFF_FFFC
        };
        let bar0_dw = (addr >> 2) & 0x3FFF;
        let with_data = fmt & 2 == 2;
        let kind = match kind_type {
            _ if unsupported => RequestKind::Unsupported,
            10 | 11 => RequestKind::Completion,
            0 if with_data => RequestKind::Write,
            0 if len <= 4 => RequestKind::Read,
            0 => RequestKind::LongRead,
            1 if !with_data => RequestKind::Unsupported,
            _ => RequestKind::Dropped,
        };
        let global = four_dw && addr >> BASE_SHIFT == GLOBAL_BASE_HI;
        if !global {
            return (kind, bar0_dw, false);
        }
        // The offset inside the node's internal-memory target (bits 32:0).
        let offset = addr & 0x1_FFFF_FFFF;
        if offset < 1 << 15 {
            (kind, (dma::DESC_BASE as u64 + offset) >> 2, false)
        } else if (2 << 14..3 << 14).contains(&offset) {
            let dw = (notify::BAR0_BASE as u64 + offset - (2 << 14)) >> 2;
            (kind, dw, false)
        } else {
            (kind, bar0_dw, true)
        }
    }

    #[test]
    fn requests_are_decoded_as_the_rule_says() {
        let mut uut = ReqDecode::default();
        uut.connect_all();
        let mut rng = Lcg(17);
        let base = GLOBAL_BASE_HI << BASE_SHIFT;
        let mut seen = std::collections::HashMap::new();
        let mut outside_writes = 0;
        for i in 0..4_000 {
            let fmt = [0, 1, 2, 3, rng.below(8) as u32][rng.below(5) as usize];
            let kind_type = [0, 1, 10, 11, rng.below(32) as u32][rng.below(5) as usize];
            // Both ends of 1..=4, and fields whose low bits alone would look short.
            let len = [0, 1, 4, 5, 8, 12, rng.below(1024) as u32][rng.below(7) as usize];
            // Offsets around the internal windows' edges, in and out of the global space.
            let offset = [
                rng.below(1 << 15),
                (1 << 15) - 4,
                1 << 15,
                (2 << 14) + rng.below(1 << 14),
                (3 << 14) - 4,
                3 << 14,
                rng.below(GLOBAL_SIZE),
                rng.below(1 << 36) | (rng.below(64) << 36),
            ][rng.below(8) as usize];
            let addr = if rng.chance(0.7) {
                base | offset
            } else {
                rng.next_u64()
            };
            let unsupported = rng.chance(0.1);
            uut.data.next = bits128(beat(fmt, kind_type, len, addr));
            uut.unsupported.next = unsupported;
            assert!(simulate(&mut uut, 100), "settles");
            let (kind, dw, outside) = rule(unsupported, fmt, kind_type, len, addr);
            let got = uut.kind.val();
            assert_eq!(
                got, kind,
                "case {i}: fmt {fmt} type {kind_type} len {len} addr {addr:#x}"
            );
            assert_eq!(
                uut.is_read.val(),
                matches!(kind, RequestKind::Read | RequestKind::LongRead),
                "case {i}: fmt {fmt} type {kind_type} len {len}"
            );
            if matches!(kind, RequestKind::Write | RequestKind::Read) {
                assert_eq!(uut.dw_addr.val().to_u64(), dw, "case {i}: addr {addr:#x}");
            }
            if kind == RequestKind::Write {
                assert_eq!(uut.outside.val(), outside, "case {i}: addr {addr:#x}");
                outside_writes += u32::from(outside);
            }
            assert_eq!(
                uut.len.val().to_u64(),
                u64::from(if len == 0 { 1024 } else { len })
            );
            assert_eq!(uut.four_dw.val(), fmt & 1 == 1);
            *seen.entry(format!("{kind:?}")).or_insert(0) += 1;
        }
        // Every kind came up often enough to mean something.
        assert_eq!(seen.len(), 6, "{seen:?}");
        assert!(seen.values().all(|&n| n >= 40), "{seen:?}");
        assert!(
            outside_writes >= 40,
            "{outside_writes} writes outside the windows"
        );
    }

    #[test]
    fn req_decode_verilog_lints_clean() {
        let mut uut = ReqDecode::default();
        let v = crate::verilog::export::block_verilog(&mut uut, "internal_req_decode");
        crate::verilog::checks::lint_verilog(&v, "internal_req_decode").unwrap();
    }
}
