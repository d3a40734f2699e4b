//! The Verilator runtime, compiled once for every Verilated model in the workspace.
//!
//! The build script compiles `verilated.cpp`, `verilated_threads.cpp` and
//! `verilated_vcd_c.cpp` of the installed Verilator, with handlers for `$fatal`, `$stop`
//! and internal errors that throw a C++ `VlrtError` (declared in `cpp/vlrt.h`) instead of
//! aborting the process, and `$finish` that only sets the context's finish flag. A model's
//! shim catches that exception around each call and reports it to Rust as an error.
//!
//! A crate that builds a model depends on this one and reads `DEP_VERILATED_INCLUDE`,
//! `DEP_VERILATED_SHIM_INCLUDE` and `DEP_VERILATED_DEFINES` in its build script; it must
//! name this crate in its code (`use verilated_rt as _;`) so the runtime is linked.

/// The Verilator installation the runtime was compiled from (`VERILATOR_ROOT`).
pub const VERILATOR_ROOT: &str = env!("VERILATOR_ROOT_DIR");
