//! The chip's internal endpoint: the crossbar's fifth port. It serves what is addressed to
//! the chip itself (CSR reads and writes through BAR0) and answers the requests the ports
//! could not serve with Unsupported Request completions; and it keeps the notifications
//! other nodes send into the chip (`notify_store`).

pub mod completer;
pub mod cpl_beats;
pub mod cpl_fields;
pub mod cpl_send;
pub mod csr_read;
pub mod csr_write;
pub mod inbound_mux;
pub mod loop_split;
pub mod mux;
pub mod notify_store;
pub mod outbound_mux;
pub mod req_decode;
pub mod req_plan;

#[cfg(test)]
mod completer_tests;

#[cfg(test)]
mod mux_tests;
