//! The TCA driver ([`peach2_driver`]) on co-simulated PEACH2 clusters ([`peach2_sim`]):
//!
//! - [`sim_backend`]: the driver's register-access and DMA-memory traits on a simulated
//!   node (MMIO becomes TLPs on the chip's N port; buffers live in the simulated host
//!   and GPU memories; CPU costs advance the cluster clock);
//! - [`cpu_wait`]: a CPU waiting on a read or a polled word, watched beside its node so the
//!   cluster runs in windows meanwhile;
//! - [`node_cpu`]: a node's CPU beside it while the cluster runs (its stores in flight,
//!   its wait);
//! - [`posted_stores`]: MMIO stores on their way from the cores to the root ports;
//! - [`profile`]: the named HA-PACS/TCA parameter set, each value with its source;
//! - [`measured`]: what the real system measured, with the sources;
//! - [`pingpong`]: the paper's ping-pong benchmark (latency and bandwidth per size);
//! - [`plot`]: the latency and bandwidth figures as SVG.

#![warn(missing_docs)]

pub mod cpu_wait;
pub mod measured;
pub mod node_cpu;
pub mod pingpong;
pub mod plot;
pub mod posted_stores;
pub mod profile;
pub mod sim_backend;
