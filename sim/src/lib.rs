//! Cycle-accurate co-simulation of PEACH2 clusters.
//!
//! - [`verilated`]: the exported `peach2_core.v`, Verilated at build time and stepped
//!   from Rust (fatal errors become [`SimError`]s).
//! - [`chip`]: the [`chip::Chip`] abstraction with two backends of one behaviour, the
//!   Verilated core and the rust-hdl design ([`hdl_chip`]); [`stimulus`] drives both
//!   with the same random traffic to prove it; [`icarus`] replays that traffic into the
//!   exported Verilog under Icarus Verilog, an event-driven simulator.
//! - [`pins`]: the core's port table, generated from the exported Verilog.
//! - [`topology`], [`link`], [`node`], [`cluster`]: clusters of chips, hosts and GPUs
//!   cabled with Gen2 x8 links; [`setup`] brings them up as software does; [`scenario`]
//!   runs PIO traffic with a scoreboard; [`stall`] reports deadlocks; [`faults`]
//!   injects faults into a running cluster and reports what was detected.
//! - [`fuzz`]: one chip under random and malformed traffic on every port, checked
//!   against what must survive it (framing, drain, counters, forwarding).

#![warn(missing_docs)]

pub mod chip;
pub mod cluster;
pub mod dma_flow;
pub mod error;
mod eval_pool;
pub mod faults;
pub mod fuzz;
pub mod hdl_chip;
pub mod icarus;
pub mod link;
pub mod node;
mod node_cycle;
pub mod partition;
pub mod pins;
pub mod scenario;
pub mod setup;
pub mod speed;
pub mod stall;
pub mod stimulus;
pub mod topology;
pub mod verilated;

pub use error::SimError;
