//! The requester side of non-posted transactions: tag allocation, the table of
//! outstanding requests, completion matching and checking, and completion timeouts.
//!
//! A [`Requester`] builds the request TLPs (MRd, CfgRd0, CfgWr0, and the posted MWr
//! split at MPS and 4 KiB boundaries) and hands them to the caller to send; completions
//! the caller receives go to [`Requester::on_completion`]; results are collected by
//! [`RequestHandle`].

use std::collections::{HashMap, VecDeque};

use crate::completion::{
    check_4k, split_requests, AssemblyProgress, CompletionError, ReadAssembler,
};
use crate::limits::{MaxPayloadSize, MaxReadRequestSize, Rcb};
use crate::time::Cycles;
use crate::tlp::{Addr, Bdf, CfgType, CplStatus, Tag, Tlp, TlpError};

/// Identifies one non-posted request issued through a [`Requester`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RequestHandle(pub u64);

/// What a successful request returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestOutcome {
    /// The bytes of a memory read.
    Read(Vec<u8>),
    /// The value of a configuration read (bits 8k+7:8k are byte k of the register).
    ConfigRead(u32),
    /// A configuration write completed.
    ConfigWritten,
}

impl RequestOutcome {
    /// The value of a 4-byte memory read (little-endian, as a register reads), if this
    /// is one.
    pub fn dword(&self) -> Option<u32> {
        match self {
            RequestOutcome::Read(b) => Some(u32::from_le_bytes(b.as_slice().try_into().ok()?)),
            _ => None,
        }
    }
}

/// Why a request failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    /// The completer returned Unsupported Request.
    #[error("unsupported request")]
    UnsupportedRequest,
    /// The completer returned Completer Abort.
    #[error("completer abort")]
    CompleterAbort,
    /// The completer returned Configuration Request Retry Status.
    #[error("configuration request retry status")]
    ConfigRetry,
    /// No (complete) answer before the completion timeout.
    #[error("completion timeout")]
    Timeout,
    /// A completion broke the completion rules.
    #[error("malformed completion: {0}")]
    Malformed(CompletionError),
}

impl RequestError {
    fn from_status(status: CplStatus) -> RequestError {
        match status {
            CplStatus::Ur => RequestError::UnsupportedRequest,
            CplStatus::Crs => RequestError::ConfigRetry,
            // Sc never reaches here; Ca and anything else abort.
            _ => RequestError::CompleterAbort,
        }
    }
}

/// A request that cannot be issued.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IssueError {
    /// All tags are in use.
    #[error("all {0} tags are in use")]
    NoFreeTag(u16),
    /// A read longer than the max read request size.
    #[error("read of {len} bytes exceeds the max read request size {max}")]
    ExceedsMaxReadRequest {
        /// Bytes asked for.
        len: usize,
        /// Limit.
        max: u32,
    },
    /// The request breaks a completion/request rule (4 KiB crossing, address overflow).
    #[error(transparent)]
    Rule(#[from] CompletionError),
    /// The TLP could not be built.
    #[error(transparent)]
    Tlp(#[from] TlpError),
    /// Tag count outside 1..=256.
    #[error("tag count must be 1..=256, got {0}")]
    TagCount(u16),
}

/// A completion that matched no outstanding request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnexpectedCompletion {
    /// Not a completion at all.
    #[error("not a completion: {0}")]
    NotACompletion(String),
    /// For another requester id.
    #[error("completion for requester {0}, not this one")]
    OtherRequester(Bdf),
    /// No request outstanding with this tag.
    #[error("no request outstanding with tag {0}")]
    UnknownTag(Tag),
}

#[derive(Debug, Clone)]
enum PendingKind {
    MemRead(Box<ReadAssembler>),
    ConfigRead,
    ConfigWrite,
}

#[derive(Debug, Clone)]
struct Pending {
    handle: RequestHandle,
    kind: PendingKind,
    deadline: Cycles,
}

/// Limits a requester works within.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequesterLimits {
    /// Number of tags (32 with 5-bit tags, 256 with extended tags).
    pub tags: u16,
    /// Largest read request.
    pub max_read_request: MaxReadRequestSize,
    /// Largest write payload.
    pub max_payload: MaxPayloadSize,
    /// RCB completions must respect (checked on partial completions), if known.
    pub completer_rcb: Option<Rcb>,
    /// Time after which an unanswered request fails with [`RequestError::Timeout`].
    pub completion_timeout: Cycles,
}

