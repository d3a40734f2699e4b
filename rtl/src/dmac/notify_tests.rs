//! Notifications leaving through another port: a descriptor whose data and receiver's slot
//! are on another node (routed to E by `ROUTE`), with notify-self and the MSI on N.

use super::tests::rig::{Rig, HOST_BASE};
use super::tests::{big_stack, data_desc};
use pcie_model::tlp::{Tlp, TlpKind};
use peach2_regmap::address::{GLOBAL_BASE, NODE_SHIFT, TARGET_SHIFT};
use peach2_regmap::dma::{self, flags, ChannelState, ErrorCause};

/// A memory request's header is 4 DWs exactly when its address is at or above 4 GiB
/// (here the data's and the own slot's are, the MSI's is not: each ending write's form
/// is its own address's, not the data's).
fn form_follows_address(w: &Tlp) {
    let a = w.address().unwrap().0;
    assert_eq!(w.header().is_four_dw(), a >> 32 != 0, "{a:#x}: {w:?}");
}

fn le32(b: &[u8]) -> u32 {
    u32::from_le_bytes(b[..4].try_into().unwrap())
}

/// Gives channel `c` its receiver's slot, its own slot and its notification value.
fn set_slots(r: &mut Rig, c: u32, rx: u64, own: u64, value: u32) {
    for (reg, v) in [
        (dma::CH_NOTIFY_RX_LO, rx as u32),
        (dma::CH_NOTIFY_RX_HI, (rx >> 32) as u32),
        (dma::CH_NOTIFY_SELF_LO, own as u32),
        (dma::CH_NOTIFY_SELF_HI, (own >> 32) as u32),
        (dma::CH_NOTIFY_VALUE, value),
    ] {
        r.csr_write(dma::channel_reg(c, reg), v);
    }
}

#[test]
fn dma_notify_rx_to_global_slot_follows_data_on_route_port() {
    big_stack(|| {
        let mut r = Rig::new(41, 1.0, 256);
        r.bring_up_e(3);
        let node3 = GLOBAL_BASE | (3 << NODE_SHIFT);
        let slot = node3 | 0x9_0040;
        let own = HOST_BASE + 0xF_0000;
        let msi = 0xFEE0_1000u64;
        let d = data_desc(
            HOST_BASE + 0x10_0010,
            node3 | 0x5_0010,
            2000,
            flags::NOTIFY_RX | flags::NOTIFY_SELF | flags::INTERRUPT | flags::LAST,
            0,
        );
        r.host.fill_sources(&[d]);
        r.put_internal(7, &d);
        set_slots(&mut r, 2, slot, own, 0x500);
        for (reg, v) in [
            (dma::MSI_ADDR_LO, msi as u32),
            (dma::MSI_ADDR_HI, 0),
            (dma::MSI_DATA, 0x4321),
        ] {
            r.csr_write(reg, v);
        }
        r.start_internal(2, 7);
        r.run_until_stopped(&[2], 50_000);
        assert_eq!(r.status(2), (ChannelState::Done, ErrorCause::None, 1));

        // E: the data MWrs in address order, bytes equal to the source, then the slot.
        let e: Vec<_> = r
            .e_tlps
            .iter()
            .filter(|(_, t)| t.kind() == TlpKind::MWr)
            .collect();
        let (data, notify) = e.split_at(e.len() - 1);
        let mut next = d.dst;
        let mut bytes = Vec::new();
        for (_, w) in data {
            assert_eq!(w.address().unwrap().0, next, "E data out of order");
            assert!(w.payload_len() <= 256);
            next += w.payload_len() as u64;
            bytes.extend_from_slice(w.data());
        }
        assert_eq!(next, d.dst + u64::from(d.length));
        assert!(bytes == r.host.mem.read_vec(d.src, d.length as usize).unwrap());
        let (_, n) = notify[0];
        assert_eq!(n.address().unwrap().0, slot);
        e.iter().for_each(|(_, w)| form_follows_address(w));
        assert_eq!((n.payload_len(), le32(n.data())), (4, 0x501));

        // N: no data, the own slot, then the MSI.
        let n_writes: Vec<_> = r.host.writes.iter().map(|(_, w)| w).collect();
        assert_eq!(n_writes.len(), 2, "N writes: {n_writes:?}");
        n_writes.iter().for_each(|w| form_follows_address(w));
        assert_eq!(n_writes[0].address().unwrap().0, own);
        assert_eq!(le32(n_writes[0].data()), 0x501);
        assert_eq!(n_writes[1].address().unwrap().0, msi);
        assert_eq!(le32(n_writes[1].data()), 0x4321);
    });
}

