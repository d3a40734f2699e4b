use super::*;

fn small() -> FcAdvertisement {
    FcAdvertisement {
        posted: ClassCredits {
            header: CreditLimit::Finite(2),
            data: CreditLimit::Finite(32),
        },
        non_posted: ClassCredits {
            header: CreditLimit::Finite(1),
            data: CreditLimit::Finite(1),
        },
        completion: ClassCredits {
            header: CreditLimit::Infinite,
            data: CreditLimit::Infinite,
        },
    }
}

#[test]
fn cost_of_tlps() {
    assert_eq!(data_credits(0), 0);
    assert_eq!(data_credits(4), 1);
    assert_eq!(data_credits(16), 1);
    assert_eq!(data_credits(17), 2);
    assert_eq!(FcCost::posted(256).data, 16);
    assert_eq!(FcCost::non_posted(0).data, 0);
    assert_eq!(FcCost::completion(4096).data, 256);
    assert_eq!(FcCost::completion(4096).header, 1);
}

#[test]
fn cost_by_tlp_kind() {
    use crate::tlp::{Addr, Bdf, CfgType, CplStatus, Tag};
    let id = Bdf(0x0100);
    let mwr = Tlp::mem_write(id, Tag(0), Addr(0x1002), &[0u8; 100]).unwrap();
    // 0x1002..0x1066 touches 26 DWs = 104 bytes = 7 data credits.
    assert_eq!(
        FcCost::of_tlp(&mwr),
        FcCost {
            class: FlowClass::Posted,
            header: 1,
            data: 7
        }
    );
    let mrd = Tlp::mem_read(id, Tag(1), Addr(0x1000), 4096).unwrap();
    assert_eq!(FcCost::of_tlp(&mrd), FcCost::non_posted(0));
    let cfgwr = Tlp::cfg_write(CfgType::Type0, id, Tag(2), Bdf(0x0200), 4, 0xf, 6).unwrap();
    assert_eq!(FcCost::of_tlp(&cfgwr), FcCost::non_posted(4));
    let cpld = Tlp::completion(id, CplStatus::Sc, id, Tag(1), 64, 0, &[0u8; 64]).unwrap();
    assert_eq!(FcCost::of_tlp(&cpld), FcCost::completion(64));
    let ur = Tlp::completion(id, CplStatus::Ur, id, Tag(1), 64, 0, &[]).unwrap();
    assert_eq!(
        FcCost::of_tlp(&ur),
        FcCost {
            class: FlowClass::Completion,
            header: 1,
            data: 0
        }
    );
}

