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
//!
//! The state machine is here; the current descriptor is [`DescPointer`]'s and the cause
//! [`StopCause`]'s, moved by the states' pulses. Its test is `chain_walk_tests`.

use super::desc_pointer::DescPointer;
use super::stop_cause::StopCause;
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
    /// The descriptor's data is written: every block's writes taken, and the last one out
    /// of the buffer unless ending writes or the chain's next descriptor follow it.
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
    /// See `w_dest`.
    w_dest_q: DFF<Bits<3>>,
    /// See `rx_dest`.
    rx_dest_q: DFF<Bits<3>>,
    /// Where a descriptor goes once its data is written: its ending writes, or `next`.
    after_data: Signal<Local, ChanState>,
    /// The current descriptor (`host`, `cur`).
    pointer: DescPointer,
    /// Why the channel stopped (`cause`).
    stop: StopCause,
}

impl Logic for ChainWalk {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state_q, w_dest_q, rx_dest_q);
        self.state.next = self.state_q.q.val();
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

        self.pointer.clock.next = self.clock.val();
        self.pointer.reset.next = self.reset.val();
        self.pointer.start.next = self.starting.val();
        self.pointer.start_host.next = self.start_host.val();
        self.pointer.start_index.next = self.start_index.val();
        self.pointer.desc_base.next = self.desc_base.val();
        self.pointer.follow.next = false;
        self.pointer.next_host.next = self.next_host.val();
        self.pointer.next_int.next = self.next_int.val();
        self.host.next = self.pointer.host.val();
        self.cur.next = self.pointer.cur.val();

        // A failed completion stops the channel; the timeout too, if nothing comes back.
        self.stop.clock.next = self.clock.val();
        self.stop.reset.next = self.reset.val();
        self.stop.start.next = self.starting.val();
        self.stop.check.next = false;
        self.stop.check_cause.next = self.check_cause.val();
        self.stop.limit.next = false;
        self.stop.cpl_error.next = self.cpl_error.val()
            && ((self.state_q.q.val() == ChanState::Run)
                || (self.state_q.q.val() == ChanState::FetchHostWait));
        self.stop.expired.next = self.expired.val();
        self.stop.draining.next = self.state_q.q.val() == ChanState::Drain;
        self.cause.next = self.stop.cause.val();

        if self.starting.val() {
            self.state_q.d.next = ChanState::FetchInt;
            if self.start_host.val() {
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
                self.stop.check.next = true;
                self.state_q.d.next = ChanState::Error;
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
                    self.stop.limit.next = true;
                    self.state_q.d.next = ChanState::Error;
                } else {
                    self.pointer.follow.next = true;
                    self.state_q.d.next = ChanState::FetchInt;
                    if self.pointer.host.val() {
                        self.state_q.d.next = ChanState::FetchHost;
                    }
                }
            }
            ChanState::Drain => {
                self.running.next = true;
                if self.reads_idle.val() && !self.w_flight.val() {
                    self.state_q.d.next = ChanState::Error;
                }
            }
        }
        if self.stop.cpl_error.val() {
            self.state_q.d.next = ChanState::Drain;
        }
        if self.expired.val() {
            self.chan_reset.next = true;
            self.state_q.d.next = ChanState::Error;
        }

        if self.reset.val() {
            self.state_q.d.next = ChanState::Idle;
        }
    }
}
