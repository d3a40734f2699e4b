//! Convenience constructors: build common TLPs from what a device model knows
//! (an address and a byte count, a byte slice, a register value).

use super::error::TlpError;
use super::fields::{AddrWidth, AtomicOp, CfgType, CplStatus, MsgRouting};
use super::header::{
    AtomicRequest, CfgRequest, Completion, Header, IoRequest, MemRequest, Message,
};
use super::ids::{Addr, Bdf, Tag};
use super::{Tlp, MAX_PAYLOAD_BYTES};

/// The DWs a byte range touches: DW-aligned start, DW count and byte enables.
/// An empty range is the spec's zero-length request (1 DW, byte enables 0).
struct Span {
    address: Addr,
    length_dw: u16,
    first_be: u8,
    last_be: u8,
}

fn span(address: Addr, len: usize) -> Result<Span, TlpError> {
    if len == 0 {
        return Ok(Span {
            address: address.dw_aligned(),
            length_dw: 1,
            first_be: 0,
            last_be: 0,
        });
    }
    if len > MAX_PAYLOAD_BYTES {
        return Err(TlpError::InvalidField {
            field: "length",
            value: len as u64,
            reason: "a single request moves at most 4096 bytes",
        });
    }
    let last = address
        .0
        .checked_add(len as u64 - 1)
        .ok_or(TlpError::InvalidField {
            field: "address",
            value: address.0,
            reason: "the byte range runs past the end of the 64-bit address space",
        })?;
    let dws = (last >> 2) - (address.0 >> 2) + 1;
    if dws > 1024 {
        return Err(TlpError::InvalidField {
            field: "length",
            value: dws,
            reason: "the byte range spans more than 1024 DW",
        });
    }
    let first_be = (0xf << (address.0 & 3)) & 0xf;
    let last_be = 0xf >> (3 - (last & 3));
    let (first_be, last_be) = if dws == 1 {
        (first_be & last_be, 0)
    } else {
        (first_be, last_be)
    };
    Ok(Span {
        address: address.dw_aligned(),
        length_dw: dws as u16,
        first_be,
        last_be,
    })
}

/// `data` placed at byte lane `offset` of the first DW, zero-padded to whole DWs.
fn dw_padded(offset: usize, data: &[u8]) -> Vec<u8> {
    let total = (offset + data.len()).div_ceil(4) * 4;
    let mut payload = vec![0; total];
    payload[offset..offset + data.len()].copy_from_slice(data);
    payload
}

impl Tlp {
    /// MRd of `len_bytes` bytes at `address` (any alignment; 0 is a zero-length
    /// read). Computes length and byte enables; 4-DW header only at or above 4 GiB.
    pub fn mem_read(
        requester_id: Bdf,
        tag: Tag,
        address: Addr,
        len_bytes: usize,
    ) -> Result<Tlp, TlpError> {
        Tlp::mem_read_inner(requester_id, tag, address, len_bytes, false)
    }

    /// MRdLk, as [`Tlp::mem_read`].
    pub fn mem_read_locked(
        requester_id: Bdf,
        tag: Tag,
        address: Addr,
        len_bytes: usize,
    ) -> Result<Tlp, TlpError> {
        Tlp::mem_read_inner(requester_id, tag, address, len_bytes, true)
    }

    fn mem_read_inner(
        requester_id: Bdf,
        tag: Tag,
        address: Addr,
        len_bytes: usize,
        locked: bool,
    ) -> Result<Tlp, TlpError> {
        let s = span(address, len_bytes)?;
        let req = MemRequest {
            requester_id,
            tag,
            first_be: s.first_be,
            last_be: s.last_be,
            address: s.address,
            width: AddrWidth::for_address(s.address.0),
        };
        Tlp::new(
            Header::MemRead {
                req,
                length_dw: s.length_dw,
                locked,
            },
            Vec::new(),
        )
    }

    /// MWr of `data` at `address` (any alignment; empty data is a zero-length
    /// write). Byte enables follow the alignment; the payload is zero-padded to DWs.
    pub fn mem_write(
        requester_id: Bdf,
        tag: Tag,
        address: Addr,
        data: &[u8],
    ) -> Result<Tlp, TlpError> {
        let s = span(address, data.len())?;
        let req = MemRequest {
            requester_id,
            tag,
            first_be: s.first_be,
            last_be: s.last_be,
            address: s.address,
            width: AddrWidth::for_address(s.address.0),
        };
        let payload = dw_padded((address.0 & 3) as usize, data);
        let payload = if payload.is_empty() {
            vec![0; 4]
        } else {
            payload
        };
        Tlp::new(Header::MemWrite(req), payload)
    }

