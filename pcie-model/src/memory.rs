//! Sparse, byte-accurate memory over the full 64-bit address space.
//!
//! Host memory and GPU memory in a simulation are gigabytes of address space of which a
//! test touches a few pages. Pages of 4 KiB are allocated on first write; bytes that were
//! never written read as a configurable fill value.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// Page size of the sparse store.
pub const PAGE_SIZE: usize = 4096;
const PAGE_SHIFT: u32 = 12;

/// An access whose last byte would lie beyond address 2^64 - 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("access of {len} bytes at {addr:#x} wraps past the end of the 64-bit address space")]
pub struct AddressOverflow {
    /// Start address of the access.
    pub addr: u64,
    /// Length of the access in bytes.
    pub len: usize,
}

/// Bytes kept outside the model that a range of a [`SparseMemory`] stands for (memory
/// shared with another process, say). Offsets are relative to the start of the range.
pub trait Backing: Send + Sync {
    /// Copies `buf.len()` bytes from `offset` into `buf`.
    fn read(&self, offset: u64, buf: &mut [u8]);
    /// Copies `data` to `offset`.
    fn write(&self, offset: u64, data: &[u8]);
}

/// A range of a [`SparseMemory`] held by a [`Backing`].
#[derive(Clone)]
struct Attached {
    base: u64,
    len: u64,
    backing: Arc<dyn Backing>,
}

impl fmt::Debug for Attached {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Attached({:#x}+{:#x})", self.base, self.len)
    }
}

/// Sparse memory: a map from page number to 4 KiB page, and ranges held elsewhere.
#[derive(Debug, Clone, Default)]
pub struct SparseMemory {
    pages: HashMap<u64, Box<[u8; PAGE_SIZE]>>,
    fill: u8,
    attached: Vec<Attached>,
}

fn check_range(addr: u64, len: usize) -> Result<(), AddressOverflow> {
    if len == 0 {
        return Ok(());
    }
    match addr.checked_add(len as u64 - 1) {
        Some(_) => Ok(()),
        None => Err(AddressOverflow { addr, len }),
    }
}

impl SparseMemory {
    /// An empty memory whose unwritten bytes read as 0.
    pub fn new() -> SparseMemory {
        SparseMemory::with_fill(0)
    }

    /// An empty memory whose unwritten bytes read as `fill` (e.g. 0xFF to make reads of
    /// uninitialised memory stand out).
    pub fn with_fill(fill: u8) -> SparseMemory {
        SparseMemory {
            pages: HashMap::new(),
            fill,
            attached: Vec::new(),
        }
    }

    /// From now on, the `len` bytes at `base` are `backing`'s (reads and writes go
    /// there; what the pages held for them is no longer seen).
    pub fn attach(&mut self, base: u64, len: u64, backing: Arc<dyn Backing>) {
        self.attached.push(Attached { base, len, backing });
    }

    /// The attached range holding `addr`, and how many of the bytes from `addr` on it
    /// holds (at most `len`); else how many bytes from `addr` lie before the next one.
    fn split(&self, addr: u64, len: usize) -> (Option<&Attached>, usize) {
        let mut n = len;
        for a in &self.attached {
            if addr >= a.base && addr - a.base < a.len {
                return (Some(a), n.min((a.len - (addr - a.base)) as usize));
            }
            if a.base > addr {
                n = n.min((a.base - addr).min(usize::MAX as u64) as usize);
            }
        }
        (None, n)
    }

    /// The value unwritten bytes read as.
    pub fn fill(&self) -> u8 {
        self.fill
    }

    /// Number of 4 KiB pages allocated so far.
    pub fn allocated_pages(&self) -> usize {
        self.pages.len()
    }

    /// Copies `buf.len()` bytes starting at `addr` into `buf`.
    pub fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), AddressOverflow> {
        check_range(addr, buf.len())?;
        if !self.attached.is_empty() {
            let mut done = 0usize;
            while done < buf.len() {
                let a = addr + done as u64;
                let (ext, n) = self.split(a, buf.len() - done);
                let part = &mut buf[done..done + n];
                match ext {
                    Some(e) => e.backing.read(a - e.base, part),
                    None => self.read_pages(a, part),
                }
                done += n;
            }
            return Ok(());
        }
        self.read_pages(addr, buf);
        Ok(())
    }

