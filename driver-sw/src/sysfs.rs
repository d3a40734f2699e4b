//! The real-device backend: BAR0 and BAR2 of a PEACH2 mapped from sysfs
//! (`/sys/bus/pci/devices/<bdf>/resource0`, `resource2`), DMA buffers from a u-dma-buf
//! device (`/dev/udmabufN`, physically contiguous, its bus address in
//! `/sys/class/u-dma-buf/udmabufN/phys_addr`). GPU memory needs the NVIDIA peer-memory
//! kernel interface and is not offered by this backend.
//!
//! Mapping BARs needs root (or the files' permissions) and a device; none is present
//! in CI, where only the error paths are exercised.

use crate::alloc::RangeAlloc;
use crate::error::TcaError;
use crate::handle::MemKind;
use crate::hw::{DmaMemory, Mmio, Region};
use std::fs::OpenOptions;
use std::os::fd::AsRawFd;
use std::path::Path;

/// A shared mapping of a file (a BAR resource or a DMA buffer).
struct Mapping {
    ptr: *mut u8,
    len: usize,
}

impl Mapping {
    fn open(path: &Path, len: usize) -> Result<Mapping, TcaError> {
        let err = |what: &str, e: std::io::Error| {
            TcaError::Device(format!("{what} {}: {e}", path.display()))
        };
        let f = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| err("open", e))?;
        let size = f.metadata().map_err(|e| err("stat", e))?.len() as usize;
        let len = if size > 0 { len.min(size) } else { len };
        // SAFETY: a fresh shared mapping of an open file; the pointer is only used
        // through volatile accesses bounded by `len`, and unmapped once in Drop.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                f.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(err("mmap", std::io::Error::last_os_error()));
        }
        Ok(Mapping {
            ptr: ptr.cast(),
            len,
        })
    }

    fn check(&self, off: u64, len: usize) -> Result<usize, TcaError> {
        let off = usize::try_from(off).map_err(|_| TcaError::Device("offset overflow".into()))?;
        match off.checked_add(len) {
            Some(end) if end <= self.len => Ok(off),
            _ => Err(TcaError::Device(format!(
                "access {off:#x}+{len} outside a {:#x}-byte mapping",
                self.len
            ))),
        }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `open`.
        unsafe {
            libc::munmap(self.ptr.cast(), self.len);
        }
    }
}

/// BAR0 and BAR2 of one PEACH2.
pub struct SysfsMmio {
    bar0: Mapping,
    bar2: Mapping,
}

/// How much of BAR2 (4 TiB) is mapped: the global space of 64 nodes x 6 targets is
/// sparse, so a window of the first 64 GiB of address space is reserved, not touched.
const BAR2_MAP: usize = 64 << 30;

impl SysfsMmio {
    /// Maps the BARs of the PCI device at `dev` (e.g. `/sys/bus/pci/devices/0000:05:00.0`).
    pub fn open(dev: &Path) -> Result<SysfsMmio, TcaError> {
        Ok(SysfsMmio {
            bar0: Mapping::open(
                &dev.join("resource0"),
                peach2_regmap::csr::BAR0_SIZE as usize,
            )?,
            bar2: Mapping::open(&dev.join("resource2"), BAR2_MAP)?,
        })
    }
}

