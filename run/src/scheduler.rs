//! The simulated platform's clock: carries out every rank's primitives ([`Op`]) at that
//! rank's simulated time, on the one cluster.
//!
//! Each rank has its own time. The cluster only moves forward when every live rank is
//! waiting on a primitive (a rank whose process runs its own code may still ask for
//! something at its current time); then the earliest primitive, by (time, rank), is
//! carried out, the cluster having been stepped to that time. So the same program gives
//! the same simulation, the same output and the same timings on every run, whatever the
//! host machine's scheduling. The program's own computation between calls costs no
//! simulated time.
//!
//! MPI is a model, not chip traffic (on HA-PACS/TCA it ran over InfiniBand): a message
//! arrives [`TransferCost::cycles`] after it is sent; a collective releases every rank
//! at the last arrival plus `ceil(log2 ranks)` messages of its size.

use crate::mpi::{self, Mailbox};
use crate::ops::{Collective, Done, Op, Request};
use crate::output::Output;
use pcie_model::time::{Clock, Cycles};
use peach2_testbench::cpu_wait::{CpuWait, WaitEnd};
use peach2_testbench::profile::TransferCost;
use peach2_testbench::sim_backend::SimSystem;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::time::Duration;

/// Wall-clock time a rank may run its own code while the others wait before the
/// platform says so (it may be a loop that waits for memory without a call).
const RUNNING_WARNING: Duration = Duration::from_secs(10);

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every rank returned 0.
    Success,
    /// A rank failed: its number, the exit code to end with, and why.
    RankFailed {
        /// The rank.
        rank: usize,
        /// Exit code of the run.
        code: i32,
        /// What happened.
        why: String,
    },
    /// Every rank waits on something that does not come: what each waits in.
    Stalled(String),
    /// The simulation itself failed.
    Error(String),
}

/// Where a rank's current primitive stands.
enum Pending {
    /// Carried out at a known time.
    At(u64, Op, Sender<Done>),
    /// Waiting on an MMIO read or a polled word, which the rank's [`CpuWait`] watches
    /// beside its node.
    Wait(Sender<Done>),
    /// An `MPI_Recv` waiting for its message, posted at the time given.
    Recv {
        posted: u64,
        src: Option<usize>,
        tag: Option<i32>,
        reply: Sender<Done>,
    },
    /// In a collective, posted at the time given.
    Collective {
        posted: u64,
        kind: Collective,
        data: Vec<u8>,
        reply: Sender<Done>,
    },
}

struct Rank {
    now: u64,
    live: bool,
    pending: Option<Pending>,
    call: String,
    waiting: bool,
}

/// The platform's state.
pub struct Scheduler {
    sys: SimSystem,
    ranks: Vec<Rank>,
    mailbox: Mailbox,
    mpi: TransferCost,
    start: u64,
    last_enter: u64,
    stall_limit: u64,
    output: Output,
}

impl Scheduler {
    /// A platform over the brought-up `sys` for `ranks` ranks (rank r on node r) that
    /// reports a stall after `stall_limit` cycles in which no rank starts a call while
    /// all of them wait.
    pub fn new(sys: SimSystem, ranks: usize, stall_limit: u64, output: Output) -> Scheduler {
        let start = sys.cluster.cycle;
        let mpi = sys.software.mpi;
        Scheduler {
            sys,
            ranks: (0..ranks)
                .map(|_| Rank {
                    now: start,
                    live: true,
                    pending: None,
                    call: "(starting)".into(),
                    waiting: false,
                })
                .collect(),
            mailbox: Mailbox::new(ranks),
            mpi,
            start,
            last_enter: start,
            stall_limit,
            output,
        }
    }

    /// The cluster, after the run (for its logs).
    pub fn system(&mut self) -> &mut SimSystem {
        &mut self.sys
    }

    /// Drops every rank's pending primitive, so that the servers waiting on them see the
    /// platform gone (after a run that did not succeed).
    pub fn abandon(&mut self) {
        for k in &mut self.ranks {
            k.pending = None;
        }
        self.mailbox = Mailbox::new(self.ranks.len());
    }

