//! The chip's internal endpoint: the crossbar's fifth port. It serves what is addressed to
//! the chip itself (CSR reads and writes through BAR0) and answers the requests the ports
//! could not serve with Unsupported Request completions.

pub mod completer;
pub mod mux;

#[cfg(test)]
mod completer_tests;