/// A chain of data and write-immediate descriptors, internal and from host memory: each
/// immediate value reaches its destination after the data before it, on the data's port
/// (E for node 3, N locally), and counts as a descriptor; a malformed one stops the
/// channel before it writes anything.
#[test]
fn dma_write_immediate_descriptors_follow_their_data() {
    big_stack(|| {
        for host_chain in [false, true] {
            let mut r = Rig::new(43, 0.7, 256);
            r.bring_up_e(3);
            let node3 = GLOBAL_BASE | (3 << NODE_SHIFT);
            let own = HOST_BASE + 0xF_0040;
            let chain_at = HOST_BASE + 0x20_0000;
            let next = |i: u64| {
                if host_chain {
                    chain_at + 32 * i
                } else {
                    32 * (4 + i)
                }
            };
            let data = data_desc(HOST_BASE + 0x10_0010, node3 | 0x5_0010, 600, 0, next(1));
            let mut to_peer = dma::Descriptor::immediate(node3 | 0x9_0080, 0xCAFE_0001);
            to_peer.next = next(2);
            let mut to_self = dma::Descriptor::immediate(own, 0xCAFE_0002);
            to_self.flags = flags::LAST;
            let descs = [data, to_peer, to_self];
            r.host.fill_sources(&descs);
            for (i, d) in descs.iter().enumerate() {
                if host_chain {
                    r.host.put_host(chain_at + 32 * i as u64, d);
                } else {
                    r.put_internal(4 + i as u32, d);
                }
            }
            if host_chain {
                r.start_host(1, chain_at);
            } else {
                r.start_internal(1, 4);
            }
            r.run_until_stopped(&[1], 50_000);
            assert_eq!(r.status(1), (ChannelState::Done, ErrorCause::None, 3));
            let e: Vec<_> = r
                .e_tlps
                .iter()
                .filter(|(_, t)| t.kind() == TlpKind::MWr)
                .map(|(_, t)| t)
                .collect();
            let last = e.last().expect("writes on E");
            assert_eq!(last.address().unwrap().0, node3 | 0x9_0080);
            assert_eq!((last.payload_len(), le32(last.data())), (4, 0xCAFE_0001));
            let data_bytes: usize = e[..e.len() - 1].iter().map(|t| t.payload_len()).sum();
            assert_eq!(data_bytes, 600);
            let n: Vec<_> = r.host.writes.iter().map(|(_, w)| w).collect();
            assert_eq!(n.len(), 1, "N writes: {n:?}");
            assert_eq!(n[0].address().unwrap().0, own);
            assert_eq!(le32(n[0].data()), 0xCAFE_0002);
        }

        let mut r = Rig::new(44, 1.0, 256);
        let mut bad = dma::Descriptor::immediate(HOST_BASE + 0x100, 7);
        bad.length = 8;
        bad.flags = flags::LAST;
        r.put_internal(0, &bad);
        r.start_internal(0, 0);
        r.run_until_stopped(&[0], 5_000);
        assert_eq!(
            r.status(0),
            (ChannelState::Error, ErrorCause::BadImmediate, 0)
        );
        assert!(r.host.writes.is_empty());
    });
}