/// Tracks the non-posted requests of one requester id.
#[derive(Debug, Clone)]
pub struct Requester {
    id: Bdf,
    limits: RequesterLimits,
    free_tags: VecDeque<u8>,
    outstanding: HashMap<u8, Pending>,
    results: HashMap<RequestHandle, Result<RequestOutcome, RequestError>>,
    next_handle: u64,
}

impl Requester {
    /// A requester with id `id` and all tags free.
    pub fn new(id: Bdf, limits: RequesterLimits) -> Result<Requester, IssueError> {
        if limits.tags == 0 || limits.tags > 256 {
            return Err(IssueError::TagCount(limits.tags));
        }
        Ok(Requester {
            id,
            limits,
            free_tags: (0..limits.tags).map(|t| t as u8).collect(),
            outstanding: HashMap::new(),
            results: HashMap::new(),
            next_handle: 0,
        })
    }

    /// The requester id.
    pub fn id(&self) -> Bdf {
        self.id
    }

    /// The limits in force.
    pub fn limits(&self) -> &RequesterLimits {
        &self.limits
    }

    /// Changes the max payload size used to split writes and to check completions (after
    /// software reprograms Device Control).
    pub fn set_max_payload(&mut self, mps: MaxPayloadSize) {
        self.limits.max_payload = mps;
    }

    /// Number of requests waiting for completions.
    pub fn outstanding(&self) -> usize {
        self.outstanding.len()
    }

    fn alloc(
        &mut self,
        now: Cycles,
        build: impl FnOnce(Tag) -> Result<(Tlp, PendingKind), IssueError>,
    ) -> Result<(RequestHandle, Tlp), IssueError> {
        let tag = *self
            .free_tags
            .front()
            .ok_or(IssueError::NoFreeTag(self.limits.tags))?;
        let (tlp, kind) = build(Tag(tag))?;
        self.free_tags.pop_front();
        let handle = RequestHandle(self.next_handle);
        self.next_handle += 1;
        self.outstanding.insert(
            tag,
            Pending {
                handle,
                kind,
                deadline: now + self.limits.completion_timeout,
            },
        );
        Ok((handle, tlp))
    }

    /// Issues a memory read of `len` bytes at `addr` (at most MRRS, not crossing 4 KiB).
    pub fn mem_read(
        &mut self,
        now: Cycles,
        addr: u64,
        len: usize,
    ) -> Result<(RequestHandle, Tlp), IssueError> {
        let max = self.limits.max_read_request.bytes();
        if len > max as usize {
            return Err(IssueError::ExceedsMaxReadRequest { len, max });
        }
        check_4k(addr, len as u64)?;
        let (id, rcb, mps) = (self.id, self.limits.completer_rcb, self.limits.max_payload);
        self.alloc(now, |tag| {
            let tlp = Tlp::mem_read(id, tag, Addr(addr), len)?;
            let asm = ReadAssembler::new(&tlp, rcb, Some(mps))?;
            Ok((tlp, PendingKind::MemRead(Box::new(asm))))
        })
    }

    /// Issues a type-0 configuration read of DW register `register` of `target`.
    pub fn config_read(
        &mut self,
        now: Cycles,
        target: Bdf,
        register: u16,
    ) -> Result<(RequestHandle, Tlp), IssueError> {
        let id = self.id;
        self.alloc(now, |tag| {
            let tlp = Tlp::cfg_read(CfgType::Type0, id, tag, target, register, 0xf)?;
            Ok((tlp, PendingKind::ConfigRead))
        })
    }

    /// Issues a type-0 configuration write of `value` (bytes selected by `byte_enable`)
    /// to DW register `register` of `target`.
    pub fn config_write(
        &mut self,
        now: Cycles,
        target: Bdf,
        register: u16,
        value: u32,
        byte_enable: u8,
    ) -> Result<(RequestHandle, Tlp), IssueError> {
        let id = self.id;
        self.alloc(now, |tag| {
            let tlp = Tlp::cfg_write(
                CfgType::Type0,
                id,
                tag,
                target,
                register,
                byte_enable,
                value,
            )?;
            Ok((tlp, PendingKind::ConfigWrite))
        })
    }

