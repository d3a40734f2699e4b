//! The requester's side of a read: checks each completion against the completion rules
//! and gathers the data until the request is complete.

use super::{CompletionError, ReadSpan};
use crate::limits::{MaxPayloadSize, Rcb};
use crate::tlp::{Bdf, CplStatus, Tlp};

/// Where a read stands after a completion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AssemblyProgress {
    /// More completions are due.
    Partial {
        /// Bytes received so far.
        received: u32,
        /// Bytes still to come.
        remaining: u32,
    },
    /// All bytes arrived: the returned bytes from the first enabled byte (empty for a
    /// zero-length read).
    Done(Vec<u8>),
    /// The completer ended the request with a non-successful status.
    Failed(CplStatus),
}

/// The requester's side of one outstanding read: checks each completion against the
/// rules and gathers the data until the request is complete.
#[derive(Debug, Clone)]
pub struct ReadAssembler {
    span: ReadSpan,
    requester: Bdf,
    tag: u8,
    rcb: Option<Rcb>,
    max_payload: Option<MaxPayloadSize>,
    next_byte: u64,
    data: Vec<u8>,
    finished: bool,
}

impl ReadAssembler {
    /// Tracks the read `mrd`. With `rcb`, partial completions must end on that boundary;
    /// with `max_payload`, no completion may exceed it.
    pub fn new(
        mrd: &Tlp,
        rcb: Option<Rcb>,
        max_payload: Option<MaxPayloadSize>,
    ) -> Result<ReadAssembler, CompletionError> {
        let span = ReadSpan::of_request(mrd)?;
        Ok(ReadAssembler {
            span,
            requester: mrd.requester_id(),
            tag: mrd.tag().0,
            rcb,
            max_payload,
            next_byte: span.first_byte,
            data: Vec::with_capacity(span.byte_count as usize),
            finished: false,
        })
    }

    /// The request's span.
    pub fn span(&self) -> &ReadSpan {
        &self.span
    }

    /// True once the last completion (or a failing one) has been accepted.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Checks `cpl` and adds its data. A rule violation leaves the state unchanged.
    pub fn accept(&mut self, cpl: &Tlp) -> Result<AssemblyProgress, CompletionError> {
        let c = cpl
            .as_completion()
            .ok_or_else(|| CompletionError::NotACompletion(cpl.kind().to_string()))?;
        if c.requester_id != self.requester || c.tag.0 != self.tag {
            return Err(CompletionError::WrongTransaction {
                requester: self.requester,
                tag: self.tag,
                got_requester: c.requester_id,
                got_tag: c.tag.0,
            });
        }
        if self.finished {
            return Err(CompletionError::AlreadyComplete);
        }
        if c.status != CplStatus::Sc {
            self.finished = true;
            return Ok(AssemblyProgress::Failed(c.status));
        }
        let remaining = (self.span.end_byte() - self.next_byte) as u32;
        if u32::from(c.byte_count) != remaining {
            return Err(CompletionError::ByteCount {
                expected: remaining,
                got: c.byte_count.into(),
            });
        }
        let expected_la = (self.next_byte & 0x7f) as u8;
        if c.lower_address != expected_la {
            return Err(CompletionError::LowerAddress {
                expected: expected_la,
                got: c.lower_address,
            });
        }
        let dw_addr = self.next_byte & !3;
        let remaining_dw = ((self.span.end_dw() - dw_addr) / 4) as u32;
        let got_dw = (cpl.payload_len() / 4) as u32;
        if got_dw == 0 || got_dw > remaining_dw {
            return Err(CompletionError::PayloadLength {
                got_dw,
                remaining_dw,
            });
        }
        if let Some(mps) = self.max_payload {
            if got_dw * 4 > mps.bytes() {
                return Err(CompletionError::ExceedsMaxPayload {
                    bytes: got_dw * 4,
                    max: mps.bytes(),
                });
            }
        }
        let dw_end = dw_addr + 4 * u64::from(got_dw);
        let data_end = dw_end.min(self.span.end_byte());
        let last = data_end == self.span.end_byte();
        if !last {
            if let Some(rcb) = self.rcb {
                if !dw_end.is_multiple_of(u64::from(rcb.bytes())) {
                    return Err(CompletionError::NotOnRcb {
                        end: dw_end,
                        rcb: rcb.bytes(),
                    });
                }
            }
        }
        let lane = (self.next_byte & 3) as usize;
        let n = (data_end - self.next_byte) as usize;
        self.data.extend_from_slice(&cpl.data()[lane..lane + n]);
        self.next_byte = data_end;
        if last {
            self.finished = true;
            let data = if self.span.zero_length {
                Vec::new()
            } else {
                std::mem::take(&mut self.data)
            };
            Ok(AssemblyProgress::Done(data))
        } else {
            Ok(AssemblyProgress::Partial {
                received: self.data.len() as u32,
                remaining: (self.span.end_byte() - self.next_byte) as u32,
            })
        }
    }
}
