//! Test benches for [`LinkCtrl`]: one controller between a random-idle driver and a
//! random-backpressure monitor, and two controllers cabled back to back through such
//! pairs (each direction a small queue with random delay).
//!
//! Every cycle the benches check the `tx` handshake: a beat presented and not taken must
//! still be presented, unchanged, in the next cycle (unless the link went down), and a
//! port must never be ready while its link is down.

use super::link_ctrl::LinkCtrl;
use super::test_tlp::{CfgReq, Cpl};
use crate::harness::{Stepper, StreamDriver, StreamMonitor, TestBeat};

/// The configuration inputs of one controller.
#[derive(Clone, Copy, Debug)]
pub struct PortConfig {
    /// Root-complex role.
    pub role_rc: bool,
    /// Port index (0..3 = N, E, W, S).
    pub port_index: u8,
    /// Node id.
    pub node_id: u8,
    /// Partner port expected in the root-complex role.
    pub expected_partner: u8,
    /// Endpoint configuration timeout.
    pub ep_timeout: u32,
    /// Completion timeout.
    pub cfg_timeout: u32,
}

impl PortConfig {
    /// An endpoint port.
    pub fn ep(port_index: u8, node_id: u8) -> Self {
        Self {
            role_rc: false,
            port_index,
            node_id,
            expected_partner: 0,
            ep_timeout: 3000,
            cfg_timeout: 200,
        }
    }

    /// A root-complex port expecting `expected_partner`.
    pub fn rc(port_index: u8, node_id: u8, expected_partner: u8) -> Self {
        Self {
            role_rc: true,
            expected_partner,
            ..Self::ep(port_index, node_id)
        }
    }
}

/// The status outputs, sampled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Status {
    /// `ready`.
    pub ready: bool,
    /// `state` code.
    pub state: u8,
    /// `error` code.
    pub error: u8,
    /// `device_id`.
    pub device_id: u16,
    /// `mem_enable`.
    pub mem_enable: bool,
    /// `bus_master`.
    pub bus_master: bool,
    /// `bar0_base`.
    pub bar0_base: u32,
    /// `bar2_base_hi`.
    pub bar2_base_hi: u32,
    /// `partner_node`, `partner_port`, `partner_valid`.
    pub partner: (u8, u8, bool),
    /// `max_payload`, `max_read_req`.
    pub device_control: (u8, u8),
}

/// One controller with a driver on `rx` and a monitor on `tx`.
pub struct Bench {
    /// The controller.
    pub s: Stepper<LinkCtrl>,
    /// Plays the port's RX stage.
    pub drv: StreamDriver,
    /// Plays the port's TX merge.
    pub mon: StreamMonitor,
    held: Option<TestBeat>,
    /// Cycle budget of one [`Bench::transact`].
    pub transact_limit: u64,
    /// `dropped` pulses seen.
    pub dropped: u64,
    /// `ur_sent` pulses seen.
    pub ur_sent: u64,
}

impl Bench {
    /// A controller with `cfg`, reset for two cycles with the link down.
    pub fn new(cfg: PortConfig, p_valid: f64, p_ready: f64, seed: u64) -> Self {
        let mut s = Stepper::new(LinkCtrl::default(), |u| &mut u.clock);
        s.uut.role_rc.next = cfg.role_rc;
        s.uut.port_index.next = u64::from(cfg.port_index).into();
        s.uut.node_id.next = u64::from(cfg.node_id).into();
        s.uut.expected_partner.next = u64::from(cfg.expected_partner).into();
        s.uut.ep_timeout.next = u64::from(cfg.ep_timeout).into();
        s.uut.cfg_timeout.next = u64::from(cfg.cfg_timeout).into();
        s.uut.link_up.next = false;
        s.uut.reset.next = true;
        let mut b = Self {
            s,
            drv: StreamDriver::new(p_valid, seed),
            mon: StreamMonitor::new(p_ready, seed ^ 0x5A5A),
            held: None,
            transact_limit: 200,
            dropped: 0,
            ur_sent: 0,
        };
        b.cycle();
        b.cycle();
        b.s.uut.reset.next = false;
        b
    }

    /// Sets `link_up` from the next cycle on.
    pub fn set_link(&mut self, up: bool) {
        self.s.uut.link_up.next = up;
    }

    /// Drives the inputs and settles (first half of a cycle).
    pub fn drive(&mut self) {
        self.drv.drive(&mut self.s.uut.rx);
        self.mon.drive(&mut self.s.uut.tx);
        self.s.settle();
    }