#[test]
fn advertisement_is_validated_and_zero_means_infinite() {
    assert!(FcAdvertisement::endpoint_default().validate().is_ok());
    let mut a = small();
    a.posted.header = CreditLimit::Finite(128);
    assert!(matches!(
        FcTransmitter::new(&a),
        Err(FcError::BadAdvertisement { credits: 128, .. })
    ));
    a.posted.header = CreditLimit::Finite(0);
    assert!(FcReceiver::new(a).is_err());
    let json = serde_json::to_string(&small()).unwrap();
    assert!(json.contains(r#""completion":{"header":0,"data":0}"#));
    assert_eq!(
        serde_json::from_str::<FcAdvertisement>(&json).unwrap(),
        small()
    );
}

#[test]
fn refuses_without_credit_and_resumes_after_update() {
    let mut rx = FcReceiver::new(small()).unwrap();
    let mut tx = FcTransmitter::new(&rx.init_fc()).unwrap();
    let w = FcCost::posted(256);
    tx.try_consume(&w).unwrap();
    rx.on_receive(&w).unwrap();
    tx.try_consume(&w).unwrap();
    rx.on_receive(&w).unwrap();
    // Both header and data are exhausted; header is reported first.
    let blocked = tx.try_consume(&FcCost::posted(4)).unwrap_err();
    assert_eq!(blocked.kind, CreditKind::Header);
    assert_eq!(blocked.available, 0);
    assert_eq!(rx.held(FlowClass::Posted, CreditKind::Data), 32);
    let upd = rx.release(&w).unwrap().unwrap();
    assert_eq!(
        upd,
        UpdateFc {
            class: FlowClass::Posted,
            header: 3,
            data: 48
        }
    );
    tx.update_fc(&upd).unwrap();
    assert_eq!(tx.available(FlowClass::Posted, CreditKind::Data), 16);
    tx.try_consume(&w).unwrap();
    assert!(!tx.can_send(&FcCost::posted(0)));
}

#[test]
fn data_credit_shortage_is_reported() {
    let tx = FcTransmitter::new(&small()).unwrap();
    let b = tx.check(&FcCost::posted(600)).unwrap_err();
    assert_eq!((b.kind, b.needed, b.available), (CreditKind::Data, 38, 32));
}

#[test]
fn infinite_classes_never_block() {
    let mut tx = FcTransmitter::new(&small()).unwrap();
    for _ in 0..10_000 {
        tx.try_consume(&FcCost::completion(4096)).unwrap();
    }
    let mut rx = FcReceiver::new(small()).unwrap();
    rx.on_receive(&FcCost::completion(64)).unwrap();
    assert_eq!(rx.release(&FcCost::completion(64)).unwrap(), None);
    // Updates for infinite classes are ignored.
    tx.update_fc(&UpdateFc {
        class: FlowClass::Completion,
        header: 5,
        data: 5,
    })
    .unwrap();
}

#[test]
fn counters_wrap_modulo_field_width() {
    // 127 headers, 2047 data: run far past 256 and 4096 so both counters wrap.
    let adv = FcAdvertisement {
        posted: ClassCredits {
            header: CreditLimit::Finite(MAX_HEADER_CREDITS),
            data: CreditLimit::Finite(MAX_DATA_CREDITS),
        },
        ..small()
    };
    let mut rx = FcReceiver::new(adv).unwrap();
    let mut tx = FcTransmitter::new(&adv).unwrap();
    let w = FcCost::posted(256);
    let mut in_flight = std::collections::VecDeque::new();
    let mut sent = 0u32;
    while sent < 2000 {
        match tx.try_consume(&w) {
            Ok(()) => {
                rx.on_receive(&w).unwrap();
                in_flight.push_back(w);
                sent += 1;
            }
            Err(_) => {
                // Drain half of the buffer, then return credits.
                for _ in 0..in_flight.len() / 2 + 1 {
                    let c = in_flight.pop_front().unwrap();
                    let upd = rx.release(&c).unwrap().unwrap();
                    tx.update_fc(&upd).unwrap();
                }
            }
        }
        // Never more outstanding than advertised.
        assert!(in_flight.len() as u32 * 16 <= MAX_DATA_CREDITS);
    }
}

#[test]
fn overflow_and_bogus_updates_are_errors() {
    let mut rx = FcReceiver::new(small()).unwrap();
    let np = FcCost::non_posted(4);
    rx.on_receive(&np).unwrap();
    assert!(matches!(
        rx.on_receive(&np),
        Err(FcError::ReceiverOverflow {
            needed: 1,
            available: 0,
            ..
        })
    ));
    assert!(matches!(
        rx.release(&FcCost::posted(16)),
        Err(FcError::ReleaseExceedsHeld { .. })
    ));
    let mut tx = FcTransmitter::new(&small()).unwrap();
    // A limit 200 ahead of consumed exceeds half the 8-bit header space.
    let bad = UpdateFc {
        class: FlowClass::Posted,
        header: 200,
        data: 32,
    };
    assert!(matches!(tx.update_fc(&bad), Err(FcError::BadUpdate { .. })));
    let wide = UpdateFc {
        class: FlowClass::Posted,
        header: 2,
        data: 5000,
    };
    assert!(tx.update_fc(&wide).is_err());
    assert_eq!(tx.available(FlowClass::Posted, CreditKind::Header), 2);
}
