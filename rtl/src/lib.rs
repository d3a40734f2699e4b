//! The PEACH2 chip in rust-hdl: four PCIe ports, routing, crossbar, CSRs, and the
//! Verilog export of all of it.

pub mod csr;
pub mod harness;
pub mod internal;
pub mod xbar;
pub mod port;
pub mod router;
#[path = "port/egress_translate.rs"]
pub mod egress_translate;
#[path = "port/tx_merge.rs"]
pub mod tx_merge;
#[cfg(test)]
#[path = "port/egress_tests.rs"]
mod egress_tests;
#[path = "port/rx_route.rs"]
pub mod rx_route;
#[cfg(test)]
#[path = "port/rx_route_tests.rs"]
mod rx_route_tests;
pub mod stream;
pub mod verilog;

pub use rust_hdl;