    /// IORd of 1..=4 bytes at `address`, within one DW.
    pub fn io_read(
        requester_id: Bdf,
        tag: Tag,
        address: Addr,
        len_bytes: usize,
    ) -> Result<Tlp, TlpError> {
        let io = io_request(requester_id, tag, address, len_bytes)?;
        Tlp::new(Header::IoRead(io), Vec::new())
    }

    /// IOWr of 1..=4 bytes at `address`, within one DW.
    pub fn io_write(
        requester_id: Bdf,
        tag: Tag,
        address: Addr,
        data: &[u8],
    ) -> Result<Tlp, TlpError> {
        let io = io_request(requester_id, tag, address, data.len())?;
        let payload = dw_padded((address.0 & 3) as usize, data);
        Tlp::new(Header::IoWrite(io), payload)
    }

    /// CfgRd0/CfgRd1 of DW register `register` (0..=1023) of `target_id`.
    pub fn cfg_read(
        cfg_type: CfgType,
        requester_id: Bdf,
        tag: Tag,
        target_id: Bdf,
        register: u16,
        first_be: u8,
    ) -> Result<Tlp, TlpError> {
        let cfg = CfgRequest {
            cfg_type,
            requester_id,
            tag,
            first_be,
            target_id,
            register,
        };
        Tlp::new(Header::CfgRead(cfg), Vec::new())
    }

    /// CfgWr0/CfgWr1 of `value` to DW register `register` of `target_id`. PCIe
    /// carries data in address order, so byte k of the register (`value` bits
    /// 8k+7:8k) is payload byte k: the payload is `value.to_le_bytes()`.
    pub fn cfg_write(
        cfg_type: CfgType,
        requester_id: Bdf,
        tag: Tag,
        target_id: Bdf,
        register: u16,
        first_be: u8,
        value: u32,
    ) -> Result<Tlp, TlpError> {
        let cfg = CfgRequest {
            cfg_type,
            requester_id,
            tag,
            first_be,
            target_id,
            register,
        };
        Tlp::new(Header::CfgWrite(cfg), value.to_le_bytes().to_vec())
    }

    /// Cpl (empty `data`) or CplD. `data` are the bytes returned, starting at the
    /// byte address whose low 7 bits are `lower_address`; they are placed at byte
    /// lane `lower_address % 4` of the first payload DW and zero-padded to DWs.
    #[allow(clippy::too_many_arguments)]
    pub fn completion(
        completer_id: Bdf,
        status: CplStatus,
        requester_id: Bdf,
        tag: Tag,
        byte_count: u16,
        lower_address: u8,
        data: &[u8],
    ) -> Result<Tlp, TlpError> {
        let cpl = Completion {
            completer_id,
            status,
            bcm: false,
            byte_count,
            requester_id,
            tag,
            lower_address,
            locked: false,
        };
        let payload = if data.is_empty() {
            Vec::new()
        } else {
            dw_padded(usize::from(lower_address & 3), data)
        };
        Tlp::new(Header::Completion(cpl), payload)
    }

    /// Msg (empty `data`) or MsgD; `data` is zero-padded to whole DWs.
    pub fn message(
        requester_id: Bdf,
        tag: Tag,
        routing: MsgRouting,
        code: u8,
        bytes_8_15: [u8; 8],
        data: &[u8],
    ) -> Result<Tlp, TlpError> {
        let msg = Message {
            requester_id,
            tag,
            routing,
            code,
            bytes_8_15,
        };
        Tlp::new(Header::Message(msg), dw_padded(0, data))
    }

    /// FetchAdd, Swap or CAS at `address` with `operands` as the payload (for CAS,
    /// the compare value then the swap value). 4-DW header only at or above 4 GiB.
    pub fn atomic(
        op: AtomicOp,
        requester_id: Bdf,
        tag: Tag,
        address: Addr,
        operands: &[u8],
    ) -> Result<Tlp, TlpError> {
        let a = AtomicRequest {
            op,
            requester_id,
            tag,
            address,
            width: AddrWidth::for_address(address.0),
        };
        Tlp::new(Header::Atomic(a), operands.to_vec())
    }
}

fn io_request(
    requester_id: Bdf,
    tag: Tag,
    address: Addr,
    len: usize,
) -> Result<IoRequest, TlpError> {
    let s = span(address, len)?;
    if len == 0 || s.length_dw != 1 {
        return Err(TlpError::InvalidField {
            field: "length",
            value: len as u64,
            reason: "an I/O request moves 1..=4 bytes within one DW",
        });
    }
    Ok(IoRequest {
        requester_id,
        tag,
        first_be: s.first_be,
        address: s.address,
    })
}
