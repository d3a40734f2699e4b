//! The PEACH2 chip in rust-hdl: four PCIe ports, routing, crossbar, CSRs, and the
//! Verilog export of all of it.

pub mod harness;
pub mod router;
#[path = "port/rx_route.rs"]
pub mod rx_route;
#[cfg(test)]
#[path = "port/rx_route_tests.rs"]
mod rx_route_tests;
pub mod stream;
pub mod verilog;

pub use rust_hdl;
