//! The PCIe link between two ports: its wire timing (serialisation, framing, DLLP
//! overhead, latency) converted to core-clock cycles.

pub mod timing;
