//! The crossbar between the chip's five endpoints (N, E, W, S ports and the internal
//! requester/completer, whose completions enter by an input of their own): per-output
//! round-robin arbitration, whole packets, cut-through.

pub mod arbiter;
pub mod bench;
pub mod crossbar;
pub mod inputs;
pub mod select;

pub use crossbar::{Crossbar, INPUTS, INPUT_COMPLETIONS};

#[cfg(test)]
mod tests;
