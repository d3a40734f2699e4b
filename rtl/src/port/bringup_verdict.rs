//! What a completion means for the bring-up ([`super::bringup::BringUp`]): whether it
//! answers the request in flight, and if so whether the step succeeded, is to be resent,
//! or failed and why. Combinational.
//!
//! A completion answers the request when the bring-up waits for one, its requester id is
//! 0 and its tag is the request's; any other is `unexpected`. Its status decides (PCIe
//! 2.0, 2.2.9): SC succeeds, but a read must carry data, the id read must be PEACH2's,
//! and the `PORT_INFO` read shows the partner and must name the port expected; CRS
//! resends; UR means the partner is a root complex too; anything else cannot come from a
//! PEACH2 endpoint. Of several failures of one completion, the partner's port is
//! reported first, then the identity.

use super::bringup_step::Step;
use super::cfg_tlp::{STATUS_CRS, STATUS_SC, STATUS_UR};
use super::status_code;
use peach2_regmap::config::{LinkError, DEVICE_ID, VENDOR_ID};
use rust_hdl::prelude::*;

/// The bring-up's reading of a completion.
#[derive(LogicBlock)]
pub struct BringupVerdict {
    /// A one-beat completion that arrived on the port.
    pub cpl: Signal<In, Bits<128>>,
    /// `cpl` holds a completion this cycle.
    pub cpl_valid: Signal<In, Bit>,
    /// The bring-up waits for its request's completion.
    pub waiting: Signal<In, Bit>,
    /// The request's tag.
    pub tag: Signal<In, Bits<8>>,
    /// The step the request belongs to.
    pub step: Signal<In, Step>,
    /// The request is a read.
    pub is_read: Signal<In, Bit>,
    /// The port the partner must be.
    pub expected_partner: Signal<In, Bits<2>>,
    /// The completion answers no request in flight.
    pub unexpected: Signal<Out, Bit>,
    /// It answers with SC: the step is done (unless `fail` says otherwise).
    pub success: Signal<Out, Bit>,
    /// It answers with CRS: send the request again.
    pub resend: Signal<Out, Bit>,
    /// The bring-up fails, with `err`.
    pub fail: Signal<Out, Bit>,
    /// The `LinkError` code of the failure.
    pub err: Signal<Out, Bits<4>>,
    /// It carries the partner's `PORT_INFO`: `partner_node` and `partner_port`.
    pub partner: Signal<Out, Bit>,
    /// The partner's node id.
    pub partner_node: Signal<Out, Bits<6>>,
    /// The partner's port.
    pub partner_port: Signal<Out, Bits<2>>,
    /// The completion answers the request.
    matched: Signal<Local, Bit>,
    /// DW1 bits 15:13.
    status: Signal<Local, Bits<3>>,
    /// DW0 bit 30: the completion carries data.
    has_data: Signal<Local, Bit>,
    /// The data lane, byte-swapped back to a register value.
    value: Signal<Local, Bits<32>>,
    /// The completion status SC (successful): the step succeeded.
    status_sc: Constant<Bits<3>>,
    /// The completion status UR (unsupported request): the partner is a root complex too.
    status_ur: Constant<Bits<3>>,
    /// The completion status CRS (config request retry): the request is resent.
    status_crs: Constant<Bits<3>>,
    /// PEACH2's device and vendor id, as the read of the identity must return them.
    identity: Constant<Bits<32>>,
    /// The LinkError code for a partner that is no endpoint (it answered UR).
    e_not_endpoint: Constant<Bits<4>>,
    /// The LinkError code for a partner that is no PEACH2 endpoint.
    e_not_peach2: Constant<Bits<4>>,
    /// The LinkError code for a partner whose `PORT_INFO` names another port than expected.
    e_wrong_port: Constant<Bits<4>>,
}

impl Default for BringupVerdict {
    fn default() -> Self {
        Self {
            cpl: Default::default(),
            cpl_valid: Default::default(),
            waiting: Default::default(),
            tag: Default::default(),
            step: Default::default(),
            is_read: Default::default(),
            expected_partner: Default::default(),
            matched: Default::default(),
            unexpected: Default::default(),
            success: Default::default(),
            resend: Default::default(),
            fail: Default::default(),
            err: Default::default(),
            partner: Default::default(),
            partner_node: Default::default(),
            partner_port: Default::default(),
            status: Default::default(),
            has_data: Default::default(),
            value: Default::default(),
            status_sc: Constant::new(STATUS_SC.into()),
            status_ur: Constant::new(STATUS_UR.into()),
            status_crs: Constant::new(STATUS_CRS.into()),
            identity: Constant::new(((u64::from(DEVICE_ID) << 16) | u64::from(VENDOR_ID)).into()),
            e_not_endpoint: status_code(LinkError::PartnerNotEndpoint as u64),
            e_not_peach2: status_code(LinkError::PartnerNotPeach2 as u64),
            e_wrong_port: status_code(LinkError::WrongPartnerPort as u64),
        }
    }
}