    fn read_pages(&self, addr: u64, buf: &mut [u8]) {
        let mut done = 0usize;
        while done < buf.len() {
            let a = addr + done as u64;
            let off = (a as usize) & (PAGE_SIZE - 1);
            let n = (PAGE_SIZE - off).min(buf.len() - done);
            let dst = &mut buf[done..done + n];
            match self.pages.get(&(a >> PAGE_SHIFT)) {
                Some(page) => dst.copy_from_slice(&page[off..off + n]),
                None => dst.fill(self.fill),
            }
            done += n;
        }
    }

    /// Reads `len` bytes starting at `addr` into a new vector.
    pub fn read_vec(&self, addr: u64, len: usize) -> Result<Vec<u8>, AddressOverflow> {
        let mut v = vec![0u8; len];
        self.read(addr, &mut v)?;
        Ok(v)
    }

    /// Writes `data` starting at `addr`, allocating pages as needed.
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), AddressOverflow> {
        check_range(addr, data.len())?;
        if !self.attached.is_empty() {
            let mut done = 0usize;
            while done < data.len() {
                let a = addr + done as u64;
                let (ext, n) = self.split(a, data.len() - done);
                match ext {
                    Some(e) => e.backing.write(a - e.base, &data[done..done + n]),
                    None => self.write_pages(a, &data[done..done + n]),
                }
                done += n;
            }
            return Ok(());
        }
        self.write_pages(addr, data);
        Ok(())
    }

    fn write_pages(&mut self, addr: u64, data: &[u8]) {
        let mut done = 0usize;
        while done < data.len() {
            let a = addr + done as u64;
            let off = (a as usize) & (PAGE_SIZE - 1);
            let n = (PAGE_SIZE - off).min(data.len() - done);
            let fill = self.fill;
            let page = self
                .pages
                .entry(a >> PAGE_SHIFT)
                .or_insert_with(|| Box::new([fill; PAGE_SIZE]));
            page[off..off + n].copy_from_slice(&data[done..done + n]);
            done += n;
        }
    }

    /// Writes the bytes of `data` whose `enable` flag is set (a write with byte enables,
    /// as a TLP's first/last DW byte enables select bytes). `enable` must be as long as
    /// `data`; extra flags are ignored and missing ones count as disabled.
    pub fn write_masked(
        &mut self,
        addr: u64,
        data: &[u8],
        enable: &[bool],
    ) -> Result<(), AddressOverflow> {
        check_range(addr, data.len())?;
        let n = data.len().min(enable.len());
        let mut i = 0;
        while i < n {
            if !enable[i] {
                i += 1;
                continue;
            }
            // Write each run of enabled bytes in one go.
            let run = enable[i..n].iter().take_while(|&&e| e).count();
            self.write(addr + i as u64, &data[i..i + run])?;
            i += run;
        }
        Ok(())
    }
}

