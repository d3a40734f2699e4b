use proptest::prelude::*;

use super::*;
use crate::limits::MaxPayloadSize;
use crate::memory::SparseMemory;
use crate::tlp::{CfgType, Tag};

const RC: Bdf = Bdf(0x0000);
const DEV: Bdf = Bdf(0x0100);

fn mrd(addr: u64, len: usize) -> Tlp {
    Tlp::mem_read(DEV, Tag(7), Addr(addr), len).unwrap()
}

fn rules(rcb: Rcb, mps: MaxPayloadSize) -> CompletionRules {
    CompletionRules::new(rcb, mps)
}

fn summary(chunks: &[CompletionChunk]) -> Vec<(u64, u32, u16, u8)> {
    chunks
        .iter()
        .map(|c| (c.dw_address, c.length_dw, c.byte_count, c.lower_address))
        .collect()
}

#[test]
fn split_at_rcb_within_mps() {
    let span = ReadSpan::of_request(&mrd(0x1010, 256)).unwrap();
    let chunks = split_completions(&span, &rules(Rcb::B64, MaxPayloadSize::B128));
    assert_eq!(
        summary(&chunks),
        vec![
            (0x1010, 28, 256, 0x10),
            (0x1080, 32, 144, 0x00),
            (0x1100, 4, 16, 0x00),
        ]
    );
}

#[test]
fn cache_line_completions() {
    let r = rules(Rcb::B64, MaxPayloadSize::B256)
        .with_chunk_limit(64)
        .unwrap();
    let span = ReadSpan::of_request(&mrd(0x1010, 256)).unwrap();
    let chunks = split_completions(&span, &r);
    assert_eq!(
        summary(&chunks),
        vec![
            (0x1010, 12, 256, 0x10),
            (0x1040, 16, 208, 0x40),
            (0x1080, 16, 144, 0x00),
            (0x10c0, 16, 80, 0x40),
            (0x1100, 4, 16, 0x00),
        ]
    );
}

#[test]
fn byte_enables_set_first_byte_count_and_lower_address() {
    // 5 bytes at 0x1003: DWs 0x1000 and 0x1004, FBE 1000, LBE 1111.
    let span = ReadSpan::of_request(&mrd(0x1003, 5)).unwrap();
    assert_eq!((span.dw_start, span.length_dw), (0x1000, 2));
    assert_eq!((span.first_byte, span.byte_count), (0x1003, 5));
    let chunks = split_completions(&span, &rules(Rcb::B128, MaxPayloadSize::B128));
    assert_eq!(summary(&chunks), vec![(0x1000, 2, 5, 0x03)]);
    assert_eq!((chunks[0].data_start, chunks[0].data_end), (0x1003, 0x1008));
}

#[test]
fn zero_length_read() {
    let req = mrd(0x2000, 0);
    let span = ReadSpan::of_request(&req).unwrap();
    assert!(span.zero_length);
    let chunks = split_completions(&span, &rules(Rcb::B64, MaxPayloadSize::B128));
    assert_eq!(summary(&chunks), vec![(0x2000, 1, 1, 0)]);
    let cpls =
        build_completions(&req, RC, &rules(Rcb::B64, MaxPayloadSize::B128), |_, _| {}).unwrap();
    let mut asm = ReadAssembler::new(&req, Some(Rcb::B64), None).unwrap();
    assert_eq!(
        asm.accept(&cpls[0]).unwrap(),
        AssemblyProgress::Done(vec![])
    );
}

#[test]
fn full_4k_read_has_byte_count_4096() {
    let span = ReadSpan::of_request(&mrd(0x7000, 4096)).unwrap();
    let chunks = split_completions(&span, &rules(Rcb::B128, MaxPayloadSize::B256));
    assert_eq!(chunks.len(), 16);
    assert_eq!(chunks[0].byte_count, 4096);
    assert_eq!(chunks[15].byte_count, 256);
}

