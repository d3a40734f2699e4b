//! The chip-level test bench: PEACH2 cores cabled together, a host model on each N port.
//!
//! Why a bench here beside the co-simulation (`peach2-sim`): these are the RTL crate's own
//! tests of the rust-hdl model, before any export, and `peach2-sim` depends on this crate
//! (dependencies point one way), so they cannot use its engine. The bench is kept small
//! and plain on purpose: ideal fixed-latency cables (no link timing, credits or Acks), one
//! `Stepper` per chip, no idle skipping; and it lets a test cable chips wrongly (W to W,
//! E to E), which `peach2_sim::Topology` refuses. Timing, scale, GPUs and the driver are
//! the co-simulation's. What the two share comes from one place: the register map and
//! bring-up protocol (`peach2_regmap`), the reference host's BAR layout and bus ids
//! (`peach2_regmap::host`), and the TLP codec, beats and the root complex (`pcie-model`).
//! Each test here writes its few `ROUTE` entries by hand, so a routing rule is tested as
//! written rather than as `peach2_sim::Topology::routes` computes it.
//!
//! - [`pins`]: a core's flat port pins by `Port`.
//! - [`cable`]: a cable, one bounded fixed-latency beat queue per direction.
//! - [`host`]: the host on N (a pcie-model root complex plus logs of what arrived).
//! - [`status`]: `PORT_STATUS` and the traffic counters as a test reads them.
//! - [`fabric`]: the nodes and cables, stepped together; MMIO and PIO helpers.
//! - [`scenario`]: the fabrics the tests use and the driver's bring-up sequence.
//! - [`flows`]: PIO write flows and the checks of their delivery.

pub mod cable;
pub mod fabric;
pub mod flows;
pub mod host;
pub mod pins;
pub mod scenario;
pub mod status;
