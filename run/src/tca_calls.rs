//! The TCA library's calls (`tca-api.h`), carried out by the driver (`peach2-driver`),
//! which stays the one implementation of the API: this is its C skin's far end.

use crate::abi::*;
use crate::device::{RankMemory, RankMmio};
use crate::server::{Answer, Call, RankCtx};
use crate::tca_tables::{create_table, destroy_table, set_entry, set_table_chain, TableId, Tables};
use crate::wire::{Reader, Short, Writer};
use peach2_driver::handle::HANDLE_BYTES;
use peach2_driver::{
    Buffer, DescList, Handle, MemKind, NotifyPlace, Placement, Tca, TcaError, Wait,
};
use std::collections::HashMap;

/// A `tcaDesc`: its copies and the union of their flags. An entry of the older API's
/// tables is one of one copy.
#[derive(Clone, Default)]
pub(crate) struct Desc {
    pub(crate) list: DescList,
    pub(crate) flags: i64,
}

impl Desc {
    /// Appends `other`'s copies and flags.
    pub(crate) fn extend(&mut self, other: &Desc) {
        self.list.copies.extend_from_slice(&other.list.copies);
        self.flags |= other.flags;
    }
}

/// The driver of one rank, as its TCA calls left it.
#[derive(Default)]
pub struct TcaState {
    tca: Option<Tca<RankMmio, RankMemory>>,
    /// Live `tcaMalloc` buffers by bus address.
    buffers: HashMap<u64, Buffer>,
    /// Descriptor lists by id.
    descs: HashMap<u64, Desc>,
    next_desc: u64,
    /// The older API's descriptor tables.
    pub(crate) tables: Tables,
}

/// The `tcaresult` of a driver error.
pub fn result_of(e: &TcaError) -> i64 {
    match e {
        TcaError::OutOfMemory { .. }
        | TcaError::DescriptorMemoryFull { .. }
        | TcaError::OutsideWindow { .. } => TCA_ERROR_OUT_OF_MEMORY,
        TcaError::NoMemory(_) => TCA_ERROR_NOT_SUPPORTED,
        TcaError::ChannelBusy(_) => TCA_ERROR_BUSY,
        TcaError::Timeout(_) => TCA_ERROR_TIMEOUT,
        TcaError::Device(_) | TcaError::NotPeach2(_) | TcaError::Dma { .. } => TCA_ERROR_DEVICE,
        _ => TCA_ERROR_INVALID_VALUE,
    }
}

pub(crate) fn status(r: Result<(), TcaError>) -> Answer {
    Answer::status(r.map_or_else(|e| result_of(&e), |()| TCA_SUCCESS))
}

fn kind_of(ctx: &RankCtx, code: u32) -> Option<MemKind> {
    match i64::from(code) {
        TCA_MEMORY_CPU => Some(MemKind::Host),
        TCA_MEMORY_GPU => Some(MemKind::Gpu(ctx.cuda.device)),
        _ => None,
    }
}

fn handle(bytes: &[u8]) -> Result<Handle, TcaError> {
    Handle::from_bytes(bytes.get(..HANDLE_BYTES).unwrap_or(bytes))
}

impl RankCtx {
    fn driver(&mut self) -> Result<&mut Tca<RankMmio, RankMemory>, TcaError> {
        self.tca
            .tca
            .as_mut()
            .ok_or_else(|| TcaError::Invalid("tcaInit has not been called".into()))
    }
}

fn init(ctx: &mut RankCtx) -> Answer {
    if ctx.tca.tca.is_some() {
        return Answer::status(TCA_SUCCESS);
    }
    let mmio = RankMmio {
        line: ctx.line.clone(),
        cpu: ctx.cpu,
    };
    let mem = RankMemory {
        line: ctx.line.clone(),
        cpu: ctx.cpu,
        heaps: ctx.heaps.clone(),
        polled: Default::default(),
    };
    match Tca::open(mmio, mem) {
        Ok(t) => {
            ctx.tca.tca = Some(t);
            Answer::status(TCA_SUCCESS)
        }
        Err(e) => Answer::status(result_of(&e)),
    }
}

