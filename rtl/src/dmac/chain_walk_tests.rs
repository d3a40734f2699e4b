//! The chain walk against its rule written plainly, cycle by cycle.

use super::chain_walk::{ChainWalk, ChanState};
use crate::harness::{Lcg, Stepper};
use crate::verilog::checks::lint_verilog;
use crate::verilog::export::block_verilog;
use peach2_regmap::dma::ErrorCause;

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
