//! What the driver needs from a backend: register access and DMA-able memory.

use crate::error::TcaError;
use crate::handle::MemKind;

/// Access to the chip's BARs from the CPU.
///
/// BAR0 holds the registers ([`peach2_regmap::csr`], [`peach2_regmap::dma`]); BAR2 is the
/// window onto the TCA global space (offset `o` reaches global address `2^40 + o`).
/// Writes are posted: a later read of BAR0 returns after every earlier write reached
/// the chip.
pub trait Mmio {
    /// Reads the 32-bit register at BAR0 `offset`.
    fn read32(&mut self, offset: u32) -> Result<u32, TcaError>;
    /// Writes the 32-bit register at BAR0 `offset`.
    fn write32(&mut self, offset: u32, value: u32) -> Result<(), TcaError>;
    /// Reads 64 bits at BAR0 `offset` (low DW first).
    fn read64(&mut self, offset: u32) -> Result<u64, TcaError> {
        let lo = self.read32(offset)?;
        let hi = self.read32(offset + 4)?;
        Ok(u64::from(lo) | (u64::from(hi) << 32))
    }
    /// Writes 64 bits at BAR0 `offset` (one 8-byte write).
    fn write64(&mut self, offset: u32, value: u64) -> Result<(), TcaError>;
    /// Writes consecutive DWs from BAR0 `offset` (a write-combined burst on real
    /// hardware, one TLP per 256 bytes at most).
    fn write_block(&mut self, offset: u32, values: &[u32]) -> Result<(), TcaError> {
        for (i, v) in values.iter().enumerate() {
            self.write32(offset + 4 * i as u32, *v)?;
        }
        Ok(())
    }
    /// Writes `data` at BAR2 `offset`, byte-exact (the TLPs carry byte enables).
    fn window_write(&mut self, offset: u64, data: &[u8]) -> Result<(), TcaError>;
    /// Reads the register at BAR0 `offset` until it holds `want`, at most `polls` times:
    /// `true` once it did. Each read is a PCIe round trip through the chip.
    fn poll_until(&mut self, offset: u32, want: u32, polls: u64) -> Result<bool, TcaError> {
        for _ in 0..polls {
            if self.read32(offset)? == want {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// A range of DMA-able memory as the backend handed it out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    /// The chip-visible (local PCIe bus) address.
    pub bus_addr: u64,
    /// Bytes.
    pub size: u64,
}

/// Memory the chip reaches by DMA, and the CPU reaches too.
pub trait DmaMemory {
    /// The pools this backend has: host memory and the GPUs present (`Gpu(0)`..).
    fn kinds(&self) -> Vec<MemKind>;
    /// Allocates `size` bytes of `kind`, aligned to `align` (a power of two).
    fn alloc(&mut self, kind: MemKind, size: u64, align: u64) -> Result<Region, TcaError>;
    /// Returns a region from [`DmaMemory::alloc`].
    fn free(&mut self, kind: MemKind, region: Region) -> Result<(), TcaError>;
    /// CPU read of `buf.len()` bytes at bus address `addr` of `kind`.
    fn read(&mut self, kind: MemKind, addr: u64, buf: &mut [u8]) -> Result<(), TcaError>;
    /// CPU write of `data` at bus address `addr` of `kind`.
    fn write(&mut self, kind: MemKind, addr: u64, data: &[u8]) -> Result<(), TcaError>;
    /// One poll of a 32-bit word in host memory (the CPU spinning on a flag). Backends
    /// with a clock let time pass here.
    fn poll32(&mut self, addr: u64) -> Result<u32, TcaError> {
        let mut b = [0u8; 4];
        self.read(MemKind::Host, addr, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }
    /// Polls the word at `addr` until it holds `want`, at most `polls` times
    /// ([`DmaMemory::poll32`] each): `true` once it did. A backend that carries out
    /// accesses elsewhere may do the whole loop in one step.
    fn poll_until(&mut self, addr: u64, want: u32, polls: u64) -> Result<bool, TcaError> {
        for _ in 0..polls {
            if self.poll32(addr)? == want {
                return Ok(true);
            }
        }
        Ok(false)
    }
}