fn malloc(ctx: &mut RankCtx, size: u64, kind: u32) -> Answer {
    let Some(kind) = kind_of(ctx, kind) else {
        return Answer::status(TCA_ERROR_INVALID_VALUE);
    };
    let r = ctx.driver().and_then(|t| t.malloc(size, kind));
    match r {
        Ok(b) => {
            ctx.tca.buffers.insert(b.bus_addr, b);
            if let MemKind::Gpu(g) = kind {
                ctx.cuda.device_allocs.insert(b.bus_addr, (size, g));
            }
            let mut w = Writer::new();
            w.u64(b.bus_addr);
            Answer::with(TCA_SUCCESS, w)
        }
        Err(e) => Answer::status(result_of(&e)),
    }
}

/// The live buffer at `bus` of `kind`.
fn buffer(ctx: &RankCtx, bus: u64, kind: Option<MemKind>) -> Result<Buffer, TcaError> {
    ctx.tca
        .buffers
        .get(&bus)
        .filter(|b| Some(b.handle.kind) == kind)
        .copied()
        .ok_or_else(|| {
            TcaError::Invalid(format!("{bus:#x} is not a tcaMalloc buffer of that kind"))
        })
}

fn free(ctx: &mut RankCtx, bus: u64, kind: u32) -> Answer {
    let kind = kind_of(ctx, kind);
    let r = buffer(ctx, bus, kind).and_then(|b| {
        ctx.driver()?.free(&b)?;
        ctx.tca.buffers.remove(&bus);
        ctx.cuda.device_allocs.remove(&bus);
        Ok(())
    });
    status(r)
}

fn create_handle(ctx: &mut RankCtx, bus: u64, size: u64, kind: u32) -> Answer {
    let kind = kind_of(ctx, kind);
    let r = buffer(ctx, bus, kind).and_then(|b| {
        if size == 0 || size > b.handle.size {
            return Err(TcaError::OutOfRange {
                offset: 0,
                len: size,
                size: b.handle.size,
            });
        }
        ctx.driver()?.create_handle(&b)
    });
    match r {
        Ok(h) => {
            let mut w = Writer::new();
            w.bytes(&h.to_bytes());
            Answer::with(TCA_SUCCESS, w)
        }
        Err(e) => Answer::status(result_of(&e)),
    }
}

fn destroy_handle(ctx: &mut RankCtx, bytes: &[u8]) -> Answer {
    let r = handle(bytes).and_then(|h| {
        let own = ctx.tca.buffers.values().any(|b| b.handle == h);
        own.then_some(())
            .ok_or_else(|| TcaError::Invalid("not a live handle created by this process".into()))
    });
    status(r)
}

fn desc_new(ctx: &mut RankCtx) -> Answer {
    ctx.tca.next_desc += 1;
    let id = ctx.tca.next_desc;
    ctx.tca.descs.insert(id, Desc::default());
    let mut w = Writer::new();
    w.u64(id);
    Answer::with(TCA_SUCCESS, w)
}

/// One copy as `tcaDescSetMemcpy[2D]` and the older API's entry calls give it: both
/// handles and offsets, the shape (width, height and pitches; height 0 for a linear
/// copy), flags, slot and tag.
pub(crate) struct Transfer {
    dst: Vec<u8>,
    dst_off: i64,
    dst_pitch: u64,
    src: Vec<u8>,
    src_off: i64,
    src_pitch: u64,
    width: u64,
    height: u64,
    flags: i64,
    slot: i32,
    tag: i32,
}

const KNOWN_FLAGS: i64 = TCA_FLAG_NOTIFY
    | TCA_FLAG_NOTIFY_SELF
    | TCA_FLAG_CONTINUE
    | TCA_FLAG_PIPELINE
    | TCA_FLAG_USE_INTERNAL
    | TCA_FLAG_USE_NOTIFY_INTERNAL;

/// A C call's `(wait_slot, wait_tag)`: negative ones are refused here, the rest by the
/// driver.
fn wait_of(slot: i32, tag: i32) -> Result<Wait, TcaError> {
    let slot = u16::try_from(slot).map_err(|_| TcaError::NoSlot(u16::MAX, 0))?;
    let tag = u32::try_from(tag).map_err(|_| TcaError::Invalid("negative tag".into()))?;
    Ok(Wait { slot, tag })
}

