//! The chip-level test bench: PEACH2 cores cabled together, a host model on each N port.
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
