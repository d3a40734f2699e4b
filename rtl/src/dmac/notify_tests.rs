//! Notifications leaving through another port: a descriptor whose data and receiver's slot
//! are on another node (routed to E by `ROUTE`), with notify-self and the MSI on N.

use super::tests::rig::{Rig, HOST_BASE};
use super::tests::{big_stack, data_desc};
use pcie_model::tlp::TlpKind;
use peach2_regmap::address::GLOBAL_BASE;
use peach2_regmap::dma::{self, flags, ChannelState, ErrorCause};

fn le32(b: &[u8]) -> u32 {
    u32::from_le_bytes(b[..4].try_into().unwrap())
}

#[test]
fn dma_notify_rx_to_global_slot_follows_data_on_route_port() {
    big_stack(|| {
        let mut r = Rig::new(41, 1.0, 256);
        r.bring_up_e(3);
        let node3 = GLOBAL_BASE | (3 << 36);
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
        r.fill_sources(&[d]);
        r.put_internal(7, &d);
        for (reg, v) in [
            (dma::channel_reg(2, dma::CH_NOTIFY_RX_LO), slot as u32),
            (
                dma::channel_reg(2, dma::CH_NOTIFY_RX_HI),
                (slot >> 32) as u32,
            ),
            (dma::channel_reg(2, dma::CH_NOTIFY_SELF_LO), own as u32),
            (
                dma::channel_reg(2, dma::CH_NOTIFY_SELF_HI),
                (own >> 32) as u32,
            ),
            (dma::channel_reg(2, dma::CH_NOTIFY_VALUE), 0x500),
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
        assert!(bytes == r.mem.read_vec(d.src, d.length as usize).unwrap());
        let (_, n) = notify[0];
        assert_eq!(n.address().unwrap().0, slot);
        assert_eq!((n.payload_len(), le32(n.data())), (4, 0x501));

        // N: no data, the own slot, then the MSI.
        let n_writes: Vec<_> = r.writes.iter().map(|(_, w)| w).collect();
        assert_eq!(n_writes.len(), 2, "N writes: {n_writes:?}");
        assert_eq!(n_writes[0].address().unwrap().0, own);
        assert_eq!(le32(n_writes[0].data()), 0x501);
        assert_eq!(n_writes[1].address().unwrap().0, msi);
        assert_eq!(le32(n_writes[1].data()), 0x4321);
    });
}