/// Per-byte write enables of a TLP payload of `len` bytes (whole DWs) from its First and
/// Last DW Byte Enables: bit k of a BE field enables byte k of that DW, DWs in between
/// are fully enabled, and a 1-DW payload uses only the first field.
pub fn payload_byte_enables(first_be: u8, last_be: u8, len: usize) -> Vec<bool> {
    let dws = len.div_ceil(4);
    (0..len)
        .map(|i| {
            let (dw, lane) = (i / 4, i % 4);
            let be = if dw == 0 {
                first_be
            } else if dw + 1 == dws {
                last_be
            } else {
                0xf
            };
            be & (1 << lane) != 0
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    struct Shared(Mutex<Vec<u8>>);

    impl Backing for Shared {
        fn read(&self, offset: u64, buf: &mut [u8]) {
            let v = self.0.lock().unwrap();
            buf.copy_from_slice(&v[offset as usize..offset as usize + buf.len()]);
        }
        fn write(&self, offset: u64, data: &[u8]) {
            let mut v = self.0.lock().unwrap();
            v[offset as usize..offset as usize + data.len()].copy_from_slice(data);
        }
    }

    #[test]
    fn attached_ranges_hold_their_bytes_and_accesses_split_at_their_ends() {
        let shared = Arc::new(Shared(Mutex::new(vec![0x11; 100])));
        let mut m = SparseMemory::with_fill(0xEE);
        m.write(0x1000 - 4, &[1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
        m.attach(0x1000, 100, shared.clone());
        // The first 4 bytes were the pages', the next 4 are now the backing's.
        assert_eq!(
            m.read_vec(0x1000 - 4, 8).unwrap(),
            [1, 2, 3, 4, 0x11, 0x11, 0x11, 0x11]
        );
        // A write across the range's end lands on both sides.
        m.write(0x1000 + 98, &[9, 9, 9, 9]).unwrap();
        assert_eq!(&shared.0.lock().unwrap()[96..], &[0x11, 0x11, 9, 9]);
        assert_eq!(m.read_vec(0x1000 + 100, 3).unwrap(), [9, 9, 0xEE]);
        // Another holder of the bytes sees the model's writes and the model sees its.
        shared.0.lock().unwrap()[0] = 0x42;
        assert_eq!(m.read_vec(0x1000, 1).unwrap(), [0x42]);
    }

    #[test]
    fn unwritten_bytes_read_as_fill() {
        let m = SparseMemory::with_fill(0xA5);
        assert_eq!(m.read_vec(0x1234_5678_9000, 3).unwrap(), vec![0xA5; 3]);
        assert_eq!(m.allocated_pages(), 0);
        assert_eq!(SparseMemory::new().read_vec(7, 2).unwrap(), vec![0, 0]);
    }

    #[test]
    fn write_across_pages_reads_back_exactly() {
        let mut m = SparseMemory::new();
        let data: Vec<u8> = (0..10_000u32).map(|i| (i * 7 + 3) as u8).collect();
        let base = (1u64 << 40) + 4093;
        m.write(base, &data).unwrap();
        assert_eq!(m.read_vec(base, data.len()).unwrap(), data);
        // 4093 + 10000 bytes span pages 0..=3 of that region.
        assert_eq!(m.allocated_pages(), 4);
        // Bytes around the written range are untouched.
        assert_eq!(m.read_vec(base - 1, 1).unwrap(), vec![0]);
        assert_eq!(m.read_vec(base + 10_000, 1).unwrap(), vec![0]);
    }

    #[test]
    fn top_of_address_space() {
        let mut m = SparseMemory::new();
        m.write(u64::MAX - 1, &[1, 2]).unwrap();
        assert_eq!(m.read_vec(u64::MAX - 1, 2).unwrap(), vec![1, 2]);
        assert_eq!(
            m.write(u64::MAX, &[1, 2]),
            Err(AddressOverflow {
                addr: u64::MAX,
                len: 2
            })
        );
        assert!(m.read_vec(u64::MAX, 2).is_err());
        assert!(m.read_vec(u64::MAX, 0).unwrap().is_empty());
    }

    #[test]
    fn payload_byte_enables_follow_first_and_last_be() {
        let e = payload_byte_enables(0b1100, 0b0011, 12);
        let want = [
            false, false, true, true, true, true, true, true, true, true, false, false,
        ];
        assert_eq!(e, want);
        // One DW: only the first BE applies.
        assert_eq!(
            payload_byte_enables(0b0110, 0, 4),
            vec![false, true, true, false]
        );
        // Zero-length write: nothing enabled.
        assert_eq!(payload_byte_enables(0, 0, 4), vec![false; 4]);
    }

    #[test]
    fn masked_write_touches_only_enabled_bytes() {
        let mut m = SparseMemory::with_fill(0xEE);
        m.write_masked(0x100, &[1, 2, 3, 4], &[false, true, true, false])
            .unwrap();
        assert_eq!(m.read_vec(0x100, 4).unwrap(), vec![0xEE, 2, 3, 0xEE]);
    }
}