/// The notification store: the chip's own DMA writes it (a write-immediate descriptor and
/// the `NOTIFY_RX` register, both at this node's `Internal` window), a peer writes it
/// through E, the host reads and clears it through BAR0; a copy into the window and a
/// peer's write outside both internal windows are refused.
#[test]
fn dma_and_peers_write_the_notification_store_the_host_reads_it() {
    use pcie_model::tlp::{Addr, Tag, Tlp};
    use pcie_model::Bdf;
    use peach2_regmap::csr::{port_reg, Port, PORT_DROPS};
    use peach2_regmap::notify;
    big_stack(|| {
        let mut r = Rig::new(45, 0.8, 256);
        r.bring_up_e(3);
        let internal = GLOBAL_BASE | (5 << TARGET_SHIFT);
        let entry = |sender: u32, slot: u32| internal | notify::internal_offset(sender, slot);
        let data = data_desc(
            HOST_BASE + 0x10_0000,
            HOST_BASE + 0x30_0000,
            256,
            flags::NOTIFY_RX,
            32,
        );
        let mut imm = dma::Descriptor::immediate(entry(0, 5), 0x100);
        imm.flags = flags::LAST;
        r.host.fill_sources(&[data]);
        r.put_internal(0, &data);
        r.put_internal(1, &imm);
        let rx = entry(0, 6);
        r.csr_write(dma::channel_reg(0, dma::CH_NOTIFY_RX_LO), rx as u32);
        r.csr_write(dma::channel_reg(0, dma::CH_NOTIFY_RX_HI), (rx >> 32) as u32);
        r.csr_write(dma::channel_reg(0, dma::CH_NOTIFY_VALUE), 0x41);
        r.start_internal(0, 0);
        r.run_until_stopped(&[0], 50_000);
        assert_eq!(r.status(0), (ChannelState::Done, ErrorCause::None, 2));
        assert_eq!(r.csr_read(notify::bar0_offset(0, 5)), 0x100);
        assert_eq!(r.csr_read(notify::bar0_offset(0, 6)), 0x42);
        r.host.check_golden(&[data]);
        let to_data = |a: u64| (data.dst..data.dst + 256).contains(&a);
        assert!(
            r.host
                .writes
                .iter()
                .all(|(_, w)| to_data(w.address().unwrap().0)),
            "only the data reached the host"
        );

        // Node 3, through E: its entry for slot 9; then a write past the store.
        let node0_internal = internal;
        let peer = |off: u64, v: u32| {
            Tlp::mem_write(
                Bdf(0x0100),
                Tag(0),
                Addr(node0_internal | off),
                &v.to_le_bytes(),
            )
            .unwrap()
        };
        let drops = r.csr_read(port_reg(Port::E, PORT_DROPS));
        r.send_e(&peer(notify::internal_offset(3, 9), 0xBEEF));
        r.send_e(&peer(
            notify::INTERNAL_BASE + 4 * u64::from(notify::DWS),
            0xDEAD,
        ));
        r.run(300);
        assert_eq!(r.csr_read(notify::bar0_offset(3, 9)), 0xBEEF);
        assert_eq!(r.csr_read(port_reg(Port::E, PORT_DROPS)), drops + 1);
        r.csr_write(notify::bar0_offset(3, 9), 0);
        assert_eq!(r.csr_read(notify::bar0_offset(3, 9)), 0);

        // A copy (not one DW) into the window cannot be routed.
        let mut copy = data_desc(HOST_BASE + 0x10_0000, entry(0, 8), 16, flags::LAST, 0);
        copy.src = HOST_BASE + 0x10_0000 + (copy.dst & 15);
        r.put_internal(2, &copy);
        r.start_internal(1, 2);
        r.run_until_stopped(&[1], 5_000);
        assert_eq!(
            r.status(1),
            (ChannelState::Error, ErrorCause::Unroutable, 0)
        );
    });
}

