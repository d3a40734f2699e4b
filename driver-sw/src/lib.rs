//! The TCA driver for PEACH2: the API applications use (allocate DMA-able memory,
//! exchange handles, build descriptor chains, start and wait for DMA channels, wait for
//! notified arrivals, PIO-write remote windows), written against two traits so that it
//! runs unchanged on the co-simulated chip and on a real board:
//!
//! - [`hw::Mmio`]: 32/64-bit reads and writes of the chip's BAR0 registers and writes into
//!   its BAR2 window of the global space;
//! - [`hw::DmaMemory`]: memory the chip can reach (host memory, GPU memory behind a BAR),
//!   allocated, read and written by the CPU, with bus addresses.
//!
//! [`sysfs`] is the real-device backend (BAR mapped from sysfs, buffers from u-dma-buf);
//! the co-simulation backend lives with the simulator (`peach2-testbench`), so this
//! crate knows nothing of simulation.
//!
//! The driver hides the chip's restrictions ([`peach2_regmap::dma`]): unaligned transfers,
//! sources and destinations whose low 4 bits differ, odd lengths and over-long blocks are
//! planned ([`plan`]) as aligned DMA through bounce buffers plus byte-exact PIO writes for
//! the edges, so a legal request never meets a hardware error. Illegal requests (out of
//! range offsets, foreign or freed handles, unknown nodes) are refused with a
//! [`TcaError`] before anything touches the hardware.

#![warn(missing_docs)]

pub mod alloc;
pub mod chain;
pub mod channel;
pub mod desc;
pub mod device;
pub mod error;
pub mod handle;
pub mod hw;
pub mod notify;
pub mod plan;
pub mod sysfs;

pub use chain::Placement;
pub use desc::{DescList, Wait};
pub use device::{Buffer, Tca};
pub use error::TcaError;
pub use handle::{Handle, MemKind};
pub use notify::NotifyPlace;
