//! A constant that a block takes from the register map (an error code, a field's place)
//! as a const generic, so the block still derives `Default` and its `#[hdl_gen]` code
//! reads the map's value instead of a literal. In the Verilog it is a `localparam` named
//! after the field, like any `Constant`.

use rust_hdl::prelude::*;

/// An `N`-bit constant of value `V`, read with [`Fixed::val`].
pub struct Fixed<const V: u64, const N: usize>(Constant<Bits<N>>);

impl<const V: u64, const N: usize> Fixed<V, N> {
    /// The value (usable in `#[hdl_gen]` code).
    pub fn val(&self) -> Bits<N> {
        self.0.val()
    }
}

impl<const V: u64, const N: usize> Default for Fixed<V, N> {
    fn default() -> Self {
        const { assert!(N >= 64 || V >> N == 0, "the value does not fit its width") };
        Fixed(Constant::new(V.into()))
    }
}

impl<const V: u64, const N: usize> Logic for Fixed<V, N> {
    fn update(&mut self) {}
}

impl<const V: u64, const N: usize> Block for Fixed<V, N> {
    fn connect_all(&mut self) {}

    fn update_all(&mut self) {}

    fn has_changed(&self) -> bool {
        false
    }

    fn accept(&self, name: &str, probe: &mut dyn Probe) {
        self.0.accept(name, probe);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verilog::checks::lint_verilog;
    use crate::verilog::export::block_verilog;

    #[derive(LogicBlock, Default)]
    struct AddsFixed {
        a: Signal<In, Bits<8>>,
        out: Signal<Out, Bits<8>>,
        seven: Fixed<7, 8>,
    }

    impl Logic for AddsFixed {
        #[hdl_gen]
        fn update(&mut self) {
            self.out.next = self.a.val() + self.seven.val();
        }
    }

    #[test]
    fn a_fixed_value_drives_logic_and_is_a_localparam() {
        let mut uut = AddsFixed::default();
        uut.connect_all();
        let mut sim = Simulation::new();
        sim.add_testbench(move |mut ep: Sim<AddsFixed>| {
            let mut x = ep.init()?;
            for a in [0u64, 1, 100] {
                x.a.next = a.into();
                x = ep.wait(1, x)?;
                sim_assert_eq!(ep, x.out.val(), a + 7, x);
            }
            ep.done(x)
        });
        sim.run(Box::new(uut), 100).unwrap();
        let v = block_verilog(&mut AddsFixed::default(), "adds_fixed");
        assert!(v.contains("localparam  seven = 8'h7;"), "{v}");
        assert!(v.contains("out = a + seven;"), "{v}");
        lint_verilog(&v, "adds_fixed").unwrap();
    }
}
