//! A port's type-0 configuration space in the endpoint role, and the completions that
//! answer config requests.
//!
//! The layout is the table of `peach2_regmap::config`. Registers that are not listed read
//! 0 and ignore writes; read-only bits keep their value under writes; writes honour
//! `first_be` byte by byte. BARs follow the sizing protocol: BAR0 (32-bit, 64 KiB,
//! non-prefetchable) reads back `0xFFFF_0000` after an all-ones write, BAR2 (64-bit
//! prefetchable, 4 TiB) `0x0000_000C` / `0xFFFF_FC00`.
//!
//! Each request is answered by one completion, kept in a one-beat slot until `tx` takes
//! it; `req_ready` is low while the slot is full. A CfgRd0 gets a CplD, a CfgWr0 a Cpl,
//! both successful; a type-1 request, a request to a function other than 0, one marked
//! `req_unsupported`, and every request in the root-complex role get a Cpl with status UR
//! and change nothing. Completions carry byte count 4 and lower address 0 (§2.2.9) and the
//! requester id and tag of the request. The completer id is the bus/dev/fn this function
//! captured from the target id of its last successful CfgWr0 (PCIe §2.2.6.2), including
//! the write being answered; 0 before any.
//!
//! In the root-complex role the registers hold their reset values (the port has no config
//! space of its own then); `reset` also clears them (the link controller resets this block
//! on link down, as a DL_Down resets an endpoint).

use super::cfg_answer::CfgAnswer;
use super::cfg_regs::CfgRegs;
use super::cfg_tlp::TYPE_CFG0;
use crate::csr::wire_order::WireOrder;
use crate::stream::TlpSource;
use rust_hdl::prelude::*;

/// The endpoint config space of one port, with its completion generator.
#[derive(LogicBlock)]
pub struct CfgSpace {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: registers to their reset values, no answer pending.
    pub reset: Signal<In, Bit>,
    /// Upstream: a well-formed one-beat config request (lanes: DW0, DW1, DW2, write data).
    pub req: Signal<In, Bits<128>>,
    /// `req` holds a request this cycle.
    pub req_valid: Signal<In, Bit>,
    /// Answer with UR whatever the request (the chip marked it unsupported).
    pub req_unsupported: Signal<In, Bit>,
    /// The answer slot is free: a request is taken when `req_valid` and `req_ready`.
    pub req_ready: Signal<Out, Bit>,
    /// Downstream: the completions, one beat each.
    pub tx: TlpSource,
    /// The port plays the root-complex role: answer UR, keep reset values.
    pub role_rc: Signal<In, Bit>,
    /// This node's id (`PORT_INFO` bits 5:0).
    pub node_id: Signal<In, Bits<6>>,
    /// This port's index (`PORT_INFO` bits 9:8).
    pub port_index: Signal<In, Bits<2>>,
    /// Captured bus/dev/fn.
    pub device_id: Signal<Out, Bits<16>>,
    /// Command register: memory space enable.
    pub mem_enable: Signal<Out, Bit>,
    /// Command register: bus master enable.
    pub bus_master: Signal<Out, Bit>,
    /// BAR0 base address (bits 15:0 zero).
    pub bar0_base: Signal<Out, Bits<32>>,
    /// BAR2 base address bits 63:42.
    pub bar2_base_hi: Signal<Out, Bits<22>>,
    /// `PARTNER_INFO` bits 5:0.
    pub partner_node: Signal<Out, Bits<6>>,
    /// `PARTNER_INFO` bits 9:8.
    pub partner_port: Signal<Out, Bits<2>>,
    /// `PARTNER_INFO` bit 31.
    pub partner_valid: Signal<Out, Bit>,
    /// Device control: max payload size code.
    pub max_payload: Signal<Out, Bits<3>>,
    /// Device control: max read request size code.
    pub max_read_req: Signal<Out, Bits<3>>,
    /// Pulse: a request was taken that gets a UR completion.
    pub ur_sent: Signal<Out, Bit>,
    /// The bus/dev/fn captured from the last successful CfgWr0.
    dev_id: DFF<Bits<16>>,
    /// The answer, in its one-beat slot.
    answer: CfgAnswer,
    /// The request's header DW 0.
    dw0: Signal<Local, Bits<32>>,
    /// Its header DW 1 (requester id, tag, byte enables).
    dw1: Signal<Local, Bits<32>>,
    /// Its header DW 2 (target id, register number).
    dw2: Signal<Local, Bits<32>>,
    /// The written value (register order in `swapped`).
    wvalue: WireOrder,
    /// The target bus/dev/fn.
    target_id: Signal<Local, Bits<16>>,
    /// A CfgWr (else a CfgRd).
    is_write: Signal<Local, Bit>,
    /// Answered with UR, nothing changed.
    ur: Signal<Local, Bit>,
    /// The request is taken this cycle.
    take: Signal<Local, Bit>,
    /// A successful write is taken this cycle.
    write: Signal<Local, Bit>,
    /// The registers.
    regs: CfgRegs,
    /// The type of a type-0 config request: any other type is answered with UR.
    type_cfg0: Constant<Bits<5>>,
}

