//! The GPU's translation of BAR addresses to device memory, as a small cache of page
//! translations: a peer access to a page whose translation is not cached waits for the
//! GPU to fetch it.
//!
//! GPUDirect RDMA maps GPU memory into BAR1 in pages (64 KiB on Kepler); the GPU
//! translates every BAR access through its MMU. While a peer's working set fits the
//! cached translations, only the first pass misses; a ping-pong over a buffer larger than
//! the cache's reach misses on every page, every time, and its bandwidth drops.

use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

use crate::time::Cycles;

/// Parameters of the translation cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TranslationConfig {
    /// Bytes one translation covers (a power of two).
    pub page_bytes: u64,
    /// Translations cached (least recently used replaced first).
    pub entries: usize,
    /// Cycles an access to a page whose translation is not cached waits for it.
    pub miss: Cycles,
}

/// Why a [`TranslationConfig`] is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TranslationConfigError {
    /// The page size is not a power of two.
    #[error("translation page of {0} bytes: must be a power of two")]
    PageBytes(u64),
    /// No entries.
    #[error("a translation cache needs at least one entry")]
    NoEntries,
}

/// The cache: pages most recently used last.
#[derive(Debug, Clone)]
pub struct TranslationCache {
    config: TranslationConfig,
    pages: VecDeque<u64>,
    misses: u64,
}

impl TranslationCache {
    /// An empty cache.
    pub fn new(config: TranslationConfig) -> Result<TranslationCache, TranslationConfigError> {
        if !config.page_bytes.is_power_of_two() {
            return Err(TranslationConfigError::PageBytes(config.page_bytes));
        }
        if config.entries == 0 {
            return Err(TranslationConfigError::NoEntries);
        }
        Ok(TranslationCache {
            config,
            pages: VecDeque::with_capacity(config.entries),
            misses: 0,
        })
    }

    /// Translates the `len` bytes at BAR offset `offset` (`len` > 0): the cycles the
    /// access waits for the translations it misses.
    pub fn access(&mut self, offset: u64, len: u64) -> Cycles {
        let first = offset / self.config.page_bytes;
        let last = (offset + len.max(1) - 1) / self.config.page_bytes;
        let mut wait = Cycles::ZERO;
        for page in first..=last {
            if let Some(i) = self.pages.iter().position(|&p| p == page) {
                self.pages.remove(i);
            } else {
                self.misses += 1;
                wait += self.config.miss;
                if self.pages.len() == self.config.entries {
                    self.pages.pop_front();
                }
            }
            self.pages.push_back(page);
        }
        wait
    }

    /// Accesses that missed, since the cache was made.
    pub fn misses(&self) -> u64 {
        self.misses
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache(entries: usize) -> TranslationCache {
        TranslationCache::new(TranslationConfig {
            page_bytes: 4096,
            entries,
            miss: Cycles(100),
        })
        .unwrap()
    }

    #[test]
    fn a_working_set_within_reach_misses_once() {
        let mut c = cache(4);
        for pass in 0..3 {
            for page in 0..4u64 {
                let wait = c.access(page * 4096 + 8, 256);
                assert_eq!(
                    wait,
                    Cycles(if pass == 0 { 100 } else { 0 }),
                    "{pass} {page}"
                );
            }
        }
        assert_eq!(c.misses(), 4);
    }

    #[test]
    fn a_sweep_beyond_reach_misses_every_page() {
        let mut c = cache(4);
        for _ in 0..3 {
            for page in 0..5u64 {
                assert_eq!(c.access(page * 4096, 4096), Cycles(100));
            }
        }
        assert_eq!(c.misses(), 15);
    }

    #[test]
    fn an_access_across_a_page_boundary_translates_both_pages() {
        let mut c = cache(4);
        assert_eq!(c.access(4096 - 4, 8), Cycles(200));
        assert_eq!(c.access(4096 - 4, 8), Cycles(0));
    }

    #[test]
    fn bad_configurations_are_refused() {
        let cfg = |page_bytes, entries| TranslationConfig {
            page_bytes,
            entries,
            miss: Cycles(1),
        };
        assert_eq!(
            TranslationCache::new(cfg(3000, 4)).unwrap_err(),
            TranslationConfigError::PageBytes(3000)
        );
        assert_eq!(
            TranslationCache::new(cfg(4096, 0)).unwrap_err(),
            TranslationConfigError::NoEntries
        );
    }
}
