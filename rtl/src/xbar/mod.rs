//! The crossbar between the chip's five endpoints (N, E, W, S ports and the internal
//! requester/completer): per-output round-robin arbitration, whole packets, cut-through.

pub mod bench;
pub mod crossbar;

pub use crossbar::Crossbar;

#[cfg(test)]
mod tests;
