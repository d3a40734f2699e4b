//! The chip's control and status registers (BAR0; the map is `peach2_regmap::csr`).
//!
//! `regs` holds the register file and its read mux; `counters` counts one port's
//! traffic. Reads and writes arrive as TLPs at the internal completer, which turns them
//! into register accesses.

pub mod counters;
pub mod dma_regs;
pub mod regs;

#[cfg(test)]
mod tests;
