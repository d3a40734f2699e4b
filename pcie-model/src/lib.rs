//! PCIe transaction-level model used by PEACH2: bit-exact TLPs and the 128-bit beat
//! format the chip's ports use.

pub mod bandwidth;
pub mod beats;
pub mod completion;
pub mod config_space;
pub mod credits;
pub mod gpu;
pub mod limits;
pub mod link;
pub mod memory;
pub mod read_server;
pub mod requester;
pub mod root_complex;
pub mod time;
pub mod tlp;

pub use tlp::{Addr, Bdf, CplStatus, Fmt, Tag, Tlp, TlpError, TlpKind};
