//! The bring-up's config request beat: built when the engine asks, with a fresh tag
//! (the latest one plus one, so a completion of an earlier request never matches a
//! later one), and held on `tx` until taken.
//!
//! The beat is one CfgRd0 or CfgWr0 of length 1: requester id 0, `first_be` 0xF,
//! `last_be` 0, the step's DW2 (target and register), and for a write its value in wire
//! byte order.

use super::cfg_tlp::{CFG_RD0_DW0, CFG_WR0_DW0};
use crate::csr::wire_order::WireOrder;
use crate::stream::TlpSource;
use rust_hdl::prelude::*;

/// One config request at a time, held until taken.
#[derive(LogicBlock)]
pub struct BringupRequest {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: nothing held, the latest tag 0.
    pub reset: Signal<In, Bit>,
    /// Pulse: build the request (only while none is held).
    pub send: Signal<In, Bit>,
    /// The request is a CfgRd0 (else a CfgWr0).
    pub is_read: Signal<In, Bit>,
    /// Its DW2: target bus/device/function and register.
    pub dw2: Signal<In, Bits<32>>,
    /// A write's value, in register order.
    pub wvalue: Signal<In, Bits<32>>,
    /// Downstream: the request beat.
    pub tx: TlpSource,
    /// A request beat is held on `tx`.
    pub busy: Signal<Out, Bit>,
    /// Pulse: the held beat was taken.
    pub taken: Signal<Out, Bit>,
    /// The tag of the latest request built.
    pub tag: Signal<Out, Bits<8>>,
    /// See `busy`.
    req_valid: DFF<Bit>,
    /// The request beat held on `tx`.
    req_data: DFF<Bits<128>>,
    /// The held request is a CfgWr0 (its beat carries one data DW).
    req_write: DFF<Bit>,
    /// See `tag`.
    tag_q: DFF<Bits<8>>,
    /// The fresh tag of the next request: the latest one plus one.
    next_tag: Signal<Local, Bits<8>>,
    /// Header DW0 of the request beat: a CfgRd0's or a CfgWr0's.
    beat_dw0: Signal<Local, Bits<32>>,
    /// Header DW1 of the request beat: requester id 0, the fresh tag, `first_be` 0xF.
    beat_dw1: Signal<Local, Bits<32>>,
    /// DW3 of the request beat: the write's data in wire byte order, 0 for a read.
    beat_dw3: Signal<Local, Bits<32>>,
    /// The write's value in wire byte order.
    wvalue_wire: WireOrder,
    /// Header DW0 of a CfgRd0, for the steps that read.
    rd0_dw0: Constant<Bits<32>>,
    /// Header DW0 of a CfgWr0, for the steps that write.
    wr0_dw0: Constant<Bits<32>>,
}

impl Default for BringupRequest {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            send: Default::default(),
            is_read: Default::default(),
            dw2: Default::default(),
            wvalue: Default::default(),
            tx: Default::default(),
            busy: Default::default(),
            taken: Default::default(),
            tag: Default::default(),
            req_valid: Default::default(),
            req_data: Default::default(),
            req_write: Default::default(),
            tag_q: Default::default(),
            next_tag: Default::default(),
            beat_dw0: Default::default(),
            beat_dw1: Default::default(),
            beat_dw3: Default::default(),
            wvalue_wire: Default::default(),
            rd0_dw0: Constant::new(CFG_RD0_DW0.into()),
            wr0_dw0: Constant::new(CFG_WR0_DW0.into()),
        }
    }
}

