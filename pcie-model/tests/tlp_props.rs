//! Property tests of the TLP codec, the JSON form and the beat format.

use pcie_model::beats::{bytes_to_beats, from_beats, tlp_from_beats, to_beats, Beat};
use pcie_model::tlp::{
    Addr, AddrWidth, AtomicOp, AtomicRequest, Attr, Bdf, CfgRequest, CfgType, Common, Completion,
    CplStatus, Header, IoRequest, MemRequest, Message, MsgRouting, Tag, Tlp, TlpKind,
};
use proptest::prelude::*;

fn bdf() -> impl Strategy<Value = Bdf> {
    any::<u16>().prop_map(Bdf)
}

fn tag() -> impl Strategy<Value = Tag> {
    any::<u8>().prop_map(Tag)
}

fn common() -> impl Strategy<Value = Common> {
    (
        0u8..8,
        0u8..8,
        any::<bool>(),
        proptest::option::of(any::<u32>()),
    )
        .prop_map(|(tc, attr, ep, digest)| Common {
            tc,
            attr: Attr::from_bits(attr),
            ep,
            digest,
        })
}

/// I/O and configuration requests need TC 0 and Attr 0.
fn common_tc0() -> impl Strategy<Value = Common> {
    (any::<bool>(), proptest::option::of(any::<u32>())).prop_map(|(ep, digest)| Common {
        ep,
        digest,
        ..Common::default()
    })
}

fn payload(min_dw: usize, max_dw: usize) -> impl Strategy<Value = Vec<u8>> {
    (min_dw..=max_dw).prop_flat_map(|n| proptest::collection::vec(any::<u8>(), n * 4))
}

/// A memory request that obeys the byte-enable and 4 KiB rules, with its length.
fn mem_request() -> impl Strategy<Value = (MemRequest, u16)> {
    let address = prop_oneof![any::<u64>(), any::<u32>().prop_map(u64::from)].prop_map(|a| a & !3);
    (address, any::<bool>())
        .prop_flat_map(|(address, four_dw)| {
            let max_len = 1024 - (address & 0xfff) / 4;
            (
                Just(address),
                Just(four_dw),
                1..=max_len as u16,
                0u8..16,
                0u8..16,
                0usize..4,
                0usize..4,
            )
        })
        .prop_flat_map(|(address, four_dw, length, fb, lb, fi, li)| {
            let (first_be, last_be) = if length == 1 {
                (fb, 0)
            } else if length == 2 && address % 8 == 0 {
                (fb.max(1), lb.max(1))
            } else {
                ([0xf, 0xe, 0xc, 0x8][fi], [0x1, 0x3, 0x7, 0xf][li])
            };
            let width = if four_dw || address >= 1 << 32 {
                AddrWidth::Bits64
            } else {
                AddrWidth::Bits32
            };
            (bdf(), tag()).prop_map(move |(requester_id, tag)| {
                let req = MemRequest {
                    requester_id,
                    tag,
                    first_be,
                    last_be,
                    address: Addr(address),
                    width,
                };
                (req, length)
            })
        })
}

fn mem_read() -> impl Strategy<Value = (Header, Vec<u8>)> {
    (mem_request(), any::<bool>()).prop_map(|((req, length_dw), locked)| {
        (
            Header::MemRead {
                req,
                length_dw,
                locked,
            },
            Vec::new(),
        )
    })
}

fn mem_write() -> impl Strategy<Value = (Header, Vec<u8>)> {
    mem_request().prop_flat_map(|(req, length)| {
        proptest::collection::vec(any::<u8>(), usize::from(length) * 4)
            .prop_map(move |data| (Header::MemWrite(req), data))
    })
}

fn io() -> impl Strategy<Value = (Header, Vec<u8>)> {
    (
        bdf(),
        tag(),
        0u8..16,
        any::<u32>(),
        any::<bool>(),
        any::<[u8; 4]>(),
    )
        .prop_map(|(requester_id, tag, first_be, address, write, data)| {
            let io = IoRequest {
                requester_id,
                tag,
                first_be,
                address: Addr(u64::from(address & !3)),
            };
            if write {
                (Header::IoWrite(io), data.to_vec())
            } else {
                (Header::IoRead(io), Vec::new())
            }
        })
}