/// Appends copy `a` to `d`, after checking what can be checked before the list is set
/// (the driver checks the rest against the device then).
pub(crate) fn push(d: &mut Desc, a: &Transfer) -> Result<(), TcaError> {
    if a.flags & !KNOWN_FLAGS != 0 {
        return Err(TcaError::Invalid(format!("unknown flags {:#x}", a.flags)));
    }
    let (dst, src) = (handle(&a.dst)?, handle(&a.src)?);
    let off = |o: i64| u64::try_from(o).map_err(|_| TcaError::Invalid("negative offset".into()));
    let (dst_off, src_off) = (off(a.dst_off)?, off(a.src_off)?);
    let wait = if a.flags & (TCA_FLAG_NOTIFY | TCA_FLAG_NOTIFY_SELF) != 0 {
        Some(wait_of(a.slot, a.tag)?)
    } else {
        None
    };
    let rx = wait.filter(|_| a.flags & TCA_FLAG_NOTIFY != 0);
    let Desc { list, flags } = d;
    if a.height == 0 {
        list.memcpy(&dst, dst_off, &src, src_off, a.width, rx);
    } else {
        list.memcpy_2d(
            &dst,
            dst_off,
            a.dst_pitch,
            &src,
            src_off,
            a.src_pitch,
            a.width,
            a.height,
            rx,
        );
    }
    if let Some(w) = wait.filter(|_| a.flags & TCA_FLAG_NOTIFY_SELF != 0) {
        list.notify_self(w);
    }
    if a.flags & TCA_FLAG_USE_NOTIFY_INTERNAL != 0 {
        list.notify_in(NotifyPlace::Chip);
    }
    *flags |= a.flags;
    Ok(())
}

fn append(ctx: &mut RankCtx, desc: u64, a: &Transfer) -> Answer {
    let r = ctx
        .tca
        .descs
        .get_mut(&desc)
        .ok_or_else(|| TcaError::Invalid("not a live tcaDesc".into()))
        .and_then(|d| push(d, a));
    status(r)
}

/// Sets list `d` on channel `ch` (`tcaDescSet`, and the older API's chains): its
/// descriptors go into the chip if any copy asked for `tcaDMAUseInternal`, else into
/// host memory.
pub(crate) fn set_on_channel(ctx: &mut RankCtx, ch: i32, d: &Desc) -> Result<(), TcaError> {
    let ch = channel(ch)?;
    let placement = if d.flags & TCA_FLAG_USE_INTERNAL != 0 {
        Placement::Internal
    } else {
        Placement::Host
    };
    let t = ctx.driver()?;
    t.set_chain(ch, &d.list, placement)?;
    // This process's waits look where its own chains send notifications.
    if d.flags & TCA_FLAG_USE_NOTIFY_INTERNAL != 0 {
        t.set_notify_poll(NotifyPlace::Chip);
    }
    Ok(())
}

fn desc_set(ctx: &mut RankCtx, desc: u64, ch: i32) -> Answer {
    let r = ctx
        .tca
        .descs
        .get(&desc)
        .cloned()
        .ok_or_else(|| TcaError::Invalid("not a live tcaDesc".into()))
        .and_then(|d| set_on_channel(ctx, ch, &d));
    status(r)
}

fn channel(ch: i32) -> Result<u8, TcaError> {
    u8::try_from(ch).map_err(|_| TcaError::NoChannel(u8::MAX))
}

/// `tcaWaitDMARecvDesc` (`block`) or `tcaTestDMARecvDesc`: the notification `(slot,
/// tag)` from the node owning `bytes`'s handle (this node itself for its own chains'
/// notify-self and local copies).
fn recv(ctx: &mut RankCtx, bytes: &[u8], slot: i32, tag: i32, block: bool) -> Answer {
    let r = (|| {
        let h = handle(bytes)?;
        let Wait { slot, tag } = wait_of(slot, tag)?;
        let t = ctx.driver()?;
        if block {
            t.wait_recv(h.node, slot, tag).map(|()| true)
        } else {
            t.test_recv(h.node, slot, tag)
        }
    })();
    match r {
        Ok(true) => Answer::status(TCA_SUCCESS),
        Ok(false) => Answer::status(TCA_ERROR_NOT_READY),
        Err(e) => Answer::status(result_of(&e)),
    }
}

fn pio_region(ctx: &mut RankCtx, bytes: &[u8], offset: u64, size: u64) -> Answer {
    let r = handle(bytes).and_then(|h| {
        let me = ctx.driver()?.node();
        if h.node != me && !ctx.driver()?.reachable(h.node) {
            return Err(TcaError::UnknownNode(h.node));
        }
        h.check_range(offset, size)
    });
    status(r)
}

