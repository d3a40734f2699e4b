//! Hand-checked TLPs against the PCIe 3.0 header figures, and the error cases.

use super::hex::{parse_hex, to_hex};
use super::*;

fn tlp(hex: &str) -> Result<Tlp, TlpError> {
    Tlp::from_bytes(&parse_hex(hex).unwrap())
}

fn round_trip(hex: &str) -> Tlp {
    let t = tlp(hex).unwrap_or_else(|e| panic!("{hex}: {e}"));
    assert_eq!(to_hex(&t.to_bytes()), hex.replace(' ', ""));
    t
}

#[test]
fn mrd_3dw() {
    // DW0: fmt 000 type 00000, length 1. DW1: requester 00:00.0, tag 0, BEs 0/f.
    let t = round_trip("00000001 0000000f 00001000");
    assert_eq!(t.kind(), TlpKind::MRd);
    assert_eq!(t.fmt(), Fmt::ThreeDwNoData);
    assert_eq!(t.length_dw(), 1);
    assert_eq!(t.first_be(), Some(0xf));
    assert_eq!(t.last_be(), Some(0));
    assert_eq!(t.address(), Some(Addr(0x1000)));
    assert_eq!(t.header_len_dw(), 3);
    assert_eq!(t.total_len(), 12);
    assert_eq!(t.request_byte_count(), Some(4));
}

#[test]
fn mrd_64_bytes_from_endpoint() {
    // 01:00.0 reads 16 DW at 0xf7c00000 with tag 0x0a.
    let t = round_trip("00000010 01000aff f7c00000");
    assert_eq!(t.requester_id().to_string(), "01:00.0");
    assert_eq!(t.tag(), Tag(0x0a));
    assert_eq!(t.length_dw(), 16);
    assert_eq!(t.flow_class(), FlowClass::NonPosted);
    let built = Tlp::mem_read(Bdf(0x0100), Tag(0x0a), Addr(0xf7c0_0000), 64).unwrap();
    assert_eq!(built, t);
}

#[test]
fn mrd_unaligned_bytes() {
    // 6 bytes at 0x1003: DWs 0x1000..0x1008, first BE 1000, last BE 0001.
    let t = Tlp::mem_read(Bdf(0x0100), Tag(1), Addr(0x1003), 6).unwrap();
    assert_eq!(to_hex(&t.to_bytes()), "000000030100011800001000");
    assert_eq!(t.request_byte_count(), Some(6));
    assert_eq!(t.request_lower_address(), Some(0x03));
    let zero = Tlp::mem_read(Bdf(0), Tag(2), Addr(0x2002), 0).unwrap();
    assert_eq!(to_hex(&zero.to_bytes()), "000000010000020000002000");
    assert!(Tlp::mem_read(Bdf(0), Tag(0), Addr(0), 4097).is_err());
    assert!(matches!(
        Tlp::mem_read(Bdf(0), Tag(0), Addr(0xffc), 8),
        Err(TlpError::Crosses4KiB { .. })
    ));
}

#[test]
fn mwr_4dw() {
    // fmt 011: 4-DW header with data; address 0x1_0000_0000; one payload DW.
    let t = round_trip("60000001 0100000f 00000001 00000000 deadbeef");
    assert_eq!(t.kind(), TlpKind::MWr);
    assert_eq!(t.fmt(), Fmt::FourDwData);
    assert_eq!(t.address(), Some(Addr(0x1_0000_0000)));
    assert_eq!(t.data(), &[0xde, 0xad, 0xbe, 0xef]);
    assert_eq!(t.total_len(), 20);
    assert_eq!(t.flow_class(), FlowClass::Posted);
    let built = Tlp::mem_write(Bdf(0x0100), Tag(0), Addr(0x1_0000_0002), &[0xaa, 0xbb]).unwrap();
    assert_eq!(
        to_hex(&built.to_bytes()),
        "600000010100000c00000001000000000000aabb"
    );
}

#[test]
fn mwr_below_4gib_in_4dw_is_kept() {
    let t = round_trip("60000001 0000000f 00000000 00001000 00000000");
    assert_eq!(t.header_len_dw(), 4);
    let built = Tlp::mem_write(Bdf(0), Tag(0), Addr(0x1000), &[0; 4]).unwrap();
    assert_eq!(built.header_len_dw(), 3);
}

#[test]
fn cpld_and_cpl() {
    // Completer 00:00.0 returns one DW (byte count 4) to 01:00.0, tag 0x0a.
    let t = round_trip("4a000001 00000004 01000a00 78563412");
    assert_eq!(t.kind(), TlpKind::CplD);
    let c = t.as_completion().unwrap();
    assert_eq!(c.status, CplStatus::Sc);
    assert_eq!(c.byte_count, 4);
    assert_eq!(c.requester_id, Bdf(0x0100));
    assert_eq!(t.flow_class(), FlowClass::Completion);
    let built = Tlp::completion(
        Bdf(0),
        CplStatus::Sc,
        Bdf(0x0100),
        Tag(0x0a),
        4,
        0,
        &[0x78, 0x56, 0x34, 0x12],
    )
    .unwrap();
    assert_eq!(built, t);
    // Unsupported Request: status 001 in DW1 bits 15:13.
    let ur = round_trip("0a000000 01002004 00000300");
    assert_eq!(ur.kind(), TlpKind::Cpl);
    assert_eq!(ur.status(), Some(CplStatus::Ur));
    assert_eq!(ur.completer_id(), Some(Bdf(0x0100)));
    // Byte count 4096 encodes as 0; 2 bytes at lower address 0x46 sit in lanes 2..3.
    let big = Tlp::completion(Bdf(0), CplStatus::Sc, Bdf(1), Tag(1), 4096, 0x46, &[1, 2]).unwrap();
    assert_eq!(to_hex(&big.to_bytes()), "4a000001000000000001014600000102");
}

