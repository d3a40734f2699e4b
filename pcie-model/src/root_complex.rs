//! A root complex with host memory, as a cycle-stepped component.
//!
//! Towards the device it is a completer: memory reads into configured host memory are
//! answered after a latency at a bandwidth, split by its completion rules (RCB, MPS);
//! posted writes land in host memory. Requests outside host memory get Unsupported
//! Request completions (reads, other non-posted requests) or are dropped and counted
//! (writes). As a requester it issues MMIO reads and writes and configuration requests
//! to the device (the CPU's view of a BAR) and enumerates a device.
//!
//! Connection: the simulator delivers TLPs from the link with [`RootComplex::receive`],
//! calls [`RootComplex::step`] every cycle, and sends what [`RootComplex::pop_to_device`]
//! yields. Flow control is the link's business: the queues are unbounded here.

mod config;
pub mod enumeration;

pub use config::{AddressRange, RcConfigError, RootComplexConfig};

use std::collections::VecDeque;

use crate::completion::{CompletionRules, ReadSpan};
use crate::limits::{MaxPayloadSize, Rcb};
use crate::memory::{payload_byte_enables, SparseMemory};
use crate::read_server::ReadServer;
use crate::requester::{
    IssueError, RequestError, RequestHandle, RequestOutcome, Requester, RequesterLimits,
};
use crate::time::Cycles;
use crate::tlp::{Bdf, CplStatus, Header, Tlp, TlpKind};
use enumeration::{ConfigOp, EnumError, EnumStep, EnumeratedDevice, EnumerationPlan, Enumerator};

/// Event counts of a root complex.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RcCounters {
    /// Memory reads answered from host memory.
    pub reads_served: u64,
    /// Posted writes committed to host memory.
    pub writes_accepted: u64,
    /// Memory reads outside host memory (answered with UR).
    pub unsupported_reads: u64,
    /// Other non-posted requests answered with UR (I/O, config, atomics, locked reads).
    pub unsupported_requests: u64,
    /// Posted writes outside host memory, dropped.
    pub dropped_writes: u64,
    /// Poisoned (EP) writes, dropped.
    pub poisoned_writes: u64,
    /// Completions that matched no outstanding request.
    pub unexpected_completions: u64,
    /// Messages received (not acted on).
    pub messages: u64,
    /// Memory reads of a failing range (answered with Completer Abort).
    pub failed_reads: u64,
    /// Memory reads of a losing range (never answered).
    pub lost_reads: u64,
}

/// Errors of the root complex's requester operations.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RcError {
    /// The request could not be issued.
    #[error(transparent)]
    Issue(#[from] IssueError),
    /// An enumeration is already running.
    #[error("an enumeration is already running")]
    EnumerationBusy,
}

#[derive(Debug)]
struct EnumerationRun {
    enumerator: Enumerator,
    /// An access waiting for a free tag.
    to_issue: Option<ConfigOp>,
    pending: Option<RequestHandle>,
}

/// The root complex; see the module documentation.
#[derive(Debug)]
pub struct RootComplex {
    config: RootComplexConfig,
    memory: SparseMemory,
    server: ReadServer,
    requester: Requester,
    from_device: VecDeque<Tlp>,
    to_device: VecDeque<Tlp>,
    counters: RcCounters,
    enumeration: Option<EnumerationRun>,
    enumeration_result: Option<Result<EnumeratedDevice, EnumError>>,
    now: Cycles,
    /// Host memory ranges `(base, len)` whose reads fail (a fault being injected).
    failing: Vec<(u64, u64)>,
    /// Host memory ranges whose reads are never answered (a fault being injected).
    losing: Vec<(u64, u64)>,
}

