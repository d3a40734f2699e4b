//! Self-checking tests of the RX stage: routing decisions, address rewrite, drops,
//! malformed TLPs, under random idle and backpressure.

use super::rx_route::RxRoute;
use crate::harness::{packet_beats, Lcg, Stepper, StreamDriver, StreamMonitor, TestBeat};
use crate::router::route_table;
use crate::stream::{PORT_E, PORT_INTERNAL, PORT_N};
use peach2_regmap::address::{GlobalAddr, Target, BASE_SHIFT, GLOBAL_SIZE, TARGET_SHIFT};

const BAR0: u32 = 0xF7A0_0000;
/// BAR2's base, address bits 63:42, where the reference host puts it.
const BAR2_HI: u64 = peach2_regmap::host::BAR2_BASE >> BASE_SHIFT;

fn mem(write: bool, addr: u64, len_dw: u32, tag: u8) -> Vec<u32> {
    let four = addr >> 32 != 0;
    let fmt = (u32::from(write) << 1) | u32::from(four);
    let mut dws = vec![
        (fmt << 29) | (len_dw & 0x3FF),
        (0x0100 << 16) | (u32::from(tag) << 8) | if len_dw > 1 { 0xFF } else { 0x0F },
    ];
    if four {
        dws.push((addr >> 32) as u32);
    }
    dws.push(addr as u32 & !3);
    if write {
        dws.extend((0..len_dw).map(|i| 0xD000_0000 | i));
    }
    dws
}

fn cfg_rd0() -> Vec<u32> {
    vec![0x0400_0001, 0x0000_0A0F, 0x0100_0000]
}

struct Bench {
    s: Stepper<RxRoute>,
    drv: StreamDriver,
    xbar: StreamMonitor,
    link: StreamMonitor,
    dropped: u32,
    malformed: u32,
    tlps: u32,
    bytes: u64,
}

impl Bench {
    fn new(port: u64, seed: u64) -> Self {
        let mut s = Stepper::new(RxRoute::default(), |u| &mut u.clock);
        let u = &mut s.uut;
        u.link_up.next = true;
        u.port.port_index.next = port.into();
        u.port.role_rc.next = false;
        u.routes.node_id.next = 3.into();
        // Node 2 via E, node 4 via W, node 7 via N (a loop back to the host: refused at N).
        u.routes.route_table.next = route_table([(2, 0b101), (4, 0b110), (7, 0b100)]);
        u.routes.port_ready.next = 0b1111.into();
        u.port.bar0_enable.next = port == PORT_N;
        u.port.bar0_base.next = u64::from(BAR0 >> 16).into();
        u.port.bar2_enable.next = port == PORT_N;
        u.port.bar2_base_hi.next = BAR2_HI.into();
        u.reset.next = true;
        s.tick();
        s.uut.reset.next = false;
        Self {
            s,
            drv: StreamDriver::new(0.6, seed),
            xbar: StreamMonitor::new(0.6, seed + 1),
            link: StreamMonitor::new(0.7, seed + 2),
            dropped: 0,
            malformed: 0,
            tlps: 0,
            bytes: 0,
        }
    }

    /// Runs until nothing is left to send and the outputs have been quiet for a few
    /// cycles (a beat may still be in one of the two register stages).
    fn run(&mut self) {
        let mut quiet = 0;
        while quiet < 4 {
            assert!(self.s.cycle < 20_000, "RX stage stalled");
            let busy = self.cycle();
            quiet = if busy { 0 } else { quiet + 1 };
        }
    }

    /// One cycle: drive, sample, count. Whether anything was pending or offered.
    fn cycle(&mut self) -> bool {
        self.drv.drive(&mut self.s.uut.rx);
        self.xbar.drive(&mut self.s.uut.to_xbar);
        self.link.drive(&mut self.s.uut.to_link);
        self.s.settle();
        self.drv.sample(&self.s.uut.rx);
        if self.s.uut.discard.val() {
            self.xbar.discard();
        }
        self.xbar.sample(&self.s.uut.to_xbar);
        self.link.sample(&self.s.uut.to_link);
        self.dropped += u32::from(self.s.uut.dropped.val());
        self.malformed += u32::from(self.s.uut.malformed.val());
        self.tlps += u32::from(self.s.uut.tlp_in.val());
        self.bytes += self.s.uut.bytes_in.val().to_u64();
        let busy = self.drv.pending() > 0
            || self.s.uut.to_xbar.valid.val()
            || self.s.uut.to_link.valid.val();
        self.s.tick();
        busy
    }
}