    /// Runs until every rank has exited, one failed, or they stall.
    pub fn run(&mut self, rx: &Receiver<Request>) -> Outcome {
        loop {
            // Every live rank must be waiting before time may pass.
            while let Some(r) = self
                .ranks
                .iter()
                .position(|k| k.live && k.pending.is_none())
            {
                let req = match rx.recv_timeout(RUNNING_WARNING) {
                    Ok(req) => req,
                    Err(RecvTimeoutError::Timeout) => {
                        self.output.warn(&format!(
                            "peach2 run: rank {r} has run for {} s without a call while the others wait. Simulated time passes only in calls: a loop that waits for memory the DMA writes must call one (tcaTestDMARecvDesc, MPI_Wtime).",
                            RUNNING_WARNING.as_secs()
                        ));
                        continue;
                    }
                    Err(RecvTimeoutError::Disconnected) => {
                        return Outcome::Error(format!("rank {r}'s server ended"));
                    }
                };
                if let Err(o) = self.accept(req) {
                    return o;
                }
            }
            if !self.ranks.iter().any(|k| k.live) {
                return Outcome::Success;
            }
            if let Err(o) = self.advance() {
                return o;
            }
        }
    }

    /// Takes a rank's new primitive: fixes its time, or parks it.
    fn accept(&mut self, req: Request) -> Result<(), Outcome> {
        let Request { rank, op, reply } = req;
        let k = &mut self.ranks[rank];
        let now = k.now;
        // CPU time spent before the primitive takes effect.
        let lead = match &op {
            Op::Cpu(c) | Op::MmioRead { leg: c, .. } => *c,
            _ => 0,
        };
        k.pending = Some(match op {
            Op::Recv { src, tag } => Pending::Recv {
                posted: now,
                src,
                tag,
                reply,
            },
            Op::Collective(kind, data) => Pending::Collective {
                posted: now,
                kind,
                data,
                reply,
            },
            op => Pending::At(now + lead, op, reply),
        });
        Ok(())
    }

    /// The earliest known event, `(time, rank)`, matching messages and completing
    /// collectives on the way.
    fn next_event(&mut self) -> Option<(u64, usize)> {
        self.match_messages();
        self.complete_collective();
        self.ranks
            .iter()
            .enumerate()
            .filter_map(|(r, k)| match &k.pending {
                Some(Pending::At(t, ..)) => Some((*t, r)),
                _ => None,
            })
            .min()
    }

    fn match_messages(&mut self) {
        for r in 0..self.ranks.len() {
            if let Some(Pending::Recv {
                posted, src, tag, ..
            }) = &self.ranks[r].pending
            {
                let (posted, src, tag) = (*posted, *src, *tag);
                if let Some(m) = self.mailbox.take(r, src, tag) {
                    let Some(Pending::Recv { reply, .. }) = self.ranks[r].pending.take() else {
                        unreachable!("matched above");
                    };
                    let at = posted.max(m.arrival);
                    let done = Done::Message {
                        src: m.src,
                        tag: m.tag,
                        data: m.data,
                    };
                    self.ranks[r].pending = Some(Pending::At(at, Op::Now, reply));
                    // The reply is the message, not the time: keep it for service.
                    self.mailbox.hold(r, done);
                }
            }
        }
    }

