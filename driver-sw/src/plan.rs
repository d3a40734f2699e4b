//! Planning a legal copy as what the chip can do.
//!
//! The DMA engine moves whole DWs between 4-byte aligned addresses with equal low 4 bits
//! ([`peach2_regmap::dma`]). A copy of any alignment and length becomes:
//!
//! - **edges**: the bytes before the first and after the last whole destination DW, written
//!   by PIO through BAR2 (the TLPs carry byte enables, so nothing beside them changes);
//! - **stages**: when the source's low 4 bits differ from the destination's, the CPU copies
//!   the source into a host bounce buffer at an offset with the destination's low 4 bits;
//! - **descriptors**: aligned DMA blocks of at most [`MAX_LENGTH`] bytes (2-D ones for a
//!   legal block-stride copy, with at most 65535 rows each).
//!
//! Edges are written before the chain starts and notifications come after the data of
//! their descriptor, so a receiver that sees a notification sees every byte before it.

use peach2_regmap::dma::MAX_LENGTH;

/// Where a descriptor reads from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The user's source buffer, at this local bus address.
    Direct(u64),
    /// The chain's bounce buffer, at this byte offset.
    Bounce(u64),
}

/// The block-stride part of a descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stride {
    /// Rows.
    pub height: u16,
    /// Source pitch.
    pub src_pitch: u32,
    /// Destination pitch.
    pub dst_pitch: u32,
}

/// One hardware descriptor's data movement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HwCopy {
    /// Source.
    pub src: Source,
    /// Destination (global or local address).
    pub dst: u64,
    /// Bytes (per row, for 2-D).
    pub length: u32,
    /// Block stride, if 2-D.
    pub stride: Option<Stride>,
}

/// Bytes the CPU copies from the source into the bounce buffer before the start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stage {
    /// Source bus address.
    pub src: u64,
    /// Bytes.
    pub len: u64,
    /// Offset in the bounce buffer.
    pub bounce_off: u64,
}

/// Bytes written by PIO before the start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// Destination address.
    pub dst: u64,
    /// Source bus address of the bytes.
    pub src: u64,
    /// Bytes (1..=3 for the edges of a long copy; a short copy may be all edge).
    pub len: u64,
}

/// How a list of copies is carried out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// PIO writes.
    pub edges: Vec<Edge>,
    /// Bounce-buffer copies.
    pub stages: Vec<Stage>,
    /// Descriptors, in order.
    pub copies: Vec<HwCopy>,
    /// Bytes of bounce buffer the stages need (16-byte aligned base assumed).
    pub bounce_bytes: u64,
}

/// Largest 1-D chunk: [`MAX_LENGTH`] is a multiple of 16, so chunks keep their lanes.
const CHUNK: u64 = MAX_LENGTH as u64;

impl Plan {
    /// Bounce offset for `len` bytes that must have the low 4 bits of `dst`.
    fn bounce(&mut self, dst: u64, len: u64) -> u64 {
        let off = self.bounce_bytes.next_multiple_of(16) + (dst & 15);
        self.bounce_bytes = off + len;
        off
    }

    /// Adds a copy of `len` bytes from local `src` to `dst`.
    pub fn copy_1d(&mut self, dst: u64, src: u64, len: u64) {
        if len == 0 {
            return;
        }
        let d0 = dst.next_multiple_of(4);
        let d1 = (dst + len) & !3;
        if d1 <= d0 {
            self.edges.push(Edge { dst, src, len });
            return;
        }
        if d0 > dst {
            self.edges.push(Edge {
                dst,
                src,
                len: d0 - dst,
            });
        }
        if dst + len > d1 {
            self.edges.push(Edge {
                dst: d1,
                src: src + (d1 - dst),
                len: dst + len - d1,
            });
        }
        let s0 = src + (d0 - dst);
        let n = d1 - d0;
        let from = if s0 & 15 == d0 & 15 {
            Source::Direct(s0)
        } else {
            let off = self.bounce(d0, n);
            self.stages.push(Stage {
                src: s0,
                len: n,
                bounce_off: off,
            });
            Source::Bounce(off)
        };
        let mut done = 0;
        while done < n {
            let l = (n - done).min(CHUNK);
            let src = match from {
                Source::Direct(a) => Source::Direct(a + done),
                Source::Bounce(o) => Source::Bounce(o + done),
            };
            self.copies.push(HwCopy {
                src,
                dst: d0 + done,
                length: l as u32,
                stride: None,
            });
            done += l;
        }
    }

