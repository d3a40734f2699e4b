//! Chains placed where the chip reads them: in its internal descriptor memory (written
//! by PIO, no fetch latency) or in host memory (written by the CPU, fetched by the chip,
//! +1 read round trip per descriptor).

use crate::error::TcaError;
use crate::handle::MemKind;
use crate::hw::{DmaMemory, Mmio, Region};
use crate::plan::{HwCopy, Plan, Source};
use peach2_regmap::dma::{desc_offset, flags, Descriptor, DESC_BYTES};

/// Where a chain's descriptors live.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Placement {
    /// The chip's descriptor memory (up to 1024 descriptors shared by all channels).
    Internal,
    /// Host memory.
    Host,
}

/// Where a placed chain's descriptors are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Placed {
    /// Internal descriptors `first..first + count`.
    Internal {
        /// First index.
        first: u32,
        /// Descriptors.
        count: u32,
    },
    /// Host memory region holding the descriptors.
    Host(Region),
    /// No descriptors: every copy was small enough for PIO and nothing notifies.
    Nothing,
}

/// One descriptor of a chain, before linking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// The plan's copy at this index.
    Copy(usize),
    /// A write-immediate descriptor: a notification's `value` to `dst`.
    Immediate {
        /// Where the value goes.
        dst: u64,
        /// The value.
        value: u32,
    },
}

/// The hardware descriptors of `steps`, the one at index `rx_at` flagged to notify the
/// receiver through the channel's registers, linked for `placement` (`base`: the first
/// internal index or the host address).
pub(crate) fn descriptors(
    plan: &Plan,
    steps: &[Step],
    rx_at: Option<usize>,
    bounce: Option<Region>,
    placement: Placement,
    base: u64,
) -> Vec<Descriptor> {
    let n = steps.len();
    steps
        .iter()
        .enumerate()
        .map(|(i, step)| {
            let mut d = match *step {
                Step::Copy(k) => copy_descriptor(&plan.copies[k], bounce),
                Step::Immediate { dst, value } => Descriptor::immediate(dst, value),
            };
            if rx_at == Some(i) {
                d.flags |= flags::NOTIFY_RX;
            }
            if i + 1 == n {
                d.flags |= flags::LAST;
            }
            d.next = match placement {
                _ if i + 1 == n => 0,
                Placement::Internal => (base + i as u64 + 1) * u64::from(DESC_BYTES),
                Placement::Host => base + (i as u64 + 1) * u64::from(DESC_BYTES),
            };
            d
        })
        .collect()
}

/// The descriptor of one planned copy (unlinked, no notification).
fn copy_descriptor(c: &HwCopy, bounce: Option<Region>) -> Descriptor {
    let src = match c.src {
        Source::Direct(a) => a,
        Source::Bounce(o) => {
            bounce
                .expect("a plan with stages has a bounce buffer")
                .bus_addr
                + o
        }
    };
    let mut d = Descriptor {
        src,
        dst: c.dst,
        length: c.length,
        ..Default::default()
    };
    if let Some(s) = c.stride {
        d.flags |= flags::TWO_D;
        d.height = s.height;
        d.src_pitch = s.src_pitch;
        d.dst_pitch = s.dst_pitch;
    }
    d
}

/// Writes internal descriptors starting at index `first` (one burst per descriptor).
pub(crate) fn write_internal(
    mmio: &mut impl Mmio,
    first: u32,
    descs: &[Descriptor],
) -> Result<(), TcaError> {
    for (i, d) in descs.iter().enumerate() {
        mmio.write_block(desc_offset(first + i as u32), &d.to_dws())?;
    }
    Ok(())
}

/// Writes host descriptors into `region`.
pub(crate) fn write_host(
    mem: &mut impl DmaMemory,
    region: Region,
    descs: &[Descriptor],
) -> Result<(), TcaError> {
    let bytes: Vec<u8> = descs.iter().flat_map(|d| d.to_bytes()).collect();
    mem.write(MemKind::Host, region.bus_addr, &bytes)
}
