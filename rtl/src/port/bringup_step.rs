//! The steps of a root-complex port's bring-up, as a table: for each step, the config
//! request it sends (a CfgRd0 or CfgWr0 of which partner register, with which value),
//! the step after it, and the `LinkState` it shows. The sequence is
//! `peach2_regmap::config`'s: read the identity, read `PORT_INFO`, place BAR2 at the
//! global window (low DW, then high), write `PARTNER_INFO`, enable memory space and bus
//! mastering. Combinational; `bringup` runs the steps.

use super::cfg_tlp::cfg_dw2;
use super::status_code;
use peach2_regmap::address::GLOBAL_BASE;
use peach2_regmap::config::{
    LinkState, BAR2_HI, BAR2_LO, COMMAND, COMMAND_BUS_MASTER, COMMAND_MEMORY, PARTNER_BUS,
    PARTNER_INFO, PARTNER_VALID, PORT_INFO, VENDOR_DEVICE,
};
use rust_hdl::prelude::*;

/// The step of the bring-up sequence (one per config request, then the outcome).
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum Step {
    /// 1: CfgRd0 of the vendor/device id.
    ReadId,
    /// 2: CfgRd0 of `PORT_INFO`.
    ReadPortInfo,
    /// 3a: CfgWr0 of BAR2's low DW.
    WriteBar2Lo,
    /// 3b: CfgWr0 of BAR2's high DW.
    WriteBar2Hi,
    /// 4: CfgWr0 of `PARTNER_INFO`.
    WritePartnerInfo,
    /// 5: CfgWr0 of the command register.
    WriteCommand,
    /// Configured.
    Done,
    /// Stopped on an error.
    Failed,
}

/// Partner bus/dev/fn: bus [`PARTNER_BUS`], device 0, function 0.
const PARTNER_BDF: u16 = (PARTNER_BUS as u16) << 8;

fn target(offset: u16) -> Constant<Bits<32>> {
    Constant::new(cfg_dw2(PARTNER_BDF, offset).into())
}

/// A bring-up step's request.
#[derive(LogicBlock)]
pub struct BringupStep {
    /// The step.
    pub step: Signal<In, Step>,
    /// This node's id (written to the partner's `PARTNER_INFO`).
    pub node_id: Signal<In, Bits<6>>,
    /// This port's index (written to the partner's `PARTNER_INFO`).
    pub port_index: Signal<In, Bits<2>>,
    /// The step sends a request (not `Done` or `Failed`).
    pub active: Signal<Out, Bit>,
    /// The request is a CfgRd0 (else a CfgWr0).
    pub is_read: Signal<Out, Bit>,
    /// Its header DW 2: the partner's bus/dev/fn and the register.
    pub req_dw2: Signal<Out, Bits<32>>,
    /// The value a CfgWr0 writes (register order; 0 for a read).
    pub wvalue: Signal<Out, Bits<32>>,
    /// The step after this one succeeds.
    pub next_step: Signal<Out, Step>,
    /// The `LinkState` code the port shows during the step.
    pub state: Signal<Out, Bits<4>>,
    /// Header DW2 addressing the partner's vendor/device id (step 1).
    to_vendor_device: Constant<Bits<32>>,
    /// Header DW2 addressing the partner's `PORT_INFO` (step 2).
    to_port_info: Constant<Bits<32>>,
    /// Header DW2 addressing the partner's BAR2 low DW (step 3a).
    to_bar2_lo: Constant<Bits<32>>,
    /// Header DW2 addressing the partner's BAR2 high DW (step 3b).
    to_bar2_hi: Constant<Bits<32>>,
    /// Header DW2 addressing the partner's `PARTNER_INFO` (step 4).
    to_partner_info: Constant<Bits<32>>,
    /// Header DW2 addressing the partner's command register (step 5).
    to_command: Constant<Bits<32>>,
    /// The low DW of the global window's base, written to BAR2's low DW.
    base_lo: Constant<Bits<32>>,
    /// The high DW of the global window's base, written to BAR2's high DW.
    base_hi: Constant<Bits<32>>,
    /// Memory space and bus master enable, the value written to the command register.
    command: Constant<Bits<32>>,
    /// The `PARTNER_INFO` valid bit (bit 31), set in the value written there.
    partner_valid_bit: Constant<Bits<32>>,
    /// The LinkState code Identify, shown while the partner's identity is read.
    st_identify: Constant<Bits<4>>,
    /// The LinkState code Configure, shown while the partner's registers are written.
    st_configure: Constant<Bits<4>>,
    /// The LinkState code Ready, shown once the partner is configured.
    st_ready: Constant<Bits<4>>,
    /// The LinkState code Failed, shown once a step failed.
    st_failed: Constant<Bits<4>>,
}