fn with_meta(dws: &[u32], dest: u64, src: u64, unsupported: bool) -> Vec<TestBeat> {
    packet_beats(dws, dest as u8, src as u8, unsupported)
}

#[test]
fn n_port_routes_bar0_bar2_and_refuses_the_rest() {
    let mut b = Bench::new(PORT_N, 11);
    let bar2 = BAR2_HI << BASE_SHIFT;
    let remote = GlobalAddr::new(2, Target::Gpu(1), 0x1000).unwrap().to_u64();
    let local_view = bar2 | (remote & (GLOBAL_SIZE - 1));
    let csr_rd = mem(false, u64::from(BAR0) + 8, 1, 1);
    let pio = mem(true, local_view, 33, 0);
    let mut pio_global = pio.clone();
    pio_global[2] = (remote >> 32) as u32;
    let remote_rd = mem(false, local_view, 1, 2);
    let stray_wr = mem(true, 0x1234_5000, 2, 0);
    let loop_wr = {
        let a = GlobalAddr::new(7, Target::Host, 0).unwrap().to_u64();
        mem(true, bar2 | (a & (GLOBAL_SIZE - 1)), 1, 0)
    };
    for p in [&csr_rd, &pio, &remote_rd, &stray_wr, &loop_wr] {
        b.drv.push(packet_beats(p, 0, 0, false));
    }
    b.run();
    let want = [
        with_meta(&csr_rd, PORT_INTERNAL, PORT_N, false),
        with_meta(&pio_global, PORT_E, PORT_N, false),
        with_meta(&remote_rd, PORT_INTERNAL, PORT_N, true),
    ];
    assert_eq!(b.xbar.packets.len(), want.len());
    for (got, want) in b.xbar.packets.iter().zip(&want) {
        assert_eq!(got, want);
    }
    assert!(b.link.packets.is_empty());
    assert_eq!((b.dropped, b.malformed, b.tlps), (2, 0, 5));
    let dws: usize = [&csr_rd, &pio, &remote_rd, &stray_wr, &loop_wr]
        .iter()
        .map(|p| p.len())
        .sum();
    assert_eq!(b.bytes, 4 * dws as u64);
}

#[test]
fn ring_port_delivers_local_writes_and_sends_config_to_the_link() {
    let mut b = Bench::new(PORT_E, 21);
    let host = GlobalAddr::new(3, Target::Host, 0x4_0000).unwrap().to_u64();
    let internal = GlobalAddr::new(3, Target::Internal, 0x40).unwrap().to_u64();
    let reserved = (host & !(7 << TARGET_SHIFT)) | (6 << TARGET_SHIFT);
    let onward = GlobalAddr::new(4, Target::Host, 0).unwrap().to_u64();
    let back = GlobalAddr::new(2, Target::Host, 0).unwrap().to_u64();
    let w_host = mem(true, host, 64, 0);
    let w_int = mem(true, internal, 8, 0);
    let w_res = mem(true, reserved, 1, 0);
    let w_on = mem(true, onward, 5, 0);
    let w_back = mem(true, back, 5, 0);
    let cfg = cfg_rd0();
    let cpl = vec![0x4A00_0001, 0x0000_0004, 0x0000_0000, 0x1234_5678];
    let msg = vec![0x3000_0000, 0x0000_0019, 0, 0];
    for p in [&w_host, &cfg, &w_int, &w_res, &w_on, &w_back, &cpl, &msg] {
        b.drv.push(packet_beats(p, 0, 0, false));
    }
    b.run();
    let want = [
        with_meta(&w_host, PORT_N, PORT_E, false),
        with_meta(&w_int, PORT_INTERNAL, PORT_E, false),
        with_meta(&w_on, 2, PORT_E, false),
    ];
    assert_eq!(b.xbar.packets.len(), want.len());
    for (got, want) in b.xbar.packets.iter().zip(&want) {
        assert_eq!(got, want);
    }
    assert_eq!(b.link.packets.len(), 1);
    assert_eq!(b.link.packets[0], with_meta(&cfg, 0, PORT_E, false));
    // Reserved target, back out of the ingress port, completion at an EP ring port, message.
    assert_eq!((b.dropped, b.malformed), (4, 0));
}

