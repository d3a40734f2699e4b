//! The PEACH2 chip in rust-hdl: four PCIe ports, routing, crossbar, CSRs, and the
//! Verilog export of all of it.

pub mod chip;
pub mod csr;
pub mod dmac;
pub mod fixed;
pub mod harness;
pub mod internal;
pub mod port;
pub mod round_robin;
pub mod route_lookup;
pub mod router;
pub mod stream;
pub mod verilog;
pub mod xbar;

pub use rust_hdl;