impl Default for CfgSpace {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            req: Default::default(),
            req_valid: Default::default(),
            req_unsupported: Default::default(),
            req_ready: Default::default(),
            tx: Default::default(),
            role_rc: Default::default(),
            node_id: Default::default(),
            port_index: Default::default(),
            device_id: Default::default(),
            mem_enable: Default::default(),
            bus_master: Default::default(),
            bar0_base: Default::default(),
            bar2_base_hi: Default::default(),
            partner_node: Default::default(),
            partner_port: Default::default(),
            partner_valid: Default::default(),
            ur_sent: Default::default(),
            max_payload: Default::default(),
            max_read_req: Default::default(),
            dev_id: Default::default(),
            answer: Default::default(),
            dw0: Default::default(),
            dw1: Default::default(),
            dw2: Default::default(),
            wvalue: Default::default(),
            target_id: Default::default(),
            is_write: Default::default(),
            ur: Default::default(),
            take: Default::default(),
            write: Default::default(),
            regs: Default::default(),
            type_cfg0: Constant::new(TYPE_CFG0.into()),
        }
    }
}

impl Logic for CfgSpace {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, dev_id);
        self.answer.clock.next = self.clock.val();
        self.answer.reset.next = self.reset.val();
        self.regs.clock.next = self.clock.val();
        // In the root-complex role the registers hold their reset values.
        self.regs.reset.next = self.reset.val() || self.role_rc.val();
        // Request fields.
        self.dw0.next = self.req.val().get_bits::<32>(0);
        self.dw1.next = self.req.val().get_bits::<32>(32);
        self.dw2.next = self.req.val().get_bits::<32>(64);
        // The data lane holds the value in wire byte order.
        self.wvalue.dw.next = self.req.val().get_bits::<32>(96);
        self.is_write.next = self.dw0.val().get_bit(30);
        self.target_id.next = self.dw2.val().get_bits::<16>(16);
        self.ur.next = self.role_rc.val()
            || self.req_unsupported.val()
            || (self.dw0.val().get_bits::<5>(24) != self.type_cfg0.val())
            || self.target_id.val().get_bits::<3>(0).any();

        self.req_ready.next = self.answer.ready.val();
        self.take.next = self.req_valid.val() && self.req_ready.val();
        self.write.next = self.take.val() && self.is_write.val() && !self.ur.val();
        self.ur_sent.next = self.take.val() && self.ur.val();

        // The register the request names, read, and written with `first_be`.
        self.regs.index.next = self.dw2.val().get_bits::<10>(2);
        self.regs.write.next = self.write.val();
        self.regs.value.next = self.wvalue.swapped.val();
        self.regs.be.next = self.dw1.val().get_bits::<4>(0);
        self.regs.node_id.next = self.node_id.val();
        self.regs.port_index.next = self.port_index.val();
        if self.write.val() {
            self.dev_id.d.next = self.target_id.val();
        }

        // The completion.
        self.answer.take.next = self.take.val();
        self.answer.req_dw1.next = self.dw1.val();
        self.answer.is_write.next = self.is_write.val();
        self.answer.ur.next = self.ur.val();
        self.answer.completer_id.next = self.dev_id.q.val();
        if self.write.val() {
            self.answer.completer_id.next = self.target_id.val();
        }
        self.answer.rdata.next = self.regs.rdata.val();
        TlpSource::link(&mut self.tx, &mut self.answer.tx);

        self.device_id.next = self.dev_id.q.val();
        self.mem_enable.next = self.regs.mem_en.val();
        self.bus_master.next = self.regs.bus_master_en.val();
        self.bar0_base.next = bit_cast::<32, 16>(self.regs.bar0.val()) << 16;
        self.bar2_base_hi.next = self.regs.bar2_hi.val();
        self.partner_node.next = self.regs.partner.val();
        self.partner_port.next = self.regs.partner_p.val();
        self.partner_valid.next = self.regs.partner_ok.val();
        self.max_payload.next = self.regs.mps.val();
        self.max_read_req.next = self.regs.mrrs.val();

        if self.reset.val() || self.role_rc.val() {
            self.dev_id.d.next = 0.into();
        }
    }
}