impl Logic for BringupRequest {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, req_valid, req_data, req_write, tag_q);
        self.next_tag.next = self.tag_q.q.val() + 1;
        self.beat_dw0.next = self.wr0_dw0.val();
        self.wvalue_wire.dw.next = self.wvalue.val();
        self.beat_dw3.next = self.wvalue_wire.swapped.val();
        if self.is_read.val() {
            self.beat_dw0.next = self.rd0_dw0.val();
            self.beat_dw3.next = 0.into();
        }
        self.beat_dw1.next = (bit_cast::<32, 8>(self.next_tag.val()) << 8) | 0xF;
        if self.send.val() && !self.req_valid.q.val() {
            self.req_valid.d.next = true;
            self.req_write.d.next = !self.is_read.val();
            self.req_data.d.next = bit_cast::<128, 32>(self.beat_dw0.val())
                | (bit_cast::<128, 32>(self.beat_dw1.val()) << 32)
                | (bit_cast::<128, 32>(self.dw2.val()) << 64)
                | (bit_cast::<128, 32>(self.beat_dw3.val()) << 96);
            self.tag_q.d.next = self.next_tag.val();
        }
        self.busy.next = self.req_valid.q.val();
        self.tag.next = self.tag_q.q.val();
        self.tx.valid.next = self.req_valid.q.val();
        self.tx.data.next = self.req_data.q.val();
        self.tx.sop.next = true;
        self.tx.eop.next = true;
        self.tx.empty.next = 1.into();
        if self.req_write.q.val() {
            self.tx.empty.next = 0.into();
        }
        self.tx.dest.next = 0.into();
        self.tx.src.next = 0.into();
        self.tx.unsupported.next = false;
        self.taken.next = self.tx.valid.val() && self.tx.ready.val();
        if self.taken.val() {
            self.req_valid.d.next = false;
        }
        if self.reset.val() {
            self.req_valid.d.next = false;
            self.tag_q.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_tlp::CfgReq;
    use super::*;
    use crate::harness::{Lcg, Stepper, TestBeat};
    use crate::verilog::checks::lint_verilog;
    use crate::verilog::export::block_verilog;

    /// Random requests (reads and writes, any target and register) asked for at random,
    /// taken after random waits: each comes out once as the config request pcie-model
    /// decodes, with the next tag, held unchanged until taken; asking while one is held
    /// changes nothing.
    #[test]
    fn each_request_leaves_once_with_a_fresh_tag() {
        let mut s = Stepper::new(BringupRequest::default(), |b| &mut b.clock);
        let mut rng = Lcg(0xB1_0E57);
        s.uut.reset.next = true;
        s.settle();
        s.tick();
        s.uut.reset.next = false;
        let mut held: Option<CfgReq> = None;
        let (mut tag, mut sent) = (0u8, [0usize; 2]);
        for cycle in 0..20_000 {
            let (target, offset) = (rng.below(1 << 16) as u16, 4 * rng.below(1 << 10) as u16);
            let (is_read, value) = (rng.chance(0.5), rng.next_u64() as u32);
            let send = rng.chance(0.3);
            let ready = rng.chance(0.4);
            let u = &mut s.uut;
            u.send.next = send;
            u.is_read.next = is_read;
            u.dw2.next = ((u64::from(target) << 16) | u64::from(offset)).into();
            u.wvalue.next = u64::from(value).into();
            u.tx.ready.next = ready;
            s.settle();
            let u = &s.uut;
            assert_eq!(u.busy.val(), held.is_some(), "cycle {cycle}");
            assert_eq!(u.tag.val().to_u64(), u64::from(tag), "cycle {cycle}");
            if let Some(want) = held {
                let beat = TestBeat {
                    data: u.tx.data.val().to_u128(),
                    sop: u.tx.sop.val(),
                    eop: u.tx.eop.val(),
                    empty: u.tx.empty.val().to_u64() as u8,
                    dest: u.tx.dest.val().to_u64() as u8,
                    src: u.tx.src.val().to_u64() as u8,
                    unsupported: u.tx.unsupported.val(),
                };
                assert!(u.tx.valid.val());
                assert_eq!(CfgReq::from_beats(&[beat]), want, "cycle {cycle}");
            } else {
                assert!(!u.tx.valid.val(), "cycle {cycle}");
            }
            assert_eq!(u.taken.val(), held.is_some() && ready, "cycle {cycle}");
            if held.is_some() && ready {
                held = None;
            } else if held.is_none() && send {
                tag = tag.wrapping_add(1);
                let r = if is_read {
                    CfgReq::rd0(0, tag, target, offset)
                } else {
                    CfgReq::wr0(0, tag, target, offset, 0xF, value)
                };
                sent[usize::from(is_read)] += 1;
                held = Some(r);
            }
            s.tick();
        }
        assert!(sent.iter().all(|&n| n > 1_000), "{sent:?}");
    }

    #[test]
    fn bringup_request_lint_clean() {
        let mut uut = BringupRequest::default();
        lint_verilog(
            &block_verilog(&mut uut, "bringup_request"),
            "bringup_request",
        )
        .unwrap();
    }
}
