//! The completion that answers a port's config request, in a one-beat slot until `tx`
//! takes it (`ready` is low while it is full): a CplD with the register's value for a
//! successful CfgRd0, a Cpl for a successful CfgWr0 or with status UR for a request the
//! config space refuses. Byte count 4, lower address 0 (PCIe 3.0 §2.2.9), the requester
//! id and tag of the request, the completer id the config space gives.

use super::cfg_tlp::{CFG_BYTE_COUNT, CPLD_DW0, CPL_DW0, STATUS_SC, STATUS_UR};
use crate::csr::wire_order::WireOrder;
use crate::stream::TlpSource;
use rust_hdl::prelude::*;

// `tx.empty` reads the answer's kind from its fmt: with data exactly in a CplD.
const _: () = assert!((CPLD_DW0 >> 30) & 1 == 1 && (CPL_DW0 >> 30) & 1 == 0);

/// The answer slot of a port's config space.
#[derive(LogicBlock)]
pub struct CfgAnswer {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: the slot empties.
    pub reset: Signal<In, Bit>,
    /// A request is taken this cycle (only while `ready`).
    pub take: Signal<In, Bit>,
    /// Its header DW 1 (requester id, tag).
    pub req_dw1: Signal<In, Bits<32>>,
    /// It is a write.
    pub is_write: Signal<In, Bit>,
    /// It is answered with UR.
    pub ur: Signal<In, Bit>,
    /// The completer id to answer with.
    pub completer_id: Signal<In, Bits<16>>,
    /// The register's value (a read's answer).
    pub rdata: Signal<In, Bits<32>>,
    /// The slot is free.
    pub ready: Signal<Out, Bit>,
    /// Downstream: the completion, one beat.
    pub tx: TlpSource,
    /// A completion is in the slot.
    full: DFF<Bit>,
    /// Its beat.
    beat: DFF<Bits<128>>,
    /// The answer carries data: a successful read.
    cpld: Signal<Local, Bit>,
    /// Header DW 0: Cpl or CplD.
    dw0: Signal<Local, Bits<32>>,
    /// Header DW 1: completer id, status, byte count.
    dw1: Signal<Local, Bits<32>>,
    /// Header DW 2: requester id, tag, lower address 0.
    dw2: Signal<Local, Bits<32>>,
    /// The value, in wire byte order (0 without data).
    dw3: Signal<Local, Bits<32>>,
    /// The register read, in wire byte order.
    rdata_wire: WireOrder,
    /// The completion status.
    status: Signal<Local, Bits<3>>,
    /// The completion status SC (successful), for a request served.
    status_sc: Constant<Bits<3>>,
    /// The completion status UR (unsupported request), for a request refused.
    status_ur: Constant<Bits<3>>,
    /// The byte count of every config completion: 4 (PCIe 3.0 §2.2.9).
    byte_count: Constant<Bits<12>>,
    /// Header DW0 of a Cpl, for a write or a refused request.
    cpl_dw0: Constant<Bits<32>>,
    /// Header DW0 of a one-DW CplD, for a successful read.
    cpld_dw0: Constant<Bits<32>>,
}

impl Default for CfgAnswer {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            take: Default::default(),
            req_dw1: Default::default(),
            is_write: Default::default(),
            ur: Default::default(),
            completer_id: Default::default(),
            rdata: Default::default(),
            ready: Default::default(),
            tx: Default::default(),
            full: Default::default(),
            beat: Default::default(),
            cpld: Default::default(),
            dw0: Default::default(),
            dw1: Default::default(),
            dw2: Default::default(),
            dw3: Default::default(),
            rdata_wire: Default::default(),
            status: Default::default(),
            status_sc: Constant::new(STATUS_SC.into()),
            status_ur: Constant::new(STATUS_UR.into()),
            byte_count: Constant::new(CFG_BYTE_COUNT.into()),
            cpl_dw0: Constant::new(CPL_DW0.into()),
            cpld_dw0: Constant::new(CPLD_DW0.into()),
        }
    }
}