#[test]
fn build_and_assemble_round_trip() {
    let mut mem = SparseMemory::new();
    let data: Vec<u8> = (0..3000u32).map(|i| (i * 13 + 1) as u8).collect();
    mem.write(0x1_0000_0101, &data).unwrap();
    let req = mrd(0x1_0000_0101, 3000);
    let r = rules(Rcb::B64, MaxPayloadSize::B256);
    let cpls = build_completions(&req, RC, &r, |a, b| mem.read(a, b).unwrap()).unwrap();
    assert!(cpls.iter().all(|c| c.payload_len() <= 256));
    let mut asm = ReadAssembler::new(&req, Some(Rcb::B64), Some(MaxPayloadSize::B256)).unwrap();
    let mut last = None;
    for c in &cpls {
        assert!(!asm.is_finished());
        last = Some(asm.accept(c).unwrap());
    }
    assert_eq!(last, Some(AssemblyProgress::Done(data)));
    assert_eq!(asm.accept(&cpls[0]), Err(CompletionError::AlreadyComplete));
}

fn cpl(byte_count: u16, lower: u8, data: &[u8]) -> Tlp {
    Tlp::completion(RC, CplStatus::Sc, DEV, Tag(7), byte_count, lower, data).unwrap()
}

#[test]
fn assembler_rejects_inconsistent_completions() {
    let req = mrd(0x1010, 256);
    let mut asm = ReadAssembler::new(&req, Some(Rcb::B64), Some(MaxPayloadSize::B128)).unwrap();
    assert_eq!(
        asm.accept(&cpl(200, 0x10, &[0; 48])),
        Err(CompletionError::ByteCount {
            expected: 256,
            got: 200
        })
    );
    assert_eq!(
        asm.accept(&cpl(256, 0x00, &[0; 48])),
        Err(CompletionError::LowerAddress {
            expected: 0x10,
            got: 0x00
        })
    );
    // Ends at 0x1030: not on a 64-byte boundary.
    assert_eq!(
        asm.accept(&cpl(256, 0x10, &[0; 32])),
        Err(CompletionError::NotOnRcb {
            end: 0x1030,
            rcb: 64
        })
    );
    assert!(matches!(
        asm.accept(&cpl(256, 0x10, &[0; 240])),
        Err(CompletionError::ExceedsMaxPayload { .. })
    ));
    let other_tag = Tlp::completion(RC, CplStatus::Sc, DEV, Tag(8), 256, 0x10, &[0; 48]).unwrap();
    assert!(matches!(
        asm.accept(&other_tag),
        Err(CompletionError::WrongTransaction { .. })
    ));
    assert!(matches!(
        asm.accept(&req),
        Err(CompletionError::NotACompletion(_))
    ));
    // State is unchanged by the rejections: the correct first completion is accepted.
    assert_eq!(
        asm.accept(&cpl(256, 0x10, &[1; 48])).unwrap(),
        AssemblyProgress::Partial {
            received: 48,
            remaining: 208
        }
    );
    // Too much data for what remains.
    assert!(matches!(
        asm.accept(&cpl(208, 0x40, &[0; 256])),
        Err(CompletionError::PayloadLength {
            got_dw: 64,
            remaining_dw: 52
        })
    ));
}

#[test]
fn failed_request_and_error_completions() {
    let req = mrd(0x1003, 5);
    let ur = error_completion(&req, RC, CplStatus::Ur).unwrap();
    let c = ur.as_completion().unwrap();
    assert_eq!((c.byte_count, c.lower_address, ur.payload_len()), (5, 3, 0));
    let mut asm = ReadAssembler::new(&req, None, None).unwrap();
    assert_eq!(
        asm.accept(&ur).unwrap(),
        AssemblyProgress::Failed(CplStatus::Ur)
    );
    assert!(asm.is_finished());

    let cfg = Tlp::cfg_read(CfgType::Type0, RC, Tag(1), DEV, 4, 0xf).unwrap();
    let ca = error_completion(&cfg, DEV, CplStatus::Ca).unwrap();
    let c = ca.as_completion().unwrap();
    assert_eq!(
        (c.byte_count, c.lower_address, c.status),
        (4, 0, CplStatus::Ca)
    );
    assert!(matches!(
        ReadSpan::of_request(&cfg),
        Err(CompletionError::NotAMemoryRead(k)) if k == "CfgRd0"
    ));
}