    fn complete_collective(&mut self) {
        let live: Vec<usize> = (0..self.ranks.len())
            .filter(|&r| self.ranks[r].live)
            .collect();
        // MPI_COMM_WORLD: every rank takes part, so one that exited stalls the rest.
        let all_in = live.len() == self.ranks.len()
            && live
                .iter()
                .all(|&r| matches!(self.ranks[r].pending, Some(Pending::Collective { .. })));
        if !all_in {
            return;
        }
        let mut parts = Vec::new();
        let mut last = 0;
        let mut kind = None;
        for &r in &live {
            if let Some(Pending::Collective {
                posted,
                kind: k,
                data,
                ..
            }) = &self.ranks[r].pending
            {
                last = last.max(*posted);
                parts.push(data.clone());
                kind.get_or_insert_with(|| k.clone());
            }
        }
        let kind = kind.expect("at least one rank");
        let results = mpi::collective(&kind, &parts, self.ranks.len());
        let bytes = parts.iter().map(Vec::len).max().unwrap_or(0) as u64;
        let steps = (usize::BITS - (live.len().max(1) - 1).leading_zeros()) as u64;
        let release = last + steps * self.mpi.cycles(bytes);
        for (i, &r) in live.iter().enumerate() {
            if let Some(Pending::Collective { reply, kind: k, .. }) = self.ranks[r].pending.take() {
                let done = match results.get(i) {
                    Some(Ok(b)) if k == kind => Done::Bytes(b.clone()),
                    Some(Err(e)) => Done::Failed(e.clone()),
                    _ => Done::Failed(format!(
                        "ranks are in different collectives: {kind:?} and {k:?}"
                    )),
                };
                self.mailbox.hold(r, done);
                self.ranks[r].pending = Some(Pending::At(release, Op::Now, reply));
            }
        }
    }

    /// Runs the cluster to the next event and carries it out. The cluster runs in
    /// windows up to the next known event, or the soonest a CPU's wait (a read, a poll)
    /// could end (stores reach the root ports inside windows): a wait that ends inside a
    /// window hands its CPU the result no sooner than the window's end, so every rank acts
    /// at its exact cycle.
    fn advance(&mut self) -> Result<(), Outcome> {
        loop {
            let now = self.sys.cluster.cycle;
            self.take_wait_ends(now);
            let next = self.next_event();
            if let Some((t, r)) = next {
                if now >= t {
                    return self.service(r);
                }
            }
            let waiting = self.sys.cpus.iter().any(|c| c.wait.is_waiting());
            if next.is_none() && !waiting {
                return Err(Outcome::Stalled(self.report(
                    "every rank waits for a message or a collective that no rank will send",
                )));
            }
            if self.sys.cluster.at_sync_point() {
                self.check_stall()?;
            }
            let until = self
                .sys
                .cpus
                .iter()
                .map(|c| c.wait.earliest_wake(now))
                .chain(next.map(|(t, _)| t))
                .min()
                .expect("an event or a wait");
            let len = self.sys.cluster.next_window(until - now);
            self.sys
                .run_window(len)
                .map_err(|e| Outcome::Error(format!("the cluster: {e}")))?;
        }
    }

    /// Turns the waits that ended (at cycle `now`, or in the window before) into the
    /// times their ranks go on.
    fn take_wait_ends(&mut self, now: u64) {
        let sys = &mut self.sys;
        for (r, cpu) in sys.cpus.iter_mut().enumerate().take(self.ranks.len()) {
            cpu.wait.check(&mut sys.cluster.nodes[r], now);
            let Some((at, end)) = cpu.wait.take_woken() else {
                continue;
            };
            debug_assert!(at >= now, "a wait's end seen late");
            let Some(Pending::Wait(reply)) = self.ranks[r].pending.take() else {
                unreachable!("only a waiting rank has a wait");
            };
            let done = match end {
                WaitEnd::Read(Ok(w)) => Done::Word(w),
                WaitEnd::Read(Err(e)) => Done::Failed(e.to_string()),
                WaitEnd::Polled { seen, .. } => Done::Polled(seen),
            };
            self.mailbox.hold(r, done);
            self.ranks[r].pending = Some(Pending::At(at, Op::Now, reply));
        }
    }

    fn check_stall(&self) -> Result<(), Outcome> {
        let all_wait = self.ranks.iter().filter(|k| k.live).all(|k| k.waiting);
        if all_wait && self.sys.cluster.cycle - self.last_enter > self.stall_limit {
            return Err(Outcome::Stalled(self.report(&format!(
                "no rank has made progress for {} cycles ({:.1} ms of simulated time)",
                self.stall_limit,
                self.stall_limit as f64 / 250e3
            ))));
        }
        Ok(())
    }

