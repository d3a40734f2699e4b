//! Two [`LinkCtrl`](super::link_ctrl::LinkCtrl)s cabled back to back: the RC/EP pairs
//! of the TCA ring come up; the miscablings are reported on both ends and never become
//! ready.

use super::link_bench::{Pair, PortConfig, Status};
use super::test_tlp::{CfgReq, Cpl, SC, UR};
use peach2_regmap::address::GLOBAL_BASE;
use peach2_regmap::config::{LinkError, LinkState, INFO_PORT_SHIFT, PARTNER_VALID};

const N: u8 = 0;
const E: u8 = 1;
const W: u8 = 2;
const S: u8 = 3;
const READY: u8 = LinkState::Ready as u8;
const FAILED: u8 = LinkState::Failed as u8;

fn both_ready(a: &Status, b: &Status) -> bool {
    a.ready && b.ready
}

/// Checks one bring-up as seen on the cable: the five steps in order, each answered.
fn check_sequence(p: &Pair, from: usize, rc: (u8, u8)) {
    let reqs: Vec<CfgReq> = p.a_sent[from..]
        .iter()
        .map(|t| CfgReq::from_beats(t))
        .collect();
    let cpls: Vec<Cpl> = p.b_sent[from..]
        .iter()
        .map(|t| Cpl::from_beats(t))
        .collect();
    let steps: Vec<(u16, Option<u32>)> = reqs.iter().map(|r| (r.offset, r.write)).collect();
    let partner_info = PARTNER_VALID | (u32::from(rc.1) << INFO_PORT_SHIFT) | u32::from(rc.0);
    assert_eq!(
        steps,
        vec![
            (0x00, None),
            (0x84, None),
            (0x18, Some(0)),
            (0x1C, Some((GLOBAL_BASE >> 32) as u32)),
            (0x88, Some(partner_info)),
            (0x04, Some(0x6)),
        ]
    );
    assert_eq!(cpls.len(), reqs.len());
    for (i, (r, c)) in reqs.iter().zip(&cpls).enumerate() {
        assert!(!r.type1 && r.first_be == 0xF, "{r:x?}");
        assert_eq!((r.requester, r.target), (0, 0x0100), "{r:x?}");
        assert!(
            reqs[..i].iter().all(|o| o.tag != r.tag),
            "tag reused: {r:x?}"
        );
        // The endpoint captures its id from the first write (step 3).
        let completer = if i < 2 { 0 } else { 0x0100 };
        assert_eq!(
            (c.status, c.requester, c.tag, c.completer),
            (SC, 0, r.tag, completer)
        );
    }
    assert_eq!(cpls[0].data, Some(0x5032_1172));
}

fn rc_ep_pair(rc: PortConfig, ep: PortConfig, seed: u64) {
    let mut p = Pair::new(rc, ep, seed);
    p.run(5);
    assert_eq!((p.a.status().state, p.b.status().state), (0, 0));
    p.set_link(true);
    p.run_until(3000, both_ready);
    check_sequence(&p, 0, (rc.node_id, rc.port_index));
    let (a, b) = (p.a.status(), p.b.status());
    assert_eq!((a.state, a.error, b.state, b.error), (READY, 0, READY, 0));
    assert_eq!(a.partner, (ep.node_id, ep.port_index, true));
    assert_eq!(a.device_id, 0);
    assert_eq!(b.partner, (rc.node_id, rc.port_index, true));
    assert_eq!((b.device_id, b.bar2_base_hi), (0x0100, 0x000001));
    assert!(b.mem_enable && b.bus_master);

    // Link down: both Down, cleared; the next link up brings them up again.
    p.set_link(false);
    p.run(3);
    let (a, b) = (p.a.status(), p.b.status());
    assert_eq!(
        (a.ready, a.state, a.error, a.partner.2),
        (false, 0, 0, false)
    );
    assert_eq!(
        (b.ready, b.state, b.error, b.partner.2, b.device_id),
        (false, 0, 0, false, 0)
    );
    p.run(20);
    let from = p.a_sent.len();
    assert_eq!(from, p.b_sent.len());
    p.set_link(true);
    p.run_until(3000, both_ready);
    check_sequence(&p, from, (rc.node_id, rc.port_index));
}

#[test]
fn w_meets_e_and_s_meets_s() {
    rc_ep_pair(PortConfig::rc(W, 3, E), PortConfig::ep(E, 4), 1);
    rc_ep_pair(PortConfig::rc(S, 9, S), PortConfig::ep(S, 15), 2);
}

#[test]
fn rc_meeting_rc_fails_on_both_ends() {
    let mut p = Pair::new(PortConfig::rc(W, 3, E), PortConfig::rc(S, 4, S), 3);
    p.set_link(true);
    p.run_until(3000, |a, b| a.state == FAILED && b.state == FAILED);
    p.run(1000);
    for s in [p.a.status(), p.b.status()] {
        assert_eq!(s.state, FAILED);
        assert!(
            s.error == LinkError::ConfigInRcRole as u8
                || s.error == LinkError::PartnerNotEndpoint as u8,
            "{s:?}"
        );
    }
    assert_eq!(p.ready_cycles, (0, 0));
    // Each answered the other's config request with UR (completer id 0).
    for sent in [&p.a_sent, &p.b_sent] {
        let urs = sent
            .iter()
            .filter(|t| (t[0].data as u32) >> 24 == 0x0A)
            .map(|t| Cpl::from_beats(t))
            .collect::<Vec<_>>();
        assert!(!urs.is_empty());
        assert!(
            urs.iter().all(|c| c.status == UR && c.completer == 0),
            "{urs:x?}"
        );
    }
}

#[test]
fn ep_meeting_ep_reports_not_configured_on_both_ends() {
    let mut p = Pair::new(PortConfig::ep(E, 3), PortConfig::ep(E, 4), 4);
    p.set_link(true);
    let timeout = u64::from(PortConfig::ep(E, 0).ep_timeout);
    p.run(timeout - 20);
    assert_eq!((p.a.status().error, p.b.status().error), (0, 0));
    p.run(40);
    for s in [p.a.status(), p.b.status()] {
        assert_eq!(s.state, LinkState::Identify as u8);
        assert_eq!(s.error, LinkError::NotConfigured as u8);
    }
    assert_eq!(p.ready_cycles, (0, 0));
    assert!(p.a_sent.is_empty() && p.b_sent.is_empty());
}

#[test]
fn w_meeting_a_port_other_than_e_is_wrong_partner_port() {
    for (ep_port, seed) in [(S, 5), (N, 6)] {
        let mut p = Pair::new(PortConfig::rc(W, 3, E), PortConfig::ep(ep_port, 8), seed);
        p.set_link(true);
        p.run_until(3000, |a, _| a.state == FAILED);
        let a = p.a.status();
        assert_eq!(a.error, LinkError::WrongPartnerPort as u8);
        // The partner's identity is shown: it tells which cable went where.
        assert_eq!(a.partner, (8, ep_port, true));
        let timeout = u64::from(PortConfig::ep(E, 0).ep_timeout);
        p.run(timeout);
        let b = p.b.status();
        assert_eq!(
            (b.state, b.error),
            (LinkState::Identify as u8, LinkError::NotConfigured as u8)
        );
        assert_eq!(p.ready_cycles, (0, 0));
        // Only the two identifying reads went out.
        assert_eq!(p.a_sent.len(), 2);
        assert!(p
            .a_sent
            .iter()
            .all(|t| CfgReq::from_beats(t).write.is_none()));
    }
}
