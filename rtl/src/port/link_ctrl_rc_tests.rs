//! [`LinkCtrl`](super::link_ctrl::LinkCtrl) in the root-complex role against a scripted
//! partner: every way a completion can disappoint the bring-up engine.

use super::link_bench::{Bench, PortConfig};
use super::test_tlp::{CfgReq, Cpl, CA, CRS, SC, UR};
use peach2_regmap::config::{LinkError, LinkState};

const PARTNER: u16 = 0x0100;
const FAILED: u8 = LinkState::Failed as u8;

/// An RC port W of node 3, expecting E, link up, with random flow control.
fn rc_bench(seed: u64, p: f64) -> Bench {
    let mut b = Bench::new(PortConfig::rc(2, 3, 1), p, p, seed);
    b.set_link(true);
    b
}

/// Runs until the engine sends a request; returns it.
fn next_request(b: &mut Bench) -> CfgReq {
    for _ in 0..100 {
        if let Some(t) = b.mon.packets.pop_front() {
            return CfgReq::from_beats(&t);
        }
        b.cycle();
    }
    panic!("no request within 100 cycles: {:?}", b.status());
}

/// What a PEACH2 endpoint port E of node 4 answers (SC, completer id 01:00.0).
fn good_answer(r: &CfgReq) -> Cpl {
    let data = match (r.write, r.offset) {
        (Some(_), _) => None,
        (None, 0x00) => Some(0x5032_1172),
        (None, 0x84) => Some(0x104),
        (None, o) => panic!("unexpected read of {o:#x}"),
    };
    Cpl::cfg(PARTNER, SC, r.requester, r.tag, data)
}

fn reply(b: &mut Bench, c: Cpl) {
    b.drv.push(c.beats());
}

/// A config read arriving from the partner (tag 0x42), and the port's answer.
fn partner_config_read(b: &mut Bench) -> Cpl {
    b.drv.push(CfgReq::rd0(0x0000, 0x42, 0x0100, 0x00).beats());
    loop {
        if let Some(t) = b.mon.packets.pop_front() {
            return Cpl::from_beats(&t);
        }
        b.cycle();
    }
}

fn run_until_failed(b: &mut Bench, limit: u64) -> u8 {
    for _ in 0..limit {
        if b.status().state == FAILED {
            return b.status().error;
        }
        b.cycle();
    }
    panic!("not failed within {limit} cycles: {:?}", b.status());
}

#[test]
fn rc_drops_and_counts_unmatched_completions_retries_crs_and_comes_up() {
    let mut b = rc_bench(11, 0.5);
    let r = next_request(&mut b);
    assert_eq!((r.offset, r.write), (0x00, None));
    assert_eq!(b.status().state, LinkState::Identify as u8);
    // Wrong tag, wrong requester: dropped, each counted once.
    reply(
        &mut b,
        Cpl {
            tag: r.tag.wrapping_add(1),
            ..good_answer(&r)
        },
    );
    reply(
        &mut b,
        Cpl {
            requester: 0x0008,
            ..good_answer(&r)
        },
    );
    // Not ready for config yet: the same request again, with a new tag.
    reply(&mut b, Cpl::cfg(PARTNER, CRS, 0, r.tag, None));
    let again = next_request(&mut b);
    assert_eq!((again.offset, again.write), (0x00, None));
    assert_ne!(again.tag, r.tag);
    // The old tag's answer no longer counts.
    reply(&mut b, good_answer(&r));
    b.run(30);
    assert!(b.mon.packets.is_empty(), "moved on with a stale completion");
    assert_eq!(b.dropped, 3, "two strangers and a stale answer");
    reply(&mut b, good_answer(&again));
    let mut offsets = vec![];
    loop {
        let r = next_request(&mut b);
        let state = b.status().state;
        let want = if r.write.is_some() {
            LinkState::Configure
        } else {
            LinkState::Identify
        };
        assert_eq!(state, want as u8, "state while {r:x?} is out");
        offsets.push(r.offset);
        reply(&mut b, good_answer(&r));
        if r.offset == 0x04 {
            break;
        }
    }
    assert_eq!(offsets, vec![0x84, 0x18, 0x1C, 0x88, 0x04]);
    assert!(!b.status().ready, "ready before the last completion");
    b.run(20);
    let s = b.status();
    assert!(s.ready);
    assert_eq!(
        (s.state, s.error, s.partner),
        (LinkState::Ready as u8, 0, (4, 1, true))
    );
    b.run(100);
    assert!(b.mon.packets.is_empty(), "nothing is sent after Ready");
    assert_eq!(b.dropped, 3, "every expected completion taken");
    // After Ready, a completion nobody awaits, with data over two beats or in one: both
    // dropped and counted.
    reply(&mut b, Cpl::cfg(PARTNER, SC, 0, 7, Some(1)));
    let mut two = Cpl::cfg(PARTNER, SC, 0, 8, Some(1)).beats();
    let tail = two[0];
    two[0].eop = false;
    two.push(crate::harness::TestBeat {
        sop: false,
        eop: true,
        ..tail
    });
    b.drv.push(two);
    b.run(40);
    assert_eq!(b.dropped, 5);
    assert!(
        b.status().ready,
        "a stray completion does not disturb a ready link"
    );
    // After Ready, a config request from the partner: answered UR and counted, and the
    // link stays ready (only during the bring-up does it mean two root complexes).
    assert_eq!(b.ur_sent, 0);
    assert_eq!(
        partner_config_read(&mut b),
        Cpl::cfg(0, UR, 0x0000, 0x42, None)
    );
    b.run(20);
    let s = b.status();
    assert_eq!(
        (s.ready, s.state, s.error),
        (true, LinkState::Ready as u8, 0)
    );
    assert_eq!((b.ur_sent, b.dropped), (1, 5));
}