/// `DMA_CONFIG.NOTIFY_AT_LAST_READ`: a two-descriptor chain to node 3, each with `NOTIFY_RX`
/// and `NOTIFY_SELF`. Each notification leaves once its descriptor's last read request
/// has left N, ahead of that descriptor's last data write, and never ahead of the
/// previous descriptor's data; its value counts its own descriptor; the data still
/// arrives whole and in order; the channel is done only after the last data write.
/// Without the bit the same chain notifies after its data.
#[test]
fn dma_notify_at_last_read_leaves_before_the_last_data() {
    big_stack(|| {
        for early in [true, false] {
            let mut r = Rig::new(45, 0.8, 128);
            r.bring_up_e(3);
            let node3 = GLOBAL_BASE | (3 << NODE_SHIFT);
            let slot = node3 | 0x9_0040;
            let own = HOST_BASE + 0xF_0000;
            let fl = flags::NOTIFY_RX | flags::NOTIFY_SELF;
            assert_eq!(r.csr_read(dma::CONFIG), dma::CONFIG_RESET);
            let d0 = data_desc(HOST_BASE + 0x10_0000, node3 | 0x5_0000, 3000, fl, 32);
            let d1 = data_desc(
                HOST_BASE + 0x12_0000,
                node3 | 0x7_0000,
                1500,
                fl | flags::LAST,
                0,
            );
            r.host.fill_sources(&[d0, d1]);
            r.put_internal(0, &d0);
            r.put_internal(1, &d1);
            set_slots(&mut r, 1, slot, own, 0x700);
            r.csr_write(dma::CONFIG, if early { u32::MAX } else { 0 });
            // Undefined bits read as 0.
            let mode = dma::config::NOTIFY_AT_LAST_READ;
            assert_eq!(r.csr_read(dma::CONFIG), if early { mode } else { 0 });
            r.start_internal(1, 0);
            r.run_until_stopped(&[1], 80_000);
            assert_eq!(r.status(1), (ChannelState::Done, ErrorCause::None, 2));

            // E: each descriptor's data in order, bytes equal to its source; each
            // notification placed against that data.
            let e: Vec<_> = r
                .e_tlps
                .iter()
                .filter(|(_, t)| t.kind() == TlpKind::MWr)
                .collect();
            let is_slot = |t: &pcie_model::tlp::Tlp| t.address().unwrap().0 == slot;
            let notes: Vec<usize> = (0..e.len()).filter(|&i| is_slot(&e[i].1)).collect();
            assert_eq!(notes.len(), 2, "early {early}");
            for (k, &i) in notes.iter().enumerate() {
                assert_eq!(le32(e[i].1.data()), 0x701 + k as u32, "early {early}");
            }
            let mut at = 0;
            let mut last_data = [0usize; 2];
            for (k, d) in [d0, d1].iter().enumerate() {
                let mut bytes = Vec::new();
                while bytes.len() < d.length as usize {
                    let (_, w) = e[at];
                    if !is_slot(w) {
                        assert_eq!(w.address().unwrap().0, d.dst + bytes.len() as u64);
                        bytes.extend_from_slice(w.data());
                        last_data[k] = at;
                    }
                    at += 1;
                }
                assert!(bytes == r.host.mem.read_vec(d.src, d.length as usize).unwrap());
            }
            // The MRds of each descriptor on N: the notification follows its last one.
            let mrds: Vec<u64> = r
                .tx_log
                .iter()
                .filter(|t| t.kind == TlpKind::MRd)
                .map(|t| t.last)
                .collect();
            let per_desc = [3000usize.div_ceil(512), 1500usize.div_ceil(512)];
            let last_mrd = [mrds[per_desc[0] - 1], mrds[per_desc[0] + per_desc[1] - 1]];
            for k in 0..2 {
                let n = notes[k];
                if early {
                    assert!(n < last_data[k], "notification {k} after its data");
                    assert!(
                        e[n].0 > last_mrd[k],
                        "notification {k} before its last read"
                    );
                } else {
                    assert!(n > last_data[k], "notification {k} before its data");
                }
            }
            assert!(
                notes[1] > last_data[0],
                "notification 1 before descriptor 0's data"
            );
            let n: Vec<u32> = r.host.writes.iter().map(|(_, w)| le32(w.data())).collect();
            assert_eq!(n, [0x701, 0x702], "own slot, early {early}");
        }
    });
}
