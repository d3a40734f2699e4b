//! Where a channel is in its descriptor chain: its state, the current descriptor, and why
//! it stopped.
//!
//! A start (from `Idle`, `Done` or `Error`) fetches the first descriptor, from the
//! internal memory at `start_index` or from the host at `desc_base`. Each descriptor is
//! fetched, checked, its data moved (or its immediate value written), its ending writes
//! sent, and `next` followed until the `LAST` flag, the chain limit or an error. A failed
//! completion during a fetch or the data stops the channel in `Drain` until its reads are
//! answered and its last write left the buffer; the completion timeout stops it at once
//! (and forgets its reads), keeping a completion error's cause.

use super::desc_check::CauseCode;
use peach2_regmap::dma::ErrorCause;
use rust_hdl::prelude::*;

/// Channel state.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum ChanState {
    /// Never started.
    Idle,
    /// Chain finished.
    Done,
    /// Stopped on an error.
    Error,
    /// Reading a descriptor from internal memory.
    FetchInt,
    /// Asking for a host descriptor read.
    FetchHost,
    /// Waiting for the host descriptor's completion.
    FetchHostWait,
    /// Checking the descriptor.
    Check,
    /// Moving the descriptor's data.
    Run,
    /// Writing a write-immediate descriptor's value.
    Immediate,
    /// Writing the descriptor's notifications and MSI ([`super::end_writes::EndWrites`]).
    EndWrites,
    /// Following `next`.
    Next,
    /// Waiting for outstanding reads after a completion error.
    Drain,
}

#[cfg(test)]
impl ChanState {
    /// Every state, for tests that go through them all.
    pub(crate) const ALL: [ChanState; 12] = [
        ChanState::Idle,
        ChanState::Done,
        ChanState::Error,
        ChanState::FetchInt,
        ChanState::FetchHost,
        ChanState::FetchHostWait,
        ChanState::Check,
        ChanState::Run,
        ChanState::Immediate,
        ChanState::EndWrites,
        ChanState::Next,
        ChanState::Drain,
    ];
}

