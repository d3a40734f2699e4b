//! A chip as the simulator sees it: pins set and read by [`PinId`], settle with the clock
//! low, rising edge. Two backends implement it with the same behaviour: the Verilated
//! core ([`VlChip`]) and the rust-hdl design itself ([`crate::hdl_chip::HdlChip`]).

use crate::error::SimError;
use crate::pins::{core_pins, CorePins, PinId};
use crate::verilated::{VlContext, VlCore};
use pcie_model::beats::Beat;
use peach2_regmap::csr::Port;
use std::sync::Arc;

/// Which model a chip runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The Verilated `peach2_core.v`.
    Verilated,
    /// The rust-hdl design, simulated by rust-hdl.
    RustHdl,
}

/// One PEACH2 core.
pub trait Chip: Send {
    /// Sets input `pin` (takes effect at the next [`Chip::settle`] or [`Chip::tick`]).
    fn set(&mut self, pin: PinId, value: u128);
    /// The value of `pin` (outputs are meaningful after [`Chip::settle`]).
    fn get(&self, pin: PinId) -> u128;
    /// Clock low: propagates the inputs through the combinational logic.
    fn settle(&mut self) -> Result<(), SimError>;
    /// Rising clock edge.
    fn tick(&mut self) -> Result<(), SimError>;
    /// The backend.
    fn backend(&self) -> Backend;
    /// The whole internal state as bytes, if the backend can show it (fixed-point checks).
    fn state(&self) -> Option<&[u8]> {
        None
    }
    /// The Verilated model behind this chip, if any (tracing).
    fn as_verilated(&self) -> Option<&VlChip> {
        None
    }
}

/// The Verilated backend.
pub struct VlChip {
    core: VlCore,
    clk: PinId,
}

impl VlChip {
    /// A Verilated chip named `name` in context `ctx`.
    pub fn new(ctx: &Arc<VlContext>, name: &str) -> Result<Self, SimError> {
        let clk = core_pins()?.clk;
        Ok(Self {
            core: VlCore::new(ctx, name)?,
            clk,
        })
    }

    /// The underlying model (state access, tracing).
    pub fn core(&self) -> &VlCore {
        &self.core
    }

    /// The underlying model, mutably.
    pub fn core_mut(&mut self) -> &mut VlCore {
        &mut self.core
    }
}

impl Chip for VlChip {
    #[inline]
    fn set(&mut self, pin: PinId, value: u128) {
        self.core.set(pin, value);
    }
    #[inline]
    fn get(&self, pin: PinId) -> u128 {
        self.core.get(pin)
    }
    // Both edges go through `eval_clocked`: with unchanged inputs, a settle only moves the
    // clock low (nothing to recompute) and a tick runs just the clocked regions.
    #[inline]
    fn settle(&mut self) -> Result<(), SimError> {
        self.core.set_clock(self.clk, false);
        self.core.eval_clocked()
    }
    #[inline]
    fn tick(&mut self) -> Result<(), SimError> {
        self.core.set_clock(self.clk, true);
        self.core.eval_clocked()
    }
    fn backend(&self) -> Backend {
        Backend::Verilated
    }
    fn state(&self) -> Option<&[u8]> {
        Some(self.core.state())
    }
    fn as_verilated(&self) -> Option<&VlChip> {
        Some(self)
    }
}

