//! The host side of the DMA tests: memory that answers the DMA's reads with completions
//! (split at random 64-byte multiples, after a random latency, interleaved at random across
//! outstanding reads), takes its writes, and checks what a chain must have written.

use crate::harness::Lcg;
use pcie_model::completion::{error_completion, split_completions, CompletionRules, ReadSpan};
use pcie_model::limits::{MaxPayloadSize, Rcb};
use pcie_model::memory::{payload_byte_enables, SparseMemory};
use pcie_model::tlp::{Bdf, CplStatus, Tlp, TlpKind};
use peach2_regmap::dma::Descriptor;
use std::collections::VecDeque;

/// Host memory and the reads it is answering.
pub struct HostMemory {
    /// Sources, destinations, host descriptors, notification slots.
    pub mem: SparseMemory,
    /// Completions of each read, with the cycle they may start.
    pending: Vec<(u64, VecDeque<Tlp>)>,
    /// Writes the DMA sent, with the cycle of their last beat.
    pub writes: Vec<(u64, Tlp)>,
    /// Cycle the first MRd arrived.
    pub first_mrd: Option<u64>,
    /// Reads of these [start, end) ranges are answered with UR.
    pub fail_ranges: Vec<(u64, u64)>,
    /// Every completion is `max_chunk` bytes (as far as the read allows) instead of a
    /// random multiple of 64: the host at full rate.
    pub full_chunks: bool,
    /// Reads of these [start, end) ranges are never answered.
    pub silent_ranges: Vec<(u64, u64)>,
    max_chunk: u64,
    rng: Lcg,
}

impl HostMemory {
    /// Empty memory; completions of at most `max_chunk` bytes (a multiple of 64).
    pub fn new(seed: u64, max_chunk: u64) -> Self {
        Self {
            mem: SparseMemory::new(),
            pending: Vec::new(),
            writes: Vec::new(),
            first_mrd: None,
            fail_ranges: Vec::new(),
            full_chunks: false,
            silent_ranges: Vec::new(),
            max_chunk,
            rng: Lcg(seed | 1),
        }
    }

    /// Puts a host descriptor at `addr`.
    pub fn put_host(&mut self, addr: u64, d: &Descriptor) {
        self.mem.write(addr, &d.to_bytes()).unwrap();
    }

    /// Random source data for every block of `descs`.
    pub fn fill_sources(&mut self, descs: &[Descriptor]) {
        for d in descs {
            for (src, _, len) in d.blocks() {
                let bytes: Vec<u8> = (0..len).map(|_| self.rng.next_u64() as u8).collect();
                self.mem.write(src, &bytes).unwrap();
            }
        }
    }

    /// A completion whose time has come (of a read picked at random), if any.
    pub fn next_completion(&mut self, cycle: u64) -> Option<Tlp> {
        let ready: Vec<usize> = (0..self.pending.len())
            .filter(|&i| self.pending[i].0 <= cycle)
            .collect();
        if ready.is_empty() {
            return None;
        }
        let i = ready[self.rng.below(ready.len() as u64) as usize];
        let t = self.pending[i].1.pop_front().unwrap();
        if self.pending[i].1.is_empty() {
            self.pending.swap_remove(i);
        }
        Some(t)
    }

    /// Takes a request of the DMA: a read is answered later, a write lands in memory.
    /// Returns anything else (completions for the host itself).
    pub fn take(&mut self, cycle: u64, t: Tlp) -> Option<Tlp> {
        match t.kind() {
            TlpKind::MRd => self.read(cycle, &t),
            TlpKind::MWr => {
                let addr = t.address().unwrap().0;
                let en = payload_byte_enables(
                    t.first_be().unwrap(),
                    t.last_be().unwrap(),
                    t.payload_len(),
                );
                self.mem.write_masked(addr, t.data(), &en).unwrap();
                self.writes.push((cycle, t));
            }
            _ => return Some(t),
        }
        None
    }

    fn read(&mut self, cycle: u64, t: &Tlp) {
        self.first_mrd.get_or_insert(cycle);
        let span = ReadSpan::of_request(t).unwrap();
        let latency = 40 + self.rng.below(160);
        let hits = |ranges: &[(u64, u64)]| {
            ranges
                .iter()
                .any(|&(a, b)| span.dw_start < b && a < span.end_dw())
        };
        if hits(&self.silent_ranges) {
            return;
        }
        let cpls: VecDeque<Tlp> = if hits(&self.fail_ranges) {
            [error_completion(t, Bdf(0), CplStatus::Ur).unwrap()].into()
        } else {
            let mut chunk = 64 * (1 + self.rng.below(self.max_chunk / 64));
            if self.full_chunks {
                chunk = self.max_chunk;
            }
            let rules = CompletionRules::new(Rcb::B64, MaxPayloadSize::B256)
                .with_chunk_limit(chunk as u32)
                .unwrap();
            split_completions(&span, &rules)
                .into_iter()
                .map(|c| {
                    let data = self
                        .mem
                        .read_vec(c.data_start, (c.data_end - c.data_start) as usize)
                        .unwrap();
                    Tlp::completion(
                        Bdf(0),
                        CplStatus::Sc,
                        t.requester_id(),
                        t.tag(),
                        c.byte_count,
                        c.lower_address,
                        &data,
                    )
                    .unwrap()
                })
                .collect()
        };
        self.pending.push((cycle + latency, cpls));
    }

    /// Checks that every block of `descs` arrived: bytes equal the source's, written in
    /// address order by MWrs of at most 256 bytes that do not cross 4 KiB.
    pub fn check_golden(&self, descs: &[Descriptor]) {
        for d in descs {
            for (src, dst, len) in d.blocks() {
                let want = self.mem.read_vec(src, len as usize).unwrap();
                let got = self.mem.read_vec(dst, len as usize).unwrap();
                assert!(want == got, "block {src:#x} -> {dst:#x} ({len} B) differs");
                let mut next = dst;
                for (_, w) in &self.writes {
                    let a = w.address().unwrap().0;
                    if a >= dst && a < dst + u64::from(len) {
                        assert_eq!(a, next, "writes of block at {dst:#x} out of order");
                        assert!(w.payload_len() <= 256);
                        assert!(!pcie_model::completion::crosses_4k(
                            a,
                            w.payload_len() as u64
                        ));
                        next = a + w.payload_len() as u64;
                    }
                }
                assert_eq!(next, dst + u64::from(len), "block at {dst:#x} incomplete");
            }
        }
    }
}
