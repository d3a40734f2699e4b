//! The driver against a register-level mock of the chip: what it writes where (the
//! descriptor words, the notification registers, the start), how it reads a channel's
//! error, and what it refuses when the system software left a window closed.

use peach2_driver::hw::{DmaMemory, Mmio, Region};
use peach2_driver::{DescList, MemKind, Placement, Tca, TcaError, Wait};
use peach2_regmap::address::{GlobalAddr, Target};
use peach2_regmap::csr::{
    route, target_ctrl, target_hi, target_lo, ID, ID_VALUE, NODE_ID, ROUTE_VALID, TARGET_ENABLE,
};
use peach2_regmap::dma::{
    channel_reg, desc_offset, flags, Descriptor, ErrorCause, CH_CONTROL, CH_CURRENT_LO,
    CH_NOTIFY_RX_LO, CH_NOTIFY_VALUE, CH_STATUS, CONTROL_START,
};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

const HOST_BASE: u64 = 0x1_0000_0000;

#[derive(Default)]
struct Chip {
    regs: HashMap<u32, u32>,
    writes: Vec<(u32, u32)>,
    window: Vec<(u64, Vec<u8>)>,
    host: HashMap<u64, u8>,
    next: u64,
}

#[derive(Clone)]
struct Mock(Rc<RefCell<Chip>>);

impl Mock {
    fn new(host_window: bool) -> Mock {
        let mut c = Chip {
            next: HOST_BASE,
            ..Chip::default()
        };
        c.regs.insert(ID, ID_VALUE);
        c.regs.insert(NODE_ID, 2);
        if host_window {
            c.regs.insert(target_ctrl(0), TARGET_ENABLE);
            c.regs.insert(target_lo(0), HOST_BASE as u32);
            c.regs.insert(target_hi(0), (HOST_BASE >> 32) as u32);
        }
        c.regs.insert(route(3), ROUTE_VALID | 1);
        Mock(Rc::new(RefCell::new(c)))
    }
}

impl Mmio for Mock {
    fn read32(&mut self, offset: u32) -> Result<u32, TcaError> {
        Ok(*self.0.borrow().regs.get(&offset).unwrap_or(&0))
    }
    fn write32(&mut self, offset: u32, value: u32) -> Result<(), TcaError> {
        let mut c = self.0.borrow_mut();
        c.regs.insert(offset, value);
        c.writes.push((offset, value));
        Ok(())
    }
    fn write64(&mut self, offset: u32, value: u64) -> Result<(), TcaError> {
        self.write32(offset, value as u32)?;
        self.write32(offset + 4, (value >> 32) as u32)
    }
    fn window_write(&mut self, offset: u64, data: &[u8]) -> Result<(), TcaError> {
        self.0.borrow_mut().window.push((offset, data.to_vec()));
        Ok(())
    }
}

impl DmaMemory for Mock {
    fn kinds(&self) -> Vec<MemKind> {
        vec![MemKind::Host]
    }
    fn alloc(&mut self, _kind: MemKind, size: u64, align: u64) -> Result<Region, TcaError> {
        let mut c = self.0.borrow_mut();
        let bus_addr = c.next.next_multiple_of(align);
        c.next = bus_addr + size;
        Ok(Region { bus_addr, size })
    }
    fn free(&mut self, _kind: MemKind, _region: Region) -> Result<(), TcaError> {
        Ok(())
    }
    fn read(&mut self, _kind: MemKind, addr: u64, buf: &mut [u8]) -> Result<(), TcaError> {
        let c = self.0.borrow();
        for (i, b) in buf.iter_mut().enumerate() {
            *b = *c.host.get(&(addr + i as u64)).unwrap_or(&0);
        }
        Ok(())
    }
    fn write(&mut self, _kind: MemKind, addr: u64, data: &[u8]) -> Result<(), TcaError> {
        let mut c = self.0.borrow_mut();
        for (i, b) in data.iter().enumerate() {
            c.host.insert(addr + i as u64, *b);
        }
        Ok(())
    }
}