#[test]
fn cfg_rd0_bar0() {
    // CfgRd0 of register 4 (byte offset 0x10, BAR0) of 01:00.0.
    let t = round_trip("04000001 0000000f 01000010");
    assert_eq!(t.kind(), TlpKind::CfgRd0);
    match t.header() {
        Header::CfgRead(c) => {
            assert_eq!(c.target_id, Bdf(0x0100));
            assert_eq!(c.register, 4);
        }
        h => panic!("{h:?}"),
    }
    let w = Tlp::cfg_write(
        CfgType::Type0,
        Bdf(0),
        Tag(1),
        Bdf(0x0100),
        4,
        0xf,
        0xffff_ffff,
    )
    .unwrap();
    assert_eq!(to_hex(&w.to_bytes()), "440000010000010f01000010ffffffff");
    // Extended register 0x100 (byte offset 0x400) uses DW2 bits 11:8.
    let ext = Tlp::cfg_read(CfgType::Type1, Bdf(0), Tag(0), Bdf(0x0208), 0x100, 0xf).unwrap();
    assert_eq!(to_hex(&ext.to_bytes()), "050000010000000f02080400");
}

#[test]
fn messages() {
    // PME_Turn_Off, broadcast from the root complex (r = 011), code 0x19.
    let t = round_trip("33000000 00000019 00000000 00000000");
    assert_eq!(t.kind(), TlpKind::Msg);
    // Assert_INTA, local (r = 100), code 0x20, from 01:00.0.
    let t = round_trip("34000000 01000020 00000000 00000000");
    match t.header() {
        Header::Message(m) => {
            assert_eq!(m.routing, MsgRouting::Local);
            assert_eq!(m.code, 0x20);
        }
        h => panic!("{h:?}"),
    }
    // Vendor-defined type 1, routed by id to 02:00.0, with one DW of data.
    let t = round_trip("72000001 0100007f 02001234 00000000 cafef00d");
    assert_eq!(t.kind(), TlpKind::MsgD);
    match t.header() {
        Header::Message(m) => assert_eq!(m.target_id(), Some(Bdf(0x0200))),
        h => panic!("{h:?}"),
    }
}

#[test]
fn atomics() {
    // FetchAdd, 32-bit operand, 3-DW header; byte enables reserved (0).
    let t = round_trip("4c000001 01000100 f0000000 00000001");
    assert_eq!(t.kind(), TlpKind::FetchAdd);
    let cas = Tlp::atomic(AtomicOp::Cas, Bdf(1), Tag(2), Addr(0x1_0000_0010), &[0; 16]).unwrap();
    assert_eq!(cas.header_len_dw(), 4);
    assert_eq!(to_hex(&cas.to_bytes())[..8], *"6e000004");
    assert!(Tlp::atomic(AtomicOp::Cas, Bdf(1), Tag(2), Addr(0x4), &[0; 16]).is_err());
    assert!(Tlp::atomic(AtomicOp::Cas, Bdf(1), Tag(2), Addr(0x8), &[0; 16]).is_ok());
    assert!(Tlp::atomic(AtomicOp::Swap, Bdf(1), Tag(2), Addr(0x8), &[0; 12]).is_err());
    assert!(matches!(
        tlp("4c000001 01000101 f0000000 00000001"),
        Err(TlpError::ReservedBits {
            field: "first_be/last_be",
            ..
        })
    ));
}

#[test]
fn io_requests() {
    let t = Tlp::io_write(Bdf(0), Tag(3), Addr(0x3f9), &[0x55]).unwrap();
    assert_eq!(
        to_hex(&t.to_bytes()),
        "42000001000003020000 03f8".replace(' ', "") + "00550000"
    );
    assert!(matches!(
        tlp("02100001 0000000f 00001000"),
        Err(TlpError::InvalidField { field: "tc", .. })
    ));
    assert!(Tlp::io_read(Bdf(0), Tag(0), Addr(0x3fe), 4).is_err());
}

#[test]
fn digest_and_flags() {
    // TD=1, EP=1, attr RO+NS, TC 2 on an MWr: the digest DW follows the payload.
    let t = round_trip("4020f001 0000000f 00001000 01020304 aabbccdd");
    assert_eq!(t.tc(), 2);
    assert!(t.ep() && t.td());
    assert_eq!(t.attr().bits(), 3);
    assert_eq!(t.digest(), Some(0xaabb_ccdd));
    assert_eq!(t.data(), &[1, 2, 3, 4]);
    // IDO is Attr[2], DW0 bit 18.
    let ido = round_trip("40040001 0000000f 00001000 01020304");
    assert!(ido.attr().id_based_ordering);
}

