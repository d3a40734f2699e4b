//! Read completion rules (PCIe Base spec section 2.3.1.1) and request sizing rules
//! (sections 2.2.7 and 2.3.1.1 / Device Control).
//!
//! - A completer may answer one memory read with several completions. Every completion
//!   carries at most MPS bytes, and every completion but the last must end on a Read
//!   Completion Boundary (RCB) aligned address. Each completion's Byte Count is the number
//!   of bytes still to be returned, this completion's included; its Lower Address is bits
//!   6:0 of the byte address of its first returned byte. Completions of one request
//!   arrive in address order.
//! - A request must not cross a 4 KiB boundary; reads are at most MRRS bytes and writes
//!   at most MPS bytes, so a requester splits large transfers.
//!
//! [`split_completions`] and [`build_completions`] are the completer's side,
//! [`ReadAssembler`] the requester's, [`split_requests`] and [`check_4k`] the request
//! rules.

use serde::{Deserialize, Serialize};

use crate::limits::{MaxPayloadSize, Rcb};
use crate::tlp::{Addr, Bdf, Completion, CplStatus, Header, Tlp, TlpError};

/// Violations of the completion and request rules, and malformed inputs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompletionError {
    /// The TLP given as the request is not an MRd.
    #[error("expected a memory read request, got {0}")]
    NotAMemoryRead(String),
    /// The TLP given as a completion is not one.
    #[error("expected a completion, got {0}")]
    NotACompletion(String),
    /// Completion for another requester or tag.
    #[error("completion for requester {got_requester} tag {got_tag} does not match request {requester} tag {tag}")]
    WrongTransaction {
        /// Requester id of the request.
        requester: Bdf,
        /// Tag of the request.
        tag: u8,
        /// Requester id in the completion.
        got_requester: Bdf,
        /// Tag in the completion.
        got_tag: u8,
    },
    /// A completion arrived after the request was complete.
    #[error("completion after the request was already complete")]
    AlreadyComplete,
    /// Byte Count is not the number of bytes still to be returned.
    #[error("byte count {got}, expected {expected} (bytes remaining)")]
    ByteCount {
        /// Remaining bytes.
        expected: u32,
        /// Field value.
        got: u32,
    },
    /// Lower Address is not the low 7 bits of the next byte's address.
    #[error("lower address {got:#04x}, expected {expected:#04x}")]
    LowerAddress {
        /// Expected value.
        expected: u8,
        /// Field value.
        got: u8,
    },
    /// A successful completion without data, or with more DWs than remain.
    #[error("completion carries {got_dw} DW, {remaining_dw} DW remain to be returned")]
    PayloadLength {
        /// DWs in the completion.
        got_dw: u32,
        /// DWs of the request not yet returned.
        remaining_dw: u32,
    },
    /// A completion other than the last ends off the read completion boundary.
    #[error("partial completion ends at {end:#x}, not on a {rcb}-byte read completion boundary")]
    NotOnRcb {
        /// End address (exclusive) of the completion's data.
        end: u64,
        /// The boundary in bytes.
        rcb: u32,
    },
    /// A completion larger than the requester's max payload size.
    #[error("completion carries {bytes} bytes, more than the max payload size {max}")]
    ExceedsMaxPayload {
        /// Payload bytes.
        bytes: u32,
        /// Limit.
        max: u32,
    },
    /// A completion chunk limit that is not a positive multiple of RCB up to MPS.
    #[error("completion size limit {limit} must be a non-zero multiple of the RCB ({rcb}) no larger than the MPS ({mps})")]
    BadChunkLimit {
        /// Limit given.
        limit: u32,
        /// RCB bytes.
        rcb: u32,
        /// MPS bytes.
        mps: u32,
    },
    /// A request that crosses a 4 KiB boundary.
    #[error("request of {len} bytes at {addr:#x} crosses a 4 KiB boundary")]
    Crosses4K {
        /// Start address.
        addr: u64,
        /// Length in bytes.
        len: u64,
    },
    /// A request size limit that is not a power of two up to 4096.
    #[error("request size limit must be a power of two up to 4096 bytes, got {0}")]
    BadRequestLimit(u32),
    /// A byte range that wraps past the 64-bit address space.
    #[error("range of {len} bytes at {addr:#x} runs past the end of the 64-bit address space")]
    AddressOverflow {
        /// Start address.
        addr: u64,
        /// Length in bytes.
        len: u64,
    },
    /// A TLP could not be built.
    #[error("building a completion TLP: {0}")]
    Tlp(#[from] TlpError),
}

