//! The PEACH2 chip in rust-hdl: four PCIe ports, routing, crossbar, CSRs, and the
//! Verilog export of all of it.

pub mod router;
pub mod stream;
pub mod verilog;
pub mod harness;

pub use rust_hdl;
