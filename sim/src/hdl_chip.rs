//! The rust-hdl backend: the `Peach2Core` design simulated by rust-hdl, pin for pin like
//! the Verilated core.

use crate::chip::{Backend, Chip};
use crate::error::SimError;
use crate::pins::{PinId, PORTS};
use peach2_rtl::chip::Peach2Core;
use peach2_rtl::harness::bits128;
use peach2_rtl::rust_hdl::prelude::*;

type Setter = fn(&mut Peach2Core, u128);
type Getter = fn(&Peach2Core) -> u128;

macro_rules! hdl_pins {
    ($($name:ident: $kind:ident),* $(,)?) => {
        /// Setter and getter of the design field called `name`.
        fn access(name: &str) -> Option<(Setter, Getter)> {
            match name {
                $(stringify!($name) => Some(hdl_pins!(@ $kind $name)),)*
                _ => None,
            }
        }
    };
    (@ clock $f:ident) => {(
        |c: &mut Peach2Core, v: u128| c.$f.next = Clock { clk: v != 0 },
        |c: &Peach2Core| u128::from(c.$f.val().clk),
    )};
    (@ bit $f:ident) => {(
        |c: &mut Peach2Core, v: u128| c.$f.next = v != 0,
        |c: &Peach2Core| u128::from(c.$f.val()),
    )};
    (@ bits2 $f:ident) => {(
        |c: &mut Peach2Core, v: u128| c.$f.next = ((v & 3) as u64).into(),
        |c: &Peach2Core| u128::from(c.$f.val().to_u64()),
    )};
    (@ bits128 $f:ident) => {(
        |c: &mut Peach2Core, v: u128| c.$f.next = bits128(v),
        |c: &Peach2Core| c.$f.val().to_u128(),
    )};
}

hdl_pins! {
    clk: clock, rst: bit, s_role_rc: bit,
    n_rx_data: bits128, n_rx_valid: bit, n_rx_ready: bit, n_rx_sop: bit, n_rx_eop: bit,
    n_rx_empty: bits2, n_tx_data: bits128, n_tx_valid: bit, n_tx_ready: bit, n_tx_sop: bit,
    n_tx_eop: bit, n_tx_empty: bits2, n_link_up: bit,
    e_rx_data: bits128, e_rx_valid: bit, e_rx_ready: bit, e_rx_sop: bit, e_rx_eop: bit,
    e_rx_empty: bits2, e_tx_data: bits128, e_tx_valid: bit, e_tx_ready: bit, e_tx_sop: bit,
    e_tx_eop: bit, e_tx_empty: bits2, e_link_up: bit,
    w_rx_data: bits128, w_rx_valid: bit, w_rx_ready: bit, w_rx_sop: bit, w_rx_eop: bit,
    w_rx_empty: bits2, w_tx_data: bits128, w_tx_valid: bit, w_tx_ready: bit, w_tx_sop: bit,
    w_tx_eop: bit, w_tx_empty: bits2, w_link_up: bit,
    s_rx_data: bits128, s_rx_valid: bit, s_rx_ready: bit, s_rx_sop: bit, s_rx_eop: bit,
    s_rx_empty: bits2, s_tx_data: bits128, s_tx_valid: bit, s_tx_ready: bit, s_tx_sop: bit,
    s_tx_eop: bit, s_tx_empty: bits2, s_link_up: bit,
}

/// The rust-hdl backend.
pub struct HdlChip {
    name: String,
    core: Box<Peach2Core>,
    access: Vec<(Setter, Getter)>,
    clk: Setter,
}

impl HdlChip {
    /// The design at its reset values, named `name` in error messages.
    pub fn new(name: &str) -> Result<Self, SimError> {
        let access = PORTS
            .iter()
            .map(|p| access(p.name).ok_or_else(|| SimError::MissingPort(p.name.to_string())))
            .collect::<Result<Vec<_>, _>>()?;
        let clk = access[crate::pins::pin("clk")?].0;
        let mut core = Box::new(Peach2Core::new());
        core.connect_all();
        let mut chip = Self {
            name: name.to_string(),
            core,
            access,
            clk,
        };
        chip.settle()?;
        Ok(chip)
    }

    fn propagate(&mut self) -> Result<(), SimError> {
        if simulate(&mut *self.core, 10_000) {
            Ok(())
        } else {
            Err(SimError::NoSettle {
                chip: self.name.clone(),
            })
        }
    }
}

impl Chip for HdlChip {
    fn set(&mut self, pin: PinId, value: u128) {
        (self.access[pin].0)(&mut self.core, value);
    }
    fn get(&self, pin: PinId) -> u128 {
        (self.access[pin].1)(&self.core)
    }
    fn settle(&mut self) -> Result<(), SimError> {
        (self.clk)(&mut self.core, 0);
        self.propagate()
    }
    fn tick(&mut self) -> Result<(), SimError> {
        (self.clk)(&mut self.core, 1);
        self.propagate()
    }
    fn backend(&self) -> Backend {
        Backend::RustHdl
    }
}
