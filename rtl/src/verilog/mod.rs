//! Verilog out of the rust-hdl design, and the open-source checks that it is synthesizable.
//!
//! `export` names and writes the modules (after `split` has broken rust-hdl's one
//! `always @(*)` per module into independent blocks, and `assign_once` has made each block
//! assign a variable once per run, so event-driven simulators do not loop); `checks` runs Verilator's lint, Icarus
//! elaboration and a Yosys synthesis over them; `widths` finds arithmetic that rust-hdl
//! wraps and Verilog widens (the exported core must have none); `timing` estimates the logic
//! depth and the ALM resources on a Stratix IV. The waivers the lint needs are in one
//! file, `rtl/lint/verilator.vlt`, each with its reason.

pub mod assign_once;
pub mod checks;
pub mod export;
pub mod mem_init;
pub mod resources;
pub mod split;
pub mod timing;
pub mod widths;