/// §2.2.9: an AtomicOp's completion carries its operand size, a locked read's is a
/// CplLk, and every completion keeps the request's TC and attributes.
#[test]
fn error_completions_of_atomics_and_locked_reads() {
    use crate::tlp::{AtomicOp, Attr, TlpKind};
    for (op, operands, size) in [
        (AtomicOp::FetchAdd, 4, 4),
        (AtomicOp::Swap, 8, 8),
        (AtomicOp::Cas, 8, 4),
        (AtomicOp::Cas, 32, 16),
    ] {
        let req = Tlp::atomic(op, RC, Tag(2), Addr(0x1000), &vec![0; operands]).unwrap();
        let ur = error_completion(&req, DEV, CplStatus::Ur).unwrap();
        let c = ur.as_completion().unwrap();
        assert_eq!((c.byte_count, c.lower_address), (size, 0), "{op:?}");
    }
    let attr = Attr {
        relaxed_ordering: true,
        ..Attr::default()
    };
    let lk = Tlp::mem_read_locked(RC, Tag(3), Addr(0x1004), 6)
        .unwrap()
        .with_tc(5)
        .unwrap()
        .with_attr(attr)
        .unwrap();
    let ur = error_completion(&lk, DEV, CplStatus::Ur).unwrap();
    assert_eq!(ur.kind(), TlpKind::CplLk);
    assert_eq!((ur.tc(), ur.attr()), (5, attr));
    let c = ur.as_completion().unwrap();
    assert_eq!((c.byte_count, c.lower_address), (6, 4));
}

#[test]
fn chunk_limits_are_validated() {
    let r = rules(Rcb::B128, MaxPayloadSize::B256);
    assert!(r.with_chunk_limit(64).is_err());
    assert!(r.with_chunk_limit(512).is_err());
    assert!(r.with_chunk_limit(0).is_err());
    assert_eq!(r.with_chunk_limit(128).unwrap().chunk_limit(), 128);
    let json = r#"{"rcb":64,"max_payload":256,"chunk_limit":96}"#;
    assert!(serde_json::from_str::<CompletionRules>(json).is_err());
    let json = r#"{"rcb":64,"max_payload":256,"chunk_limit":192}"#;
    let back: CompletionRules = serde_json::from_str(json).unwrap();
    assert_eq!(back.chunk_limit(), 192);
}

#[test]
fn four_k_rule() {
    assert!(!crosses_4k(0x1000, 4096));
    assert!(crosses_4k(0x1004, 4096));
    assert!(crosses_4k(0x1ffc, 8));
    assert!(!crosses_4k(0x1ffc, 4));
    assert!(!crosses_4k(0x1fff, 0));
    assert_eq!(
        check_4k(0x1ff0, 32),
        Err(CompletionError::Crosses4K {
            addr: 0x1ff0,
            len: 32
        })
    );
}

#[test]
fn request_splitting() {
    let chunks = split_requests(0x1f80, 1200, 512).unwrap();
    let got: Vec<(u64, u32)> = chunks.iter().map(|c| (c.addr.0, c.len)).collect();
    assert_eq!(
        got,
        vec![(0x1f80, 128), (0x2000, 512), (0x2200, 512), (0x2400, 48)]
    );
    assert!(split_requests(0, 0, 512).unwrap().is_empty());
    assert_eq!(
        split_requests(0, 10, 384),
        Err(CompletionError::BadRequestLimit(384))
    );
    assert_eq!(
        split_requests(0, 10, 8192),
        Err(CompletionError::BadRequestLimit(8192))
    );
    assert!(matches!(
        split_requests(u64::MAX - 3, 8, 4096),
        Err(CompletionError::AddressOverflow { .. })
    ));
    let top = split_requests(u64::MAX - 3, 4, 4096).unwrap();
    assert_eq!(
        top,
        vec![RequestChunk {
            addr: Addr(u64::MAX - 3),
            len: 4
        }]
    );
}

fn arb_read() -> impl Strategy<Value = (u64, usize)> {
    (0u64..(1 << 40), 1usize..=4096).prop_map(|(addr, len)| {
        let room = 4096 - (addr & 0xfff) as usize;
        (addr, len.min(room))
    })
}