impl Logic for BringupVerdict {
    #[hdl_gen]
    fn update(&mut self) {
        // DW1 status 15:13, DW2 requester id 31:16 and tag 15:8.
        self.status.next = self.cpl.val().get_bits::<3>(45);
        self.has_data.next = self.cpl.val().get_bit(30);
        self.value.next = (bit_cast::<32, 8>(self.cpl.val().get_bits::<8>(120)))
            | (bit_cast::<32, 8>(self.cpl.val().get_bits::<8>(112)) << 8)
            | (bit_cast::<32, 8>(self.cpl.val().get_bits::<8>(104)) << 16)
            | (bit_cast::<32, 8>(self.cpl.val().get_bits::<8>(96)) << 24);
        self.matched.next = self.cpl_valid.val()
            && self.waiting.val()
            && (self.cpl.val().get_bits::<16>(80) == 0)
            && (self.cpl.val().get_bits::<8>(72) == self.tag.val());
        self.unexpected.next = self.cpl_valid.val() && !self.matched.val();
        self.partner_node.next = self.value.val().get_bits::<6>(0);
        self.partner_port.next = self.value.val().get_bits::<2>(8);

        self.success.next = false;
        self.resend.next = false;
        self.fail.next = false;
        self.err.next = self.e_not_peach2.val();
        self.partner.next = false;
        if self.matched.val() {
            if self.status.val() == self.status_sc.val() {
                self.success.next = true;
                if self.is_read.val() && !self.has_data.val() {
                    self.fail.next = true;
                }
                if (self.step.val() == Step::ReadId) && (self.value.val() != self.identity.val()) {
                    self.fail.next = true;
                }
                if (self.step.val() == Step::ReadPortInfo) && self.has_data.val() {
                    self.partner.next = true;
                    if self.partner_port.val() != self.expected_partner.val() {
                        self.fail.next = true;
                        self.err.next = self.e_wrong_port.val();
                    }
                }
            } else if self.status.val() == self.status_crs.val() {
                self.resend.next = true;
            } else if self.status.val() == self.status_ur.val() {
                self.fail.next = true;
                self.err.next = self.e_not_endpoint.val();
            } else {
                self.fail.next = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{bits128, Lcg};
    use crate::verilog::checks::lint_verilog;
    use crate::verilog::export::block_verilog;

    const STEPS: [Step; 8] = [
        Step::ReadId,
        Step::ReadPortInfo,
        Step::WriteBar2Lo,
        Step::WriteBar2Hi,
        Step::WritePartnerInfo,
        Step::WriteCommand,
        Step::Done,
        Step::Failed,
    ];

    /// (unexpected, success, resend, fail, err, partner, node, port), by the module's
    /// documentation.
    type Reading = (bool, bool, bool, bool, u64, bool, u64, u64);

    /// Random completions (mostly well addressed, every status, right and wrong ids and
    /// ports) against the rules of the module's documentation.
    #[test]
    fn reads_each_completion_as_documented() {
        let mut uut = BringupVerdict::default();
        uut.connect_all();
        let mut rng = Lcg(0xB1E55);
        let identity = u64::from(DEVICE_ID) << 16 | u64::from(VENDOR_ID);
        let mut seen = [0usize; 5];
        for round in 0..20_000 {
            let (valid, waiting) = (rng.chance(0.8), rng.chance(0.8));
            let tag = rng.below(256);
            let step = STEPS[rng.below(8) as usize];
            let is_read = rng.chance(0.5);
            let expected = rng.below(4);
            let cpl_tag = if rng.chance(0.8) { tag } else { rng.below(256) };
            let requester = if rng.chance(0.9) {
                0
            } else {
                rng.below(1 << 16)
            };
            let status = [0u64, 1, 2, 4, 7][rng.below(5) as usize];
            let has_data = rng.chance(0.7);
            let value = match rng.below(3) {
                0 => identity,
                1 => rng.below(64) | rng.below(4) << 8,
                _ => rng.below(1 << 32),
            };
            let swapped = u64::from((value as u32).swap_bytes());
            let cpl = u128::from(has_data) << 30
                | u128::from(status) << 45
                | u128::from(cpl_tag) << 72
                | u128::from(requester) << 80
                | u128::from(swapped) << 96;
            uut.cpl.next = bits128(cpl);
            uut.cpl_valid.next = valid;
            uut.waiting.next = waiting;
            uut.tag.next = tag.into();
            uut.step.next = step;
            uut.is_read.next = is_read;
            uut.expected_partner.next = expected.into();
            assert!(simulate(&mut uut, 100), "settles");

            let matched = valid && waiting && requester == 0 && cpl_tag == tag;
            let (node, port) = (value & 0x3F, value >> 8 & 3);
            let not_peach2 = LinkError::PartnerNotPeach2 as u64;
            let (mut success, mut resend, mut fail, mut err) = (false, false, false, not_peach2);
            let mut partner = false;
            if matched {
                match status {
                    0 => {
                        success = true;
                        fail =
                            (is_read && !has_data) || (step == Step::ReadId && value != identity);
                        if step == Step::ReadPortInfo && has_data {
                            partner = true;
                            if port != expected {
                                fail = true;
                                err = LinkError::WrongPartnerPort as u64;
                            }
                        }
                    }
                    2 => resend = true,
                    1 => (fail, err) = (true, LinkError::PartnerNotEndpoint as u64),
                    _ => fail = true,
                }
            }
            let want: Reading = (
                valid && !matched,
                success,
                resend,
                fail,
                err,
                partner,
                node,
                port,
            );
            let got: Reading = (
                uut.unexpected.val(),
                uut.success.val(),
                uut.resend.val(),
                uut.fail.val(),
                uut.err.val().to_u64(),
                uut.partner.val(),
                uut.partner_node.val().to_u64(),
                uut.partner_port.val().to_u64(),
            );
            assert_eq!(got, want, "round {round}: {step:?}, status {status}");
            for (k, hit) in [success && !fail, resend, fail, partner, matched]
                .iter()
                .enumerate()
            {
                seen[k] += usize::from(*hit);
            }
        }
        assert!(seen.iter().all(|&n| n > 100), "{seen:?}");
    }

    #[test]
    fn bringup_verdict_lint_clean() {
        let mut uut = BringupVerdict::default();
        lint_verilog(
            &block_verilog(&mut uut, "bringup_verdict"),
            "bringup_verdict",
        )
        .unwrap();
    }
}