#[test]
fn rc_reports_no_response_after_the_timeout() {
    let mut b = rc_bench(12, 1.0);
    let timeout = u64::from(PortConfig::rc(2, 3, 1).cfg_timeout);
    next_request(&mut b);
    let sent = b.s.cycle;
    let err = run_until_failed(&mut b, timeout + 10);
    assert_eq!(err, LinkError::NoResponse as u8);
    assert!(
        b.s.cycle >= sent + timeout,
        "failed early: {} < {}",
        b.s.cycle,
        sent + timeout
    );
    assert!(!b.status().ready);
}

/// How the scripted partner answers a request.
type Answer = fn(&CfgReq) -> Cpl;

#[test]
fn rc_classifies_bad_answers() {
    let cases: [(&str, Answer, LinkError); 4] = [
        (
            "UR",
            |r| Cpl::cfg(PARTNER, UR, 0, r.tag, None),
            LinkError::PartnerNotEndpoint,
        ),
        (
            "CA",
            |r| Cpl::cfg(PARTNER, CA, 0, r.tag, None),
            LinkError::PartnerNotPeach2,
        ),
        (
            "other id",
            |r| Cpl::cfg(PARTNER, SC, 0, r.tag, Some(0x1234_10DE)),
            LinkError::PartnerNotPeach2,
        ),
        (
            "no data",
            |r| Cpl::cfg(PARTNER, SC, 0, r.tag, None),
            LinkError::PartnerNotPeach2,
        ),
    ];
    for (i, (what, answer, want)) in cases.into_iter().enumerate() {
        let mut b = rc_bench(20 + i as u64, 0.7);
        let r = next_request(&mut b);
        reply(&mut b, answer(&r));
        assert_eq!(run_until_failed(&mut b, 50), want as u8, "{what}");
        b.run(50);
        assert!(b.mon.packets.is_empty(), "{what}: sent after failing");
        assert!(!b.status().partner.2, "{what}: partner shown");
    }
}

#[test]
fn rc_answers_config_requests_with_ur_and_fails_while_bringing_up() {
    let mut b = rc_bench(13, 0.6);
    let r = next_request(&mut b);
    assert_eq!(
        partner_config_read(&mut b),
        Cpl::cfg(0, UR, 0x0000, 0x42, None)
    );
    assert_eq!(b.ur_sent, 1);
    let s = b.status();
    assert_eq!(
        (s.state, s.error),
        (FAILED, LinkError::ConfigInRcRole as u8)
    );
    // A completion arriving now changes nothing: the first error stays.
    reply(&mut b, good_answer(&r));
    b.run(50);
    assert_eq!(b.status().error, LinkError::ConfigInRcRole as u8);
    assert!(b.mon.packets.is_empty());
    // Link down clears it; the next link up starts over.
    b.set_link(false);
    b.run(2);
    assert_eq!((b.status().state, b.status().error), (0, 0));
    b.set_link(true);
    let r = next_request(&mut b);
    assert_eq!((r.offset, b.status().error), (0x00, 0));
}

#[test]
fn rc_holds_its_request_under_backpressure() {
    // The bench checks every cycle that a presented beat stays until taken.
    let mut b = rc_bench(14, 0.1);
    let r = next_request(&mut b);
    reply(&mut b, good_answer(&r));
    let r = next_request(&mut b);
    assert_eq!(r.offset, 0x84);
}

#[test]
fn rc_keeps_a_presented_request_when_an_answer_arrives() {
    let mut b = rc_bench(15, 1.0);
    b.mon.p_ready = 0.0;
    while !b.s.uut.tx.valid.val() {
        assert!(b.s.cycle < 50, "no request presented");
        b.cycle();
    }
    // An answer becomes ready while the request waits: the request stays on `tx`
    // (the bench checks it every cycle) and goes first.
    b.drv.push(CfgReq::rd0(0x0000, 0x42, 0x0100, 0x00).beats());
    b.run(20);
    b.mon.p_ready = 1.0;
    b.run(10);
    let first = b.mon.packets.pop_front().expect("the request");
    assert_eq!(CfgReq::from_beats(&first).offset, 0x00);
    let second = b.mon.packets.pop_front().expect("the answer");
    assert_eq!(
        Cpl::from_beats(&second),
        Cpl::cfg(0, UR, 0x0000, 0x42, None)
    );
}
