//! The completer side of a memory: answers read requests after a fixed latency at a
//! limited bandwidth, split into completions by the read completion rules, and emits the
//! completions in order when their time comes.
//!
//! Timing model: a read arriving at cycle `t` starts being served at `t + latency`; its
//! completions then pass one after another through a [`BandwidthGate`] shared by all
//! reads of this completer, each ready when its last payload byte is through. Error
//! completions and other responses take the latency but no bandwidth. Responses leave in
//! the order they were scheduled (never earlier than one scheduled before them).
//!
//! Data is read when the request is scheduled, which is when it arrives: PCIe ordering
//! lets a read's data reflect every posted write that arrived before it.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::bandwidth::{Bandwidth, BandwidthGate};
use crate::completion::{
    error_completion, split_completions, CompletionError, CompletionRules, ReadSpan,
};
use crate::time::Cycles;
use crate::tlp::{Bdf, CplStatus, Tlp};

/// Latency and bandwidth of a completer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadServerConfig {
    /// Cycles from a request's arrival to the start of its data.
    pub latency: Cycles,
    /// Rate at which read data is produced.
    pub bandwidth: Bandwidth,
}

/// Schedules and releases the completions of one completer.
#[derive(Debug, Clone)]
pub struct ReadServer {
    completer_id: Bdf,
    latency: Cycles,
    gate: BandwidthGate,
    pending: VecDeque<(Cycles, Tlp)>,
    last_ready: Cycles,
}

impl ReadServer {
    /// An idle completer answering as `completer_id`.
    pub fn new(completer_id: Bdf, config: ReadServerConfig) -> ReadServer {
        ReadServer {
            completer_id,
            latency: config.latency,
            gate: BandwidthGate::new(config.bandwidth),
            pending: VecDeque::new(),
            last_ready: Cycles::ZERO,
        }
    }

    /// The Completer ID put in completions.
    pub fn completer_id(&self) -> Bdf {
        self.completer_id
    }

    /// Changes the Completer ID (an endpoint learns its bus and device numbers from the
    /// first configuration write).
    pub fn set_completer_id(&mut self, id: Bdf) {
        self.completer_id = id;
    }

    fn push(&mut self, ready: Cycles, tlp: Tlp) {
        let ready = ready.max(self.last_ready);
        self.last_ready = ready;
        self.pending.push_back((ready, tlp));
    }

    /// Schedules the successful completions of the read `mrd` that arrived at `now`,
    /// split by `rules`, with data from `read(address, buf)`.
    pub fn serve(
        &mut self,
        now: Cycles,
        mrd: &Tlp,
        rules: &CompletionRules,
        mut read: impl FnMut(u64, &mut [u8]),
    ) -> Result<(), CompletionError> {
        let span = ReadSpan::of_request(mrd)?;
        let start = now + self.latency;
        let mut built = Vec::new();
        for c in split_completions(&span, rules) {
            let mut data = vec![0u8; (c.data_end - c.data_start) as usize];
            read(c.data_start, &mut data);
            let tlp = Tlp::completion(
                self.completer_id,
                CplStatus::Sc,
                mrd.requester_id(),
                mrd.tag(),
                c.byte_count,
                c.lower_address,
                &data,
            )?;
            built.push((u64::from(c.length_dw) * 4, tlp));
        }
        for (bytes, tlp) in built {
            let ready = self.gate.reserve(start, bytes);
            self.push(ready, tlp);
        }
        Ok(())
    }

    /// Schedules a completion without data failing `request` (arrived at `now`) with
    /// `status`.
    pub fn reject(
        &mut self,
        now: Cycles,
        request: &Tlp,
        status: CplStatus,
    ) -> Result<(), CompletionError> {
        let cpl = error_completion(request, self.completer_id, status)?;
        self.push(now + self.latency, cpl);
        Ok(())
    }

    /// Schedules a ready-made response (e.g. a configuration completion) to a request
    /// that arrived at `now`.
    pub fn respond(&mut self, now: Cycles, cpl: Tlp) {
        self.push(now + self.latency, cpl);
    }