#[test]
fn internal_chain_writes_descriptors_notification_registers_and_start() {
    let m = Mock::new(true);
    let mut t = Tca::open(m.clone(), m.clone()).unwrap();
    assert_eq!(t.node(), 2);
    assert!(t.reachable(3) && t.reachable(2) && !t.reachable(4));
    let src = t.malloc(8192, MemKind::Host).unwrap();
    let remote = peach2_driver::Handle {
        node: 3,
        kind: MemKind::Host,
        global: GlobalAddr::new(3, Target::Host, 0x4000).unwrap().to_u64(),
        size: 8192,
        id: 1,
        slots: GlobalAddr::new(3, Target::Host, 0).unwrap().to_u64(),
        slot_count: 64,
    };
    let mut l = DescList::new();
    l.memcpy(&remote, 16, &src.handle, 16, 4096, None).memcpy(
        &remote,
        5000,
        &src.handle,
        5000,
        64,
        Some(Wait { slot: 7, tag: 42 }),
    );
    t.set_chain(1, &l, Placement::Internal).unwrap();
    let regs = m.0.borrow().regs.clone();
    let desc = |i: u32| {
        Descriptor::from_dws(std::array::from_fn(|k| {
            regs[&(desc_offset(i) + 4 * k as u32)]
        }))
    };
    let (d0, d1) = (desc(0), desc(1));
    assert_eq!(
        (d0.src, d0.dst, d0.length),
        (src.bus_addr + 16, remote.global + 16, 4096)
    );
    assert_eq!((d0.flags, d0.next), (0, 32));
    assert_eq!((d1.dst, d1.length), (remote.global + 5000, 64));
    assert_eq!(d1.flags, flags::LAST | flags::NOTIFY_RX);
    // The receiver's slot 7 for this node (2) gets NOTIFY_VALUE + 2 (two descriptors
    // done) = the tag; each sender has its own 64 slots.
    assert_eq!(
        regs[&channel_reg(1, CH_NOTIFY_RX_LO)] as u64,
        remote.slots as u32 as u64 + 4 * (2 * 64 + 7)
    );
    assert_eq!(regs[&channel_reg(1, CH_NOTIFY_VALUE)].wrapping_add(2), 42);
    t.start(1).unwrap();
    assert_eq!(
        m.0.borrow().writes.last(),
        Some(&(channel_reg(1, CH_CONTROL), CONTROL_START))
    );
    assert_eq!(t.start(1), Err(TcaError::ChannelBusy(1)));
    // The chip stops the channel with a completion error at descriptor 1.
    m.0.borrow_mut().regs.insert(
        channel_reg(1, CH_STATUS),
        3 | ((ErrorCause::CplError as u32) << 4),
    );
    m.0.borrow_mut()
        .regs
        .insert(channel_reg(1, CH_CURRENT_LO), 1);
    assert_eq!(
        t.wait_dmac(1),
        Err(TcaError::Dma {
            channel: 1,
            cause: ErrorCause::CplError,
            descriptor: 1
        })
    );
    // The channel can be started again after the error.
    m.0.borrow_mut().regs.insert(channel_reg(1, CH_STATUS), 1);
    t.start(1).unwrap();
}

#[test]
fn unaligned_edges_go_by_pio_before_the_start() {
    let m = Mock::new(true);
    let mut t = Tca::open(m.clone(), m.clone()).unwrap();
    let src = t.malloc(256, MemKind::Host).unwrap();
    t.write(&src, 0, &(0..=255).collect::<Vec<u8>>()).unwrap();
    let remote = peach2_driver::Handle {
        node: 3,
        kind: MemKind::Host,
        global: GlobalAddr::new(3, Target::Host, 0x4000).unwrap().to_u64(),
        size: 256,
        id: 1,
        slots: GlobalAddr::new(3, Target::Host, 0).unwrap().to_u64(),
        slot_count: 64,
    };
    let mut l = DescList::new();
    l.memcpy(&remote, 1, &src.handle, 1, 100, None);
    t.set_chain(0, &l, Placement::Host).unwrap();
    m.0.borrow_mut().writes.clear();
    t.start(0).unwrap();
    let c = m.0.borrow();
    let base = remote.global - peach2_regmap::address::GLOBAL_BASE;
    assert_eq!(
        c.window,
        vec![(base + 1, vec![1, 2, 3]), (base + 100, vec![100])]
    );
    assert_eq!(c.writes.len(), 1, "only the start reaches the registers");
}

#[test]
fn a_closed_window_refuses_allocations_and_a_foreign_chip_is_refused() {
    let m = Mock::new(false);
    let e = Tca::open(m.clone(), m.clone()).err().unwrap();
    assert!(
        matches!(
            e,
            TcaError::OutsideWindow {
                kind: MemKind::Host,
                ..
            }
        ),
        "{e:?}"
    );
    let m = Mock::new(true);
    m.0.borrow_mut().regs.insert(ID, 0x1234);
    assert_eq!(
        Tca::open(m.clone(), m).err(),
        Some(TcaError::NotPeach2(0x1234))
    );
}
