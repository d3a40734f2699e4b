//! The chip's control and status registers (BAR0; the map is `peach2_regmap::csr`).
//!
//! `bus` is the CSR bus every BAR0 target hangs on, `byte_mask` its byte enables as a
//! bit mask, `wire_order` a register's DW as a TLP carries it; `regs` holds the register
//! file and its read mux, with the routing table (`route_regs`) and the translated
//! targets (`target_regs`) as groups of their own; `dma_regs` the DMA's registers;
//! `counters` counts one port's traffic. Reads and writes arrive as TLPs at the internal
//! completer, which turns them into register accesses.

pub mod bus;
pub mod byte_mask;
pub mod counters;
pub mod dma_channel_regs;
pub mod dma_regs;
pub mod regs;
pub mod route_regs;
pub mod target_regs;
pub mod wire_order;

#[cfg(test)]
mod tests;