    /// Samples the handshakes and checks the protocol rules (second half, before `tick`).
    pub fn sample(&mut self) {
        let u = &self.s.uut;
        let link_up = u.link_up.val();
        assert!(link_up || !u.ready.val(), "ready with the link down");
        if let Some(h) = self.held.take() {
            if link_up {
                assert!(
                    u.tx.valid.val(),
                    "cycle {}: tx beat withdrawn before taken",
                    self.s.cycle
                );
                let now = TestBeat {
                    data: u.tx.data.val().to_u128(),
                    sop: u.tx.sop.val(),
                    eop: u.tx.eop.val(),
                    empty: u.tx.empty.val().to_u64() as u8,
                    ..h
                };
                assert_eq!(
                    now, h,
                    "cycle {}: tx beat changed before taken",
                    self.s.cycle
                );
            }
        }
        if u.tx.valid.val() && !u.tx.ready.val() {
            self.held = Some(TestBeat {
                data: u.tx.data.val().to_u128(),
                sop: u.tx.sop.val(),
                eop: u.tx.eop.val(),
                empty: u.tx.empty.val().to_u64() as u8,
                ..TestBeat::default()
            });
        }
        self.dropped += u64::from(self.s.uut.dropped.val());
        self.ur_sent += u64::from(self.s.uut.ur_sent.val());
        self.drv.sample(&self.s.uut.rx);
        self.mon.sample(&self.s.uut.tx);
    }

    /// One whole cycle.
    pub fn cycle(&mut self) {
        self.drive();
        self.sample();
        self.s.tick();
    }

    /// `n` cycles.
    pub fn run(&mut self, n: u64) {
        for _ in 0..n {
            self.cycle();
        }
    }

    /// Sends `req` and returns the completion that answers it (the next TLP on `tx`).
    pub fn transact(&mut self, req: CfgReq) -> Cpl {
        assert!(
            self.mon.packets.is_empty(),
            "unexpected TLPs: {:x?}",
            self.mon.packets
        );
        self.drv.push(req.beats());
        let start = self.s.cycle;
        while self.mon.packets.is_empty() {
            assert!(
                self.s.cycle - start < self.transact_limit,
                "no answer to {req:x?} within {} cycles",
                self.transact_limit
            );
            self.cycle();
        }
        let p = self.mon.packets.pop_front().unwrap();
        Cpl::from_beats(&p)
    }

    /// The status outputs now.
    pub fn status(&self) -> Status {
        let u = &self.s.uut;
        Status {
            ready: u.ready.val(),
            state: u.state.val().to_u64() as u8,
            error: u.error.val().to_u64() as u8,
            device_id: u.device_id.val().to_u64() as u16,
            mem_enable: u.mem_enable.val(),
            bus_master: u.bus_master.val(),
            bar0_base: u.bar0_base.val().to_u64() as u32,
            bar2_base_hi: u.bar2_base_hi.val().to_u64() as u32,
            partner: (
                u.partner_node.val().to_u64() as u8,
                u.partner_port.val().to_u64() as u8,
                u.partner_valid.val(),
            ),
            device_control: (
                u.max_payload.val().to_u64() as u8,
                u.max_read_req.val().to_u64() as u8,
            ),
        }
    }
}

/// Two controllers cabled back to back: `a.tx` feeds `b.rx` and `b.tx` feeds `a.rx`,
/// each through the monitor's random ready and the driver's random idle cycles.
pub struct Pair {
    /// One end.
    pub a: Bench,
    /// The other end.
    pub b: Bench,
    /// Every TLP `a` sent, in order.
    pub a_sent: Vec<Vec<TestBeat>>,
    /// Every TLP `b` sent, in order.
    pub b_sent: Vec<Vec<TestBeat>>,
    /// Cycles in which `a` / `b` reported ready.
    pub ready_cycles: (u64, u64),
}

impl Pair {
    /// Two controllers, links down, out of reset.
    pub fn new(a: PortConfig, b: PortConfig, seed: u64) -> Self {
        Self {
            a: Bench::new(a, 0.6, 0.6, seed),
            b: Bench::new(b, 0.6, 0.6, seed.wrapping_mul(31) ^ 7),
            a_sent: Vec::new(),
            b_sent: Vec::new(),
            ready_cycles: (0, 0),
        }
    }

    /// Both ends see the link go up or down from the next cycle on.
    pub fn set_link(&mut self, up: bool) {
        self.a.set_link(up);
        self.b.set_link(up);
    }

    /// One cycle of both ends; TLPs move across the cable. On link down the cable loses
    /// what it carries.
    pub fn cycle(&mut self) {
        self.a.drive();
        self.b.drive();
        self.a.sample();
        self.b.sample();
        while let Some(p) = self.a.mon.packets.pop_front() {
            self.a_sent.push(p.clone());
            self.b.drv.push(p);
        }
        while let Some(p) = self.b.mon.packets.pop_front() {
            self.b_sent.push(p.clone());
            self.a.drv.push(p);
        }
        self.ready_cycles.0 += u64::from(self.a.s.uut.ready.val());
        self.ready_cycles.1 += u64::from(self.b.s.uut.ready.val());
        self.a.s.tick();
        self.b.s.tick();
    }

    /// Runs until `done` holds for both statuses, or panics after `limit` cycles.
    pub fn run_until(&mut self, limit: u64, done: impl Fn(&Status, &Status) -> bool) {
        let start = self.a.s.cycle;
        while !done(&self.a.status(), &self.b.status()) {
            assert!(
                self.a.s.cycle - start < limit,
                "not done after {limit} cycles: a {:?}, b {:?}",
                self.a.status(),
                self.b.status()
            );
            self.cycle();
        }
    }

    /// `n` cycles.
    pub fn run(&mut self, n: u64) {
        for _ in 0..n {
            self.cycle();
        }
    }
}
