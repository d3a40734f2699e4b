//! Tests of the register files against the maps in `peach2_regmap::csr` and
//! `peach2_regmap::dma`.

use super::bus::CsrTarget;
use super::dma_regs::DmaRegs;
use super::regs::CsrRegs;
use super::route_regs::RouteRegs;
use super::target_regs::{TargetRegs, TARGETS};
use crate::harness::{byte_mask, Lcg, Stepper};
use crate::router::route_entry;
use peach2_regmap::address::MAX_NODES;
use peach2_regmap::csr::*;
use rust_hdl::prelude::*;
use std::collections::HashMap;

/// A block with registers on the CSR bus.
trait OnCsrBus: Block {
    fn csr(&mut self) -> &mut CsrTarget;
    fn reset(&mut self) -> &mut Signal<In, Bit>;
}
impl OnCsrBus for CsrRegs {
    fn csr(&mut self) -> &mut CsrTarget {
        &mut self.csr
    }
    fn reset(&mut self) -> &mut Signal<In, Bit> {
        &mut self.reset
    }
}
impl OnCsrBus for RouteRegs {
    fn csr(&mut self) -> &mut CsrTarget {
        &mut self.csr
    }
    fn reset(&mut self) -> &mut Signal<In, Bit> {
        &mut self.reset
    }
}
impl OnCsrBus for TargetRegs {
    fn csr(&mut self) -> &mut CsrTarget {
        &mut self.csr
    }
    fn reset(&mut self) -> &mut Signal<In, Bit> {
        &mut self.reset
    }
}
impl OnCsrBus for DmaRegs {
    fn csr(&mut self) -> &mut CsrTarget {
        &mut self.csr
    }
    fn reset(&mut self) -> &mut Signal<In, Bit> {
        &mut self.reset
    }
}

/// Presents a write (the next edge takes it).
fn present_write<B: OnCsrBus>(s: &mut Stepper<B>, byte_offset: u32, data: u32, be: u64) {
    let mask = u64::from(byte_mask(be));
    let csr = s.uut.csr();
    csr.wr_en.next = true;
    csr.wr_addr.next = u64::from(byte_offset / 4).into();
    csr.wr_data.next = u64::from(data).into();
    csr.wr_be.next = be.into();
    csr.wr_mask.next = mask.into();
}

fn write<B: OnCsrBus>(s: &mut Stepper<B>, byte_offset: u32, data: u32, be: u64) {
    present_write(s, byte_offset, data, be);
    // Inputs settle before the edge, through the register file's groups too.
    s.settle();
    s.tick();
    s.uut.csr().wr_en.next = false;
}

/// A read as the completer makes it: the address held for two cycles, the answer taken
/// in the second.
fn read<B: OnCsrBus>(s: &mut Stepper<B>, byte_offset: u32) -> u32 {
    s.uut.csr().rd_addr.next = u64::from(byte_offset / 4).into();
    s.settle();
    s.tick();
    s.settle();
    s.uut.csr().rd_data.val().to_u64() as u32
}

fn after_reset<B: OnCsrBus>(uut: B, clock: fn(&mut B) -> &mut Signal<In, Clock>) -> Stepper<B> {
    let mut s = Stepper::new(uut, clock);
    s.uut.reset().next = true;
    s.tick();
    s.uut.reset().next = false;
    s
}

/// Random writes (random byte enables, a fifth of them to offsets around the group's)
/// and reads against a model of the group's registers: `writable(offset, be)` is the
/// mask of the bits a write changes, 0 outside the group; every read, and `outputs`
/// after each write, must agree with the model. Random idle cycles between accesses.
fn random_accesses<B: OnCsrBus>(
    mut s: Stepper<B>,
    offsets: &[u32],
    writable: impl Fn(u32, u64) -> u32,
    outputs: impl Fn(&B, &HashMap<u32, u32>),
    seed: u64,
) {
    let mut rng = Lcg(seed);
    let mut model: HashMap<u32, u32> = HashMap::new();
    let (mut writes, mut nonzero_reads) = (0, 0);
    for _ in 0..3_000 {
        let at = offsets[rng.below(offsets.len() as u64) as usize];
        let off = if rng.chance(0.2) {
            at.wrapping_add(4 * (rng.below(9) as u32)).wrapping_sub(16) & 0xFFFC
        } else {
            at
        };
        if rng.chance(0.5) {
            let (data, be) = (rng.next_u64() as u32, rng.below(16));
            write(&mut s, off, data, be);
            let m = writable(off, be);
            let old = model.get(&off).copied().unwrap_or(0);
            model.insert(off, old & !m | data & m);
            writes += usize::from(m != 0);
            s.settle();
            outputs(&s.uut, &model);
        } else {
            let got = read(&mut s, off);
            assert_eq!(
                got,
                model.get(&off).copied().unwrap_or(0),
                "read of {off:#x}"
            );
            nonzero_reads += usize::from(got != 0);
        }
        for _ in 0..rng.below(3) {
            s.tick();
        }
    }
    assert!(
        writes > 500 && nonzero_reads > 300,
        "{writes} / {nonzero_reads}"
    );
}

