//! One node's clock cycle, and runs of cycles on the node alone.
//!
//! Per cycle: the chip's inputs are decided from its link ends (RX beat = the end's
//! head, TX `ready` = room in its TX buffer, `link_up`), it settles, its handshakes are
//! sampled, it sees the rising edge; then beats move into and out of the ends, the ends
//! advance, the host steps. Everything a cycle reads or changes belongs to the node: what
//! crosses a cable waits in the end's outbox and reaches the far node at least the
//! cable's latency later, so a node can run that many cycles without the others
//! ([`Node::run_window`]).
//!
//! Idle chips cost next to nothing: a Verilated chip whose inputs have not changed for a
//! few cycles is checked for a fixed point (its whole state unchanged by a clock edge);
//! from then on, while its inputs stay the same, its state and outputs cannot change, so
//! it is not evaluated. Any input change wakes it.

use crate::chip::{Chip, ChipPorts};
use crate::error::SimError;
use crate::link::{LinkEnd, Sent};
use crate::node::Node;
use pcie_model::beats::Beat;
use peach2_regmap::csr::Port;

/// Cycles of unchanged inputs before a chip is checked for a fixed point.
const SLEEP_CHECK_AFTER: u32 = 4;

/// The inputs a chip saw in a cycle (to detect that nothing changed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Inputs {
    pub(crate) rx: [Option<Beat>; 4],
    pub(crate) tx_ready: [bool; 4],
    pub(crate) up: [bool; 4],
}

/// Per-chip stepping state.
#[derive(Default)]
pub(crate) struct ChipState {
    pub(crate) inputs: Inputs,
    pub(crate) rx_taken: [bool; 4],
    pub(crate) tx_sent: [Option<Beat>; 4],
    stable: u32,
    /// `stable` at which the snapshot was taken.
    snap_at: Option<u32>,
    /// `stable` at which the next snapshot is taken (checks back off exponentially
    /// while the chip is busy inside, e.g. counting a timeout).
    next_check: u32,
    pub(crate) asleep: bool,
    /// Evaluated this cycle (not asleep with unchanged inputs).
    wake: bool,
    /// Due for its clock edge this cycle.
    tick: bool,
    pub(crate) traced: bool,
    snapshot: Vec<u8>,
}

/// A chip port's end of a cable, with the names its TLP log lines carry.
pub(crate) struct Attached {
    /// The link end.
    pub(crate) end: LinkEnd,
    /// `a.E-b.W`.
    pub(crate) cable_name: String,
    /// `a.E->b.W`, this end sending.
    pub(crate) dir_name: String,
}

/// What a node counts about its own cycles.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct NodeStats {
    /// Chip evaluations skipped because the chip was at a fixed point.
    pub(crate) evals_skipped: u64,
    /// Chip evaluations done.
    pub(crate) evals_done: u64,
    /// Cycle of the last beat that moved at this node.
    pub(crate) last_progress: u64,
}

/// What runs beside a node, cycle by cycle, on whichever thread runs the node: traffic,
/// its scoreboard, fault injection. It may read and change its node only, so that
/// nodes can run apart.
pub trait NodeAgent: Send {
    /// Before the node's cycle `now` (the CPU acts, faults are injected).
    fn before_cycle(&mut self, _node: &mut Node, _now: u64) -> Result<(), SimError> {
        Ok(())
    }
    /// After the node's cycle `now` (what the host received is checked).
    fn after_cycle(&mut self, _node: &mut Node, _now: u64) {}
}

/// No agent.
impl NodeAgent for () {}

/// An agent borrowed for a run.
impl<A: NodeAgent + ?Sized> NodeAgent for &mut A {
    fn before_cycle(&mut self, node: &mut Node, now: u64) -> Result<(), SimError> {
        (**self).before_cycle(node, now)
    }
    fn after_cycle(&mut self, node: &mut Node, now: u64) {
        (**self).after_cycle(node, now);
    }
}

/// Two agents, the first acting first.
impl<A: NodeAgent, B: NodeAgent> NodeAgent for (A, B) {
    fn before_cycle(&mut self, node: &mut Node, now: u64) -> Result<(), SimError> {
        self.0.before_cycle(node, now)?;
        self.1.before_cycle(node, now)
    }
    fn after_cycle(&mut self, node: &mut Node, now: u64) {
        self.0.after_cycle(node, now);
        self.1.after_cycle(node, now);
    }
}

