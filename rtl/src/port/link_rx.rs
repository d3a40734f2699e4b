//! The link controller's RX stage: takes the beats the port's RX stage hands the link
//! controller and says what each TLP is. A one-beat config request (type 0 or 1) with
//! length 1, `last_be` 0 and the beat's `empty` matching its fmt is a request for the
//! config space; a one-beat completion whose `empty` matches its fmt is one for the
//! bring-up engine, in the root-complex role. Everything else is consumed to its `eop`
//! and dropped, counted once at its first beat; so is every TLP in the endpoint role that
//! is a completion. Beats are taken only while the config space can take a request, and
//! always while the link is down (those beats are neither delivered nor counted).

use super::cfg_tlp::{FMT_3DW, FMT_3DW_DATA, TYPE_CFG0, TYPE_CFG1, TYPE_CPL};
use crate::stream::TlpSink;
use rust_hdl::prelude::*;

/// What a TLP the link controller receives is.
#[derive(LogicBlock)]
pub struct LinkRx {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: nothing taken, no packet in progress.
    pub reset: Signal<In, Bit>,
    /// Upstream: what the port's RX stage steers to the link controller.
    pub rx: TlpSink,
    /// Pulse: the beat on `rx` is a config request for the config space.
    pub cfg_req: Signal<Out, Bit>,
    /// Pulse: the beat on `rx` is a completion for the bring-up engine.
    pub cpl: Signal<Out, Bit>,
    /// The config space can take a request (its answer slot is free).
    pub cfg_ready: Signal<In, Bit>,
    /// Data link layer up.
    pub link_up: Signal<In, Bit>,
    /// The port plays the root-complex role (completions are taken).
    pub role_rc: Signal<In, Bit>,
    /// Pulse: a TLP starts that is dropped (at its first beat).
    pub dropped: Signal<Out, Bit>,
    /// The rest of a multi-beat TLP is being consumed.
    skip: DFF<Bit>,
    /// A beat is taken.
    take: Signal<Local, Bit>,
    /// A one-beat TLP is taken while the link is up.
    deliver: Signal<Local, Bit>,
    /// The header's fmt.
    fmt: Signal<Local, Bits<3>>,
    /// The header's type.
    typ: Signal<Local, Bits<5>>,
    /// The header's length.
    length: Signal<Local, Bits<10>>,
    /// The beat's `empty` matches the header (3 DWs, or 3 DWs and one of data).
    framed: Signal<Local, Bit>,
    /// A config request the config space takes.
    cfg_ok: Signal<Local, Bit>,
    /// A completion.
    cpl_ok: Signal<Local, Bit>,
    /// The type of a type-0 config request, one the config space takes.
    type_cfg0: Constant<Bits<5>>,
    /// The type of a type-1 config request, also handed to the config space (it answers UR).
    type_cfg1: Constant<Bits<5>>,
    /// The type of a completion (Cpl or CplD), for the bring-up engine.
    type_cpl: Constant<Bits<5>>,
    /// The fmt of a 3-DW header without data (CfgRd, Cpl): its beat has one empty lane.
    fmt_3dw: Constant<Bits<3>>,
    /// The fmt of a 3-DW header with data (CfgWr, CplD): its beat has no empty lane.
    fmt_3dw_data: Constant<Bits<3>>,
}

impl Default for LinkRx {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            rx: Default::default(),
            cfg_req: Default::default(),
            cpl: Default::default(),
            cfg_ready: Default::default(),
            link_up: Default::default(),
            role_rc: Default::default(),
            dropped: Default::default(),
            skip: Default::default(),
            take: Default::default(),
            deliver: Default::default(),
            fmt: Default::default(),
            typ: Default::default(),
            length: Default::default(),
            framed: Default::default(),
            cfg_ok: Default::default(),
            cpl_ok: Default::default(),
            type_cfg0: Constant::new(TYPE_CFG0.into()),
            type_cfg1: Constant::new(TYPE_CFG1.into()),
            type_cpl: Constant::new(TYPE_CPL.into()),
            fmt_3dw: Constant::new(FMT_3DW.into()),
            fmt_3dw_data: Constant::new(FMT_3DW_DATA.into()),
        }
    }
}

