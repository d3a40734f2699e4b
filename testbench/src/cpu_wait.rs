//! What a node's CPU waits for: an MMIO read's completion, or a word of host memory it
//! polls. A [`CpuWait`] watches it beside the node, cycle by cycle, so the cluster can
//! run in windows while a CPU waits, and still see the wait end at the exact cycle
//! stepping one cycle at a time would.
//!
//! Windows stay exact because a wait that ends inside one hands the CPU its result some
//! cycles later (the read's way back to the core, a poll's own cost): no earlier than
//! [`CpuWait::earliest_wake`]. A window that ends by then leaves the CPU nothing to do
//! before the cluster's clock is back in the caller's hands.

use crate::profile::CpuCosts;
use pcie_model::requester::{RequestHandle, RequestOutcome};
use peach2_driver::TcaError;
use peach2_sim::cluster::NodeAgent;
use peach2_sim::node::Node;
use peach2_sim::SimError;

/// How a wait ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WaitEnd {
    /// An MMIO read's data (or why it failed).
    Read(Result<u32, TcaError>),
    /// A poll loop: whether it saw the word it waited for, and the word its last poll saw.
    Polled {
        /// The awaited word was seen.
        seen: bool,
        /// The last poll's word (what the core's cache now holds).
        last: u32,
    },
}

/// What the CPU waits on.
#[derive(Clone, Debug, Default)]
enum Waiting {
    /// Nothing.
    #[default]
    Nothing,
    /// MMIO read `handle`; its data reaches the core `leg` cycles after its completion.
    Read { handle: RequestHandle, leg: u64 },
    /// Polls of the host word at `addr` until it holds `want`: the next at cycle `next`,
    /// `left` more at most, the last one having seen `last`.
    Poll {
        costs: CpuCosts,
        addr: u64,
        want: u32,
        next: u64,
        left: u64,
        last: Option<u32>,
    },
}

/// One node's CPU waiting, and the wait's end once it came: the cycle the core has the
/// result, and the result.
#[derive(Clone, Debug, Default)]
pub struct CpuWait {
    waiting: Waiting,
    woken: Option<(u64, WaitEnd)>,
}

impl CpuWait {
    /// Waits for MMIO read `handle`, whose data reaches the core `leg` cycles after its
    /// completion reaches the root port.
    pub fn read(handle: RequestHandle, leg: u64) -> CpuWait {
        CpuWait {
            waiting: Waiting::Read { handle, leg },
            woken: None,
        }
    }

    /// Polls the host word at `addr` from cycle `from` on until it holds `want`, at most
    /// `polls` times (at least once), each poll costing what `costs` says of a cache hit
    /// (the word the poll before saw, `last` for the first) or a miss.
    pub fn poll(
        costs: CpuCosts,
        addr: u64,
        want: u32,
        polls: u64,
        last: Option<u32>,
        from: u64,
    ) -> CpuWait {
        CpuWait {
            waiting: Waiting::Poll {
                costs,
                addr,
                want,
                next: from,
                left: polls.max(1),
                last,
            },
            woken: None,
        }
    }

    /// Whether the CPU waits on something not yet ended.
    pub fn is_waiting(&self) -> bool {
        !matches!(self.waiting, Waiting::Nothing)
    }

    /// The wait's end, once it came: the cycle the core has the result, and the result.
    pub fn take_woken(&mut self) -> Option<(u64, WaitEnd)> {
        self.woken.take()
    }

    /// Looks at the wait at cycle `now`, before the node's cycle `now`: a read's
    /// completion that came back, a poll due.
    pub fn check(&mut self, node: &mut Node, now: u64) {
        match &mut self.waiting {
            Waiting::Nothing => {}
            Waiting::Read { handle, leg } => {
                if let Some(r) = node.host.rc.take_result(*handle) {
                    let end = WaitEnd::Read(read_word(r));
                    self.woken = Some((now + *leg, end));
                    self.waiting = Waiting::Nothing;
                }
            }
            Waiting::Poll { .. } => self.polls_due(node, now),
        }
    }

    /// The polls due at cycle `now` (several if a poll costs nothing).
    fn polls_due(&mut self, node: &mut Node, now: u64) {
        while let Waiting::Poll {
            costs,
            addr,
            want,
            next,
            left,
            last,
        } = &mut self.waiting
        {
            if now < *next {
                return;
            }
            let mut b = [0u8; 4];
            if let Err(e) = node.host.rc.host_memory_mut().read(*addr, &mut b) {
                // At once: only the first poll can fail (see `earliest_wake`).
                let why = TcaError::Device(format!("poll of {addr:#x}: {e:?}"));
                self.woken = Some((now, WaitEnd::Read(Err(why))));
                self.waiting = Waiting::Nothing;
                return;
            }
            let word = u32::from_le_bytes(b);
            let at = now + costs.host_poll(*last, word);
            if word == *want || *left <= 1 {
                let end = WaitEnd::Polled {
                    seen: word == *want,
                    last: word,
                };
                self.woken = Some((at, end));
                self.waiting = Waiting::Nothing;
            } else {
                *next = at;
                *left -= 1;
                *last = Some(word);
            }
        }
    }

    /// The earliest cycle at which a wait that ends after cycle `now` can hand the core
    /// its result (`u64::MAX`: it cannot end). A window from `now` may run up to it.
    pub fn earliest_wake(&self, now: u64) -> u64 {
        match &self.waiting {
            Waiting::Nothing => u64::MAX,
            // Seen at the next cycle at the soonest.
            Waiting::Read { leg, .. } => now + 1 + leg,
            Waiting::Poll {
                costs,
                next,
                left,
                last,
                want,
                ..
            } => {
                let first = (*next).max(now + 1);
                // A poll that sees the awaited word differs from what the poll before
                // saw (that one would have ended the wait), so it misses; unless it is
                // the first, whose cache may hold anything.
                let seen = if last.is_some_and(|l| l != *want) {
                    costs.poll_miss
                } else {
                    costs.poll_hit.min(costs.poll_miss)
                };
                // The last poll allowed, after the cheapest polls only, ends the wait
                // whatever it sees. (A poll whose read fails ends it at once, but the
                // address does not change: only the first poll, at the wait's start, can
                // fail.)
                let step = costs.poll_hit.min(costs.poll_miss);
                let last_poll = first.saturating_add((left - 1).saturating_mul(step));
                (first + seen).min(last_poll.saturating_add(step))
            }
        }
    }
}

/// The word of a 4-byte MMIO read's outcome.
fn read_word(r: Result<RequestOutcome, impl std::fmt::Debug>) -> Result<u32, TcaError> {
    r.as_ref()
        .ok()
        .and_then(RequestOutcome::dword)
        .ok_or_else(|| TcaError::Device(format!("MMIO read: {r:?}")))
}

impl NodeAgent for CpuWait {
    fn before_cycle(&mut self, node: &mut Node, now: u64) -> Result<(), SimError> {
        self.check(node, now);
        Ok(())
    }
}