impl Mmio for SysfsMmio {
    fn read32(&mut self, offset: u32) -> Result<u32, TcaError> {
        let o = self.bar0.check(u64::from(offset), 4)?;
        // SAFETY: in bounds (checked), 4-byte aligned register offsets; volatile MMIO.
        Ok(unsafe { std::ptr::read_volatile(self.bar0.ptr.add(o).cast::<u32>()) })
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<(), TcaError> {
        let o = self.bar0.check(u64::from(offset), 4)?;
        // SAFETY: as in read32.
        unsafe { std::ptr::write_volatile(self.bar0.ptr.add(o).cast::<u32>(), value) };
        Ok(())
    }

    fn write64(&mut self, offset: u32, value: u64) -> Result<(), TcaError> {
        let o = self.bar0.check(u64::from(offset), 8)?;
        // SAFETY: as in read32, 8-byte aligned.
        unsafe { std::ptr::write_volatile(self.bar0.ptr.add(o).cast::<u64>(), value) };
        Ok(())
    }

    fn window_write(&mut self, offset: u64, data: &[u8]) -> Result<(), TcaError> {
        let o = self.bar2.check(offset, data.len())?;
        for (i, b) in data.iter().enumerate() {
            // SAFETY: in bounds (checked); byte stores keep the write byte-exact.
            unsafe { std::ptr::write_volatile(self.bar2.ptr.add(o + i), *b) };
        }
        Ok(())
    }
}

/// DMA buffers carved out of one u-dma-buf device.
pub struct UdmaBuf {
    map: Mapping,
    phys: u64,
    alloc: RangeAlloc,
}

impl UdmaBuf {
    /// Opens `/dev/<name>` and reads its bus address and size from
    /// `/sys/class/u-dma-buf/<name>/`.
    pub fn open(name: &str) -> Result<UdmaBuf, TcaError> {
        let sys = Path::new("/sys/class/u-dma-buf").join(name);
        let read = |f: &str| -> Result<u64, TcaError> {
            let p = sys.join(f);
            let s = std::fs::read_to_string(&p)
                .map_err(|e| TcaError::Device(format!("read {}: {e}", p.display())))?;
            let s = s.trim();
            let v = match s.strip_prefix("0x") {
                Some(h) => u64::from_str_radix(h, 16),
                None => s.parse(),
            };
            v.map_err(|_| TcaError::Device(format!("{}: not a number: {s}", p.display())))
        };
        let phys = read("phys_addr")?;
        let size = read("size")?;
        let map = Mapping::open(&Path::new("/dev").join(name), size as usize)?;
        Ok(UdmaBuf {
            map,
            phys,
            alloc: RangeAlloc::new(phys, size),
        })
    }
}

impl DmaMemory for UdmaBuf {
    fn kinds(&self) -> Vec<MemKind> {
        vec![MemKind::Host]
    }

    fn alloc(&mut self, kind: MemKind, size: u64, align: u64) -> Result<Region, TcaError> {
        if kind != MemKind::Host {
            return Err(TcaError::NoMemory(kind));
        }
        let bus_addr = self
            .alloc
            .alloc(size, align)
            .map_err(|_| TcaError::OutOfMemory { kind, size })?;
        Ok(Region { bus_addr, size })
    }

    fn free(&mut self, _kind: MemKind, region: Region) -> Result<(), TcaError> {
        self.alloc
            .free(region.bus_addr, region.size)
            .map_err(|e| TcaError::Invalid(e.to_string()))
    }

    fn read(&mut self, kind: MemKind, addr: u64, buf: &mut [u8]) -> Result<(), TcaError> {
        if kind != MemKind::Host {
            return Err(TcaError::NoMemory(kind));
        }
        let o = self.map.check(addr.wrapping_sub(self.phys), buf.len())?;
        for (i, b) in buf.iter_mut().enumerate() {
            // SAFETY: in bounds (checked); volatile because the chip writes it.
            *b = unsafe { std::ptr::read_volatile(self.map.ptr.add(o + i)) };
        }
        Ok(())
    }

    fn write(&mut self, kind: MemKind, addr: u64, data: &[u8]) -> Result<(), TcaError> {
        if kind != MemKind::Host {
            return Err(TcaError::NoMemory(kind));
        }
        let o = self.map.check(addr.wrapping_sub(self.phys), data.len())?;
        for (i, b) in data.iter().enumerate() {
            // SAFETY: in bounds (checked).
            unsafe { std::ptr::write_volatile(self.map.ptr.add(o + i), *b) };
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_devices_are_errors_not_panics() {
        let e = SysfsMmio::open(Path::new("/nonexistent/0000:05:00.0"))
            .err()
            .unwrap();
        assert!(
            matches!(e, TcaError::Device(ref m) if m.contains("resource0")),
            "{e}"
        );
        let e = UdmaBuf::open("udmabuf-none").err().unwrap();
        assert!(
            matches!(e, TcaError::Device(ref m) if m.contains("phys_addr")),
            "{e}"
        );
    }
}