    /// Builds the posted writes of `data` to `addr`, split at MPS-aligned boundaries
    /// (so none exceeds MPS or crosses 4 KiB). Posted writes take no tag.
    pub fn mem_write(&self, addr: u64, data: &[u8]) -> Result<Vec<Tlp>, IssueError> {
        let chunks = split_requests(addr, data.len() as u64, self.limits.max_payload.bytes())?;
        chunks
            .iter()
            .map(|c| {
                let off = (c.addr.0 - addr) as usize;
                let bytes = &data[off..off + c.len as usize];
                Tlp::mem_write(self.id, Tag(0), c.addr, bytes).map_err(IssueError::from)
            })
            .collect()
    }

    fn finish(&mut self, tag: u8, result: Result<RequestOutcome, RequestError>) -> RequestHandle {
        let pending = self
            .outstanding
            .remove(&tag)
            .expect("finish is called for outstanding tags only");
        self.free_tags.push_back(tag);
        self.results.insert(pending.handle, result);
        pending.handle
    }

    /// Matches a received completion to its request. Returns the handle if the request is
    /// now finished (successfully or not), `None` if more completions are due.
    pub fn on_completion(
        &mut self,
        cpl: &Tlp,
    ) -> Result<Option<RequestHandle>, UnexpectedCompletion> {
        let c = cpl
            .as_completion()
            .ok_or_else(|| UnexpectedCompletion::NotACompletion(cpl.kind().to_string()))?;
        if c.requester_id != self.id {
            return Err(UnexpectedCompletion::OtherRequester(c.requester_id));
        }
        let tag = c.tag.0;
        let pending = self
            .outstanding
            .get_mut(&tag)
            .ok_or(UnexpectedCompletion::UnknownTag(c.tag))?;
        if c.status != CplStatus::Sc {
            let err = RequestError::from_status(c.status);
            return Ok(Some(self.finish(tag, Err(err))));
        }
        let result = match &mut pending.kind {
            PendingKind::MemRead(asm) => match asm.accept(cpl) {
                Ok(AssemblyProgress::Partial { .. }) => return Ok(None),
                Ok(AssemblyProgress::Done(data)) => Ok(RequestOutcome::Read(data)),
                Ok(AssemblyProgress::Failed(status)) => Err(RequestError::from_status(status)),
                Err(e) => Err(RequestError::Malformed(e)),
            },
            PendingKind::ConfigRead => match cpl.data() {
                [b0, b1, b2, b3] => Ok(RequestOutcome::ConfigRead(u32::from_le_bytes([
                    *b0, *b1, *b2, *b3,
                ]))),
                _ => Err(RequestError::Malformed(CompletionError::PayloadLength {
                    got_dw: (cpl.payload_len() / 4) as u32,
                    remaining_dw: 1,
                })),
            },
            PendingKind::ConfigWrite => {
                if cpl.has_data() {
                    Err(RequestError::Malformed(CompletionError::PayloadLength {
                        got_dw: (cpl.payload_len() / 4) as u32,
                        remaining_dw: 0,
                    }))
                } else {
                    Ok(RequestOutcome::ConfigWritten)
                }
            }
        };
        Ok(Some(self.finish(tag, result)))
    }

    /// Fails every request whose completion timeout has passed at `now`; returns their
    /// handles.
    pub fn expire(&mut self, now: Cycles) -> Vec<RequestHandle> {
        let mut late: Vec<u8> = self
            .outstanding
            .iter()
            .filter(|(_, p)| p.deadline <= now)
            .map(|(t, _)| *t)
            .collect();
        late.sort_unstable();
        late.into_iter()
            .map(|t| self.finish(t, Err(RequestError::Timeout)))
            .collect()
    }

    /// Takes the result of a finished request (`None` while it is still outstanding or
    /// after it was taken).
    pub fn take_result(
        &mut self,
        h: RequestHandle,
    ) -> Option<Result<RequestOutcome, RequestError>> {
        self.results.remove(&h)
    }
}

#[cfg(test)]
mod tests;
