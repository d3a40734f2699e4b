//! TCA programs in C on the co-simulated cluster: the platform behind `peach2 cc` and
//! `peach2 run` (after SimGrid's `smpicc` and `smpirun`).
//!
//! A program built with `peach2 cc` links the C runtime (`run/c/peach2_rt.c`): every
//! call of the TCA library (`tca-api.h`), MPI (`mpi.h`) or the CUDA runtime
//! (`cuda_runtime.h`) becomes a frame on a socket ([`wire`]). `peach2 run` ([`launch`])
//! starts one process per rank (so each rank has its own globals), serves each rank's
//! calls on a thread of its own ([`server`]: TCA through the driver, [`mpi_calls`],
//! [`cuda_calls`]), and carries out what they need of the hardware as primitives
//! ([`ops`]) at each rank's simulated time ([`scheduler`]). Memory a program touches
//! directly (`tcaMalloc` CPU memory, `cudaMallocHost`) is a file mapped both into the
//! rank's process and into its node's simulated host memory, so the chip's DMA reads
//! what the program stored and the program loads what the DMA wrote. [`abi`] holds the
//! numbers both sides agree on and generates the C header with them.

#![warn(missing_docs)]

pub mod abi;
pub mod cc;
pub mod cuda_calls;
pub mod device;
pub mod launch;
pub mod mpi;
pub mod mpi_calls;
pub mod ops;
pub mod output;
pub mod scheduler;
pub mod server;
pub mod tca_calls;
mod tca_tables;
pub mod wire;

pub use launch::{run, RunConfig, RunError, RunReport};
pub use scheduler::Outcome;
