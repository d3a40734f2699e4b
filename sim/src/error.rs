//! What can go wrong in a simulation, as typed errors.

use thiserror::Error;

/// A simulation error.
#[derive(Debug, Error)]
pub enum SimError {
    /// The Verilated model raised a fatal error (`$fatal`, `$stop`, an internal error).
    #[error("Verilator error in {chip}: {message}")]
    Verilator {
        /// Name of the model.
        chip: String,
        /// Verilator's message.
        message: String,
    },
    /// The rust-hdl model's combinational logic did not settle (a loop).
    #[error("{chip}: combinational logic did not settle")]
    NoSettle {
        /// Name of the chip.
        chip: String,
    },
    /// The design lacks a port the simulator drives.
    #[error("the exported core has no port `{0}`")]
    MissingPort(String),
    /// A topology that cannot be built.
    #[error("topology: {0}")]
    Topology(String),
    /// A scenario or option that cannot be run.
    #[error("scenario: {0}")]
    Scenario(String),
    /// Link bring-up or node setup failed.
    #[error("bring-up: {0}")]
    BringUp(String),
    /// Traffic is in flight but nothing has moved for too long.
    #[error("no progress for {idle} cycles at cycle {cycle} (deadlock or livelock):\n{report}")]
    Stuck {
        /// Cycle at which the detector fired.
        cycle: u64,
        /// Cycles without progress.
        idle: u64,
        /// Where traffic is waiting.
        report: String,
    },
    /// The scoreboard found data delivered wrongly.
    #[error("scoreboard: {0}")]
    Scoreboard(String),
    /// Processes running one cluster together could not exchange what they must (MPI).
    #[error("between processes: {0}")]
    Transport(String),
    /// File I/O (VCD, TLP log, topology file).
    #[error("{path}: {source}")]
    Io {
        /// File concerned.
        path: String,
        /// Underlying error.
        source: std::io::Error,
    },
}
