//! Parameters of a root complex: its id, host memory map, read timing, completion
//! rules, requester limits and MMIO windows, with documented defaults.

use serde::{Deserialize, Serialize};

use crate::bandwidth::Bandwidth;
use crate::completion::CompletionRules;
use crate::limits::{MaxPayloadSize, MaxReadRequestSize, Rcb};
use crate::read_server::ReadServerConfig;
use crate::requester::IssueError;
use crate::time::Cycles;
use crate::tlp::Bdf;

/// A range of addresses `[base, base + size)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AddressRange {
    /// First address.
    pub base: u64,
    /// Size in bytes.
    pub size: u64,
}

impl AddressRange {
    /// One past the last address, or `None` if the range reaches the top of the 64-bit
    /// space.
    pub fn end(&self) -> Option<u64> {
        self.base.checked_add(self.size)
    }

    /// True if all of `[addr, addr + len)` is inside (len 0 counts as 1).
    pub fn contains(&self, addr: u64, len: u64) -> bool {
        let Some(last) = addr.checked_add(len.max(1) - 1) else {
            return false;
        };
        addr >= self.base && last - self.base < self.size
    }

    fn overlaps(&self, other: &AddressRange) -> bool {
        let a_last = self.base.saturating_add(self.size - 1);
        let b_last = other.base.saturating_add(other.size - 1);
        self.base <= b_last && other.base <= a_last
    }
}

mod bdf_raw {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::tlp::Bdf;

    pub fn serialize<S: Serializer>(b: &Bdf, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u16(b.raw())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Bdf, D::Error> {
        u16::deserialize(d).map(Bdf)
    }
}

/// Parameters of a root complex.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RootComplexConfig {
    /// Requester/Completer ID of the root port (raw 16-bit bus/device/function).
    #[serde(with = "bdf_raw")]
    pub requester_id: Bdf,
    /// Host memory ranges the device may read and write.
    pub host_memory: Vec<AddressRange>,
    /// What never-written host memory reads as.
    pub memory_fill: u8,
    /// Latency and bandwidth of host memory reads.
    pub read_server: ReadServerConfig,
    /// How read completions are split (RCB, MPS, completion size).
    pub completion_rules: CompletionRules,
    /// Max read request size for MMIO reads, also programmed into devices.
    pub max_read_request: MaxReadRequestSize,
    /// Tags available for MMIO and configuration requests.
    pub tags: u16,
    /// Completion timeout for the root complex's own requests.
    pub completion_timeout: Cycles,
    /// MMIO windows for BAR assignment during enumeration.
    pub mmio32: AddressRange,
    /// 64-bit MMIO window.
    pub mmio64: AddressRange,
}

impl Default for RootComplexConfig {
    /// A host like an HA-PACS/TCA node (Xeon E5 v2) on a 250 MHz clock:
    /// - 64 GiB of host memory: 3 GiB below the 32-bit MMIO hole, 61 GiB from 4 GiB up;
    ///   BAR windows 0xC000_0000 + 1 GiB (32-bit) and 0x3800_0000_0000 + 4 TiB
    ///   (64-bit), where Intel firmware puts them;
    /// - reads: 300 ns (75 cycles) from request to first data inside the root complex, an
    ///   estimate to be calibrated; 16 B/cycle (4 GB/s) so that memory is not the
    ///   bottleneck of a Gen2 x8 link;
    /// - RCB 64 B, MPS 256 B, completions up to 256 B: PEACH2's measured 3.5 GB/s DMA
    ///   from host memory is above what 64-byte completions could carry on Gen2 x8
    ///   (64 / (64 + 20) x 4 GB/s = 3.05 GB/s), so the host must return larger ones;
    /// - MRRS 512 B (the spec's default), 32 tags (5-bit tags), completion timeout
    ///   50 us (the low end of the spec's default range, 50 us to 50 ms).
    fn default() -> RootComplexConfig {
        RootComplexConfig {
            requester_id: Bdf(0x0000),
            host_memory: vec![
                AddressRange {
                    base: 0,
                    size: 3 << 30,
                },
                AddressRange {
                    base: 1 << 32,
                    size: 61 << 30,
                },
            ],
            memory_fill: 0,
            read_server: ReadServerConfig {
                latency: Cycles(75),
                bandwidth: Bandwidth::per_cycle(16).expect("non-zero"),
            },
            completion_rules: CompletionRules::new(Rcb::B64, MaxPayloadSize::B256),
            max_read_request: MaxReadRequestSize::B512,
            tags: 32,
            completion_timeout: Cycles(12_500),
            mmio32: AddressRange {
                base: 0xc000_0000,
                size: 1 << 30,
            },
            mmio64: AddressRange {
                base: 0x3800_0000_0000,
                size: 4 << 40,
            },
        }
    }
}

/// A configuration that cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RcConfigError {
    /// A range of size 0, or one running past the 64-bit space.
    #[error("address range {base:#x} + {size:#x} is empty or wraps")]
    BadRange {
        /// Base.
        base: u64,
        /// Size.
        size: u64,
    },
    /// Two ranges overlap.
    #[error("address ranges at {0:#x} and {1:#x} overlap")]
    Overlap(u64, u64),
    /// The 32-bit MMIO window is not below 4 GiB.
    #[error("the 32-bit MMIO window must lie below 4 GiB")]
    Mmio32Above4G,
    /// Bad requester limits.
    #[error(transparent)]
    Requester(#[from] IssueError),
}

impl RootComplexConfig {
    /// Checks ranges (non-empty, not wrapping, not overlapping, the 32-bit window below
    /// 4 GiB).
    pub fn validate(&self) -> Result<(), RcConfigError> {
        let config = self;
        let mut all: Vec<AddressRange> = config.host_memory.clone();
        all.push(config.mmio32);
        all.push(config.mmio64);
        for r in &all {
            if r.size == 0 || r.base.checked_add(r.size - 1).is_none() {
                return Err(RcConfigError::BadRange {
                    base: r.base,
                    size: r.size,
                });
            }
        }
        if u128::from(config.mmio32.base) + u128::from(config.mmio32.size) > 1 << 32 {
            return Err(RcConfigError::Mmio32Above4G);
        }
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                if a.overlaps(b) {
                    return Err(RcConfigError::Overlap(a.base, b.base));
                }
            }
        }
        Ok(())
    }
}
