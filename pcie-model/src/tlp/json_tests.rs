//! The JSON form: exact output for real TLPs, round trips, and typed errors.

use super::hex::parse_hex;
use super::*;

fn decode(hex: &str) -> Tlp {
    Tlp::from_bytes(&parse_hex(hex).unwrap()).unwrap()
}

#[test]
fn mrd_json() {
    let t = decode("00000010 01000aff f7c00000");
    assert_eq!(
        t.to_json(),
        r#"{"kind":"MRd","fmt":0,"type":0,"tc":0,"attr":0,"td":false,"ep":false,"length":16,"requester_id":256,"tag":10,"first_be":15,"last_be":15,"address":4156555264}"#
    );
    assert_eq!(Tlp::from_json(&t.to_json()).unwrap(), t);
}

#[test]
fn cpld_json() {
    let t = decode("4a000001 00000004 01000a00 78563412");
    assert_eq!(
        t.to_json(),
        r#"{"kind":"CplD","fmt":2,"type":10,"tc":0,"attr":0,"td":false,"ep":false,"length":1,"requester_id":256,"completer_id":0,"tag":10,"status":"SC","bcm":false,"byte_count":4,"lower_address":0,"data":"78563412"}"#
    );
    assert_eq!(Tlp::from_json(&t.to_json()).unwrap(), t);
}

#[test]
fn every_kind_round_trips_through_json() {
    for hex in [
        "00000001 0000000f 00001000",
        "20000001 0000000f 00000000 00001000",
        "01000001 0000000f 00001000",
        "60000001 0100000f 00000001 00000000 deadbeef",
        "02000001 0000000f 00001000",
        "42000001 0000000f 00001000 01020304",
        "04000001 0000000f 01000010",
        "44000001 0000000f 01000010 ffffffff",
        "05000001 0000000f 02080400",
        "45000001 0000000f 02080400 00000000",
        "0a000000 01002004 00000300",
        "0b000000 01008004 00000300",
        "4b000001 00000004 01000a00 78563412",
        "33000000 00000019 00000000 00000000",
        "31000000 00000041 00000001 00001000",
        "72000001 0100007f 02001234 00000000 cafef00d",
        "4c000001 01000100 f0000000 00000001",
        "6d000002 01000100 00000001 00000008 00000001 00000002",
        "4e000004 01000100 f0000000 00000001 00000002 00000003 00000004",
        "4020f001 0000000f 00001000 01020304 aabbccdd",
    ] {
        let t = decode(hex);
        let back = Tlp::from_json(&t.to_json()).unwrap_or_else(|e| panic!("{hex}: {e}"));
        assert_eq!(back, t, "{hex}");
        assert_eq!(Tlp::from_json_value(&t.to_json_value()).unwrap(), t);
    }
}

#[test]
fn derived_fields_may_be_omitted() {
    let t = Tlp::from_json(
        r#"{"kind":"MWr","requester_id":256,"tag":0,"first_be":15,"last_be":0,"address":4294967296,"data":"deadbeef"}"#,
    )
    .unwrap();
    assert_eq!(t.header_len_dw(), 4);
    let t = Tlp::from_json(
        r#"{"kind":"Msg","requester_id":0,"tag":0,"routing":2,"message_code":127,"target_id":512}"#,
    )
    .unwrap();
    assert_eq!(t.to_bytes()[8..10], [2, 0]);
    // A given fmt chooses the 4-DW form below 4 GiB.
    let t = Tlp::from_json(
        r#"{"kind":"MRd","fmt":1,"requester_id":0,"tag":0,"length":1,"first_be":15,"last_be":0,"address":4096}"#,
    )
    .unwrap();
    assert_eq!(t.header_len_dw(), 4);
}

#[test]
fn bad_json_is_a_typed_error() {
    let cases: &[(&str, &str)] = &[
        ("{", "invalid JSON"),
        ("[1]", "a TLP must be a JSON object"),
        (r#"{"tag":1}"#, "a TLP needs field `kind`"),
        (r#"{"kind":"MRX"}"#, "unknown TLP kind \"MRX\""),
        (
            r#"{"kind":"MRd","requester_id":0,"tag":0,"length":1,"first_be":15,"last_be":0}"#,
            "MRd needs field `address`",
        ),
        (
            r#"{"kind":"MRd","requester_id":0,"tag":0,"length":1,"first_be":15,"last_be":0,"address":0,"status":"SC"}"#,
            "field `status` is not a field of MRd",
        ),
        (
            r#"{"kind":"MRd","requester_id":0,"tag":300,"length":1,"first_be":15,"last_be":0,"address":0}"#,
            "field `tag` is 300, must be at most 255",
        ),
        (
            r#"{"kind":"MRd","requester_id":"01:00.0","tag":0,"length":1,"first_be":15,"last_be":0,"address":0}"#,
            "field `requester_id` must be a non-negative integer",
        ),
        (
            r#"{"kind":"MRd","fmt":2,"requester_id":0,"tag":0,"length":1,"first_be":15,"last_be":0,"address":0}"#,
            "field `fmt` is 2 but the other fields make it 0",
        ),
        (
            r#"{"kind":"MRd","requester_id":0,"tag":0,"length":1,"first_be":15,"last_be":15,"address":0}"#,
            "invalid TLP: last_be = 0xf is invalid",
        ),
        (
            r#"{"kind":"MWr","requester_id":0,"tag":0,"length":2,"first_be":15,"last_be":0,"address":0,"data":"00000000"}"#,
            "field `length` is 2 but the other fields make it 1",
        ),
        (
            r#"{"kind":"MWr","requester_id":0,"tag":0,"first_be":15,"last_be":0,"address":0,"data":"0g"}"#,
            "field `data`: invalid hex digit",
        ),
        (
            r#"{"kind":"CplD","requester_id":0,"completer_id":0,"tag":0,"status":"XX","byte_count":4,"lower_address":0,"data":"00000000"}"#,
            "unknown completion status",
        ),
        (
            r#"{"kind":"Cpl","requester_id":0,"completer_id":0,"tag":0,"status":"SC","byte_count":0,"lower_address":0}"#,
            "byte_count = 0x0 is invalid",
        ),
        (
            r#"{"kind":"CplD","requester_id":0,"completer_id":0,"tag":0,"status":"SC","byte_count":4,"lower_address":0,"data":""}"#,
            "field `data` is empty",
        ),
        (
            r#"{"kind":"Msg","requester_id":0,"tag":0,"routing":6,"message_code":0}"#,
            "routing r[2:0] = 0b110 is reserved",
        ),
        (
            r#"{"kind":"Msg","requester_id":0,"tag":0,"routing":0,"message_code":0,"address":0}"#,
            "field `address` is only for messages routed by address",
        ),
        (
            r#"{"kind":"MWr","td":true,"requester_id":0,"tag":0,"first_be":15,"last_be":0,"address":0,"data":"00000000"}"#,
            "MWr needs field `digest`",
        ),
    ];
    for (json, message) in cases {
        let err = Tlp::from_json(json).expect_err(json).to_string();
        assert!(
            err.contains(message),
            "{json}: got {err:?}, want {message:?}"
        );
        assert!(!err.contains('\n'));
    }
}