    /// The next completion whose time has come, if any.
    pub fn pop_ready(&mut self, now: Cycles) -> Option<Tlp> {
        match self.pending.front() {
            Some((ready, _)) if *ready <= now => self.pending.pop_front().map(|(_, t)| t),
            _ => None,
        }
    }

    /// Cycle at which the next completion is ready, if any is pending.
    pub fn next_ready(&self) -> Option<Cycles> {
        self.pending.front().map(|(t, _)| *t)
    }

    /// Number of completions scheduled and not yet released.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::{MaxPayloadSize, Rcb};
    use crate::tlp::{Addr, Tag};

    fn server() -> ReadServer {
        ReadServer::new(
            Bdf(0),
            ReadServerConfig {
                latency: Cycles(100),
                bandwidth: Bandwidth::per_cycle(16).unwrap(),
            },
        )
    }

    fn drain(s: &mut ReadServer, until: u64) -> Vec<(u64, Tlp)> {
        let mut out = Vec::new();
        for t in 0..=until {
            while let Some(tlp) = s.pop_ready(Cycles(t)) {
                out.push((t, tlp));
            }
        }
        out
    }

    #[test]
    fn completions_leave_after_latency_at_bandwidth() {
        let mut s = server();
        let rules = CompletionRules::new(Rcb::B64, MaxPayloadSize::B256);
        let mrd = Tlp::mem_read(Bdf(0x100), Tag(3), Addr(0x1000), 1024).unwrap();
        s.serve(Cycles(10), &mrd, &rules, |a, b| b.fill(a as u8))
            .unwrap();
        assert_eq!(s.pending(), 4);
        assert_eq!(s.next_ready(), Some(Cycles(126)));
        let out = drain(&mut s, 400);
        // 256 B at 16 B/cycle: one completion every 16 cycles after 10 + 100.
        let times: Vec<u64> = out.iter().map(|(t, _)| *t).collect();
        assert_eq!(times, vec![126, 142, 158, 174]);
        assert!(out
            .iter()
            .all(|(_, c)| c.tag() == Tag(3) && c.payload_len() == 256));
        assert_eq!(out[1].1.data()[0], 0x00); // address 0x1100
    }

    #[test]
    fn later_reads_queue_behind_earlier_ones_and_errors_keep_order() {
        let mut s = server();
        let rules = CompletionRules::new(Rcb::B64, MaxPayloadSize::B256);
        let big = Tlp::mem_read(Bdf(0x100), Tag(1), Addr(0x0), 4096).unwrap();
        let small = Tlp::mem_read(Bdf(0x100), Tag(2), Addr(0x8000), 4).unwrap();
        s.serve(Cycles(0), &big, &rules, |_, _| {}).unwrap();
        s.reject(Cycles(1), &small, CplStatus::Ur).unwrap();
        s.serve(Cycles(2), &small, &rules, |_, _| {}).unwrap();
        let out = drain(&mut s, 1000);
        assert_eq!(out.len(), 18);
        // The big read takes 4096/16 = 256 cycles from cycle 100.
        assert_eq!(out[15].0, 356);
        // The UR would be ready at 101 but does not overtake the big read's completions.
        assert_eq!(out[16].0, 356);
        assert_eq!(out[16].1.status(), Some(CplStatus::Ur));
        assert_eq!(out[17].0, 357);
        assert_eq!(out[17].1.tag(), Tag(2));
    }

    #[test]
    fn rejects_non_reads() {
        let mut s = server();
        let rules = CompletionRules::new(Rcb::B64, MaxPayloadSize::B256);
        let mwr = Tlp::mem_write(Bdf(0x100), Tag(1), Addr(0x0), &[1, 2, 3, 4]).unwrap();
        assert!(matches!(
            s.serve(Cycles(0), &mwr, &rules, |_, _| {}),
            Err(CompletionError::NotAMemoryRead(_))
        ));
        assert_eq!(s.pending(), 0);
    }
}