fn cfg() -> impl Strategy<Value = (Header, Vec<u8>)> {
    (
        bdf(),
        tag(),
        0u8..16,
        bdf(),
        0u16..1024,
        any::<bool>(),
        any::<bool>(),
        any::<[u8; 4]>(),
    )
        .prop_map(
            |(requester_id, tag, first_be, target_id, register, type1, write, data)| {
                let cfg = CfgRequest {
                    cfg_type: if type1 {
                        CfgType::Type1
                    } else {
                        CfgType::Type0
                    },
                    requester_id,
                    tag,
                    first_be,
                    target_id,
                    register,
                };
                if write {
                    (Header::CfgWrite(cfg), data.to_vec())
                } else {
                    (Header::CfgRead(cfg), Vec::new())
                }
            },
        )
}

fn completion() -> impl Strategy<Value = (Header, Vec<u8>)> {
    let status = prop_oneof![
        Just(CplStatus::Sc),
        Just(CplStatus::Ur),
        Just(CplStatus::Crs),
        Just(CplStatus::Ca)
    ];
    (
        (bdf(), status, any::<bool>(), 1u16..=4096),
        (bdf(), tag(), 0u8..128, any::<bool>()),
        prop_oneof![Just(Vec::new()), payload(1, 1024)],
    )
        .prop_map(
            |(
                (completer_id, status, bcm, byte_count),
                (requester_id, tag, lower_address, locked),
                data,
            )| {
                let cpl = Completion {
                    completer_id,
                    status,
                    bcm,
                    byte_count,
                    requester_id,
                    tag,
                    lower_address,
                    locked,
                };
                (Header::Completion(cpl), data)
            },
        )
}

fn message() -> impl Strategy<Value = (Header, Vec<u8>)> {
    (
        bdf(),
        tag(),
        0u8..6,
        any::<u8>(),
        any::<[u8; 8]>(),
        prop_oneof![Just(Vec::new()), payload(1, 1024)],
    )
        .prop_map(|(requester_id, tag, routing, code, bytes_8_15, data)| {
            let msg = Message {
                requester_id,
                tag,
                routing: MsgRouting::from_bits(routing).unwrap(),
                code,
                bytes_8_15,
            };
            (Header::Message(msg), data)
        })
}

fn atomic() -> impl Strategy<Value = (Header, Vec<u8>)> {
    let op_size = prop_oneof![
        (Just(AtomicOp::FetchAdd), prop_oneof![Just(4usize), Just(8)]),
        (Just(AtomicOp::Swap), prop_oneof![Just(4usize), Just(8)]),
        (
            Just(AtomicOp::Cas),
            prop_oneof![Just(8usize), Just(16), Just(32)]
        ),
    ];
    (op_size, bdf(), tag(), any::<u64>(), any::<bool>()).prop_flat_map(
        |((op, len), requester_id, tag, address, four_dw)| {
            let operand = op.operand_size(len).unwrap() as u64;
            let address = address & !(operand - 1);
            let width = if four_dw || address >= 1 << 32 {
                AddrWidth::Bits64
            } else {
                AddrWidth::Bits32
            };
            let req = AtomicRequest {
                op,
                requester_id,
                tag,
                address: Addr(address),
                width,
            };
            proptest::collection::vec(any::<u8>(), len).prop_map(move |d| (Header::Atomic(req), d))
        },
    )
}

