//! The CUDA runtime calls TCA programs make (`cuda_runtime.h`): device memory is the
//! simulated GPUs' memory behind their BARs; copies cost simulated time from the
//! profile. Device pointers are the memory's bus addresses.

use crate::abi::*;
use crate::ops::{Done, Op};
use crate::server::{Answer, Call, RankCtx};
use crate::wire::{Reader, Short, Writer};
use peach2_driver::MemKind;
use std::collections::BTreeMap;

/// One rank's CUDA state.
#[derive(Default)]
pub struct CudaState {
    /// The current device (`cudaSetDevice`).
    pub device: u8,
    /// Live device allocations (`cudaMalloc`, `tcaMalloc` of GPU memory): bus address ->
    /// (bytes, GPU).
    pub device_allocs: BTreeMap<u64, (u64, u8)>,
    /// Live `cudaMallocHost` allocations: bus address -> bytes.
    host_allocs: BTreeMap<u64, u64>,
}

impl CudaState {
    /// The GPU holding `[addr, addr + len)` inside one live allocation.
    fn gpu_of(&self, addr: u64, len: u64) -> Option<u8> {
        let (base, (size, gpu)) = self.device_allocs.range(..=addr).next_back()?;
        (addr - base)
            .checked_add(len)
            .filter(|e| e <= size)
            .map(|_| *gpu)
    }
}

fn alloc(c: &mut RankCtx, kind: MemKind, size: u64) -> Answer {
    if size == 0 {
        return Answer::status(CUDA_ERROR_INVALID_VALUE);
    }
    let Ok(mut heaps) = c.heaps.try_borrow_mut() else {
        return Answer::status(CUDA_ERROR_MEMORY_ALLOCATION);
    };
    let r = heaps.of(kind).ok().and_then(|h| h.alloc(size, 256).ok());
    drop(heaps);
    match r {
        Some(bus) => {
            match kind {
                MemKind::Gpu(g) => {
                    c.cuda.device_allocs.insert(bus, (size, g));
                }
                MemKind::Host => {
                    c.cuda.host_allocs.insert(bus, size);
                }
            }
            let mut w = Writer::new();
            w.u64(bus);
            Answer::with(CUDA_SUCCESS, w)
        }
        None => Answer::status(CUDA_ERROR_MEMORY_ALLOCATION),
    }
}

fn free(c: &mut RankCtx, kind: MemKind, bus: u64) -> Answer {
    let size = match kind {
        MemKind::Gpu(_) => c
            .cuda
            .device_allocs
            .get(&bus)
            .map(|(s, g)| (*s, MemKind::Gpu(*g))),
        MemKind::Host => c.cuda.host_allocs.get(&bus).map(|s| (*s, MemKind::Host)),
    };
    let Some((size, kind)) = size else {
        return Answer::status(CUDA_ERROR_INVALID_DEVICE_POINTER);
    };
    let freed = c
        .heaps
        .borrow_mut()
        .of(kind)
        .ok()
        .and_then(|h| h.free(bus, size).ok());
    if freed.is_none() {
        return Answer::status(CUDA_ERROR_INVALID_DEVICE_POINTER);
    }
    c.cuda.device_allocs.remove(&bus);
    c.cuda.host_allocs.remove(&bus);
    Answer::status(CUDA_SUCCESS)
}

fn copy_cost(c: &RankCtx, bytes: u64) -> Op {
    Op::Cpu(c.software.cuda_copy.cycles(bytes))
}

fn ok_or(d: Done) -> Answer {
    match d {
        Done::Failed(_) => Answer::status(CUDA_ERROR_INVALID_VALUE),
        _ => Answer::status(CUDA_SUCCESS),
    }
}