fn send_pio(ctx: &mut RankCtx, bytes: &[u8], offset: u64, data: &[u8]) -> Answer {
    let r = handle(bytes).and_then(|h| ctx.driver()?.pio_write(&h, offset, data));
    status(r)
}

fn node_of(bytes: &[u8]) -> String {
    handle(bytes).map_or("a bad handle".into(), |h| {
        format!("node {}'s handle", h.node)
    })
}

/// The copy of a descriptor-setting call, as the C runtime's `p2_transfer` writes it.
fn transfer(r: &mut Reader, two_d: bool) -> Result<Transfer, Short> {
    let (dst, dst_off) = (r.bytes()?, r.i64()?);
    let dst_pitch = if two_d { r.u64()? } else { 0 };
    let (src, src_off) = (r.bytes()?, r.i64()?);
    let src_pitch = if two_d { r.u64()? } else { 0 };
    let width = r.u64()?;
    let height = if two_d { r.u64()?.max(1) } else { 0 };
    let (flags, slot, tag) = (i64::from(r.u32()?), r.i32()?, r.i32()?);
    Ok(Transfer {
        dst,
        dst_off,
        dst_pitch,
        src,
        src_off,
        src_pitch,
        width,
        height,
        flags,
        slot,
        tag,
    })
}

/// The text of a call that sets copy `a`: `head` (its name, `(` and any leading
/// arguments), then the copy.
fn describe(head: &str, a: &Transfer) -> String {
    format!(
        "{head}dst {} +{}, src +{}, {} bytes x {}, flags {:#x}, slot {}, tag {})",
        node_of(&a.dst),
        a.dst_off,
        a.src_off,
        a.width,
        a.height.max(1),
        a.flags,
        a.slot,
        a.tag
    )
}