/// One chip's part of a cycle: drive its inputs, settle, sample its handshakes, check
/// for a fixed point, and see the edge if `tick_now` (else `st.tick` says whether it is
/// due).
fn eval_chip(chip: &mut dyn Chip, st: &mut ChipState, tick_now: bool) -> Result<(), SimError> {
    let inp = st.inputs;
    for port in Port::ALL {
        let p = port.index() as usize;
        chip.drive_rx(port, inp.rx[p]);
        chip.set_tx_ready(port, inp.tx_ready[p]);
        chip.set_link_up(port, inp.up[p]);
    }
    chip.settle()?;
    for port in Port::ALL {
        let p = port.index() as usize;
        st.rx_taken[p] = inp.rx[p].is_some() && chip.rx_ready(port);
        st.tx_sent[p] = chip.tx_beat(port).filter(|_| inp.tx_ready[p]);
    }
    // Fixed-point check, at the same clock phase: the state after settling in this cycle
    // equals the one after settling in the previous cycle, with the same inputs and no
    // beat moving. Then every later cycle with these inputs is the same too, and the
    // edge can be skipped.
    let quiet = !st.traced
        && st.stable >= SLEEP_CHECK_AFTER
        && !st.rx_taken.iter().any(|t| *t)
        && st.tx_sent.iter().all(Option::is_none);
    if quiet {
        if let Some(s) = chip.state() {
            if st.snap_at.is_some_and(|k| k + 1 == st.stable) && s == st.snapshot.as_slice() {
                st.asleep = true;
                return Ok(());
            }
            if st.stable >= st.next_check {
                st.snapshot.clear();
                st.snapshot.extend_from_slice(s);
                st.snap_at = Some(st.stable);
                st.next_check = st.stable + st.stable.clamp(SLEEP_CHECK_AFTER, 4096);
            }
        }
    }
    st.tick = true;
    if tick_now {
        chip.tick()?;
    }
    Ok(())
}

impl Node {
    /// The link end behind `port`, if it has one.
    pub(crate) fn end(&self, port: Port) -> Option<&LinkEnd> {
        match port {
            Port::N => Some(&self.n_link.ends[1]),
            _ => self.ports[port.index() as usize].as_ref().map(|a| &a.end),
        }
    }

    /// The chip's part of cycle `now`: inputs from the link ends, settle, sample, and
    /// the clock edge if `tick_now` (else [`Node::tick_deferred`] gives it).
    pub(crate) fn eval(&mut self, tick_now: bool) -> Result<(), SimError> {
        let mut inp = Inputs::default();
        for port in Port::ALL {
            let p = port.index() as usize;
            if let Some(e) = self.end(port).filter(|e| e.up) {
                inp.rx[p] = e.head();
                inp.tx_ready[p] = e.can_accept();
                inp.up[p] = true;
            }
        }
        let st = &mut self.state;
        st.tick = false;
        st.wake = !(inp == st.inputs && st.asleep);
        if !st.wake {
            self.stats.evals_skipped += 1;
            return Ok(());
        }
        if inp == st.inputs {
            st.stable += 1;
        } else {
            st.stable = 0;
            st.asleep = false;
            st.snap_at = None;
            st.next_check = SLEEP_CHECK_AFTER;
        }
        st.inputs = inp;
        eval_chip(self.chip.as_mut(), st, tick_now)?;
        if st.asleep {
            self.stats.evals_skipped += 1;
        } else if tick_now {
            self.stats.evals_done += 1;
        }
        Ok(())
    }

    /// The clock edge [`Node::eval`] left for later (a VCD samples between).
    pub(crate) fn tick_deferred(&mut self) -> Result<(), SimError> {
        if self.state.tick {
            self.chip.tick()?;
            self.stats.evals_done += 1;
        }
        Ok(())
    }

    /// The rest of cycle `now`: beats move between the chip and its link ends, the ends
    /// advance, the host steps.
    pub(crate) fn finish_cycle(&mut self, now: u64) {
        let mut moved = false;
        for port in Port::ALL {
            let p = port.index() as usize;
            let (taken, sent) = (self.state.rx_taken[p], self.state.tx_sent[p]);
            if !taken && sent.is_none() {
                continue;
            }
            moved = true;
            if port == Port::N {
                let e = &mut self.n_link.ends[1];
                if taken {
                    e.take(now);
                }
                if let Some(b) = sent {
                    e.accept(now, b);
                }
                continue;
            }
            let a = self.ports[p].as_mut().expect("a moving port has a cable");
            if taken {
                a.end.take(now);
            }
            if let Some(s) = sent.and_then(|b| a.end.accept(now, b)) {
                if let Some(log) = &mut self.log {
                    log.push((now, log_line(now, a, &s)));
                }
            }
        }
        for a in self.ports.iter_mut().flatten() {
            a.end.advance(now);
        }
        moved |= self.host.step(now, &mut self.n_link.ends[0]);
        self.n_link.advance(now);
        if moved {
            self.stats.last_progress = now;
        }
    }

    /// Cycles `from..to` of this node alone, with `agent` beside it. Nothing may reach
    /// the node from elsewhere in that time: `to - from` is at most the lookahead.
    pub(crate) fn run_window<A: NodeAgent>(
        &mut self,
        agent: &mut A,
        from: u64,
        to: u64,
    ) -> Result<(), SimError> {
        for now in from..to {
            agent.before_cycle(self, now)?;
            self.eval(true)?;
            self.finish_cycle(now);
            agent.after_cycle(self, now);
        }
        Ok(())
    }
}

/// The TLP log's line for `sent` entering cable end `a` at `now`.
fn log_line(now: u64, a: &Attached, sent: &Sent) -> String {
    let tlp = match &sent.tlp {
        Ok(t) => t.to_json_value(),
        Err(e) => {
            serde_json::json!({ "undecodable": e, "beats": sent.beats.iter().map(|b| b.to_string()).collect::<Vec<_>>() })
        }
    };
    serde_json::json!({ "cycle": now, "link": a.cable_name, "dir": a.dir_name, "tlp": tlp })
        .to_string()
}