#[test]
fn malformed_tlps_are_counted_and_later_traffic_is_unharmed() {
    let mut b = Bench::new(PORT_E, 31);
    let host = GlobalAddr::new(3, Target::Host, 0).unwrap().to_u64();
    let good = mem(true, host, 6, 0);
    let mut short = mem(true, host, 6, 0);
    short.truncate(7); // header says 6 DWs of data, 3 arrive
    let reserved_type = vec![0x1F00_0001, 0, 0, 0];
    b.drv.push(packet_beats(&short, 0, 0, false));
    b.drv.push(packet_beats(&reserved_type, 0, 0, false));
    b.drv.push(packet_beats(&good, 0, 0, false));
    b.run();
    assert_eq!(b.malformed, 2);
    assert_eq!(
        b.xbar.packets,
        [with_meta(&good, PORT_N, PORT_E, false)],
        "only the good TLP reaches the crossbar"
    );
    assert_eq!(
        b.xbar.discarded, 1,
        "the short TLP's first beats are dropped"
    );
}

/// A global write target reachable from `port` (not back out of it): the address the
/// sender uses (BAR2's view at N), the crossbar port it leaves by, and the header DW2 the
/// crossbar sees (N rewrites BAR2 addresses into global ones).
fn remote_target(port: u64) -> (u64, u64, u32) {
    let node = if port == PORT_E { 4 } else { 2 };
    let global = GlobalAddr::new(node, Target::Host, 0x80).unwrap().to_u64();
    let dest = if port == PORT_E { 2 } else { PORT_E };
    if port == PORT_N {
        let view = (BAR2_HI << BASE_SHIFT) | (global & (GLOBAL_SIZE - 1));
        (view, dest, (global >> 32) as u32)
    } else {
        (global, dest, (global >> 32) as u32)
    }
}

/// Sends `bad` then a good write through port `port` and checks that only the good one
/// reaches the crossbar whole, and that `bad` was counted once.
fn only_the_good_one_passes(port: u64, bad: Vec<TestBeat>, seed: u64) {
    let mut b = Bench::new(port, seed);
    let (addr, dest, dw2) = remote_target(port);
    let good = mem(true, addr, 5, 0);
    let mut want = good.clone();
    want[2] = dw2;
    b.drv.push(bad);
    b.drv.push(packet_beats(&good, 0, 0, false));
    b.run();
    assert_eq!(b.malformed, 1, "port {port}");
    assert_eq!(
        b.xbar.packets.len(),
        1,
        "port {port}: {:x?}",
        b.xbar.packets
    );
    assert_eq!(b.xbar.packets[0], with_meta(&want, dest, port, false));
}

#[test]
fn length_mismatches_never_reach_the_crossbar() {
    for (k, port) in [PORT_N, PORT_E, 2, 3].into_iter().enumerate() {
        let seed = 100 + 10 * k as u64;
        let (addr, _, _) = remote_target(port);
        // More DWs than the header says (the write: length 4, 6 DWs of data).
        let mut long = mem(true, addr, 4, 0);
        long.extend([0xbad0_0001, 0xbad0_0002]);
        only_the_good_one_passes(port, packet_beats(&long, 0, 0, false), seed);
        // Fewer: length 4, 2 DWs of data.
        let mut short = mem(true, addr, 4, 0);
        short.truncate(short.len() - 2);
        only_the_good_one_passes(port, packet_beats(&short, 0, 0, false), seed + 1);
        // A payload longer than Max_Payload_Size (65 DWs, framed consistently).
        let huge = mem(true, addr, 65, 0);
        only_the_good_one_passes(port, packet_beats(&huge, 0, 0, false), seed + 2);
        // A TLP cut short by the next one's sop.
        let mut cut = packet_beats(&mem(true, addr, 12, 0), 0, 0, false);
        cut.truncate(2);
        only_the_good_one_passes(port, cut, seed + 3);
        // A first beat that ends the TLP early: length 4, the header's beat only.
        let mut header_only = mem(true, addr, 4, 0);
        header_only.truncate(4);
        only_the_good_one_passes(port, packet_beats(&header_only, 0, 0, false), seed + 4);
        // A first beat with more than its header says: a 3-DW read and a fourth DW.
        let read_and_more = [0x0000_0001, 0x0100_000F, 0x1000, 0xbad0_0003];
        only_the_good_one_passes(port, packet_beats(&read_and_more, 0, 0, false), seed + 5);
    }
}

