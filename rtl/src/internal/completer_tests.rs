//! The internal completer with the CSR register file behind it: CSR writes and reads as
//! TLPs, UR and CA answers, unexpected completions, under random flow control.

use super::completer::InternalCompleter;
use crate::csr::bus::CsrBus;
use crate::csr::regs::CsrRegs;
use crate::harness::{packet_beats, Stepper, StreamDriver, StreamMonitor, TestBeat};
use crate::stream::{PORT_E, PORT_INTERNAL, PORT_N, PORT_S};
use peach2_regmap::csr::{target_hi, target_lo, ID, ID_VALUE, SCRATCH};
use rust_hdl::prelude::*;

/// The completer wired to a register file, as in the chip.
#[derive(LogicBlock, Default)]
struct CsrTarget {
    clock: Signal<In, Clock>,
    reset: Signal<In, Bit>,
    completer: InternalCompleter,
    regs: CsrRegs,
}

impl Logic for CsrTarget {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, completer, regs);
        self.completer.reset.next = self.reset.val();
        self.regs.reset.next = self.reset.val();
        self.completer.completer_id.next = 0x0300.into();
        CsrBus::join(&mut self.completer.csr, &mut self.regs.csr);
    }
}

const BAR0: u32 = 0xF7A0_0000;

fn mwr(offset: u32, data: &[u32], first_be: u32, last_be: u32) -> Vec<u32> {
    let mut v = vec![
        0x4000_0000 | data.len() as u32,
        0x0100_0500 | (last_be << 4) | first_be,
        BAR0 + offset,
    ];
    // Register values travel in PCIe byte order: a lane holds the value byte-swapped.
    v.extend(data.iter().map(|d| d.swap_bytes()));
    v
}

fn mrd(offset: u32, len: u32, tag: u32, first_be: u32, last_be: u32) -> Vec<u32> {
    vec![
        len & 0x3FF,
        0x0100_0000 | (tag << 8) | (last_be << 4) | first_be,
        BAR0 + offset,
    ]
}

/// Expected completion: (dw0, dw1, dw2, data).
fn cpld(len: u32, status: u32, byte_count: u32, tag: u32, lower: u32, data: &[u32]) -> Vec<u32> {
    let fmt = if data.is_empty() {
        0x0A00_0000
    } else {
        0x4A00_0000 | len
    };
    let mut v = vec![
        fmt,
        (0x0300 << 16) | (status << 13) | byte_count,
        0x0100_0000 | (tag << 8) | lower,
    ];
    v.extend(data.iter().map(|d| d.swap_bytes()));
    v
}

struct Bench {
    s: Stepper<CsrTarget>,
    drv: StreamDriver,
    mon: StreamMonitor,
    ur_sent: Vec<u64>,
    dropped: Vec<u64>,
    unexpected: u32,
}

impl Bench {
    fn new(seed: u64) -> Self {
        let mut s = Stepper::new(CsrTarget::default(), |u| &mut u.clock);
        s.uut.reset.next = true;
        s.tick();
        s.uut.reset.next = false;
        Self {
            s,
            drv: StreamDriver::new(0.5, seed),
            mon: StreamMonitor::new(0.5, seed + 7),
            ur_sent: Vec::new(),
            dropped: Vec::new(),
            unexpected: 0,
        }
    }

    fn send(&mut self, dws: &[u32], src: u64, unsupported: bool) {
        self.drv.push(packet_beats(
            dws,
            PORT_INTERNAL as u8,
            src as u8,
            unsupported,
        ));
    }

    fn run(&mut self, answers: usize) {
        let start = self.s.cycle;
        while self.drv.pending() > 0 || self.mon.packets.len() < answers {
            assert!(self.s.cycle - start < 5_000, "completer stalled");
            let c = &mut self.s.uut.completer;
            self.drv.drive(&mut c.from_xbar);
            self.mon.drive(&mut c.to_xbar);
            self.s.settle();
            let c = &self.s.uut.completer;
            self.drv.sample(&c.from_xbar);
            self.mon.sample(&c.to_xbar);
            if c.ur_sent.val() {
                self.ur_sent.push(c.status_port.val().to_u64());
            }
            if c.dropped.val() {
                self.dropped.push(c.status_port.val().to_u64());
            }
            self.unexpected += u32::from(c.cpl_unexpected.val());
            self.s.tick();
        }
        for _ in 0..20 {
            self.s.tick();
        }
        assert_eq!(self.mon.packets.len(), answers, "no extra answers");
    }
}

fn answer(dws: &[u32], dest: u64) -> Vec<TestBeat> {
    packet_beats(dws, dest as u8, PORT_INTERNAL as u8, false)
}

