//! A PCIe transaction-level model: bit-exact TLPs (`tlp`) and the 128-bit beat format of
//! PEACH2's ports (`beats`); completion rules (`completion`), flow-control credits
//! (`credits`), link timing (`link::timing`), config space (`config_space`), sparse memory
//! (`memory`), requesters and completers (`requester`, `read_server`), a root complex with
//! host memory (`root_complex`) and a GPU endpoint exposing its memory through a BAR
//! (`gpu`). It knows PCIe, not PEACH2.

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
