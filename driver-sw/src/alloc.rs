//! A first-fit allocator of address ranges with coalescing frees, used for host and
//! GPU buffers by backends and for the chip's internal descriptor memory by the driver.

use std::collections::BTreeMap;

/// Why an allocator call failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum AllocError {
    /// No free range is large enough.
    #[error("no free range of {0} units")]
    Exhausted(u64),
    /// Size zero or alignment not a power of two.
    #[error("bad request: size {size}, alignment {align}")]
    BadRequest {
        /// Size asked for.
        size: u64,
        /// Alignment asked for.
        align: u64,
    },
    /// A free of a range that is not allocated (double free, or never allocated).
    #[error("range {start:#x}+{size:#x} is not allocated")]
    NotAllocated {
        /// Start.
        start: u64,
        /// Size.
        size: u64,
    },
}

/// First-fit allocator over `[base, base + size)`.
#[derive(Debug, Clone)]
pub struct RangeAlloc {
    base: u64,
    size: u64,
    /// Free ranges: start -> length, never adjacent (coalesced).
    free: BTreeMap<u64, u64>,
    /// Allocated ranges: start -> length.
    used: BTreeMap<u64, u64>,
}

impl RangeAlloc {
    /// An allocator with everything free.
    pub fn new(base: u64, size: u64) -> RangeAlloc {
        let mut free = BTreeMap::new();
        if size > 0 {
            free.insert(base, size);
        }
        RangeAlloc {
            base,
            size,
            free,
            used: BTreeMap::new(),
        }
    }

    /// First address managed.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// Units managed.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Units free in total.
    pub fn free_total(&self) -> u64 {
        self.free.values().sum()
    }

    /// Allocates `size` units at a multiple of `align` (a power of two).
    pub fn alloc(&mut self, size: u64, align: u64) -> Result<u64, AllocError> {
        if size == 0 || align == 0 || !align.is_power_of_two() {
            return Err(AllocError::BadRequest { size, align });
        }
        let found = self.free.iter().find_map(|(&start, &len)| {
            let aligned = start.checked_add(align - 1)? & !(align - 1);
            let end = start + len;
            (aligned.checked_add(size)? <= end).then_some((start, len, aligned))
        });
        let (start, len, at) = found.ok_or(AllocError::Exhausted(size))?;
        self.free.remove(&start);
        if at > start {
            self.free.insert(start, at - start);
        }
        let tail = start + len - (at + size);
        if tail > 0 {
            self.free.insert(at + size, tail);
        }
        self.used.insert(at, size);
        Ok(at)
    }

    /// True if `[start, start + size)` is exactly one allocation.
    pub fn is_allocated(&self, start: u64, size: u64) -> bool {
        self.used.get(&start) == Some(&size)
    }

    /// Frees an allocation made by [`RangeAlloc::alloc`].
    pub fn free(&mut self, start: u64, size: u64) -> Result<(), AllocError> {
        if !self.is_allocated(start, size) {
            return Err(AllocError::NotAllocated { start, size });
        }
        self.used.remove(&start);
        let (mut s, mut l) = (start, size);
        if let Some((&ps, &pl)) = self.free.range(..s).next_back() {
            if ps + pl == s {
                self.free.remove(&ps);
                s = ps;
                l += pl;
            }
        }
        if let Some(&nl) = self.free.get(&(s + l)) {
            self.free.remove(&(s + l));
            l += nl;
        }
        self.free.insert(s, l);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn aligns_and_coalesces() {
        let mut a = RangeAlloc::new(0x1000, 0x1000);
        let x = a.alloc(10, 1).unwrap();
        let y = a.alloc(32, 64).unwrap();
        assert_eq!((x, y), (0x1000, 0x1040));
        assert_eq!(a.alloc(0x1000, 1), Err(AllocError::Exhausted(0x1000)));
        a.free(x, 10).unwrap();
        assert_eq!(
            a.free(x, 10),
            Err(AllocError::NotAllocated { start: x, size: 10 })
        );
        a.free(y, 32).unwrap();
        assert_eq!(a.free_total(), 0x1000);
        assert_eq!(a.alloc(0x1000, 1), Ok(0x1000));
        assert!(a.alloc(1, 3).is_err());
    }

    proptest! {
        #[test]
        fn allocations_never_overlap(ops in proptest::collection::vec((1u64..200, 0u32..5, any::<bool>()), 1..60)) {
            let mut a = RangeAlloc::new(0, 4096);
            let mut live: Vec<(u64, u64)> = Vec::new();
            for (size, align_log, free_one) in ops {
                if free_one && !live.is_empty() {
                    let (s, l) = live.remove(0);
                    a.free(s, l).unwrap();
                } else if let Ok(s) = a.alloc(size, 1 << align_log) {
                    prop_assert_eq!(s % (1 << align_log), 0);
                    prop_assert!(s + size <= 4096);
                    for &(t, m) in &live {
                        prop_assert!(s + size <= t || t + m <= s);
                    }
                    live.push((s, size));
                }
            }
            let used: u64 = live.iter().map(|(_, l)| l).sum();
            prop_assert_eq!(a.free_total() + used, 4096);
        }
    }
}