/// Decodes CUDA call `code`.
pub fn decode(code: i64, r: &mut Reader) -> Result<Call, Short> {
    Ok(match code {
        CALL_CUDA_SET_DEVICE => {
            let dev = r.i32()?;
            Call::new(format!("cudaSetDevice({dev})"), move |c| {
                let n = c.heaps.borrow().gpus.len();
                match u8::try_from(dev).ok().filter(|d| usize::from(*d) < n) {
                    Some(d) => {
                        c.cuda.device = d;
                        Answer::status(CUDA_SUCCESS)
                    }
                    None => Answer::status(CUDA_ERROR_INVALID_DEVICE),
                }
            })
        }
        CALL_CUDA_MALLOC => {
            let size = r.u64()?;
            Call::new(format!("cudaMalloc({size})"), move |c| {
                alloc(c, MemKind::Gpu(c.cuda.device), size)
            })
        }
        CALL_CUDA_FREE => {
            let bus = r.u64()?;
            Call::new(format!("cudaFree({bus:#x})"), move |c| {
                free(c, MemKind::Gpu(c.cuda.device), bus)
            })
        }
        CALL_CUDA_MALLOC_HOST => {
            let size = r.u64()?;
            Call::new(format!("cudaMallocHost({size})"), move |c| {
                alloc(c, MemKind::Host, size)
            })
        }
        CALL_CUDA_FREE_HOST => {
            let bus = r.u64()?;
            Call::new(format!("cudaFreeHost({bus:#x})"), move |c| {
                free(c, MemKind::Host, bus)
            })
        }
        CALL_CUDA_MEMCPY_TO_DEVICE => {
            let (dst, data) = (r.u64()?, r.bytes()?);
            let text = format!("cudaMemcpy(to device {dst:#x}, {} bytes)", data.len());
            Call::new(text, move |c| {
                let Some(g) = c.cuda.gpu_of(dst, data.len() as u64) else {
                    return Answer::status(CUDA_ERROR_INVALID_VALUE);
                };
                c.line.call(copy_cost(c, data.len() as u64));
                let kind = MemKind::Gpu(g);
                ok_or(c.line.call(Op::MemWrite {
                    kind,
                    addr: dst,
                    data,
                }))
            })
        }
        CALL_CUDA_MEMCPY_FROM_DEVICE => {
            let (src, len) = (r.u64()?, r.u64()?);
            Call::new(
                format!("cudaMemcpy(from device {src:#x}, {len} bytes)"),
                move |c| {
                    let Some(g) = c.cuda.gpu_of(src, len) else {
                        return Answer::status(CUDA_ERROR_INVALID_VALUE);
                    };
                    c.line.call(copy_cost(c, len));
                    let kind = MemKind::Gpu(g);
                    match c.line.call(Op::MemRead {
                        kind,
                        addr: src,
                        len: len as usize,
                    }) {
                        Done::Bytes(b) => {
                            let mut w = Writer::new();
                            w.bytes(&b);
                            Answer::with(CUDA_SUCCESS, w)
                        }
                        _ => Answer::status(CUDA_ERROR_INVALID_VALUE),
                    }
                },
            )
        }
        CALL_CUDA_MEMCPY_ON_DEVICE => {
            let (dst, src, len) = (r.u64()?, r.u64()?, r.u64()?);
            Call::new(
                format!("cudaMemcpy(device {src:#x} to {dst:#x}, {len} bytes)"),
                move |c| {
                    let (Some(gs), Some(gd)) = (c.cuda.gpu_of(src, len), c.cuda.gpu_of(dst, len))
                    else {
                        return Answer::status(CUDA_ERROR_INVALID_VALUE);
                    };
                    c.line.call(copy_cost(c, len));
                    let read = Op::MemRead {
                        kind: MemKind::Gpu(gs),
                        addr: src,
                        len: len as usize,
                    };
                    match c.line.call(read) {
                        Done::Bytes(data) => ok_or(c.line.call(Op::MemWrite {
                            kind: MemKind::Gpu(gd),
                            addr: dst,
                            data,
                        })),
                        _ => Answer::status(CUDA_ERROR_INVALID_VALUE),
                    }
                },
            )
        }
        CALL_CUDA_MEMSET => {
            let (dst, value, len) = (r.u64()?, r.u32()?, r.u64()?);
            Call::new(format!("cudaMemset({dst:#x}, {value}, {len})"), move |c| {
                let Some(g) = c.cuda.gpu_of(dst, len) else {
                    return Answer::status(CUDA_ERROR_INVALID_VALUE);
                };
                c.line.call(copy_cost(c, len));
                let data = vec![value as u8; len as usize];
                ok_or(c.line.call(Op::MemWrite {
                    kind: MemKind::Gpu(g),
                    addr: dst,
                    data,
                }))
            })
        }
        CALL_CUDA_SYNCHRONIZE => Call::new("cudaDeviceSynchronize()".into(), |_| {
            Answer::status(CUDA_SUCCESS)
        }),
        _ => Call::new(format!("unknown CUDA call {code}"), |_| {
            Answer::status(CUDA_ERROR_INVALID_VALUE)
        }),
    })
}
