//! Property test: the RTL routing decision (`rtl::router::Router`) against a golden model
//! written from the routing rules, on random TLPs built by `pcie-model` and random
//! routing state. Two models of one thing, the same vectors.

use pcie_model::tlp::{AtomicOp, CfgType, MsgRouting};
use pcie_model::{Addr, Bdf, CplStatus, Tag, Tlp};
use peach2_regmap::address::{
    BASE_SHIFT, GLOBAL_BASE, GLOBAL_BASE_HI, MAX_NODES, NODE_SHIFT, TARGET_SHIFT,
};
use peach2_rtl::router::{route_table, RouteAction, Router};
use peach2_rtl::rust_hdl::prelude::*;
use proptest::prelude::*;

/// Routing state of one port.
#[derive(Clone, Debug)]
struct Cfg {
    port: u64,
    role_rc: bool,
    node_id: u64,
    routes: Vec<Option<u64>>,
    port_ready: u64,
    bar0_enable: bool,
    bar0_base: u64,
    bar2_enable: bool,
    bar2_hi: u64,
}

/// What the router must answer: action, dest, unsupported, rewrite.
type Decision = (RouteAction, u64, bool, bool);

fn address_of(t: &Tlp) -> Option<(u64, bool)> {
    let four_dw = t.header_len_dw() == 4;
    t.address().map(|a| (a.0, four_dw))
}

/// The routing rules, as the router's module documentation states them.
fn golden(t: &Tlp, c: &Cfg) -> Decision {
    use pcie_model::TlpKind::*;
    let kind = t.kind();
    let is_n = c.port == 0;
    let non_posted = matches!(kind, MRd | MRdLk | IORd | IOWr | FetchAdd | Swap | Cas);
    let unserved = if non_posted {
        (RouteAction::Forward, 4, true, false)
    } else {
        (RouteAction::Drop, 4, false, false)
    };
    match kind {
        CfgRd0 | CfgWr0 | CfgRd1 | CfgWr1 => (RouteAction::Link, 4, false, false),
        Cpl | CplD | CplLk | CplDLk => {
            if c.role_rc {
                (RouteAction::Link, 4, false, false)
            } else if is_n {
                (RouteAction::Forward, 4, false, false)
            } else {
                (RouteAction::Drop, 4, false, false)
            }
        }
        Msg | MsgD => (RouteAction::Drop, 4, false, false),
        IORd | IOWr => unserved,
        MRd | MRdLk | MWr | FetchAdd | Swap | Cas => {
            let (addr, four_dw) = address_of(t).unwrap();
            let bar0_hit =
                is_n && c.bar0_enable && addr >> 32 == 0 && (addr >> 16) & 0xFFFF == c.bar0_base;
            if bar0_hit {
                let atomic = matches!(kind, FetchAdd | Swap | Cas);
                return (RouteAction::Forward, 4, atomic, false);
            }
            let bar2_hit = is_n && c.bar2_enable && four_dw && addr >> BASE_SHIFT == c.bar2_hi;
            let global = bar2_hit || (!is_n && four_dw && addr >> BASE_SHIFT == GLOBAL_BASE_HI);
            if !global || non_posted {
                return unserved;
            }
            let node = (addr >> NODE_SHIFT) & (MAX_NODES as u64 - 1);
            let target = (addr >> TARGET_SHIFT) & 7;
            let forward = |dest| (RouteAction::Forward, dest, false, bar2_hit);
            if node == c.node_id {
                if target == 5 {
                    forward(4)
                } else if target < 5 && c.port_ready & 1 != 0 {
                    forward(0)
                } else {
                    unserved
                }
            } else {
                match c.routes[node as usize] {
                    Some(p) if c.port_ready >> p & 1 != 0 && p != c.port => forward(p),
                    _ => unserved,
                }
            }
        }
    }
}

fn decide(r: &mut Router, t: &Tlp, c: &Cfg) -> Decision {
    decide_bytes(r, &t.to_bytes(), c)
}

/// The router's decision on a header given as wire bytes.
fn decide_bytes(r: &mut Router, bytes: &[u8], c: &Cfg) -> Decision {
    let dw = |i: usize| -> u64 {
        bytes
            .get(4 * i..4 * i + 4)
            .map(|b| u64::from(u32::from_be_bytes([b[0], b[1], b[2], b[3]])))
            .unwrap_or(0)
    };
    r.dw0.next = dw(0).into();
    r.dw1.next = dw(1).into();
    r.dw2.next = dw(2).into();
    r.dw3.next = dw(3).into();
    r.port.port_index.next = c.port.into();
    r.port.role_rc.next = c.role_rc;
    r.routes.node_id.next = c.node_id.into();
    r.routes.route_table.next = route_table(
        c.routes
            .iter()
            .enumerate()
            .map(|(n, e)| (n, e.map_or(0, |p| 4 | p))),
    );
    r.routes.port_ready.next = c.port_ready.into();
    r.port.bar0_enable.next = c.bar0_enable;
    r.port.bar0_base.next = c.bar0_base.into();
    r.port.bar2_enable.next = c.bar2_enable;
    r.port.bar2_base_hi.next = c.bar2_hi.into();
    assert!(simulate(r, 1000), "router did not settle");
    (
        r.action.val(),
        r.dest.val().to_u64(),
        r.unsupported.val(),
        r.rewrite_global.val(),
    )
}