/// A channel's walk along its descriptor chain.
#[derive(LogicBlock, Default)]
pub struct ChainWalk {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// `CONTROL`'s start (taken while the channel is stopped).
    pub start: Signal<In, Bit>,
    /// The start's chain is in host memory.
    pub start_host: Signal<In, Bit>,
    /// The start's first internal descriptor.
    pub start_index: Signal<In, Bits<10>>,
    /// `DESC_BASE`: the start's first host descriptor.
    pub desc_base: Signal<In, Bits<64>>,
    /// The internal descriptor read is done.
    pub desc_ram_valid: Signal<In, Bit>,
    /// Pulse: the host descriptor's fetch was taken.
    pub fetch_grant: Signal<In, Bit>,
    /// Pulse: the host descriptor is complete.
    pub desc_done: Signal<In, Bit>,
    /// The descriptor's error cause, 0 if it passes its checks.
    pub check_cause: Signal<In, Bits<4>>,
    /// The descriptor is a write-immediate.
    pub immediate: Signal<In, Bit>,
    /// Crossbar destination of the descriptor's writes.
    pub dst_route_dest: Signal<In, Bits<3>>,
    /// Crossbar destination of `NOTIFY_RX`.
    pub rx_route_dest: Signal<In, Bits<3>>,
    /// Every block of the descriptor's data is written, the last write out of the buffer.
    pub data_written: Signal<In, Bit>,
    /// Pulse: the write-immediate's write was taken.
    pub imm_grant: Signal<In, Bit>,
    /// Ending writes remain once the data is written.
    pub end_remaining: Signal<In, Bit>,
    /// Pulse: the last ending write was taken.
    pub end_done: Signal<In, Bit>,
    /// The descriptor's `LAST` flag.
    pub last: Signal<In, Bit>,
    /// The chain has run `DMA_CHAIN_LIMIT` descriptors.
    pub limit_reached: Signal<In, Bit>,
    /// The next host descriptor's address.
    pub next_host: Signal<In, Bits<64>>,
    /// The next internal descriptor, its index at bits 14:5.
    pub next_int: Signal<In, Bits<64>>,
    /// No read of the channel's is outstanding.
    pub reads_idle: Signal<In, Bit>,
    /// A taken write's data has not left the buffer yet.
    pub w_flight: Signal<In, Bit>,
    /// Pulse: a completion failed.
    pub cpl_error: Signal<In, Bit>,
    /// Pulse: the completion timeout expired.
    pub expired: Signal<In, Bit>,
    /// Where the channel is in its chain.
    pub state: Signal<Out, ChanState>,
    /// Why the channel stopped (`ErrorCause`), 0 while it has not failed.
    pub cause: Signal<Out, Bits<4>>,
    /// The chain is in host memory.
    pub host: Signal<Out, Bit>,
    /// The current descriptor: its host address, or its internal index at bits 14:5.
    pub cur: Signal<Out, Bits<64>>,
    /// Crossbar destination of the checked descriptor's writes.
    pub w_dest: Signal<Out, Bits<3>>,
    /// Crossbar destination of its `NOTIFY_RX`.
    pub rx_dest: Signal<Out, Bits<3>>,
    /// Idle, done or failed: a start may come.
    pub stopped: Signal<Out, Bit>,
    /// A start is taken this cycle.
    pub starting: Signal<Out, Bit>,
    /// The channel waits on reads (the completion timeout counts).
    pub running: Signal<Out, Bit>,
    /// Pulse: the descriptor's data is written (or its immediate value taken).
    pub data_done: Signal<Out, Bit>,
    /// Pulse: forget this channel's outstanding reads.
    pub chan_reset: Signal<Out, Bit>,
    /// See `state`.
    state_q: DFF<ChanState>,
    /// See `cause`.
    cause_q: DFF<Bits<4>>,
    /// See `host`.
    host_q: DFF<Bit>,
    /// See `cur`.
    cur_q: DFF<Bits<64>>,
    /// See `w_dest`.
    w_dest_q: DFF<Bits<3>>,
    /// See `rx_dest`.
    rx_dest_q: DFF<Bits<3>>,
    /// Where a descriptor goes once its data is written: its ending writes, or `next`.
    after_data: Signal<Local, ChanState>,
    /// The causes the walk finds itself (the descriptor's come from `check_cause`).
    chain_limit_code: CauseCode<{ ErrorCause::ChainLimit as u64 }>,
    /// The ErrorCause code for a read completion that came back failed.
    cpl_error_code: CauseCode<{ ErrorCause::CplError as u64 }>,
    /// The ErrorCause code for a read that got no completion within `DMA_CPL_TIMEOUT`.
    cpl_timeout_code: CauseCode<{ ErrorCause::CplTimeout as u64 }>,
}

