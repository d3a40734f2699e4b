//! The core's port table (generated from the exported Verilog by the build script) and
//! the pins the simulator drives, resolved by name once.

use crate::error::SimError;
use peach2_regmap::csr::Port;
use std::sync::OnceLock;

/// Direction of a core port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortDir {
    /// Driven by the simulator.
    In,
    /// Driven by the core.
    Out,
}

/// One port of the core.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortDecl {
    /// Verilog name.
    pub name: &'static str,
    /// Direction.
    pub dir: PortDir,
    /// Width in bits (at most 128).
    pub width: u32,
}

include!(concat!(env!("OUT_DIR"), "/ports.rs"));

/// Index of a pin in [`PORTS`].
pub type PinId = usize;

/// The pin called `name`.
pub fn pin(name: &str) -> Result<PinId, SimError> {
    PORTS
        .iter()
        .position(|p| p.name == name)
        .ok_or_else(|| SimError::MissingPort(name.to_string()))
}

/// The pins of one PCIe port (`<p>_rx_*`, `<p>_tx_*`, `<p>_link_up`).
#[derive(Clone, Copy, Debug)]
pub struct PortPins {
    /// RX beat data.
    pub rx_data: PinId,
    /// RX valid.
    pub rx_valid: PinId,
    /// RX ready (output).
    pub rx_ready: PinId,
    /// RX sop.
    pub rx_sop: PinId,
    /// RX eop.
    pub rx_eop: PinId,
    /// RX empty.
    pub rx_empty: PinId,
    /// TX beat data (output).
    pub tx_data: PinId,
    /// TX valid (output).
    pub tx_valid: PinId,
    /// TX ready.
    pub tx_ready: PinId,
    /// TX sop (output).
    pub tx_sop: PinId,
    /// TX eop (output).
    pub tx_eop: PinId,
    /// TX empty (output).
    pub tx_empty: PinId,
    /// Data link up.
    pub link_up: PinId,
}

/// Every pin the simulator drives or samples.
#[derive(Clone, Copy, Debug)]
pub struct CorePins {
    /// Clock.
    pub clk: PinId,
    /// Synchronous reset.
    pub rst: PinId,
    /// S-port role strap.
    pub s_role_rc: PinId,
    /// Per port, in [`Port::index`] order.
    pub ports: [PortPins; 4],
}

fn resolve() -> Result<CorePins, SimError> {
    let port = |p: Port| -> Result<PortPins, SimError> {
        let n = |s: &str| pin(&format!("{}_{s}", p.name()));
        Ok(PortPins {
            rx_data: n("rx_data")?,
            rx_valid: n("rx_valid")?,
            rx_ready: n("rx_ready")?,
            rx_sop: n("rx_sop")?,
            rx_eop: n("rx_eop")?,
            rx_empty: n("rx_empty")?,
            tx_data: n("tx_data")?,
            tx_valid: n("tx_valid")?,
            tx_ready: n("tx_ready")?,
            tx_sop: n("tx_sop")?,
            tx_eop: n("tx_eop")?,
            tx_empty: n("tx_empty")?,
            link_up: n("link_up")?,
        })
    };
    Ok(CorePins {
        clk: pin("clk")?,
        rst: pin("rst")?,
        s_role_rc: pin("s_role_rc")?,
        ports: [
            port(Port::N)?,
            port(Port::E)?,
            port(Port::W)?,
            port(Port::S)?,
        ],
    })
}

/// The resolved pins (checked once: every pin the simulator uses exists in the design).
pub fn core_pins() -> Result<&'static CorePins, SimError> {
    static PINS: OnceLock<Result<CorePins, String>> = OnceLock::new();
    match PINS.get_or_init(|| resolve().map_err(|e| e.to_string())) {
        Ok(p) => Ok(p),
        Err(e) => Err(SimError::MissingPort(e.clone())),
    }
}