#[test]
fn rx_route_random_traffic_keeps_order_and_counts() {
    let mut b = Bench::new(PORT_E, 41);
    let mut rng = Lcg(99);
    let mut want = Vec::new();
    for i in 0..80 {
        let len = 1 + rng.below(64) as u32;
        let addr = GlobalAddr::new(3, Target::Host, rng.below(1 << 30) * 4)
            .unwrap()
            .to_u64();
        let p = mem(true, addr, len, i as u8);
        want.push(with_meta(&p, PORT_N, PORT_E, false));
        b.drv.push(packet_beats(&p, 0, 0, false));
    }
    b.run();
    assert_eq!(b.xbar.packets.len(), want.len());
    for (got, want) in b.xbar.packets.iter().zip(&want) {
        assert_eq!(got, want);
    }
    assert_eq!((b.tlps, b.dropped, b.malformed), (80, 0, 0));
}

#[test]
fn rx_route_verilog_lints_clean() {
    let mut uut = RxRoute::default();
    let v = crate::verilog::export::block_verilog(&mut uut, "rx_route");
    crate::verilog::checks::lint_verilog(&v, "rx_route").unwrap();
    let mut d = super::rx_decode::RxDecode::default();
    let v = crate::verilog::export::block_verilog(&mut d, "rx_decode");
    crate::verilog::checks::lint_verilog(&v, "rx_decode").unwrap();
}

/// The link goes down in the middle of a packet: the ingress FIFO is told to drop what it
/// has of it (counted malformed once), the fragment that follows once the link is back
/// (the rest of that packet, with no `sop`) is dropped as stray beats, and the next
/// packet passes whole.
#[test]
fn a_packet_cut_by_the_link_going_down_is_dropped_and_the_next_passes() {
    let mut b = Bench::new(PORT_E, 41);
    let onward = GlobalAddr::new(4, Target::Host, 0).unwrap().to_u64();
    let cut = packet_beats(&mem(true, onward, 16, 0), 0, 0, false);
    let next = mem(true, onward + 0x100, 16, 0);
    b.drv.push(cut[..2].to_vec());
    b.run();
    b.s.uut.link_up.next = false;
    for _ in 0..3 {
        b.cycle();
    }
    b.s.uut.link_up.next = true;
    b.drv.push(cut[2..].to_vec());
    b.drv.push(packet_beats(&next, 0, 0, false));
    b.run();
    assert_eq!(b.xbar.discarded, 1, "the cut packet dropped");
    assert_eq!(b.xbar.packets.len(), 1);
    assert_eq!(b.xbar.packets[0], with_meta(&next, 2, PORT_E, false));
    assert_eq!(b.malformed, 2, "the cut packet, then the stray fragment");
}

/// The link goes down while a whole TLP waits in the first register (the crossbar side
/// takes nothing, a TLP before it holds the output register): the hard IP handed it over
/// before the link went down, so both go on once the crossbar takes them, and nothing
/// is counted malformed.
#[test]
fn a_whole_packet_in_the_first_register_survives_the_link_going_down() {
    let mut b = Bench::new(PORT_E, 43);
    let onward = GlobalAddr::new(4, Target::Host, 0).unwrap().to_u64();
    // Reads with 4-DW headers: one beat each (from a cable, answered UR inside).
    let (first, second) = (mem(false, onward, 1, 5), mem(false, onward + 0x40, 1, 6));
    b.drv.p_valid = 1.0;
    b.xbar.p_ready = 0.0;
    b.drv.push(packet_beats(&first, 0, 0, false));
    b.drv.push(packet_beats(&second, 0, 0, false));
    for _ in 0..6 {
        b.cycle();
    }
    assert_eq!(b.drv.pending(), 0, "both beats are in the RX stage");
    b.s.uut.link_up.next = false;
    for _ in 0..3 {
        b.cycle();
    }
    b.xbar.p_ready = 1.0;
    for _ in 0..4 {
        b.cycle();
    }
    b.s.uut.link_up.next = true;
    b.run();
    assert_eq!(b.xbar.discarded, 0);
    let got: Vec<_> = b.xbar.packets.iter().cloned().collect();
    assert_eq!(
        got,
        [
            with_meta(&first, PORT_INTERNAL, PORT_E, true),
            with_meta(&second, PORT_INTERNAL, PORT_E, true)
        ]
    );
    assert_eq!(b.malformed, 0);
}