#[test]
fn route_entries_take_the_bytes_written_and_read_back() {
    let offsets: Vec<u32> = (0..MAX_NODES as u32).map(route).collect();
    let writable = |off: u32, be: u64| {
        let entry = (route(0)..route(MAX_NODES as u32)).contains(&off);
        let mut m = 0;
        if entry && be & 1 == 1 {
            m |= 0x3;
        }
        if entry && be & 8 == 8 {
            m |= ROUTE_VALID;
        }
        m
    };
    let outputs = |u: &RouteRegs, model: &HashMap<u32, u32>| {
        let table = u.route_table.val();
        for n in 0..MAX_NODES as u32 {
            let v = model.get(&route(n)).copied().unwrap_or(0);
            let want = u64::from(v & 3 | (v >> 29 & 4));
            assert_eq!(route_entry(&table, n as usize), want, "entry {n}");
        }
    };
    let s = after_reset(RouteRegs::default(), |u| &mut u.clock);
    random_accesses(s, &offsets, writable, outputs, 0x2007E);
}

#[test]
fn target_bases_and_enables_take_the_bytes_written_and_read_back() {
    let ts = 0..TARGETS as u32;
    let offsets: Vec<u32> = ts
        .clone()
        .flat_map(|t| [target_lo(t), target_hi(t), target_ctrl(t)])
        .collect();
    let writable = |off: u32, be: u64| {
        if ts
            .clone()
            .any(|t| off == target_lo(t) || off == target_hi(t))
        {
            byte_mask(be)
        } else if ts.clone().any(|t| off == target_ctrl(t)) {
            (be & 1) as u32
        } else {
            0
        }
    };
    let outputs = |u: &TargetRegs, model: &HashMap<u32, u32>| {
        let get = |off: u32| u64::from(model.get(&off).copied().unwrap_or(0));
        for t in 0..TARGETS as u32 {
            let base = get(target_hi(t)) << 32 | get(target_lo(t));
            assert_eq!(u.target_base[t as usize].val().to_u64(), base, "base {t}");
            let enabled = u.target_enable.val().get_bit(t as usize);
            assert_eq!(enabled, get(target_ctrl(t)) == 1, "enable {t}");
        }
    };
    let s = after_reset(TargetRegs::default(), |u| &mut u.clock);
    random_accesses(s, &offsets, writable, outputs, 0x7A46);
}

fn regs() -> Stepper<CsrRegs> {
    after_reset(CsrRegs::default(), |u| &mut u.clock)
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
    assert_eq!(read(&mut s, NODE_ID), 0x39, "six bits");
    assert_eq!(s.uut.node_id.val().to_u64(), 0x39);
    write(&mut s, ID, 0, 0xF);
    assert_eq!(read(&mut s, ID), ID_VALUE, "ID is read-only");
    assert_eq!(read(&mut s, 0x7FFC), 0, "unmapped reads 0");
}