/// A valid TLP of any kind, with random TC, Attr, EP and digest where allowed.
fn any_tlp() -> impl Strategy<Value = Tlp> {
    let general = (
        prop_oneof![mem_read(), mem_write(), completion(), message(), atomic()],
        common(),
    );
    let tc0 = (prop_oneof![io(), cfg()], common_tc0());
    prop_oneof![general, tc0].prop_map(|((header, payload), common)| {
        Tlp::from_parts(header, common, payload).expect("strategy builds valid TLPs")
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn pack_unpack_round_trip(tlp in any_tlp()) {
        let bytes = tlp.to_bytes();
        prop_assert_eq!(bytes.len(), tlp.total_len());
        let back = Tlp::from_bytes(&bytes).unwrap();
        prop_assert_eq!(back.kind(), tlp.kind());
        prop_assert_eq!(&back, &tlp);
    }

    #[test]
    fn json_round_trip(tlp in any_tlp()) {
        let json = tlp.to_json();
        prop_assert!(!json.contains('\n'));
        prop_assert_eq!(Tlp::from_json(&json).unwrap(), tlp);
    }

    #[test]
    fn beats_round_trip(tlp in any_tlp()) {
        let beats = to_beats(&tlp);
        prop_assert_eq!(beats.len(), tlp.total_len().div_ceil(16));
        for b in &beats {
            prop_assert_eq!(b.to_string().parse::<Beat>().unwrap(), *b);
        }
        prop_assert_eq!(tlp_from_beats(&beats).unwrap(), tlp);
    }

    #[test]
    fn bytes_beats_bytes(dws in proptest::collection::vec(any::<[u8; 4]>(), 1..200)) {
        let bytes: Vec<u8> = dws.concat();
        let beats = bytes_to_beats(&bytes).unwrap();
        prop_assert_eq!(from_beats(&beats).unwrap(), bytes);
    }

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        // Whatever is accepted is reproduced exactly.
        if let Ok(t) = Tlp::from_bytes(&bytes) {
            prop_assert_eq!(&t.to_bytes(), &bytes);
        }
    }

    #[test]
    fn mutated_tlps_never_panic(tlp in any_tlp(), at in any::<usize>(), xor in 1u8..=255) {
        let mut bytes = tlp.to_bytes();
        let i = at % bytes.len();
        bytes[i] ^= xor;
        if let Ok(t) = Tlp::from_bytes(&bytes) {
            prop_assert_eq!(&t.to_bytes(), &bytes);
        }
        let cut = at % bytes.len();
        prop_assert!(Tlp::from_bytes(&bytes[..cut]).is_err());
    }

    #[test]
    fn random_beats_never_panic(
        beats in proptest::collection::vec(
            (any::<u128>(), any::<bool>(), any::<bool>(), any::<u8>())
                .prop_map(|(data, sop, eop, empty)| Beat { data, sop, eop, empty }),
            0..6,
        )
    ) {
        if let Ok(bytes) = from_beats(&beats) {
            prop_assert_eq!(bytes_to_beats(&bytes).unwrap(), beats);
        }
    }

    #[test]
    fn random_json_never_panics(text in ".{0,200}") {
        let _ = Tlp::from_json(&text);
    }

    #[test]
    fn json_missing_a_field_is_an_error(tlp in any_tlp(), pick in any::<usize>()) {
        let value = tlp.to_json_value();
        let obj = value.as_object().unwrap();
        // Fields that must be given (the others are derived or defaulted).
        let optional = ["fmt", "type", "tc", "attr", "td", "ep", "length", "bcm", "last_be",
                        "bytes_8_15", "address", "target_id"];
        let required: Vec<&String> = obj.keys().filter(|k| !optional.contains(&k.as_str())).collect();
        let drop = required[pick % required.len()];
        let mut reduced = obj.clone();
        reduced.remove(drop);
        let result = Tlp::from_json_value(&serde_json::Value::Object(reduced));
        prop_assert!(result.is_err(), "dropping {} was accepted", drop);
    }
}

#[test]
fn every_kind_is_generated() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = any_tlp();
    let mut seen = std::collections::HashSet::new();
    for _ in 0..4000 {
        seen.insert(strategy.new_tree(&mut runner).unwrap().current().kind());
    }
    for kind in TlpKind::ALL {
        assert!(seen.contains(&kind), "{kind} never generated");
    }
}