fn cfg() -> impl Strategy<Value = Cfg> {
    (
        0u64..4,
        any::<bool>(),
        0..MAX_NODES as u64,
        proptest::collection::vec(proptest::option::of(0u64..4), MAX_NODES),
        0u64..16,
        any::<bool>(),
        any::<u16>(),
        any::<bool>(),
        1u64..0x40,
    )
        .prop_map(
            |(port, role_rc, node_id, routes, port_ready, b0, bar0, b2, bar2_hi)| Cfg {
                port,
                role_rc,
                node_id,
                routes,
                port_ready,
                bar0_enable: b0,
                bar0_base: u64::from(bar0),
                bar2_enable: b2,
                bar2_hi,
            },
        )
}

/// An address from one of the interesting regions of `c`'s map.
fn address(c: &Cfg, pick: u8, bits: u64) -> u64 {
    match pick % 5 {
        0 => (c.bar0_base << 16) | (bits & 0xFFFC),
        1 => (c.bar2_hi << BASE_SHIFT) | (bits & (GLOBAL_BASE - 4)),
        2 => GLOBAL_BASE | (bits & (GLOBAL_BASE - 4)),
        3 => bits & 0xFFFF_FFFC,
        _ => bits & !3,
    }
}

fn tlp(c: &Cfg, kind: u8, pick: u8, bits: u64, len: usize) -> Tlp {
    let rid = Bdf(0x0100);
    let tag = Tag(7);
    let mut a = address(c, pick, bits);
    // Keep requests inside one 4 KiB page, as requesters must.
    a &= !0xFFF;
    let addr = Addr(a);
    let data = vec![0xA5; len];
    match kind % 9 {
        0 => Tlp::mem_write(rid, tag, addr, &data),
        1 => Tlp::mem_read(rid, tag, addr, len),
        2 => Tlp::completion(Bdf(0x0200), CplStatus::Sc, rid, tag, 4, 0, &[1, 2, 3, 4]),
        3 => Tlp::cfg_read(CfgType::Type0, rid, tag, Bdf(0x0100), 0, 0xF),
        4 => Tlp::message(rid, tag, MsgRouting::Local, 0x19, [0; 8], &[]),
        5 => Tlp::io_read(rid, tag, Addr(a & 0xFFFF), 4),
        6 => Tlp::atomic(AtomicOp::FetchAdd, rid, tag, addr, &[0; 8]),
        7 => Tlp::mem_read_locked(rid, tag, addr, len),
        _ => Tlp::completion(Bdf(0x0200), CplStatus::Ur, rid, tag, 4, 0, &[]),
    }
    .expect("the generator builds legal TLPs")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn router_matches_the_golden_model(
        c in cfg(), kind in any::<u8>(), pick in any::<u8>(), bits in any::<u64>(), len in 1usize..256
    ) {
        let t = tlp(&c, kind, pick, bits, len);
        let mut r = Router::default();
        r.connect_all();
        let got = decide(&mut r, &t, &c);
        let want = golden(&t, &c);
        prop_assert_eq!(got, want, "{:?} at port {} with {:?}", t.kind(), c.port, c);
    }
}

#[test]
fn reserved_types_are_malformed() {
    let mut r = Router::default();
    r.connect_all();
    for dw0 in [
        0x1F00_0001u64,
        0x8000_0000,
        0x0300_0001,
        0x4400_0000 | (1 << 29),
    ] {
        r.dw0.next = dw0.into();
        assert!(simulate(&mut r, 1000));
        assert_eq!(r.action.val(), RouteAction::Malformed, "dw0 {dw0:#x}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    /// Byte enables: the router drops a memory request as malformed exactly when
    /// `pcie-model`'s validation rejects its byte enables, and decides it as the golden
    /// model says otherwise.
    #[test]
    fn byte_enables_are_judged_as_pcie_model_judges_them(
        c in cfg(), read in any::<bool>(), pick in any::<u8>(), bits in any::<u64>(),
        len in 1usize..24, be in any::<u8>()
    ) {
        let t = tlp(&c, u8::from(read), pick, bits, 4 * len);
        let mut bytes = t.to_bytes();
        // DW1 byte 3 holds last_be (7:4) and first_be (3:0).
        bytes[7] = be;
        let mut r = Router::default();
        r.connect_all();
        let got = decide_bytes(&mut r, &bytes, &c);
        match Tlp::from_bytes(&bytes) {
            Ok(valid) => prop_assert_eq!(got, golden(&valid, &c)),
            Err(e) => prop_assert_eq!(
                got,
                (RouteAction::Malformed, 4, false, false),
                "byte enables {:#04x} of {:?}: {}", be, t.kind(), e
            ),
        }
    }
}