#[test]
fn csr_writes_and_reads_through_tlps() {
    let mut b = Bench::new(1);
    b.send(&mrd(ID, 1, 1, 0xF, 0), PORT_N, false);
    b.send(&mwr(SCRATCH, &[0xCAFE_F00D], 0xF, 0), PORT_N, false);
    b.send(&mrd(SCRATCH, 1, 2, 0xF, 0), PORT_N, false);
    b.send(
        &mwr(target_lo(1), &[0x1111_2222, 0x3333_4444], 0xF, 0xF),
        PORT_N,
        false,
    );
    b.send(&mrd(target_lo(1), 2, 3, 0xF, 0xF), PORT_N, false);
    b.send(&mwr(SCRATCH, &[0x0000_5500], 0b0010, 0), PORT_N, false);
    b.send(&mrd(SCRATCH, 1, 4, 0b0110, 0), PORT_N, false);
    b.send(&mrd(target_lo(0), 4, 5, 0xE, 0x7), PORT_N, false);
    b.run(5);
    let p = &b.mon.packets;
    assert_eq!(p[0], answer(&cpld(1, 0, 4, 1, 0, &[ID_VALUE]), PORT_N));
    assert_eq!(
        p[1],
        answer(&cpld(1, 0, 4, 2, 0x0C, &[0xCAFE_F00D]), PORT_N)
    );
    let lo = target_lo(1);
    assert_eq!(
        p[2],
        answer(
            &cpld(2, 0, 8, 3, lo & 0x7F, &[0x1111_2222, 0x3333_4444]),
            PORT_N
        )
    );
    // Byte 1 replaced; read of bytes 1..2: byte count 2, lower address 0x0D.
    assert_eq!(
        p[3],
        answer(&cpld(1, 0, 2, 4, 0x0D, &[0xCAFE_550D]), PORT_N)
    );
    // 4 DWs from target_lo(0): lo0, hi0, ctrl0, 0; first_be 1110, last_be 0111: 16-1-1.
    let want = cpld(4, 0, 14, 5, (target_lo(0) & 0x7F) | 1, &[0, 0, 0, 0]);
    assert_eq!(p[4], answer(&want, PORT_N));
    assert_eq!(target_hi(1), lo + 4);
}

#[test]
fn unserved_requests_get_ur_or_ca_and_completions_are_counted() {
    let mut b = Bench::new(2);
    // A read the E port could not serve (a remote read): UR back to E.
    let mut remote = vec![0x2000_0001, 0x0100_0A0F, 0x0000_0100, 0x0000_0040];
    b.send(&remote, PORT_E, true);
    // A 16-DW CSR read: Completer Abort.
    b.send(&mrd(SCRATCH, 16, 6, 0xF, 0xF), PORT_N, false);
    // A stray completion.
    b.send(
        &[0x4A00_0001, 0x0000_0004, 0x0100_0000, 0x1234_5678],
        PORT_N,
        false,
    );
    // A write from E that was marked unsupported can't exist; a 5-DW unsupported MWr
    // (multi-beat) is drained and answered as well.
    remote[0] = 0x6000_0005;
    let mut big = remote.clone();
    big.extend([1, 2, 3, 4, 5]);
    b.send(&big, PORT_E, true);
    // A locked read of a register: an endpoint supports no locked access, UR in a CplLk.
    let mut locked = mrd(SCRATCH, 1, 7, 0xF, 0);
    locked[0] |= 0x0100_0000;
    b.send(&locked, PORT_N, false);
    // An I/O read nobody serves: UR with byte count 4 and lower address 0, whatever its
    // byte enables and address (PCIe 3.0 2.2.9).
    b.send(&[0x0200_0001, 0x0100_0802, 0x0000_1006 & !3], PORT_E, true);
    // A message (Msg, routed to the root complex) from E: nothing here takes it, it is
    // dropped without an answer and counted against E; one from S after it.
    let msg = [0x3000_0000, 0x0100_0020, 0, 0];
    b.send(&msg, PORT_E, false);
    b.send(&msg, PORT_S, false);
    b.run(5);
    let p = &b.mon.packets;
    assert_eq!(p[0], answer(&cpld(1, 1, 4, 0x0A, 0x40, &[]), PORT_E));
    assert_eq!(p[1], answer(&cpld(16, 4, 64, 6, 0x0C, &[]), PORT_N));
    assert_eq!(p[2].len(), 1);
    let mut cpl_lk = cpld(1, 1, 4, 7, SCRATCH & 0x7C, &[]);
    cpl_lk[0] |= 0x0100_0000;
    assert_eq!(p[3], answer(&cpl_lk, PORT_N));
    assert_eq!(p[4], answer(&cpld(1, 1, 4, 8, 0, &[]), PORT_E));
    assert_eq!(b.ur_sent, vec![PORT_E, PORT_E, PORT_N, PORT_E]);
    assert_eq!(b.unexpected, 1);
    assert_eq!(b.dropped, vec![PORT_E, PORT_S]);
}

#[test]
fn completer_verilog_lints_clean() {
    let mut uut = InternalCompleter::default();
    let v = crate::verilog::export::block_verilog(&mut uut, "internal_completer");
    crate::verilog::checks::lint_verilog(&v, "internal_completer").unwrap();
}