/// Typed access to a chip's PCIe ports on top of [`Chip`].
pub trait ChipPorts: Chip {
    /// The resolved pins.
    fn pins(&self) -> &'static CorePins {
        core_pins().expect("pins were resolved when the chip was built")
    }
    /// Presents `beat` on `port`'s RX stream (`None`: valid low, data zero).
    fn drive_rx(&mut self, port: Port, beat: Option<Beat>) {
        let p = self.pins().ports[port.index() as usize];
        let b = beat.unwrap_or_default();
        self.set(p.rx_valid, u128::from(beat.is_some()));
        self.set(p.rx_data, b.data);
        self.set(p.rx_sop, u128::from(b.sop));
        self.set(p.rx_eop, u128::from(b.eop));
        self.set(p.rx_empty, u128::from(b.empty));
    }
    /// Drives `port`'s TX ready.
    fn set_tx_ready(&mut self, port: Port, ready: bool) {
        let p = self.pins().ports[port.index() as usize];
        self.set(p.tx_ready, u128::from(ready));
    }
    /// Drives `port`'s link-up input.
    fn set_link_up(&mut self, port: Port, up: bool) {
        let p = self.pins().ports[port.index() as usize];
        self.set(p.link_up, u128::from(up));
    }
    /// The chip takes the RX beat of `port` (after settling).
    fn rx_ready(&self, port: Port) -> bool {
        self.get(self.pins().ports[port.index() as usize].rx_ready) != 0
    }
    /// The beat on `port`'s TX stream, if valid (after settling).
    fn tx_beat(&self, port: Port) -> Option<Beat> {
        let p = self.pins().ports[port.index() as usize];
        (self.get(p.tx_valid) != 0).then(|| Beat {
            data: self.get(p.tx_data),
            sop: self.get(p.tx_sop) != 0,
            eop: self.get(p.tx_eop) != 0,
            empty: self.get(p.tx_empty) as u8,
        })
    }
    /// Drives reset.
    fn set_reset(&mut self, on: bool) {
        let p = self.pins().rst;
        self.set(p, u128::from(on));
    }
    /// Drives the S-port role strap.
    fn set_s_role_rc(&mut self, rc: bool) {
        let p = self.pins().s_role_rc;
        self.set(p, u128::from(rc));
    }
}

impl<C: Chip + ?Sized> ChipPorts for C {}

/// Holds reset for `cycles` clock cycles with every input idle, then releases it.
pub fn reset(chip: &mut dyn Chip, cycles: u32) -> Result<(), SimError> {
    chip.set_reset(true);
    for _ in 0..cycles {
        chip.settle()?;
        chip.tick()?;
    }
    chip.set_reset(false);
    chip.settle()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pins::{PortDir, PORTS};
    use crate::stimulus::RandomStimulus;

    /// Every output pin's value.
    fn outputs(chip: &dyn Chip) -> Vec<u128> {
        (0..PORTS.len())
            .filter(|&p| PORTS[p].dir == PortDir::Out)
            .map(|p| chip.get(p))
            .collect()
    }

    /// The Verilated core with a full eval at both clock edges (the reference for the
    /// clocked-only eval).
    struct FullEval(VlChip);

    impl Chip for FullEval {
        fn set(&mut self, pin: PinId, value: u128) {
            self.0.set(pin, value);
        }
        fn get(&self, pin: PinId) -> u128 {
            self.0.get(pin)
        }
        fn settle(&mut self) -> Result<(), SimError> {
            let clk = self.0.clk;
            self.0.core.set_clock(clk, false);
            self.0.core.eval()
        }
        fn tick(&mut self) -> Result<(), SimError> {
            let clk = self.0.clk;
            self.0.core.set_clock(clk, true);
            self.0.core.eval()
        }
        fn backend(&self) -> Backend {
            Backend::Verilated
        }
    }

    #[test]
    fn clocked_eval_matches_full_eval() {
        assert!(
            VlCore::has_clocked_eval(),
            "the build found no clocked-only eval in the Verilated model"
        );
        let ctx = VlContext::new().unwrap();
        let mut fast = VlChip::new(&ctx, "fast").unwrap();
        let mut full = FullEval(VlChip::new(&ctx, "full").unwrap());
        reset(&mut fast, 2).unwrap();
        reset(&mut full, 2).unwrap();
        let (mut a, mut b) = (RandomStimulus::new(7), RandomStimulus::new(7));
        for cycle in 0..3000 {
            // Every fourth cycle leaves the inputs alone, so both skips are exercised.
            if cycle % 4 != 0 {
                a.drive(&mut fast);
                b.drive(&mut full);
            }
            fast.settle().unwrap();
            full.settle().unwrap();
            assert_eq!(outputs(&fast), outputs(&full), "cycle {cycle}, settled");
            a.sample(&fast);
            b.sample(&full);
            fast.tick().unwrap();
            full.tick().unwrap();
            assert_eq!(outputs(&fast), outputs(&full), "cycle {cycle}, ticked");
        }
    }
}
