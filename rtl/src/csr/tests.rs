//! Tests of the register file against the map in `peach2_regmap::csr`.

use super::regs::CsrRegs;
use crate::harness::Stepper;
use peach2_regmap::csr::*;

fn write(s: &mut Stepper<CsrRegs>, byte_offset: u32, data: u32, be: u64) {
    let mask = (0..4)
        .filter(|k| be >> k & 1 == 1)
        .fold(0u64, |m, k| m | 0xFF << (8 * k));
    s.uut.csr.wr_en.next = true;
    s.uut.csr.wr_addr.next = u64::from(byte_offset / 4).into();
    s.uut.csr.wr_data.next = u64::from(data).into();
    s.uut.csr.wr_be.next = be.into();
    s.uut.csr.wr_mask.next = mask.into();
    s.tick();
    s.uut.csr.wr_en.next = false;
}

fn read(s: &mut Stepper<CsrRegs>, byte_offset: u32) -> u32 {
    s.uut.csr.rd_addr.next = u64::from(byte_offset / 4).into();
    s.settle();
    s.uut.csr.rd_data.val().to_u64() as u32
}

fn regs() -> Stepper<CsrRegs> {
    let mut s = Stepper::new(CsrRegs::default(), |u| &mut u.clock);
    s.uut.reset.next = true;
    s.tick();
    s.uut.reset.next = false;
    s
}

#[test]
fn identity_and_scratch_follow_the_map() {
    let mut s = regs();
    assert_eq!(read(&mut s, ID), ID_VALUE);
    assert_eq!(read(&mut s, VERSION), VERSION_VALUE);
    write(&mut s, SCRATCH, 0xDEAD_BEEF, 0xF);
    assert_eq!(read(&mut s, SCRATCH), 0xDEAD_BEEF);
    write(&mut s, SCRATCH, 0x1122_3344, 0b0101);
    assert_eq!(read(&mut s, SCRATCH), 0xDE22_BE44, "byte enables honoured");
    write(&mut s, NODE_ID, 0xFFFF_FFF9, 0xF);
    assert_eq!(read(&mut s, NODE_ID), 9);
    assert_eq!(s.uut.node_id.val().to_u64(), 9);
    write(&mut s, ID, 0, 0xF);
    assert_eq!(read(&mut s, ID), ID_VALUE, "ID is read-only");
    assert_eq!(read(&mut s, 0x7FFC), 0, "unmapped reads 0");
}

#[test]
fn route_table_and_targets_follow_the_map() {
    let mut s = regs();
    for n in 0..16u32 {
        if n % 3 != 0 {
            write(&mut s, route(n), ROUTE_VALID | (n % 4), 0xF);
        }
    }
    let table = s.uut.route_table.val().to_u64();
    for n in 0..16u32 {
        let entry = (table >> (3 * n)) & 7;
        let want = if n % 3 != 0 { 4 | u64::from(n % 4) } else { 0 };
        assert_eq!(entry, want, "entry {n}");
        let r = read(&mut s, route(n));
        assert_eq!(r, if n % 3 != 0 { ROUTE_VALID | (n % 4) } else { 0 });
    }
    for t in 0..5u32 {
        write(&mut s, target_lo(t), 0x1000_0000 * (t + 1), 0xF);
        write(&mut s, target_hi(t), 0x20 + t, 0xF);
        write(&mut s, target_ctrl(t), t & 1, 0xF);
    }
    for t in 0..5u32 {
        assert_eq!(read(&mut s, target_lo(t)), 0x1000_0000 * (t + 1));
        assert_eq!(read(&mut s, target_hi(t)), 0x20 + t);
        assert_eq!(read(&mut s, target_ctrl(t)), t & 1);
        let base = s.uut.target_base[t as usize].val().to_u64();
        assert_eq!(
            base,
            (u64::from(0x20 + t) << 32) | u64::from(0x1000_0000 * (t + 1))
        );
    }
    assert_eq!(s.uut.target_enable.val().to_u64(), 0b01010);
}

#[test]
fn port_status_and_counters_follow_the_map() {
    let mut s = regs();
    for (p, port) in Port::ALL.iter().enumerate() {
        s.uut.port_status[p].next = (0x100 + p as u64).into();
        s.uut.port_config[p].next = (0x200 + p as u64).into();
        for k in 0..7 {
            s.uut.port_counters[7 * p + k].next = (1000 * p as u64 + k as u64).into();
        }
        let _ = port;
    }
    for (p, port) in Port::ALL.iter().enumerate() {
        assert_eq!(read(&mut s, port_reg(*port, PORT_STATUS)), 0x100 + p as u32);
        assert_eq!(read(&mut s, port_reg(*port, PORT_CONFIG)), 0x200 + p as u32);
        let regs = [
            PORT_TLPS_IN,
            PORT_BYTES_IN,
            PORT_TLPS_OUT,
            PORT_BYTES_OUT,
            PORT_DROPS,
            PORT_ERRORS,
            PORT_UR_SENT,
        ];
        for (k, r) in regs.iter().enumerate() {
            assert_eq!(
                read(&mut s, port_reg(*port, *r)),
                1000 * p as u32 + k as u32
            );
        }
    }
    s.uut.cpl_unexpected.next = true;
    s.tick();
    s.tick();
    s.uut.cpl_unexpected.next = false;
    s.tick();
    assert_eq!(read(&mut s, CPL_UNEXPECTED), 2);
}

#[test]
fn csr_blocks_lint_clean() {
    let mut regs = CsrRegs::default();
    let v = crate::verilog::export::block_verilog(&mut regs, "csr_regs");
    crate::verilog::checks::lint_verilog(&v, "csr_regs").unwrap();
    let mut counters = super::counters::PortCounters::default();
    let v = crate::verilog::export::block_verilog(&mut counters, "port_counters");
    crate::verilog::checks::lint_verilog(&v, "port_counters").unwrap();
}
