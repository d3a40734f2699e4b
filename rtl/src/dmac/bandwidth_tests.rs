//! DMA throughput and start latency in the whole chip: one long internal-descriptor
//! transfer host -> host with the host always ready and completions at full rate.

use super::tests::rig::{Rig, HOST_BASE};
use super::tests::{big_stack, data_desc};
use pcie_model::tlp::TlpKind;
use peach2_regmap::dma::{flags, ChannelState, ErrorCause};

#[test]
fn dma_host_to_host_64k_write_rate_and_start_latency() {
    big_stack(|| {
        let mut r = Rig::new(31, 1.0, 256);
        r.host.full_chunks = true;
        let len = 64 * 1024;
        let d = data_desc(
            HOST_BASE + 0x10_0000,
            HOST_BASE + 0x40_0000,
            len,
            flags::LAST,
            0,
        );
        r.host.fill_sources(&[d]);
        r.put_internal(0, &d);
        // The descriptor writes have left the chip's queues: the start write goes alone.
        r.run(300);
        let start = r.start_internal(0, 0);
        r.run_until_stopped(&[0], 200_000);
        assert_eq!(r.status(0), (ChannelState::Done, ErrorCause::None, 1));
        r.host.check_golden(&[d]);

        let first_mrd = r.host.first_mrd.expect("a read was issued") - start;
        let mwr: Vec<_> = r
            .tx_log
            .iter()
            .filter(|t| t.kind == TlpKind::MWr && t.payload > 0)
            .collect();
        let first = mwr.first().unwrap().first;
        let last = mwr.last().unwrap().last;
        let window = last - first + 1;
        let payload: u64 = mwr.iter().map(|t| t.payload).sum();
        assert_eq!(payload, u64::from(len));
        // Everything N TX carried in that window (MWrs, the MRds that share the port,
        // CSR-read completions).
        let in_window = |t: &&super::tests::rig::TxTlp| t.first >= first && t.last <= last;
        let beats: u64 = r.tx_log.iter().filter(in_window).map(|t| t.beats).sum();
        let mrd_beats: u64 = r
            .tx_log
            .iter()
            .filter(in_window)
            .filter(|t| t.kind == TlpKind::MRd)
            .map(|t| t.beats)
            .sum();
        let rate = payload as f64 / window as f64;
        let util = beats as f64 / window as f64;
        println!(
            "64 KiB host->host: {payload} B of MWr payload in {window} cycles = {rate:.2} B/cycle; \
             N TX busy {beats} of {window} cycles ({:.1} %, {mrd_beats} MRd beats); \
             start write to first MRd: {first_mrd} cycles",
            100.0 * util
        );
        assert!(rate >= 12.0, "write payload rate {rate:.2} B/cycle");
        assert!(
            first_mrd < 40,
            "start write to first MRd took {first_mrd} cycles"
        );
    });
}