    /// Each rank's current call, for a stall report.
    fn report(&self, why: &str) -> String {
        let mut s = format!("{why}; at {:.3} us:", self.us(self.sys.cluster.cycle));
        for (r, k) in self.ranks.iter().enumerate() {
            let state = if k.live { k.call.as_str() } else { "(exited)" };
            s.push_str(&format!("\n  rank {r}: {state}"));
        }
        s
    }

    fn us(&self, cycle: u64) -> f64 {
        Clock::CORE_250MHZ.micros(Cycles(cycle - self.start))
    }

    /// Carries out rank `r`'s timed primitive now.
    fn service(&mut self, r: usize) -> Result<(), Outcome> {
        let Some(Pending::At(t, op, reply)) = self.ranks[r].pending.take() else {
            unreachable!("only timed primitives are serviced");
        };
        self.ranks[r].now = t;
        let node = r;
        let fail = |e: peach2_driver::TcaError| Done::Failed(e.to_string());
        let done = match op {
            Op::Enter {
                call,
                waiting,
                out,
                err,
            } => {
                self.output.flush(r, out, err);
                self.ranks[r].call = call;
                self.ranks[r].waiting = waiting;
                self.last_enter = self.sys.cluster.cycle;
                Done::Unit
            }
            Op::Cpu(_) => Done::Unit,
            Op::MmioWrite { addr, data } => match self.sys.store(node, addr, &data) {
                Ok(cost) => {
                    self.ranks[r].now = t + cost;
                    Done::Unit
                }
                Err(e) => fail(e),
            },
            Op::MmioRead { addr, leg } => match self.sys.issue_read(node, addr) {
                Ok(h) => {
                    self.sys.cpus[node].wait = CpuWait::read(h, leg);
                    self.ranks[r].pending = Some(Pending::Wait(reply));
                    return Ok(());
                }
                Err(e) => fail(e),
            },
            Op::PollUntil {
                costs,
                addr,
                want,
                polls,
                last,
            } => {
                // The first poll is now, before the cluster moves on.
                self.sys.cpus[node].wait = CpuWait::poll(costs, addr, want, polls, last, t);
                self.ranks[r].pending = Some(Pending::Wait(reply));
                return Ok(());
            }
            Op::MemRead { kind, addr, len } => {
                let mut b = vec![0u8; len];
                self.sys
                    .cpu_read(node, kind, addr, &mut b)
                    .map_or_else(fail, |()| Done::Bytes(b))
            }
            Op::MemWrite { kind, addr, data } => self
                .sys
                .cpu_write(node, kind, addr, &data)
                .map_or_else(fail, |()| Done::Unit),
            Op::Send { dst, tag, data } => {
                let bytes = data.len() as u64;
                self.mailbox
                    .post(r, dst, tag, data, t + self.mpi.cycles(bytes));
                self.ranks[r].now = t + self.mpi.streaming(bytes);
                Done::Unit
            }
            Op::Now => self.mailbox.held(r).unwrap_or(Done::Time(t - self.start)),
            Op::Abort(code) => {
                self.output.flush_all();
                return Err(Outcome::RankFailed {
                    rank: r,
                    code,
                    why: format!("called MPI_Abort({code})"),
                });
            }
            Op::Exit {
                failure,
                code,
                out,
                err,
            } => {
                self.output.flush(r, out, err);
                self.output.finish(r);
                self.ranks[r].live = false;
                let _ = reply.send(Done::Unit);
                if let Some(why) = failure {
                    self.output.flush_all();
                    return Err(Outcome::RankFailed { rank: r, code, why });
                }
                return Ok(());
            }
            op @ (Op::Recv { .. } | Op::Collective(..)) => {
                unreachable!("{op:?} is parked, not timed")
            }
        };
        let _ = reply.send(done);
        Ok(())
    }
}