impl Default for BringupStep {
    fn default() -> Self {
        Self {
            step: Default::default(),
            node_id: Default::default(),
            port_index: Default::default(),
            active: Default::default(),
            is_read: Default::default(),
            req_dw2: Default::default(),
            wvalue: Default::default(),
            next_step: Default::default(),
            state: Default::default(),
            to_vendor_device: target(VENDOR_DEVICE),
            to_port_info: target(PORT_INFO),
            to_bar2_lo: target(BAR2_LO),
            to_bar2_hi: target(BAR2_HI),
            to_partner_info: target(PARTNER_INFO),
            to_command: target(COMMAND),
            base_lo: Constant::new((GLOBAL_BASE & 0xFFFF_FFFF).into()),
            base_hi: Constant::new((GLOBAL_BASE >> 32).into()),
            command: Constant::new(u64::from(COMMAND_MEMORY | COMMAND_BUS_MASTER).into()),
            partner_valid_bit: Constant::new(u64::from(PARTNER_VALID).into()),
            st_identify: status_code(LinkState::Identify as u64),
            st_configure: status_code(LinkState::Configure as u64),
            st_ready: status_code(LinkState::Ready as u64),
            st_failed: status_code(LinkState::Failed as u64),
        }
    }
}

impl Logic for BringupStep {
    #[hdl_gen]
    fn update(&mut self) {
        self.active.next = true;
        self.is_read.next = false;
        self.req_dw2.next = 0.into();
        self.wvalue.next = 0.into();
        self.next_step.next = self.step.val();
        self.state.next = self.st_configure.val();
        match self.step.val() {
            Step::ReadId => {
                self.is_read.next = true;
                self.req_dw2.next = self.to_vendor_device.val();
                self.next_step.next = Step::ReadPortInfo;
                self.state.next = self.st_identify.val();
            }
            Step::ReadPortInfo => {
                self.is_read.next = true;
                self.req_dw2.next = self.to_port_info.val();
                self.next_step.next = Step::WriteBar2Lo;
                self.state.next = self.st_identify.val();
            }
            Step::WriteBar2Lo => {
                self.req_dw2.next = self.to_bar2_lo.val();
                self.wvalue.next = self.base_lo.val();
                self.next_step.next = Step::WriteBar2Hi;
            }
            Step::WriteBar2Hi => {
                self.req_dw2.next = self.to_bar2_hi.val();
                self.wvalue.next = self.base_hi.val();
                self.next_step.next = Step::WritePartnerInfo;
            }
            Step::WritePartnerInfo => {
                self.req_dw2.next = self.to_partner_info.val();
                self.wvalue.next = bit_cast::<32, 6>(self.node_id.val())
                    | (bit_cast::<32, 2>(self.port_index.val()) << 8)
                    | self.partner_valid_bit.val();
                self.next_step.next = Step::WriteCommand;
            }
            Step::WriteCommand => {
                self.req_dw2.next = self.to_command.val();
                self.wvalue.next = self.command.val();
                self.next_step.next = Step::Done;
            }
            Step::Done => {
                self.active.next = false;
                self.state.next = self.st_ready.val();
            }
            Step::Failed => {
                self.active.next = false;
                self.state.next = self.st_failed.val();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use peach2_regmap::config::INFO_PORT_SHIFT;

    /// The sequence from the first step: the registers, read or written with the values
    /// regmap gives, in regmap's order, then `Done` (ready) and `Failed` (failed).
    #[test]
    fn steps_follow_the_regmap_sequence() {
        let mut uut = BringupStep::default();
        uut.connect_all();
        let (node, port) = (0x2Au64, 3u64);
        let info = node | port << INFO_PORT_SHIFT | u64::from(PARTNER_VALID);
        let want: [(bool, u16, u64, LinkState); 6] = [
            (true, VENDOR_DEVICE, 0, LinkState::Identify),
            (true, PORT_INFO, 0, LinkState::Identify),
            (
                false,
                BAR2_LO,
                GLOBAL_BASE & 0xFFFF_FFFF,
                LinkState::Configure,
            ),
            (false, BAR2_HI, GLOBAL_BASE >> 32, LinkState::Configure),
            (false, PARTNER_INFO, info, LinkState::Configure),
            (
                false,
                COMMAND,
                u64::from(COMMAND_MEMORY | COMMAND_BUS_MASTER),
                LinkState::Configure,
            ),
        ];
        uut.node_id.next = node.into();
        uut.port_index.next = port.into();
        let mut step = Step::ReadId;
        for (k, &(read, reg, value, state)) in want.iter().enumerate() {
            uut.step.next = step;
            assert!(simulate(&mut uut, 100), "settles");
            assert!(uut.active.val(), "step {k}");
            assert_eq!(uut.is_read.val(), read, "step {k}");
            assert_eq!(
                uut.req_dw2.val().to_u64(),
                cfg_dw2(PARTNER_BDF, reg),
                "step {k}"
            );
            assert_eq!(uut.wvalue.val().to_u64(), value, "step {k}");
            assert_eq!(uut.state.val().to_u64(), state as u64, "step {k}");
            step = uut.next_step.val();
        }
        assert_eq!(step, Step::Done);
        for (end, state) in [
            (Step::Done, LinkState::Ready),
            (Step::Failed, LinkState::Failed),
        ] {
            uut.step.next = end;
            assert!(simulate(&mut uut, 100), "settles");
            assert!(!uut.active.val());
            assert_eq!(uut.state.val().to_u64(), state as u64);
            assert_eq!(uut.next_step.val(), end, "an outcome stays");
        }
    }

    #[test]
    fn bringup_step_verilog_lints_clean() {
        let mut uut = BringupStep::default();
        let v = crate::verilog::export::block_verilog(&mut uut, "bringup_step");
        crate::verilog::checks::lint_verilog(&v, "bringup_step").unwrap();
    }
}