/// Decodes TCA call `code`.
pub fn decode(code: i64, r: &mut Reader) -> Result<Call, Short> {
    Ok(match code {
        CALL_TCA_INIT => Call::new("tcaInit()".into(), init),
        CALL_TCA_MALLOC => {
            let (size, kind) = (r.u64()?, r.u32()?);
            Call::new(format!("tcaMalloc({size} bytes, kind {kind})"), move |c| {
                malloc(c, size, kind)
            })
        }
        CALL_TCA_FREE => {
            let (bus, kind) = (r.u64()?, r.u32()?);
            Call::new(format!("tcaFree({bus:#x})"), move |c| free(c, bus, kind))
        }
        CALL_TCA_CREATE_HANDLE => {
            let (bus, size, kind) = (r.u64()?, r.u64()?, r.u32()?);
            Call::new(format!("tcaCreateHandle({bus:#x}, {size})"), move |c| {
                create_handle(c, bus, size, kind)
            })
        }
        CALL_TCA_DESTROY_HANDLE => {
            let h = r.bytes()?;
            Call::new("tcaDestroyHandle".into(), move |c| destroy_handle(c, &h))
        }
        CALL_TCA_DESC_NEW => Call::new("tcaDescNew()".into(), desc_new),
        CALL_TCA_DESC_FREE => {
            let id = r.u64()?;
            Call::new("tcaDescFree".into(), move |c| {
                let found = c.tca.descs.remove(&id).is_some();
                Answer::status(if found {
                    TCA_SUCCESS
                } else {
                    TCA_ERROR_INVALID_VALUE
                })
            })
        }
        CALL_TCA_DESC_SET_MEMCPY | CALL_TCA_DESC_SET_MEMCPY_2D => {
            let two_d = code == CALL_TCA_DESC_SET_MEMCPY_2D;
            let desc = r.u64()?;
            let a = transfer(r, two_d)?;
            let name = if two_d {
                "tcaDescSetMemcpy2D"
            } else {
                "tcaDescSetMemcpy"
            };
            let text = describe(&format!("{name}("), &a);
            Call::new(text, move |c| append(c, desc, &a))
        }
        CALL_TCA_DESC_SET => {
            let (desc, ch) = (r.u64()?, r.i32()?);
            Call::new(format!("tcaDescSet(channel {ch})"), move |c| {
                desc_set(c, desc, ch)
            })
        }
        CALL_TCA_START => {
            let ch = r.i32()?;
            Call::new(format!("tcaStartDMADesc({ch})"), move |c| {
                status(channel(ch).and_then(|ch| c.driver()?.start(ch)))
            })
        }
        CALL_TCA_WAIT_DMAC => {
            let ch = r.i32()?;
            Call::waiting(format!("tcaWaitDMAC({ch})"), move |c| {
                status(channel(ch).and_then(|ch| c.driver()?.wait_dmac(ch).map(|_| ())))
            })
        }
        CALL_TCA_WAIT_RECV | CALL_TCA_TEST_RECV => {
            let block = code == CALL_TCA_WAIT_RECV;
            let (h, slot, tag) = (r.bytes()?, r.i32()?, r.i32()?);
            let name = if block {
                "tcaWaitDMARecvDesc"
            } else {
                "tcaTestDMARecvDesc"
            };
            let text = format!("{name}({}, slot {slot}, tag {tag})", node_of(&h));
            let run = move |c: &mut RankCtx| recv(c, &h, slot, tag, block);
            if block {
                Call::waiting(text, run)
            } else {
                Call::new(text, run)
            }
        }
        CALL_TCA_SET_PIO_REGION => {
            let (h, offset, size) = (r.bytes()?, r.u64()?, r.u64()?);
            Call::new(format!("tcaSetPIORegion({})", node_of(&h)), move |c| {
                pio_region(c, &h, offset, size)
            })
        }
        CALL_TCA_SEND_PIO => {
            let (h, offset, data) = (r.bytes()?, r.u64()?, r.bytes()?);
            let text = format!(
                "tcaSendPIO({}, +{offset}, {} bytes)",
                node_of(&h),
                data.len()
            );
            Call::new(text, move |c| send_pio(c, &h, offset, &data))
        }
        CALL_TCA_DMA_DESC_INT_INIT => Call::new("tcaDMADescInt_Init()".into(), |c| {
            status(c.driver().map(|_| ()))
        }),
        CALL_TCA_SET_DMA_DESC_INT_MEMCPY
        | CALL_TCA_SET_DMA_DESC_INT_MEMCPY_2D
        | CALL_TCA_SET_DMA_DESC_MEMCPY
        | CALL_TCA_SET_DMA_DESC_MEMCPY_2D => {
            let two_d = matches!(
                code,
                CALL_TCA_SET_DMA_DESC_INT_MEMCPY_2D | CALL_TCA_SET_DMA_DESC_MEMCPY_2D
            );
            let suffix = if two_d { "Memcpy2D" } else { "Memcpy" };
            let (id, head) = if matches!(
                code,
                CALL_TCA_SET_DMA_DESC_INT_MEMCPY | CALL_TCA_SET_DMA_DESC_INT_MEMCPY_2D
            ) {
                (TableId::Internal, format!("tcaSetDMADescInt_{suffix}("))
            } else {
                let t = r.i32()?;
                (
                    TableId::Host(t),
                    format!("tcaSetDMADesc_{suffix}(table {t}, "),
                )
            };
            let slot = r.i32()?;
            let a = transfer(r, two_d)?;
            let text = describe(&format!("{head}entry {slot}, "), &a);
            Call::new(text, move |c| set_entry(c, id, slot, &a))
        }
        CALL_TCA_SET_DMA_CHAIN_INT => {
            let (ch, first) = (r.i32()?, r.i32()?);
            let text = format!("tcaSetDMAChainInt(channel {ch}, entry {first})");
            Call::new(text, move |c| {
                set_table_chain(c, TableId::Internal, ch, first)
            })
        }
        CALL_TCA_CREATE_DMA_DESC => {
            let entries = r.i32()?;
            Call::new(format!("tcaCreateDMADesc({entries} entries)"), move |c| {
                create_table(c, entries)
            })
        }
        CALL_TCA_SET_DMA_CHAIN => {
            let (ch, t) = (r.i32()?, r.i32()?);
            let text = format!("tcaSetDMAChain(channel {ch}, table {t})");
            Call::new(text, move |c| set_table_chain(c, TableId::Host(t), ch, 0))
        }
        CALL_TCA_DESTROY_DMA_DESC => {
            let t = r.i32()?;
            Call::new(format!("tcaDestroyDMADesc(table {t})"), move |c| {
                destroy_table(c, t)
            })
        }
        _ => Call::new(format!("unknown call {code}"), |_| {
            Answer::status(TCA_ERROR_NOT_SUPPORTED)
        }),
    })
}
