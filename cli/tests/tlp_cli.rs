//! Runs the built `peach2` binary on real TLPs.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn peach2(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_peach2"))
        .args(args)
        .output()
        .expect("run peach2")
}

fn peach2_stdin(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_peach2"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run peach2");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn stdout_ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}, stderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// Bad input: exit code 2, nothing on stdout, one line on stderr naming the problem.
fn assert_input_error(out: &Output, mentions: &str) {
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr.clone()).unwrap();
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(err.starts_with("error: "), "{err:?}");
    assert!(
        err.contains(mentions),
        "{err:?} should mention {mentions:?}"
    );
}

#[test]
fn decode_mrd() {
    let out = peach2(&["tlp", "decode", "00000010 01000aff f7c00000"]);
    assert_eq!(
        stdout_ok(&out),
        "{\"kind\":\"MRd\",\"fmt\":0,\"type\":0,\"tc\":0,\"attr\":0,\"td\":false,\"ep\":false,\
         \"length\":16,\"requester_id\":256,\"tag\":10,\"first_be\":15,\"last_be\":15,\
         \"address\":4156555264}\n"
    );
}

#[test]
fn decode_cpld_split_over_arguments() {
    let out = peach2(&[
        "tlp",
        "decode",
        "0x4a000001",
        "0x00000004",
        "0x01000A00",
        "78563412",
    ]);
    assert_eq!(
        stdout_ok(&out),
        "{\"kind\":\"CplD\",\"fmt\":2,\"type\":10,\"tc\":0,\"attr\":0,\"td\":false,\"ep\":false,\
         \"length\":1,\"requester_id\":256,\"completer_id\":0,\"tag\":10,\"status\":\"SC\",\
         \"bcm\":false,\"byte_count\":4,\"lower_address\":0,\"data\":\"78563412\"}\n"
    );
}

#[test]
fn decode_mwr_4dw() {
    let out = peach2(&[
        "tlp",
        "decode",
        "60000001 0100000f 00000001 00000000 deadbeef",
    ]);
    assert_eq!(
        stdout_ok(&out),
        "{\"kind\":\"MWr\",\"fmt\":3,\"type\":0,\"tc\":0,\"attr\":0,\"td\":false,\"ep\":false,\
         \"length\":1,\"requester_id\":256,\"tag\":0,\"first_be\":15,\"last_be\":0,\
         \"address\":4294967296,\"data\":\"deadbeef\"}\n"
    );
}

#[test]
fn encode_inverts_decode() {
    for hex in [
        "00000001 0000000f 00001000",
        "60000001 0100000f 00000001 00000000 deadbeef",
        "4a000001 00000004 01000a00 78563412",
        "0a000000 01002004 00000300",
        "04000001 0000000f 01000010",
        "44000001 0000000f 01000010 ffffffff",
        "34000000 01000020 00000000 00000000",
        "72000001 0100007f 02001234 00000000 cafef00d",
        "4c000001 01000100 f0000000 00000001",
        "4020f001 0000000f 00001000 01020304 aabbccdd",
    ] {
        let json = stdout_ok(&peach2(&["tlp", "decode", hex]));
        let encoded = stdout_ok(&peach2(&["tlp", "encode", json.trim()]));
        assert_eq!(encoded, format!("{}\n", hex.replace(' ', "")), "{json}");
    }
}

#[test]
fn encode_derives_omitted_fields() {
    let json = r#"{"kind":"MRd","requester_id":256,"tag":10,"length":16,"first_be":15,"last_be":15,"address":4156555264}"#;
    assert_eq!(
        stdout_ok(&peach2(&["tlp", "encode", json])),
        "0000001001000afff7c00000\n"
    );
}

#[test]
fn stdin_input() {
    let out = peach2_stdin(&["tlp", "decode", "-"], "00000001 0000000f\n00001000\n");
    assert!(stdout_ok(&out).starts_with("{\"kind\":\"MRd\""));
    let out = peach2_stdin(
        &["tlp", "encode", "-"],
        r#"{"kind":"Cpl","requester_id":0,"completer_id":256,"tag":3,"status":"UR","byte_count":4,"lower_address":0}"#,
    );
    assert_eq!(stdout_ok(&out), "0a0000000100200400000300\n");
}

#[test]
fn beats_of_a_4dw_mwr() {
    let out = peach2(&[
        "tlp",
        "beats",
        "60000001 0100000f 00000001 00000000 deadbeef",
    ]);
    assert_eq!(
        stdout_ok(&out),
        "data=00000000000000010100000f60000001 sop=1 eop=0 empty=0\n\
         data=000000000000000000000000deadbeef sop=0 eop=1 empty=3\n"
    );
}

#[test]
fn beats_of_a_3dw_mrd() {
    let out = peach2(&["tlp", "beats", "00000001 0000000f 00001000"]);
    assert_eq!(
        stdout_ok(&out),
        "data=00000000000010000000000f00000001 sop=1 eop=1 empty=1\n"
    );
}

#[test]
fn raw_beats_skip_the_tlp_check() {
    // Not a TLP (length says 2 DW of payload, 1 follows), but whole DWs.
    let hex = "40000002 0100000f 00001000 deadbeef";
    assert_input_error(&peach2(&["tlp", "beats", hex]), "length field");
    let out = peach2(&["tlp", "beats", "--raw", hex]);
    assert_eq!(
        stdout_ok(&out),
        "data=deadbeef000010000100000f40000002 sop=1 eop=1 empty=0\n"
    );
    assert_input_error(
        &peach2(&["tlp", "beats", "--raw", "001122"]),
        "whole number of DWs",
    );
}

#[test]
fn bad_input_exits_2_with_one_line() {
    assert_input_error(
        &peach2(&["tlp", "decode", "00000001 0000000g"]),
        "invalid hex digit 'g'",
    );
    assert_input_error(
        &peach2(&["tlp", "decode", "000"]),
        "odd number of hex digits",
    );
    assert_input_error(
        &peach2(&["tlp", "decode", "00000001 0000000f"]),
        "truncated",
    );
    assert_input_error(
        &peach2(&["tlp", "decode", "00000001 000000ff 00001000"]),
        "last_be",
    );
    assert_input_error(
        &peach2(&["tlp", "decode", "0a000000 01006004 00000300"]),
        "completion status",
    );
    assert_input_error(
        &peach2(&["tlp", "decode", "03000001 0000000f 00001000"]),
        "reserved",
    );
    assert_input_error(&peach2(&["tlp", "encode", "{\"kind\":"]), "invalid JSON");
    assert_input_error(
        &peach2(&[
            "tlp",
            "encode",
            r#"{"kind":"MWr","requester_id":0,"tag":0}"#,
        ]),
        "MWr needs field `address`",
    );
    assert_input_error(
        &peach2(&[
            "tlp",
            "encode",
            r#"{"kind":"Cpl","requester_id":0,"completer_id":0,"tag":0,"status":"SC","byte_count":4,"lower_address":0,"address":0}"#,
        ]),
        "field `address` is not a field of Cpl",
    );
}

#[test]
fn usage_errors_exit_2() {
    let out = peach2(&["tlp", "decode"]);
    assert_eq!(out.status.code(), Some(2));
    let out = peach2(&["tlp", "frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn every_subcommand_has_help() {
    for args in [
        &["--help"][..],
        &["tlp", "--help"],
        &["tlp", "decode", "--help"],
        &["tlp", "encode", "--help"],
        &["tlp", "beats", "--help"],
    ] {
        let text = stdout_ok(&peach2(args));
        assert!(text.contains("Usage: peach2"), "{args:?}: {text}");
    }
}