impl Logic for ChainWalk {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state_q, cause_q, host_q, cur_q, w_dest_q, rx_dest_q);
        self.state.next = self.state_q.q.val();
        self.cause.next = self.cause_q.q.val();
        self.host.next = self.host_q.q.val();
        self.cur.next = self.cur_q.q.val();
        self.w_dest.next = self.w_dest_q.q.val();
        self.rx_dest.next = self.rx_dest_q.q.val();
        self.stopped.next = (self.state_q.q.val() == ChanState::Idle)
            || (self.state_q.q.val() == ChanState::Done)
            || (self.state_q.q.val() == ChanState::Error);
        self.starting.next = self.stopped.val() && self.start.val();
        self.chan_reset.next = false;
        self.running.next = false;
        self.data_done.next = false;
        self.after_data.next = ChanState::Next;
        if self.end_remaining.val() {
            self.after_data.next = ChanState::EndWrites;
        }

        if self.starting.val() {
            self.cause_q.d.next = 0.into();
            self.host_q.d.next = self.start_host.val();
            self.cur_q.d.next = bit_cast::<64, 10>(self.start_index.val()) << 5;
            self.state_q.d.next = ChanState::FetchInt;
            if self.start_host.val() {
                self.cur_q.d.next = self.desc_base.val() & 0xFFFF_FFFF_FFFF_FFE0u64;
                self.state_q.d.next = ChanState::FetchHost;
            }
        }

        match self.state_q.q.val() {
            ChanState::Idle => {}
            ChanState::Done => {}
            ChanState::Error => {}
            ChanState::FetchInt => {
                if self.desc_ram_valid.val() {
                    self.state_q.d.next = ChanState::Check;
                }
            }
            ChanState::FetchHost => {
                if self.fetch_grant.val() {
                    self.state_q.d.next = ChanState::FetchHostWait;
                }
            }
            ChanState::FetchHostWait => {
                self.running.next = true;
                if self.desc_done.val() {
                    self.state_q.d.next = ChanState::Check;
                }
            }
            ChanState::Check => {
                self.state_q.d.next = ChanState::Error;
                self.cause_q.d.next = self.check_cause.val();
                if self.check_cause.val() == 0 {
                    self.state_q.d.next = ChanState::Run;
                    if self.immediate.val() {
                        self.state_q.d.next = ChanState::Immediate;
                    }
                    self.w_dest_q.d.next = self.dst_route_dest.val();
                    self.rx_dest_q.d.next = self.rx_route_dest.val();
                }
            }
            ChanState::Run => {
                self.running.next = true;
                if self.data_written.val() {
                    self.data_done.next = true;
                    self.state_q.d.next = self.after_data.val();
                }
            }
            ChanState::Immediate => {
                if self.imm_grant.val() {
                    self.data_done.next = true;
                    self.state_q.d.next = self.after_data.val();
                }
            }
            ChanState::EndWrites => {
                if self.end_done.val() {
                    self.state_q.d.next = ChanState::Next;
                }
            }
            ChanState::Next => {
                if self.last.val() {
                    self.state_q.d.next = ChanState::Done;
                } else if self.limit_reached.val() {
                    self.cause_q.d.next = self.chain_limit_code.val();
                    self.state_q.d.next = ChanState::Error;
                } else if self.host_q.q.val() {
                    self.cur_q.d.next = self.next_host.val();
                    self.state_q.d.next = ChanState::FetchHost;
                } else {
                    self.cur_q.d.next = self.next_int.val();
                    self.state_q.d.next = ChanState::FetchInt;
                }
            }
            ChanState::Drain => {
                self.running.next = true;
                if self.reads_idle.val() && !self.w_flight.val() {
                    self.state_q.d.next = ChanState::Error;
                }
            }
        }

        // A failed completion stops the channel; the timeout too, if nothing comes back.
        if self.cpl_error.val()
            && ((self.state_q.q.val() == ChanState::Run)
                || (self.state_q.q.val() == ChanState::FetchHostWait))
        {
            self.cause_q.d.next = self.cpl_error_code.val();
            self.state_q.d.next = ChanState::Drain;
        }
        if self.expired.val() {
            if self.state_q.q.val() != ChanState::Drain {
                self.cause_q.d.next = self.cpl_timeout_code.val();
            }
            self.chan_reset.next = true;
            self.state_q.d.next = ChanState::Error;
        }

        if self.reset.val() {
            self.state_q.d.next = ChanState::Idle;
            self.cause_q.d.next = 0.into();
            self.host_q.d.next = false;
            self.cur_q.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Lcg, Stepper};
    use crate::verilog::checks::lint_verilog;
    use crate::verilog::export::block_verilog;

    /// One cycle's inputs.
    #[derive(Clone, Copy, Debug, Default)]
    struct Inputs {
        reset: bool,
        start: bool,
        start_host: bool,
        start_index: u64,
        desc_base: u64,
        desc_ram_valid: bool,
        fetch_grant: bool,
        desc_done: bool,
        check_cause: u64,
        immediate: bool,
        dst_route_dest: u64,
        rx_route_dest: u64,
        data_written: bool,
        imm_grant: bool,
        end_remaining: bool,
        end_done: bool,
        last: bool,
        limit_reached: bool,
        next_host: u64,
        next_int: u64,
        reads_idle: bool,
        w_flight: bool,
        cpl_error: bool,
        expired: bool,
    }

    /// The walk's registers, as the module doc tells them.
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Walk {
        state: ChanState,
        cause: u64,
        host: bool,
        cur: u64,
        w_dest: u64,
        rx_dest: u64,
    }

    /// The pulses and levels of a cycle: (stopped, starting, running, data_done,
    /// chan_reset).
    type Pulses = (bool, bool, bool, bool, bool);

    impl Walk {
        /// This cycle's outputs and the registers of the next.
        fn step(self, i: &Inputs) -> (Pulses, Walk) {
            use ChanState::*;
            let mut n = self;
            let stopped = matches!(self.state, Idle | Done | Error);
            let starting = stopped && i.start;
            let (mut running, mut data_done, mut chan_reset) = (false, false, false);
            let after_data = if i.end_remaining { EndWrites } else { Next };
            if starting {
                n.cause = 0;
                n.host = i.start_host;
                n.cur = if i.start_host {
                    i.desc_base & !0x1F
                } else {
                    i.start_index << 5
                };
                n.state = if i.start_host { FetchHost } else { FetchInt };
            }
            match self.state {
                FetchInt if i.desc_ram_valid => n.state = Check,
                FetchHost if i.fetch_grant => n.state = FetchHostWait,
                FetchHostWait => {
                    running = true;
                    if i.desc_done {
                        n.state = Check;
                    }
                }
                Check => {
                    n.cause = i.check_cause;
                    n.state = Error;
                    if i.check_cause == 0 {
                        n.state = if i.immediate { Immediate } else { Run };
                        n.w_dest = i.dst_route_dest;
                        n.rx_dest = i.rx_route_dest;
                    }
                }
                Run => {
                    running = true;
                    if i.data_written {
                        data_done = true;
                        n.state = after_data;
                    }
                }
                Immediate if i.imm_grant => {
                    data_done = true;
                    n.state = after_data;
                }
                EndWrites if i.end_done => n.state = Next,
                Next if i.last => n.state = Done,
                Next if i.limit_reached => {
                    n.cause = ErrorCause::ChainLimit as u64;
                    n.state = Error;
                }
                Next => {
                    n.cur = if self.host { i.next_host } else { i.next_int };
                    n.state = if self.host { FetchHost } else { FetchInt };
                }
                Drain => {
                    running = true;
                    if i.reads_idle && !i.w_flight {
                        n.state = Error;
                    }
                }
                _ => {}
            }
            if i.cpl_error && matches!(self.state, Run | FetchHostWait) {
                n.cause = ErrorCause::CplError as u64;
                n.state = Drain;
            }
            if i.expired {
                if self.state != Drain {
                    n.cause = ErrorCause::CplTimeout as u64;
                }
                chan_reset = true;
                n.state = Error;
            }
            if i.reset {
                n.state = Idle;
                n.cause = 0;
                n.host = false;
                n.cur = 0;
            }
            ((stopped, starting, running, data_done, chan_reset), n)
        }
    }

    fn drive(u: &mut ChainWalk, i: &Inputs) {
        u.reset.next = i.reset;
        u.start.next = i.start;
        u.start_host.next = i.start_host;
        u.start_index.next = i.start_index.into();
        u.desc_base.next = i.desc_base.into();
        u.desc_ram_valid.next = i.desc_ram_valid;
        u.fetch_grant.next = i.fetch_grant;
        u.desc_done.next = i.desc_done;
        u.check_cause.next = i.check_cause.into();
        u.immediate.next = i.immediate;
        u.dst_route_dest.next = i.dst_route_dest.into();
        u.rx_route_dest.next = i.rx_route_dest.into();
        u.data_written.next = i.data_written;
        u.imm_grant.next = i.imm_grant;
        u.end_remaining.next = i.end_remaining;
        u.end_done.next = i.end_done;
        u.last.next = i.last;
        u.limit_reached.next = i.limit_reached;
        u.next_host.next = i.next_host.into();
        u.next_int.next = i.next_int.into();
        u.reads_idle.next = i.reads_idle;
        u.w_flight.next = i.w_flight;
        u.cpl_error.next = i.cpl_error;
        u.expired.next = i.expired;
    }

    /// Random inputs every cycle (rare errors, timeouts and resets; frequent progress)
    /// against the plain model; every state is visited, every cause found, and the
    /// timeout comes in `Drain` too (where it keeps the completion error's cause).
    #[test]
    fn walks_the_chain_as_the_model_says() {
        let mut s = Stepper::new(ChainWalk::default(), |b| &mut b.clock);
        let mut rng = Lcg(0xC4A1_7A1C);
        let mut walk = Walk {
            state: ChanState::Idle,
            cause: 0,
            host: false,
            cur: 0,
            w_dest: 0,
            rx_dest: 0,
        };
        let mut visits = [0usize; 12];
        let mut causes = [0usize; 16];
        let mut timeouts_in_drain = 0;
        for cycle in 0..30_000 {
            let i = Inputs {
                reset: cycle == 0 || rng.chance(0.002),
                start: rng.chance(0.3),
                start_host: rng.chance(0.5),
                start_index: rng.below(1 << 10),
                desc_base: rng.next_u64(),
                desc_ram_valid: rng.chance(0.5),
                fetch_grant: rng.chance(0.5),
                desc_done: rng.chance(0.3),
                check_cause: if rng.chance(0.85) { 0 } else { rng.below(16) },
                immediate: rng.chance(0.2),
                dst_route_dest: rng.below(8),
                rx_route_dest: rng.below(8),
                data_written: rng.chance(0.2),
                imm_grant: rng.chance(0.5),
                end_remaining: rng.chance(0.5),
                end_done: rng.chance(0.3),
                last: rng.chance(0.2),
                limit_reached: rng.chance(0.1),
                next_host: rng.next_u64(),
                next_int: rng.below(1 << 10) << 5,
                reads_idle: rng.chance(0.3),
                w_flight: rng.chance(0.5),
                cpl_error: rng.chance(0.05),
                expired: rng.chance(0.01),
            };
            drive(&mut s.uut, &i);
            s.settle();
            let u = &s.uut;
            if cycle > 0 {
                let got = Walk {
                    state: u.state.val(),
                    cause: u.cause.val().to_u64(),
                    host: u.host.val(),
                    cur: u.cur.val().to_u64(),
                    w_dest: u.w_dest.val().to_u64(),
                    rx_dest: u.rx_dest.val().to_u64(),
                };
                assert_eq!(got, walk, "cycle {cycle}: registers");
            }
            let (pulses, next) = walk.step(&i);
            if cycle > 0 {
                let got = (
                    u.stopped.val(),
                    u.starting.val(),
                    u.running.val(),
                    u.data_done.val(),
                    u.chan_reset.val(),
                );
                assert_eq!(got, pulses, "cycle {cycle}: {:?}, {i:?}", walk.state);
            }
            let at = ChanState::ALL.iter().position(|&x| x == walk.state);
            visits[at.unwrap()] += 1;
            causes[walk.cause as usize] += 1;
            timeouts_in_drain += usize::from(i.expired && walk.state == ChanState::Drain);
            walk = next;
            s.tick();
        }
        for (state, n) in ChanState::ALL.iter().zip(visits) {
            assert!(n > 150, "{state:?} visited {n} times");
        }
        for cause in [
            ErrorCause::ChainLimit,
            ErrorCause::CplError,
            ErrorCause::CplTimeout,
        ] {
            assert!(causes[cause as usize] > 100, "{cause:?}: {causes:?}");
        }
        assert!(
            timeouts_in_drain > 20,
            "{timeouts_in_drain} timeouts in Drain"
        );
    }

    #[test]
    fn chain_walk_lint_clean() {
        let mut uut = ChainWalk::default();
        lint_verilog(&block_verilog(&mut uut, "dma_chain_walk"), "dma_chain_walk").unwrap();
    }
}
