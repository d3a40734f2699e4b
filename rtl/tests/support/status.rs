//! The per-port CSRs as a test reads them: `PORT_STATUS` decoded, and the counters.

use peach2_regmap::config::{LinkError, LinkState};
use peach2_regmap::csr::{port_status as ps, Port};

/// `PORT_STATUS` of one port, decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortStatus {
    /// The register value.
    pub raw: u32,
    /// Physical link up.
    pub link_up: bool,
    /// Root-complex role.
    pub role_rc: bool,
    /// Configured; memory traffic flows.
    pub ready: bool,
    /// Bring-up state code (`LinkState as u32`).
    pub state: u32,
    /// Bring-up error.
    pub error: LinkError,
    /// Partner chip's node id.
    pub partner_node: u8,
    /// Partner chip's port.
    pub partner_port: Port,
    /// The partner identified itself.
    pub partner_valid: bool,
}

impl PortStatus {
    /// Decodes a `PORT_STATUS` value.
    pub fn decode(raw: u32) -> Self {
        let code = (raw >> ps::ERROR_SHIFT) & ps::ERROR_MASK;
        Self {
            raw,
            link_up: raw & ps::LINK_UP != 0,
            role_rc: raw & ps::ROLE_RC != 0,
            ready: raw & ps::READY != 0,
            state: (raw >> ps::STATE_SHIFT) & ps::STATE_MASK,
            error: LinkError::from_code(code)
                .unwrap_or_else(|| panic!("PORT_STATUS {raw:#010x}: unknown error code {code}")),
            partner_node: ((raw >> ps::PARTNER_NODE_SHIFT) & ps::PARTNER_NODE_MASK) as u8,
            partner_port: Port::from_index((raw >> ps::PARTNER_PORT_SHIFT) & ps::PARTNER_PORT_MASK)
                .expect("two bits name a port"),
            partner_valid: raw & ps::PARTNER_VALID != 0,
        }
    }

    /// In state `s`.
    pub fn is(&self, s: LinkState) -> bool {
        self.state == s as u32
    }
}

/// What a port's traffic counters (`TLPS_IN` .. `UR_SENT`) hold, or what a test expects
/// them to hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// TLPs received.
    pub tlps_in: u64,
    /// Bytes received.
    pub bytes_in: u64,
    /// TLPs sent.
    pub tlps_out: u64,
    /// Bytes sent.
    pub bytes_out: u64,
}