/// The bytes a memory read asks for: its DW span and the enabled bytes inside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReadSpan {
    /// DW-aligned start of the request (the header address).
    pub dw_start: u64,
    /// Length in DWs (1..=1024).
    pub length_dw: u32,
    /// Address of the first byte returned (header address plus the first enabled byte).
    pub first_byte: u64,
    /// Total Byte Count (Table 2-38; 1 for a zero-length read).
    pub byte_count: u32,
    /// True for a zero-length read (length 1, no byte enabled).
    pub zero_length: bool,
}

impl ReadSpan {
    /// The span of an MRd/MRdLk.
    pub fn of_request(mrd: &Tlp) -> Result<ReadSpan, CompletionError> {
        match mrd.header() {
            Header::MemRead { req, length_dw, .. } => {
                let lower = mrd.request_lower_address().unwrap_or(0);
                Ok(ReadSpan {
                    dw_start: req.address.0,
                    length_dw: u32::from(*length_dw),
                    first_byte: req.address.0 | u64::from(lower & 3),
                    byte_count: u32::from(mrd.request_byte_count().unwrap_or(1)),
                    zero_length: *length_dw == 1 && req.first_be & 0xf == 0,
                })
            }
            _ => Err(CompletionError::NotAMemoryRead(mrd.kind().to_string())),
        }
    }

    /// Address one past the last returned byte.
    pub fn end_byte(&self) -> u64 {
        self.first_byte + u64::from(self.byte_count)
    }

    /// Address one past the last DW.
    pub fn end_dw(&self) -> u64 {
        self.dw_start + 4 * u64::from(self.length_dw)
    }
}

/// How a completer splits reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "CompletionRulesRepr", into = "CompletionRulesRepr")]
pub struct CompletionRules {
    rcb: Rcb,
    max_payload: MaxPayloadSize,
    chunk_limit: u32,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CompletionRulesRepr {
    rcb: Rcb,
    max_payload: MaxPayloadSize,
    chunk_limit: u32,
}

impl CompletionRules {
    /// Completions as large as allowed: up to MPS bytes, ending on RCB boundaries.
    pub fn new(rcb: Rcb, max_payload: MaxPayloadSize) -> CompletionRules {
        CompletionRules {
            rcb,
            max_payload,
            chunk_limit: max_payload.bytes(),
        }
    }

    /// Completions of at most `limit` bytes (a non-zero multiple of the RCB, at most MPS).
    /// Root complexes that return reads one cache line at a time are `limit = 64`.
    pub fn with_chunk_limit(self, limit: u32) -> Result<CompletionRules, CompletionError> {
        let rcb = self.rcb.bytes();
        let mps = self.max_payload.bytes();
        if limit == 0 || !limit.is_multiple_of(rcb) || limit > mps {
            return Err(CompletionError::BadChunkLimit { limit, rcb, mps });
        }
        Ok(CompletionRules {
            chunk_limit: limit,
            ..self
        })
    }

    /// The read completion boundary.
    pub fn rcb(&self) -> Rcb {
        self.rcb
    }

    /// The max payload size.
    pub fn max_payload(&self) -> MaxPayloadSize {
        self.max_payload
    }

    /// The largest completion this completer sends.
    pub fn chunk_limit(&self) -> u32 {
        self.chunk_limit
    }
}

impl TryFrom<CompletionRulesRepr> for CompletionRules {
    type Error = CompletionError;
    fn try_from(r: CompletionRulesRepr) -> Result<CompletionRules, CompletionError> {
        CompletionRules::new(r.rcb, r.max_payload).with_chunk_limit(r.chunk_limit)
    }
}

impl From<CompletionRules> for CompletionRulesRepr {
    fn from(r: CompletionRules) -> CompletionRulesRepr {
        CompletionRulesRepr {
            rcb: r.rcb,
            max_payload: r.max_payload,
            chunk_limit: r.chunk_limit,
        }
    }
}

/// One completion of a split read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CompletionChunk {
    /// DW-aligned address of the completion's first payload DW.
    pub dw_address: u64,
    /// Payload length in DWs.
    pub length_dw: u32,
    /// Byte Count field: bytes remaining, this completion's included (1..=4096).
    pub byte_count: u16,
    /// Lower Address field: bits 6:0 of the first returned byte's address.
    pub lower_address: u8,
    /// Address of the first meaningful byte.
    pub data_start: u64,
    /// Address one past the last meaningful byte.
    pub data_end: u64,
}

/// Splits a read of `span` into completions under `rules`: each ends at the furthest
/// RCB-aligned address within the size limit, the last at the end of the request.
pub fn split_completions(span: &ReadSpan, rules: &CompletionRules) -> Vec<CompletionChunk> {
    let rcb = u64::from(rules.rcb.bytes());
    let limit = u64::from(rules.chunk_limit);
    let end_dw = span.end_dw();
    let end_byte = span.end_byte();
    let mut chunks = Vec::new();
    let mut cur = span.dw_start;
    while cur < end_dw {
        // limit >= rcb, so the aligned end is always past `cur`.
        let next = ((cur + limit) & !(rcb - 1)).min(end_dw);
        let data_start = cur.max(span.first_byte);
        chunks.push(CompletionChunk {
            dw_address: cur,
            length_dw: ((next - cur) / 4) as u32,
            byte_count: (end_byte - data_start) as u16,
            lower_address: (data_start & 0x7f) as u8,
            data_start,
            data_end: next.min(end_byte),
        });
        cur = next;
    }
    chunks
}