    /// Adds a block-stride copy: `height` rows of `width` bytes. Callers check that the
    /// rows fit their buffers and that pitches are at least the width.
    #[allow(clippy::too_many_arguments)]
    pub fn copy_2d(
        &mut self,
        dst: u64,
        dst_pitch: u64,
        src: u64,
        src_pitch: u64,
        width: u64,
        height: u64,
    ) {
        let legal = dst & 3 == 0
            && src & 15 == dst & 15
            && width & 3 == 0
            && width > 0
            && width <= CHUNK
            && dst_pitch & 3 == 0
            && src_pitch & 15 == dst_pitch & 15
            && dst_pitch <= u64::from(u32::MAX)
            && src_pitch <= u64::from(u32::MAX);
        if !legal {
            for r in 0..height {
                self.copy_1d(dst + r * dst_pitch, src + r * src_pitch, width);
            }
            return;
        }
        let mut row = 0;
        while row < height {
            let rows = (height - row).min(u64::from(u16::MAX));
            self.copies.push(HwCopy {
                src: Source::Direct(src + row * src_pitch),
                dst: dst + row * dst_pitch,
                length: width as u32,
                stride: Some(Stride {
                    height: rows as u16,
                    src_pitch: src_pitch as u32,
                    dst_pitch: dst_pitch as u32,
                }),
            });
            row += rows;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use peach2_regmap::dma::{flags, Descriptor};
    use proptest::prelude::*;

    /// Carries out a plan on flat memories (source and bounce by address, destination by
    /// address) the way the driver and the chip would, checking every descriptor is one
    /// the chip accepts.
    fn run(plan: &Plan, src_mem: &[u8], dst_mem: &mut [u8], bounce_base: u64) {
        let mut bounce = vec![0u8; plan.bounce_bytes as usize];
        for s in &plan.stages {
            let (a, o) = (s.src as usize, s.bounce_off as usize);
            bounce[o..o + s.len as usize].copy_from_slice(&src_mem[a..a + s.len as usize]);
        }
        for e in &plan.edges {
            let (d, s) = (e.dst as usize, e.src as usize);
            dst_mem[d..d + e.len as usize].copy_from_slice(&src_mem[s..s + e.len as usize]);
        }
        for c in &plan.copies {
            let src_addr = match c.src {
                Source::Direct(a) => a,
                Source::Bounce(o) => bounce_base + o,
            };
            let mut d = Descriptor {
                src: src_addr,
                dst: c.dst,
                length: c.length,
                ..Default::default()
            };
            if let Some(s) = c.stride {
                d.flags = flags::TWO_D;
                d.height = s.height;
                d.src_pitch = s.src_pitch;
                d.dst_pitch = s.dst_pitch;
            }
            assert_eq!(d.check(), None, "{d:x?}");
            for (s, t, l) in d.blocks() {
                let (s, t, l) = (s as usize, t as usize, l as usize);
                let from: &[u8] = match c.src {
                    Source::Direct(_) => &src_mem[s..s + l],
                    Source::Bounce(_) => {
                        let o = s - bounce_base as usize;
                        &bounce[o..o + l]
                    }
                };
                dst_mem[t..t + l].copy_from_slice(from);
            }
        }
    }

    proptest! {
        #[test]
        fn one_d_plans_copy_exactly_the_asked_bytes(src in 0u64..64, dst in 0u64..64, len in 1u64..300) {
            let src_mem: Vec<u8> = (0..512).map(|i| (i * 7 + 3) as u8).collect();
            let mut dst_mem = vec![0xEEu8; 512];
            let mut p = Plan::default();
            p.copy_1d(dst, src, len);
            run(&p, &src_mem, &mut dst_mem, 0x1000);
            for (i, b) in dst_mem.iter().enumerate() {
                let i = i as u64;
                let want = if (dst..dst + len).contains(&i) { src_mem[(src + i - dst) as usize] } else { 0xEE };
                prop_assert_eq!(*b, want, "byte {}", i);
            }
            prop_assert!(p.edges.iter().all(|e| e.len <= 3) || len < 8);
        }

        #[test]
        fn two_d_plans_copy_exactly_the_asked_rows(src in 0u64..40, dst in 0u64..40, width in 1u64..40,
                height in 1u64..6, sp in 0u64..24, dp in 0u64..24) {
            let (src_pitch, dst_pitch) = (width + sp, width + dp);
            let src_mem: Vec<u8> = (0..1024).map(|i| (i * 13 + 1) as u8).collect();
            let mut dst_mem = vec![0xEEu8; 1024];
            let mut p = Plan::default();
            p.copy_2d(dst, dst_pitch, src, src_pitch, width, height);
            run(&p, &src_mem, &mut dst_mem, 0x1000);
            let mut want = vec![0xEEu8; 1024];
            for r in 0..height {
                for x in 0..width {
                    want[(dst + r * dst_pitch + x) as usize] = src_mem[(src + r * src_pitch + x) as usize];
                }
            }
            prop_assert_eq!(dst_mem, want);
        }
    }

    #[test]
    fn aligned_copies_are_direct_and_long_ones_split() {
        let mut p = Plan::default();
        p.copy_1d(0x1000, 0x2000, 3 * CHUNK + 64);
        assert!(p.edges.is_empty() && p.stages.is_empty());
        assert_eq!(p.copies.len(), 4);
        assert_eq!(p.copies[3].length, 64);
        let mut p = Plan::default();
        p.copy_1d(0x1004, 0x2008, 64);
        assert_eq!(p.stages.len(), 1);
        assert_eq!(p.copies[0].src, Source::Bounce(4));
        let mut p = Plan::default();
        p.copy_2d(0x1000, 4096, 0x2000, 8192, 256, 70_000);
        assert_eq!(p.copies.len(), 2);
        assert_eq!(p.copies[1].stride.unwrap().height, (70_000 - 65_535) as u16);
    }
}