#[test]
fn route_table_and_targets_follow_the_map() {
    let mut s = regs();
    for n in 0..MAX_NODES as u32 {
        if n % 3 != 0 {
            write(&mut s, route(n), ROUTE_VALID | (n % 4), 0xF);
        }
    }
    let table = s.uut.route_table.val();
    for n in 0..MAX_NODES as u32 {
        let entry = route_entry(&table, n as usize);
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
    let mut routes = RouteRegs::default();
    let v = crate::verilog::export::block_verilog(&mut routes, "csr_route_regs");
    crate::verilog::checks::lint_verilog(&v, "csr_route_regs").unwrap();
    let mut targets = TargetRegs::default();
    let v = crate::verilog::export::block_verilog(&mut targets, "csr_target_regs");
    crate::verilog::checks::lint_verilog(&v, "csr_target_regs").unwrap();
    let mut counters = super::counters::PortCounters::default();
    let v = crate::verilog::export::block_verilog(&mut counters, "port_counters");
    crate::verilog::checks::lint_verilog(&v, "port_counters").unwrap();
}

#[test]
fn dma_registers_follow_the_map() {
    use peach2_regmap::dma::*;
    const N: usize = crate::dmac::CHANNELS;
    let mut s = after_reset(DmaRegs::default(), |u| &mut u.clock);
    assert_eq!(read(&mut s, CHAIN_LIMIT), CHAIN_LIMIT_RESET, "reset value");
    assert_eq!(read(&mut s, CPL_TIMEOUT), CPL_TIMEOUT_RESET, "reset value");
    for (off, v) in [
        (CHAIN_LIMIT, 77),
        (CPL_TIMEOUT, 0x1234),
        (MSI_ADDR_LO, 0xFEE0_0004),
        (MSI_ADDR_HI, 0x2),
        (MSI_DATA, 0x4021),
    ] {
        write(&mut s, off, v, 0xF);
        assert_eq!(read(&mut s, off), v, "global register {off:#x}");
    }
    assert_eq!(s.uut.chain_limit.val().to_u64(), 77);
    assert_eq!(s.uut.msi_addr.val().to_u64(), 0x2_FEE0_0004);

    // Every channel's registers, each value naming its channel and register.
    let value = |c: u32, reg: u32| 0x1000_0000 * (c + 1) + 0x100 * reg + 0x11;
    let config = [
        CH_DESC_LO,
        CH_DESC_HI,
        CH_NOTIFY_RX_LO,
        CH_NOTIFY_RX_HI,
        CH_NOTIFY_SELF_LO,
        CH_NOTIFY_SELF_HI,
        CH_NOTIFY_VALUE,
    ];
    for c in 0..N as u32 {
        for reg in config {
            write(&mut s, channel_reg(c, reg), value(c, reg), 0xF);
        }
        let u = &mut s.uut;
        let ci = c as usize;
        u.channel[ci].status.next = u64::from(0x50 + c).into();
        u.channel[ci].count.next = u64::from(0x60 + c).into();
        u.channel[ci].current.next = (0x7_0000_0000 + u64::from(c)).into();
    }
    for c in 0..N as u32 {
        let ci = c as usize;
        for reg in config {
            assert_eq!(
                read(&mut s, channel_reg(c, reg)),
                value(c, reg),
                "channel {c} {reg:#x}"
            );
        }
        assert_eq!(read(&mut s, channel_reg(c, CH_STATUS)), 0x50 + c);
        assert_eq!(read(&mut s, channel_reg(c, CH_COUNT)), 0x60 + c);
        assert_eq!(read(&mut s, channel_reg(c, CH_CURRENT_LO)), c);
        assert_eq!(read(&mut s, channel_reg(c, CH_CURRENT_HI)), 7);
        assert_eq!(
            read(&mut s, channel_reg(c, CH_CONTROL)),
            0,
            "CONTROL reads 0"
        );
        let u = &s.uut;
        let pair = |lo: u32, hi: u32| u64::from(value(c, hi)) << 32 | u64::from(value(c, lo));
        assert_eq!(
            u.channel[ci].desc_base.val().to_u64(),
            pair(CH_DESC_LO, CH_DESC_HI)
        );
        assert_eq!(
            u.channel[ci].notify_rx_addr.val().to_u64(),
            pair(CH_NOTIFY_RX_LO, CH_NOTIFY_RX_HI)
        );
        assert_eq!(
            u.channel[ci].notify_self_addr.val().to_u64(),
            pair(CH_NOTIFY_SELF_LO, CH_NOTIFY_SELF_HI)
        );
        assert_eq!(
            u.channel[ci].notify_value.val().to_u64(),
            u64::from(value(c, CH_NOTIFY_VALUE))
        );
    }
    // Byte enables: bytes 1 and 2 only.
    let off = channel_reg(1, CH_NOTIFY_VALUE);
    let old = read(&mut s, off);
    write(&mut s, off, 0xAABB_CCDD, 0b0110);
    assert_eq!(read(&mut s, off), (old & 0xFF00_00FF) | 0x00BB_CC00);
    // Unmapped offsets in a channel's block read 0.
    assert_eq!(read(&mut s, channel_reg(2, CHANNEL_STRIDE - 4)), 0);

    // CONTROL: the start pulse of exactly the channel written, with its fields.
    let last = N as u32 - 1;
    present_write(
        &mut s,
        channel_reg(last, CH_CONTROL),
        CONTROL_START | CONTROL_HOST | (5 << CONTROL_INDEX_SHIFT),
        0xF,
    );
    s.settle();
    for c in 0..N {
        assert_eq!(
            s.uut.channel[c].start.val(),
            c as u32 == last,
            "start of channel {c}"
        );
    }
    assert!(s.uut.channel[last as usize].start_host.val());
    assert_eq!(s.uut.channel[last as usize].start_index.val().to_u64(), 5);
    s.tick();
    s.uut.csr.wr_en.next = false;
    s.settle();
    assert!(!s.uut.channel[last as usize].start.val(), "a pulse");
}