#[test]
fn length_1024_encodes_as_zero() {
    let t = Tlp::mem_write(Bdf(0), Tag(0), Addr(0x1000), &[7; 4096]).unwrap();
    let bytes = t.to_bytes();
    assert_eq!(&bytes[..4], &[0x40, 0, 0, 0]);
    assert_eq!(Tlp::from_bytes(&bytes).unwrap().length_dw(), 1024);
}

/// A predicate on the error a malformed TLP must give.
type Expect = fn(&TlpError) -> bool;

#[test]
fn malformed_input_is_a_typed_error() {
    use TlpError::*;
    let cases: &[(&str, Expect)] = &[
        ("", |e| matches!(e, Truncated { what: "DW0", .. })),
        ("000000", |e| matches!(e, Truncated { .. })),
        ("00000001 0000000f", |e| {
            matches!(e, Truncated { needed: 12, .. })
        }),
        ("00000001 0000000f 00001000 00", |e| {
            matches!(e, NotWholeDws { len: 13 })
        }),
        ("40000002 0100000f 00001000 deadbeef", |e| {
            matches!(e, LengthMismatch { .. })
        }),
        ("00000001 0000000f 00001000 00000000", |e| {
            matches!(e, LengthMismatch { .. })
        }),
        ("a0000001 0000000f 00001000", |e| {
            matches!(e, ReservedFmt { fmt: 5 })
        }),
        ("03000001 0000000f 00001000", |e| {
            matches!(e, ReservedFmtType { fmt: 0, ty: 3 })
        }),
        ("1b000001 0000000f 00001000", |e| {
            matches!(e, ReservedFmtType { .. })
        }),
        ("2a000000 00000004 00000000 00000000", |e| {
            matches!(e, ReservedFmtType { .. })
        }),
        ("80000000", |e| matches!(e, PrefixUnsupported)),
        ("00010001 0000000f 00001000", |e| {
            matches!(e, Unsupported { field: "TH", .. })
        }),
        ("00000401 0000000f 00001000", |e| {
            matches!(e, Unsupported { field: "AT", .. })
        }),
        ("00800001 0000000f 00001000", |e| {
            matches!(
                e,
                ReservedBits {
                    field: "DW0 bit 23",
                    ..
                }
            )
        }),
        ("00000001 000000ff 00001000", |e| {
            matches!(
                e,
                InvalidField {
                    field: "last_be",
                    ..
                }
            )
        }),
        ("00000002 000000f0 00001000", |e| {
            matches!(
                e,
                InvalidField {
                    field: "first_be",
                    ..
                }
            )
        }),
        ("00000002 0000000f 00001000", |e| {
            matches!(
                e,
                InvalidField {
                    field: "last_be",
                    ..
                }
            )
        }),
        ("00000003 000000f5 00001000", |e| {
            matches!(
                e,
                InvalidField {
                    field: "first_be",
                    ..
                }
            )
        }),
        ("00000002 000000f5 00001004", |e| {
            matches!(
                e,
                InvalidField {
                    field: "first_be",
                    ..
                }
            )
        }),
        ("00000002 000000ff 00000ffc", |e| {
            matches!(e, Crosses4KiB { .. })
        }),
        ("00000001 0000000f 00001002", |e| {
            matches!(
                e,
                ReservedBits {
                    field: "address[1:0]",
                    ..
                }
            )
        }),
        ("0a000000 01006004 00000300", |e| {
            matches!(e, ReservedCplStatus { status: 3 })
        }),
        ("0a000001 01000004 00000300", |e| {
            matches!(
                e,
                ReservedBits {
                    field: "length",
                    ..
                }
            )
        }),
        ("36000000 00000019 00000000 00000000", |e| {
            matches!(e, ReservedRouting { routing: 6 })
        }),
        ("04000002 0000000f 01000010", |e| {
            matches!(
                e,
                InvalidField {
                    field: "length",
                    ..
                }
            )
        }),
        ("04000001 0000000f 01001010", |e| {
            matches!(e, ReservedBits { .. })
        }),
    ];
    for (hex, ok) in cases {
        let err = tlp(hex).expect_err(hex);
        assert!(ok(&err), "{hex}: unexpected error {err:?}");
        assert!(!err.to_string().is_empty());
    }
    // QW-aligned 2-DW requests may have holes in both byte enables.
    round_trip("00000002 000000a5 00001008");
}

#[test]
fn error_messages_name_the_field() {
    let e = tlp("00000001 000000ff 00001000").unwrap_err();
    assert_eq!(
        e.to_string(),
        "last_be = 0xf is invalid: must be 0 when the length is 1 DW"
    );
    let e = tlp("40000002 0100000f 00001000 deadbeef").unwrap_err();
    assert_eq!(
        e.to_string(),
        "length field says 2 DW of payload, so the TLP is 20 bytes, but 16 bytes were given"
    );
}