fn arb_rules() -> impl Strategy<Value = CompletionRules> {
    (prop::bool::ANY, 0u8..=5, 0u32..64).prop_map(|(b128, mps, k)| {
        let rcb = if b128 { Rcb::B128 } else { Rcb::B64 };
        let mps = MaxPayloadSize::from_encoding(mps).unwrap();
        let steps = mps.bytes() / rcb.bytes();
        let limit = rcb.bytes() * (1 + k % steps);
        CompletionRules::new(rcb, mps)
            .with_chunk_limit(limit)
            .unwrap()
    })
}

proptest! {
    #[test]
    fn completions_cover_the_request_exactly_once((addr, len) in arb_read(), r in arb_rules()) {
        let span = ReadSpan::of_request(&mrd(addr, len)).unwrap();
        let chunks = split_completions(&span, &r);
        prop_assert!(!chunks.is_empty());
        prop_assert_eq!(chunks[0].dw_address, span.dw_start);
        prop_assert_eq!(chunks[0].data_start, addr);
        prop_assert_eq!(u32::from(chunks[0].byte_count), len as u32);
        let mut expect_dw = span.dw_start;
        let mut expect_byte = addr;
        for (i, c) in chunks.iter().enumerate() {
            // Contiguous, no overlap, in address order.
            prop_assert_eq!(c.dw_address, expect_dw);
            prop_assert_eq!(c.data_start, expect_byte);
            prop_assert!(c.length_dw >= 1);
            prop_assert!(c.length_dw * 4 <= r.chunk_limit());
            // Byte count is what remains, this completion included.
            prop_assert_eq!(u64::from(c.byte_count), addr + len as u64 - c.data_start);
            prop_assert_eq!(u64::from(c.lower_address), c.data_start & 0x7f);
            expect_dw += 4 * u64::from(c.length_dw);
            expect_byte = c.data_end;
            if i + 1 < chunks.len() {
                prop_assert_eq!(expect_dw % u64::from(r.rcb().bytes()), 0);
                prop_assert_eq!(c.data_end, expect_dw);
                // Byte count decreases by exactly the bytes this completion returned.
                prop_assert_eq!(
                    u64::from(c.byte_count - chunks[i + 1].byte_count),
                    c.data_end - c.data_start
                );
            }
        }
        prop_assert_eq!(expect_dw, span.end_dw());
        prop_assert_eq!(expect_byte, addr + len as u64);
    }

    #[test]
    fn assembler_accepts_any_legal_split(
        (addr, len) in arb_read(),
        r in arb_rules(),
        seed in any::<u8>(),
    ) {
        let mut mem = SparseMemory::with_fill(seed);
        let data: Vec<u8> = (0..len).map(|i| (i as u8).wrapping_mul(31) ^ seed).collect();
        mem.write(addr, &data).unwrap();
        let req = mrd(addr, len);
        let cpls = build_completions(&req, RC, &r, |a, b| mem.read(a, b).unwrap()).unwrap();
        let mut asm = ReadAssembler::new(&req, Some(r.rcb()), Some(r.max_payload())).unwrap();
        for c in &cpls[..cpls.len() - 1] {
            let progress = asm.accept(c).unwrap();
            prop_assert!(
                matches!(progress, AssemblyProgress::Partial { .. }),
                "early finish: {:?}",
                progress
            );
        }
        prop_assert_eq!(asm.accept(cpls.last().unwrap()).unwrap(), AssemblyProgress::Done(data));
    }

    #[test]
    fn split_requests_respect_limit_and_4k(
        addr in 0u64..(1 << 48),
        len in 0u64..20_000,
        enc in 0u8..=5,
    ) {
        let max = 128u32 << enc;
        let chunks = split_requests(addr, len, max).unwrap();
        let mut cur = addr;
        for c in &chunks {
            prop_assert_eq!(c.addr.0, cur);
            prop_assert!(c.len >= 1 && c.len <= max);
            prop_assert!(!crosses_4k(c.addr.0, u64::from(c.len)));
            cur += u64::from(c.len);
        }
        prop_assert_eq!(cur, addr + len);
    }
}