/// Builds the successful completions (CplD) answering `mrd`, reading the returned bytes
/// through `read(address, buf)`; they carry the request's TC and attributes.
pub fn build_completions(
    mrd: &Tlp,
    completer_id: Bdf,
    rules: &CompletionRules,
    mut read: impl FnMut(u64, &mut [u8]),
) -> Result<Vec<Tlp>, CompletionError> {
    let span = ReadSpan::of_request(mrd)?;
    split_completions(&span, rules)
        .into_iter()
        .map(|c| {
            let mut data = vec![0u8; (c.data_end - c.data_start) as usize];
            read(c.data_start, &mut data);
            Tlp::completion(
                completer_id,
                CplStatus::Sc,
                mrd.requester_id(),
                mrd.tag(),
                c.byte_count,
                c.lower_address,
                &data,
            )
            .and_then(|t| t.with_tc(mrd.tc()))
            .and_then(|t| t.with_attr(mrd.attr()))
            .map_err(CompletionError::from)
        })
        .collect()
}

/// The completion without data that fails a request with `status` (UR, CA, CRS), as
/// PCIe 3.0 §2.2.9 has it: a memory read's carries the Byte Count and Lower Address a
/// first successful completion would have (and is a CplLk for a locked read); an
/// AtomicOp's, Byte Count = its operand size and Lower Address 0; any other request's,
/// Byte Count 4 and Lower Address 0. TC and attributes are the request's.
pub fn error_completion(
    request: &Tlp,
    completer_id: Bdf,
    status: CplStatus,
) -> Result<Tlp, CompletionError> {
    let (byte_count, locked) = match request.header() {
        Header::MemRead { locked, .. } => (request.request_byte_count().unwrap_or(4), *locked),
        Header::Atomic(a) => {
            let operand = a.op.operand_size(request.payload_len()).unwrap_or(4);
            (operand as u16, false)
        }
        _ => (4, false),
    };
    let cpl = Completion {
        completer_id,
        status,
        bcm: false,
        byte_count,
        requester_id: request.requester_id(),
        tag: request.tag(),
        lower_address: request.request_lower_address().unwrap_or(0),
        locked,
    };
    Ok(Tlp::new(Header::Completion(cpl), Vec::new())?
        .with_tc(request.tc())?
        .with_attr(request.attr())?)
}

/// True if `len` bytes from `addr` cross a 4 KiB boundary.
pub fn crosses_4k(addr: u64, len: u64) -> bool {
    len > 0 && (addr & 0xfff) + len > 4096
}

/// Checks the 4 KiB rule for a request of `len` bytes at `addr`.
pub fn check_4k(addr: u64, len: u64) -> Result<(), CompletionError> {
    if crosses_4k(addr, len) {
        Err(CompletionError::Crosses4K { addr, len })
    } else {
        Ok(())
    }
}

/// One request of a split transfer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RequestChunk {
    /// Start address.
    pub addr: Addr,
    /// Length in bytes.
    pub len: u32,
}

/// Splits a transfer of `len` bytes at `addr` into requests of at most `max` bytes
/// (`max` a power of two up to 4096: an MRRS for reads, an MPS for writes, or 4096 for
/// the 4 KiB rule alone), cut at `max`-aligned addresses so none crosses a 4 KiB
/// boundary and all but the first and last are naturally aligned, as DMA engines do.
pub fn split_requests(addr: u64, len: u64, max: u32) -> Result<Vec<RequestChunk>, CompletionError> {
    if len > 0 && addr.checked_add(len - 1).is_none() {
        return Err(CompletionError::AddressOverflow { addr, len });
    }
    if !max.is_power_of_two() || max > 4096 {
        return Err(CompletionError::BadRequestLimit(max));
    }
    let max = u64::from(max);
    let mut out = Vec::new();
    let mut cur = addr;
    let mut left = len;
    while left > 0 {
        let room = max - (cur & (max - 1));
        let n = room.min(left);
        out.push(RequestChunk {
            addr: Addr(cur),
            len: n as u32,
        });
        left -= n;
        cur = cur.wrapping_add(n);
    }
    Ok(out)
}

mod assembler;

pub use assembler::{AssemblyProgress, ReadAssembler};

#[cfg(test)]
mod tests;