impl Logic for LinkRx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, skip);
        self.rx.ready.next = !self.reset.val() && (self.cfg_ready.val() || !self.link_up.val());
        self.take.next = self.rx.valid.val() && self.rx.ready.val();
        if self.take.val() {
            if self.skip.q.val() {
                if self.rx.eop.val() {
                    self.skip.d.next = false;
                }
            } else if self.rx.sop.val() && !self.rx.eop.val() {
                self.skip.d.next = true;
            }
        }
        self.deliver.next = self.take.val()
            && !self.skip.q.val()
            && self.rx.sop.val()
            && self.rx.eop.val()
            && self.link_up.val();
        self.fmt.next = self.rx.data.val().get_bits::<3>(29);
        self.typ.next = self.rx.data.val().get_bits::<5>(24);
        self.length.next = self.rx.data.val().get_bits::<10>(0);
        self.framed.next = ((self.fmt.val() == self.fmt_3dw.val()) && (self.rx.empty.val() == 1))
            || ((self.fmt.val() == self.fmt_3dw_data.val())
                && (self.rx.empty.val() == 0)
                && (self.length.val() == 1));
        // `last_be`, DW 1 bits 7:4, is 0 for a one-DW request.
        self.cfg_ok.next = ((self.typ.val() == self.type_cfg0.val())
            || (self.typ.val() == self.type_cfg1.val()))
            && self.framed.val()
            && (self.length.val() == 1)
            && (self.rx.data.val().get_bits::<4>(36) == 0);
        self.cpl_ok.next = (self.typ.val() == self.type_cpl.val()) && self.framed.val();

        self.cfg_req.next = self.deliver.val() && self.cfg_ok.val();
        self.cpl.next = self.deliver.val() && self.cpl_ok.val() && self.role_rc.val();
        self.dropped.next = self.take.val()
            && !self.skip.q.val()
            && self.rx.sop.val()
            && self.link_up.val()
            && (!self.rx.eop.val()
                || !(self.cfg_ok.val() || (self.cpl_ok.val() && self.role_rc.val())));
        if self.reset.val() {
            self.skip.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{bits128, Lcg, Stepper};
    use crate::port::cfg_tlp::dw0;
    use crate::verilog::checks::lint_verilog;
    use crate::verilog::export::block_verilog;
    use std::collections::VecDeque;

    /// One beat: lanes, sop, eop, empty.
    type Beat = (u128, bool, bool, u64);

    /// A random TLP as the RX stage could hand it over: config requests and completions,
    /// well framed or not, a memory read, or a packet of several beats.
    fn random_tlp(rng: &mut Lcg) -> Vec<Beat> {
        let (fmt, typ) = match rng.below(6) {
            0 => (FMT_3DW, TYPE_CFG0),
            1 => (FMT_3DW_DATA, TYPE_CFG1),
            2 => (FMT_3DW_DATA, TYPE_CFG0),
            3 => (FMT_3DW, TYPE_CPL),
            4 => (FMT_3DW_DATA, TYPE_CPL),
            _ => (FMT_3DW, 0),
        };
        let length = if rng.chance(0.85) { 1 } else { 2 };
        let last_be = if rng.chance(0.85) {
            0
        } else {
            1 + rng.below(15)
        };
        let mut empty = u64::from(fmt == FMT_3DW);
        if rng.chance(0.1) {
            empty ^= 1;
        }
        let header = u128::from(dw0(fmt, typ, length)) | u128::from(last_be << 4) << 32;
        let beats = if rng.chance(0.15) {
            2 + rng.below(2)
        } else {
            1
        };
        (0..beats)
            .map(|b| {
                let lanes = if b == 0 {
                    header | u128::from(rng.next_u64() as u32) << 64
                } else {
                    u128::from(rng.next_u64())
                };
                (
                    lanes,
                    b == 0,
                    b + 1 == beats,
                    if b + 1 == beats { empty } else { 0 },
                )
            })
            .collect()
    }

    /// What a one-beat TLP is, as the rule says: (config request, usable completion).
    fn classify(beat: &Beat) -> (bool, bool) {
        let (lanes, _, _, empty) = *beat;
        let dw0 = lanes as u32;
        let (fmt, typ, length) = (
            u64::from(dw0 >> 29),
            u64::from(dw0 >> 24 & 0x1F),
            dw0 & 0x3FF,
        );
        let framed =
            fmt == FMT_3DW && empty == 1 || fmt == FMT_3DW_DATA && empty == 0 && length == 1;
        let last_be = (lanes >> 36) as u32 & 0xF;
        let cfg = (typ == TYPE_CFG0 || typ == TYPE_CFG1) && framed && length == 1 && last_be == 0;
        (cfg, typ == TYPE_CPL && framed)
    }

    fn run(role_rc: bool, seed: u64) -> [usize; 4] {
        let mut s = Stepper::new(LinkRx::default(), |b| &mut b.clock);
        let mut rng = Lcg(seed);
        s.uut.reset.next = true;
        s.tick();
        s.uut.reset.next = false;
        s.uut.role_rc.next = role_rc;
        let mut queue: VecDeque<Beat> = VecDeque::new();
        let (mut skip, mut link_up) = (false, true);
        let mut seen = [0usize; 4]; // config requests, completions, dropped, down-link beats
        for cycle in 0..30_000 {
            while queue.len() < 4 {
                queue.extend(random_tlp(&mut rng));
            }
            if rng.chance(0.003) {
                link_up = !link_up;
            }
            let cfg_ready = rng.chance(0.7);
            let valid = rng.chance(0.6);
            let beat = queue[0];
            let u = &mut s.uut;
            u.link_up.next = link_up;
            u.cfg_ready.next = cfg_ready;
            u.rx.valid.next = valid;
            u.rx.data.next = bits128(beat.0);
            u.rx.sop.next = beat.1;
            u.rx.eop.next = beat.2;
            u.rx.empty.next = beat.3.into();
            s.settle();
            let u = &s.uut;
            let ready = cfg_ready || !link_up;
            assert_eq!(u.rx.ready.val(), ready, "cycle {cycle}: ready");
            let take = valid && ready;
            let (mut cfg, mut cpl, mut dropped) = (false, false, false);
            if take && !skip && beat.1 && link_up {
                if beat.2 {
                    let (c, p) = classify(&beat);
                    cfg = c;
                    cpl = p && role_rc;
                }
                dropped = !(cfg || cpl);
            }
            assert_eq!(
                u.cfg_req.val(),
                cfg,
                "cycle {cycle}: config request {beat:x?}"
            );
            assert_eq!(u.cpl.val(), cpl, "cycle {cycle}: completion {beat:x?}");
            assert_eq!(u.dropped.val(), dropped, "cycle {cycle}: dropped {beat:x?}");
            for (k, hit) in [cfg, cpl, dropped, take && !link_up]
                .into_iter()
                .enumerate()
            {
                seen[k] += usize::from(hit);
            }
            if take {
                if skip {
                    skip = !beat.2;
                } else if beat.1 && !beat.2 {
                    skip = true;
                }
                queue.pop_front();
            }
            s.tick();
        }
        seen
    }

    /// Random TLPs under random idle cycles, config-space backpressure and link drops,
    /// in both roles: each beat is taken, delivered, dropped and counted as the rule says.
    #[test]
    fn takes_and_classifies_each_tlp_as_the_rule_says() {
        for (role_rc, seed) in [(false, 0x11_4E), (true, 0x22_4E)] {
            let [cfg, cpl, dropped, down] = run(role_rc, seed);
            assert!(
                cfg > 1_000 && dropped > 1_000 && down > 100,
                "{cfg} {dropped} {down}"
            );
            assert_eq!(cpl > 500, role_rc, "completions {cpl}");
        }
    }

    #[test]
    fn link_rx_lints_clean() {
        let mut uut = LinkRx::default();
        lint_verilog(&block_verilog(&mut uut, "port_link_rx"), "port_link_rx").unwrap();
    }
}