impl Logic for CfgAnswer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, full, beat);
        self.ready.next = !self.full.q.val();
        self.cpld.next = !self.is_write.val() && !self.ur.val();
        self.status.next = self.status_sc.val();
        if self.ur.val() {
            self.status.next = self.status_ur.val();
        }
        self.dw0.next = self.cpl_dw0.val();
        self.rdata_wire.dw.next = self.rdata.val();
        self.dw3.next = 0.into();
        if self.cpld.val() {
            self.dw0.next = self.cpld_dw0.val();
            self.dw3.next = self.rdata_wire.swapped.val();
        }
        self.dw1.next = (bit_cast::<32, 16>(self.completer_id.val()) << 16)
            | (bit_cast::<32, 3>(self.status.val()) << 13)
            | bit_cast::<32, 12>(self.byte_count.val());
        self.dw2.next = bit_cast::<32, 24>(self.req_dw1.val().get_bits::<24>(8)) << 8;
        if self.take.val() {
            self.full.d.next = true;
            self.beat.d.next = bit_cast::<128, 32>(self.dw0.val())
                | (bit_cast::<128, 32>(self.dw1.val()) << 32)
                | (bit_cast::<128, 32>(self.dw2.val()) << 64)
                | (bit_cast::<128, 32>(self.dw3.val()) << 96);
        }
        self.tx.valid.next = self.full.q.val();
        self.tx.data.next = self.beat.q.val();
        self.tx.sop.next = true;
        self.tx.eop.next = true;
        // A CplD (fmt bit 1, DW 0 bit 30, set) fills the fourth lane; a Cpl leaves it empty.
        self.tx.empty.next = 1.into();
        if self.beat.q.val().get_bit(30) {
            self.tx.empty.next = 0.into();
        }
        self.tx.dest.next = 0.into();
        self.tx.src.next = 0.into();
        self.tx.unsupported.next = false;
        if self.tx.valid.val() && self.tx.ready.val() {
            self.full.d.next = false;
        }
        if self.reset.val() {
            self.full.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Lcg, Stepper};
    use pcie_model::beats::to_beats;
    use pcie_model::tlp::{Bdf, CplStatus, Tag, Tlp};

    /// Random requests (reads, writes, refused ones) taken whenever the slot is free and
    /// `tx` taking at random: each answer leaves once, in order, as the completion
    /// pcie-model builds for it, and `ready` is low exactly while one waits.
    #[test]
    fn answers_are_the_completions_pcie_model_builds() {
        let mut s = Stepper::new(CfgAnswer::default(), |u| &mut u.clock);
        let mut rng = Lcg(0xCF6);
        let mut waiting: Option<(u128, u8)> = None;
        let (mut sent, mut cplds) = (0, 0);
        for cycle in 0..20_000 {
            let (rid, tag) = (rng.below(1 << 16) as u16, rng.below(256) as u8);
            let (is_write, ur) = (rng.chance(0.5), rng.chance(0.2));
            let (cid, value) = (rng.below(1 << 16) as u16, rng.below(1 << 32) as u32);
            let take = waiting.is_none() && rng.chance(0.6) && cycle > 0;
            let tx_ready = rng.chance(0.5);
            let u = &mut s.uut;
            u.reset.next = cycle == 0;
            u.take.next = take;
            u.req_dw1.next = (u64::from(rid) << 16 | u64::from(tag) << 8 | 0xF).into();
            u.is_write.next = is_write;
            u.ur.next = ur;
            u.completer_id.next = u64::from(cid).into();
            u.rdata.next = u64::from(value).into();
            u.tx.ready.next = tx_ready;
            s.settle();
            let u = &s.uut;
            assert_eq!(u.ready.val(), waiting.is_none(), "cycle {cycle}: ready");
            assert_eq!(u.tx.valid.val(), waiting.is_some(), "cycle {cycle}: valid");
            if let Some((data, empty)) = waiting {
                assert_eq!(u.tx.data.val().to_u128(), data, "cycle {cycle}: beat");
                assert_eq!(u.tx.empty.val().to_u64(), u64::from(empty), "cycle {cycle}");
                assert!(u.tx.sop.val() && u.tx.eop.val());
                if tx_ready {
                    waiting = None;
                    sent += 1;
                }
            }
            if take {
                let status = if ur { CplStatus::Ur } else { CplStatus::Sc };
                let data = value.to_le_bytes();
                let read = !is_write && !ur;
                let tlp = Tlp::completion(
                    Bdf(cid),
                    status,
                    Bdf(rid),
                    Tag(tag),
                    4,
                    0,
                    if read { &data } else { &[] },
                )
                .expect("a valid completion");
                let beats = to_beats(&tlp);
                assert_eq!(beats.len(), 1);
                waiting = Some((beats[0].data, beats[0].empty));
                cplds += usize::from(read);
            }
            s.tick();
        }
        assert!(
            sent > 3_000 && cplds > 1_000,
            "{sent} sent, {cplds} with data"
        );
    }

    #[test]
    fn cfg_answer_verilog_lints_clean() {
        let mut uut = CfgAnswer::default();
        let v = crate::verilog::export::block_verilog(&mut uut, "cfg_answer");
        crate::verilog::checks::lint_verilog(&v, "cfg_answer").unwrap();
    }
}