impl RootComplex {
    /// A root complex with empty host memory.
    pub fn new(config: RootComplexConfig) -> Result<RootComplex, RcConfigError> {
        config.validate()?;
        let requester = Requester::new(
            config.requester_id,
            RequesterLimits {
                tags: config.tags,
                max_read_request: config.max_read_request,
                max_payload: config.completion_rules.max_payload(),
                // Devices other than root complexes complete at a 128-byte RCB.
                completer_rcb: Some(Rcb::B128),
                completion_timeout: config.completion_timeout,
            },
        )?;
        Ok(RootComplex {
            memory: SparseMemory::with_fill(config.memory_fill),
            server: ReadServer::new(config.requester_id, config.read_server),
            requester,
            from_device: VecDeque::new(),
            to_device: VecDeque::new(),
            counters: RcCounters::default(),
            enumeration: None,
            enumeration_result: None,
            now: Cycles::ZERO,
            failing: Vec::new(),
            losing: Vec::new(),
            config,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &RootComplexConfig {
        &self.config
    }

    /// Host memory (what `tcaMalloc` buffers live in).
    pub fn host_memory(&self) -> &SparseMemory {
        &self.memory
    }

    /// Host memory, for the CPU's own loads and stores.
    pub fn host_memory_mut(&mut self) -> &mut SparseMemory {
        &mut self.memory
    }

    /// Event counts.
    pub fn counters(&self) -> RcCounters {
        self.counters
    }

    /// Hands over a TLP that arrived from the device; it is processed at the next step.
    pub fn receive(&mut self, tlp: Tlp) {
        self.from_device.push_back(tlp);
    }

    /// The next TLP to send to the device.
    pub fn pop_to_device(&mut self) -> Option<Tlp> {
        self.to_device.pop_front()
    }

    /// Number of TLPs waiting to go to the device.
    pub fn to_device_len(&self) -> usize {
        self.to_device.len()
    }

    /// True when nothing is queued, scheduled or outstanding.
    pub fn is_idle(&self) -> bool {
        self.from_device.is_empty()
            && self.to_device.is_empty()
            && self.server.pending() == 0
            && self.requester.outstanding() == 0
    }

    /// Advances to cycle `now`: handles received TLPs, releases completions whose time
    /// has come, expires timed-out requests and moves enumeration along.
    pub fn step(&mut self, now: Cycles) {
        self.now = now;
        while let Some(tlp) = self.from_device.pop_front() {
            self.handle(tlp);
        }
        while let Some(cpl) = self.server.pop_ready(now) {
            self.to_device.push_back(cpl);
        }
        for h in self.requester.expire(now) {
            self.finished(h);
        }
        self.issue_enumeration_op();
    }

    fn in_host_memory(&self, addr: u64, len: u64) -> bool {
        self.config
            .host_memory
            .iter()
            .any(|r| r.contains(addr, len))
    }

    fn handle(&mut self, tlp: Tlp) {
        match tlp.kind() {
            TlpKind::MWr => self.handle_write(&tlp),
            TlpKind::MRd => self.handle_read(&tlp),
            TlpKind::Cpl | TlpKind::CplD | TlpKind::CplLk | TlpKind::CplDLk => {
                match self.requester.on_completion(&tlp) {
                    Ok(Some(h)) => self.finished(h),
                    Ok(None) => {}
                    Err(_) => self.counters.unexpected_completions += 1,
                }
            }
            TlpKind::Msg | TlpKind::MsgD => self.counters.messages += 1,
            _ => {
                self.counters.unsupported_requests += 1;
                self.reject(&tlp);
            }
        }
    }

    fn reject(&mut self, tlp: &Tlp) {
        // Requests built by the TLP module always have a requester id and tag, so an
        // error completion can always be built.
        if let Err(e) = self.server.reject(self.now, tlp, CplStatus::Ur) {
            unreachable!("UR completion for a valid request: {e}");
        }
    }

    /// Fault injection: from now on, reads of host memory that touch the `len` bytes at
    /// `base` fail as an uncorrectable memory error does: the root complex answers them
    /// with Completer Abort. Writes still land.
    pub fn fail_reads(&mut self, base: u64, len: u64) {
        self.failing.push((base, len));
    }

    /// Fault injection: from now on, reads of host memory that touch the `len` bytes at
    /// `base` are lost: no completion ever comes (the requester's completion timeout is
    /// what finds out). Writes still land.
    pub fn lose_reads(&mut self, base: u64, len: u64) {
        self.losing.push((base, len));
    }

    /// Ends every [`RootComplex::fail_reads`] and [`RootComplex::lose_reads`] fault.
    pub fn heal_reads(&mut self) {
        self.failing.clear();
        self.losing.clear();
    }

    fn handle_read(&mut self, mrd: &Tlp) {
        let span = match ReadSpan::of_request(mrd) {
            Ok(s) => s,
            Err(e) => unreachable!("MRd has a read span: {e}"),
        };
        let len = u64::from(span.length_dw) * 4;
        if !self.in_host_memory(span.dw_start, len) {
            self.counters.unsupported_reads += 1;
            self.reject(mrd);
            return;
        }
        let start = span.dw_start;
        let touches = |ranges: &[(u64, u64)]| {
            ranges
                .iter()
                .any(|&(b, l)| start < b.saturating_add(l) && b < start.saturating_add(len))
        };
        if touches(&self.losing) {
            self.counters.lost_reads += 1;
            return;
        }
        if touches(&self.failing) {
            self.counters.failed_reads += 1;
            if let Err(e) = self.server.reject(self.now, mrd, CplStatus::Ca) {
                unreachable!("CA completion for a valid request: {e}");
            }
            return;
        }
        self.counters.reads_served += 1;
        let memory = &self.memory;
        let served = self
            .server
            .serve(self.now, mrd, &self.config.completion_rules, |a, buf| {
                if let Err(e) = memory.read(a, buf) {
                    unreachable!("host memory range checked: {e}");
                }
            });
        if let Err(e) = served {
            unreachable!("completions of a valid MRd: {e}");
        }
    }

    fn handle_write(&mut self, mwr: &Tlp) {
        let Header::MemWrite(req) = mwr.header() else {
            unreachable!("MWr has a MemWrite header");
        };
        let addr = req.address.0;
        let data = mwr.data();
        if mwr.ep() {
            self.counters.poisoned_writes += 1;
            return;
        }
        if !self.in_host_memory(addr, data.len() as u64) {
            self.counters.dropped_writes += 1;
            return;
        }
        let enable = payload_byte_enables(req.first_be, req.last_be, data.len());
        if let Err(e) = self.memory.write_masked(addr, data, &enable) {
            unreachable!("host memory range checked: {e}");
        }
        self.counters.writes_accepted += 1;
    }

    /// Issues an MMIO read of `len` bytes at `addr` (at most MRRS, not crossing 4 KiB).
    pub fn mmio_read(&mut self, addr: u64, len: usize) -> Result<RequestHandle, RcError> {
        let (h, tlp) = self.requester.mem_read(self.now, addr, len)?;
        self.to_device.push_back(tlp);
        Ok(h)
    }

    /// Issues MMIO writes of `data` at `addr`, split at MPS and 4 KiB boundaries.
    pub fn mmio_write(&mut self, addr: u64, data: &[u8]) -> Result<(), RcError> {
        let tlps = self.mmio_write_tlps(addr, data)?;
        self.send_writes(tlps);
        Ok(())
    }

    /// The write TLPs [`RootComplex::mmio_write`] would issue, not issued: a CPU's posted
    /// store is checked when the core makes it and reaches the root port later.
    pub fn mmio_write_tlps(&self, addr: u64, data: &[u8]) -> Result<Vec<Tlp>, RcError> {
        Ok(self.requester.mem_write(addr, data)?)
    }

    /// Issues write TLPs made by [`RootComplex::mmio_write_tlps`].
    pub fn send_writes(&mut self, tlps: impl IntoIterator<Item = Tlp>) {
        self.to_device.extend(tlps);
    }

    /// Issues a configuration read of DW register `register` of `target`.
    pub fn config_read(&mut self, target: Bdf, register: u16) -> Result<RequestHandle, RcError> {
        let (h, tlp) = self.requester.config_read(self.now, target, register)?;
        self.to_device.push_back(tlp);
        Ok(h)
    }

    /// Issues a configuration write to DW register `register` of `target`.
    pub fn config_write(
        &mut self,
        target: Bdf,
        register: u16,
        value: u32,
        byte_enable: u8,
    ) -> Result<RequestHandle, RcError> {
        let (h, tlp) =
            self.requester
                .config_write(self.now, target, register, value, byte_enable)?;
        self.to_device.push_back(tlp);
        Ok(h)
    }

    /// The result of a finished MMIO or configuration request (once).
    pub fn take_result(
        &mut self,
        h: RequestHandle,
    ) -> Option<Result<RequestOutcome, RequestError>> {
        self.requester.take_result(h)
    }

    /// Starts enumerating the function `target` (sizing and assigning its BARs, setting
    /// MPS/MRRS/RCB, enabling memory space and bus mastering).
    pub fn start_enumeration(&mut self, target: Bdf) -> Result<(), RcError> {
        if self.enumeration.is_some() {
            return Err(RcError::EnumerationBusy);
        }
        let plan = EnumerationPlan {
            mmio32: self.config.mmio32,
            mmio64: self.config.mmio64,
            max_payload: self.config.completion_rules.max_payload(),
            max_read_request: self.config.max_read_request,
            rcb: self.config.completion_rules.rcb(),
        };
        let enumerator = Enumerator::new(target, plan);
        let EnumStep::Issue(first) = enumerator.start() else {
            unreachable!("enumeration starts with an access");
        };
        self.enumeration_result = None;
        self.enumeration = Some(EnumerationRun {
            enumerator,
            to_issue: Some(first),
            pending: None,
        });
        self.issue_enumeration_op();
        Ok(())
    }

    /// Both ends of a link must use the same MPS: when enumeration programs a device with
    /// a smaller one than the root port's, the root port follows.
    fn match_max_payload(&mut self, mps: MaxPayloadSize) {
        let rules = self.config.completion_rules;
        if mps >= rules.max_payload() {
            return;
        }
        let limit = rules.chunk_limit().min(mps.bytes());
        self.config.completion_rules = CompletionRules::new(rules.rcb(), mps)
            .with_chunk_limit(limit)
            .expect("the smaller of two RCB multiples, at most MPS");
        self.requester.set_max_payload(mps);
    }

    /// The outcome of the last enumeration, once it has finished.
    pub fn enumeration_result(&self) -> Option<&Result<EnumeratedDevice, EnumError>> {
        self.enumeration_result.as_ref()
    }

    fn issue_enumeration_op(&mut self) {
        let Some(run) = &mut self.enumeration else {
            return;
        };
        let Some(op) = run.to_issue else {
            return;
        };
        let target = run.enumerator.target();
        let issued = match op {
            ConfigOp::Read { register } => self.requester.config_read(self.now, target, register),
            ConfigOp::Write {
                register,
                value,
                byte_enable,
            } => self
                .requester
                .config_write(self.now, target, register, value, byte_enable),
        };
        match issued {
            Ok((h, tlp)) => {
                run.pending = Some(h);
                run.to_issue = None;
                self.to_device.push_back(tlp);
            }
            // Retried at the next step when a tag frees up.
            Err(IssueError::NoFreeTag(_)) => {}
            Err(e) => {
                self.enumeration = None;
                self.enumeration_result = Some(Err(EnumError::Issue(e)));
            }
        }
    }

    fn finished(&mut self, h: RequestHandle) {
        let Some(run) = &mut self.enumeration else {
            return;
        };
        if run.pending != Some(h) {
            return;
        }
        run.pending = None;
        let result = self
            .requester
            .take_result(h)
            .expect("a finished request has a result");
        match run.enumerator.advance(result) {
            Ok(EnumStep::Issue(op)) => run.to_issue = Some(op),
            Ok(EnumStep::Done(dev)) => {
                self.enumeration = None;
                self.match_max_payload(dev.max_payload);
                self.enumeration_result = Some(Ok(dev));
            }
            Err(e) => {
                self.enumeration = None;
                self.enumeration_result = Some(Err(e));
            }
        }
    }
}

#[cfg(test)]
mod tests;
