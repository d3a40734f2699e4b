//! What software and the chip agree on, written once: the TCA global address layout,
//! the BAR0 register map and the config-space identity of PEACH2's ports.
//!
//! The RTL (`peach2-rtl`) builds its decoders from these constants; the driver and the
//! simulator use them to talk to the chip. This crate knows nothing about rust-hdl or
//! PCIe packet formats (those live in `pcie-model`).

pub mod address;
pub mod config;
pub mod csr;
pub mod dma;
pub mod host;
pub mod notify;
