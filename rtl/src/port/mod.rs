//! One PCIe port of the chip, stage by stage: the RX stage (`rx_decode` registers each
//! beat with the routing decision on it, `rx_route` steers it, rewrites BAR2 addresses
//! and checks framing, `rx_malformed` counts each malformed TLP once), the link controller (`link_ctrl`: its RX stage `link_rx`, the
//! endpoint config space `cfg_space`, whose registers are `cfg_regs`, and the
//! root-complex bring-up engine `bringup` (its request beat in `bringup_request`), sharing the config-TLP codes in `cfg_tlp`), the
//! N port's egress translation (`egress_decode` registers each beat with its header's
//! decoding, `egress_translate` rewrites it, `egress_shift` moves a 3-DW write's payload
//! one lane down) and the TX merge of crossbar and
//! link-controller traffic (`tx_merge`).

pub mod bringup;
pub mod bringup_request;
pub mod bringup_step;
pub mod bringup_verdict;
pub mod cfg_answer;
pub mod cfg_regs;
pub mod cfg_space;
pub mod cfg_tlp;
pub mod egress_decode;
pub mod egress_headers;
pub mod egress_shift;
pub mod egress_translate;
pub mod ep_status;
pub mod link_ctrl;
pub mod link_rx;
pub mod link_tx;
pub mod path;
pub mod rx_decode;
pub mod rx_framing;
pub mod rx_malformed;
pub mod rx_output;
pub mod rx_route;
pub mod tx_merge;

use rust_hdl::prelude::*;

/// A `LinkState` or `LinkError` code as the port's status carries it (4 bits), for the
/// link controller and the bring-up.
fn status_code(code: u64) -> Constant<Bits<4>> {
    Constant::new(code.into())
}

#[cfg(test)]
mod egress_tests;
#[cfg(test)]
mod link_bench;
#[cfg(test)]
mod link_ctrl_ep_tests;
#[cfg(test)]
mod link_ctrl_pair_tests;
#[cfg(test)]
mod link_ctrl_rc_tests;
#[cfg(test)]
mod rx_route_tests;
#[cfg(test)]
mod test_tlp;
