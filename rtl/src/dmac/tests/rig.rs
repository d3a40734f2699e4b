//! A chip with a host model on N for DMA tests.

use super::host::HostMemory;
use crate::chip::Peach2Core;
use crate::harness::{bits128, Lcg, Stepper};
use pcie_model::beats::{tlp_from_beats, to_beats, Beat};
use pcie_model::tlp::{Addr, Bdf, CfgType, CplStatus, Tag, Tlp, TlpKind};
use peach2_regmap::dma::{self, ChannelState, Descriptor, ErrorCause};
use std::collections::VecDeque;

/// Where the host put BAR0.
pub const BAR0: u64 = peach2_regmap::host::BAR0_BASE;
/// Host memory the tests use.
pub const HOST_BASE: u64 = 0x1_0000_0000;
const HOST_RID: Bdf = Bdf(peach2_regmap::host::HOST_RID);
const CHIP: Bdf = Bdf(peach2_regmap::host::CHIP_BDF);

/// One TLP seen on N TX.
#[derive(Clone, Copy, Debug)]
pub struct TxTlp {
    /// Cycle of its first beat.
    pub first: u64,
    /// Cycle of its last beat.
    pub last: u64,
    /// Its kind.
    pub kind: TlpKind,
    /// Beats it took.
    pub beats: u64,
    /// Payload bytes.
    pub payload: u64,
}

/// The chip, the host, and what crossed N.
pub struct Rig {
    s: Stepper<Peach2Core>,
    to_chip: VecDeque<Beat>,
    partial: Vec<Beat>,
    /// The host on N: its memory, the chip's writes, the reads it answers.
    pub host: HostMemory,
    cpls: VecDeque<Tlp>,
    rng: Lcg,
    p_ready: f64,
    /// Every TLP that left N TX: cycles of its first and last beat, its kind, its beats
    /// and its payload bytes.
    pub tx_log: Vec<TxTlp>,
    partial_start: u64,
    to_e: VecDeque<Beat>,
    e_partial: Vec<Beat>,
    /// Every TLP that left E TX (a peer node's side), with the cycle of its last beat.
    pub e_tlps: Vec<(u64, Tlp)>,
    /// Cycles since reset.
    pub cycle: u64,
    tag: u8,
    /// Per channel: its write request was held into this cycle (wanted, neither granted
    /// nor cancelled in the cycle before).
    write_held: [bool; crate::dmac::CHANNELS],
}

impl Rig {
    /// A configured chip: MPS 256, MRRS 512; host ready with `p_ready`; completions of at
    /// most `max_chunk` bytes (a multiple of 64).
    pub fn new(seed: u64, p_ready: f64, max_chunk: u64) -> Self {
        let mut s = Stepper::new(Peach2Core::new(), |c| &mut c.clk);
        s.uut.rst.next = true;
        s.tick();
        s.tick();
        s.uut.rst.next = false;
        s.uut.n_link_up.next = true;
        let mut r = Self {
            s,
            to_chip: VecDeque::new(),
            partial: Vec::new(),
            host: HostMemory::new(seed, max_chunk),
            cpls: VecDeque::new(),
            rng: Lcg(seed.rotate_left(17) | 1),
            p_ready,
            tx_log: Vec::new(),
            partial_start: 0,
            to_e: VecDeque::new(),
            e_partial: Vec::new(),
            e_tlps: Vec::new(),
            cycle: 0,
            tag: 0,
            write_held: [false; crate::dmac::CHANNELS],
        };
        for (reg, v) in [
            (0x10u16, BAR0 as u32),
            (0x48, (1 << 5) | (2 << 12)),
            (0x04, 0x6),
        ] {
            // The register argument is a DW number.
            let t =
                Tlp::cfg_write(CfgType::Type0, HOST_RID, Tag(0), CHIP, reg / 4, 0xF, v).unwrap();
            r.send(&t);
        }
        r.run(200);
        for c in r.cpls.drain(..) {
            assert_eq!(c.status(), Some(CplStatus::Sc), "config write: {c:?}");
        }
        assert_eq!(r.csr_read(0), peach2_regmap::csr::ID_VALUE);
        r
    }

    /// Brings E up as the peer's endpoint (link up, memory and bus master enabled by the
    /// peer's configuration write) and routes node `node` to E.
    pub fn bring_up_e(&mut self, node: u32) {
        self.s.uut.e_link_up.next = true;
        let t = Tlp::cfg_write(CfgType::Type0, Bdf(0x0100), Tag(1), CHIP, 1, 0xF, 0x6).unwrap();
        self.to_e.extend(to_beats(&t));
        self.csr_write(
            peach2_regmap::csr::route(node),
            peach2_regmap::csr::ROUTE_VALID | peach2_regmap::csr::Port::E.index(),
        );
        self.run(200);
        let st = self.csr_read(peach2_regmap::csr::port_reg(
            peach2_regmap::csr::Port::E,
            peach2_regmap::csr::PORT_STATUS,
        ));
        assert!(
            st & peach2_regmap::csr::port_status::READY != 0,
            "E not ready: {st:#x}"
        );
    }

    fn send(&mut self, t: &Tlp) {
        self.to_chip.extend(to_beats(t));
    }

    /// Queues `t` on E RX (from the peer).
    pub fn send_e(&mut self, t: &Tlp) {
        self.to_e.extend(to_beats(t));
    }

    /// Writes a BAR0 register.
    pub fn csr_write(&mut self, off: u32, v: u32) {
        let t = Tlp::mem_write(
            HOST_RID,
            Tag(0),
            Addr(BAR0 + u64::from(off)),
            &v.to_le_bytes(),
        )
        .unwrap();
        self.send(&t);
    }

    /// Reads a BAR0 register (runs the chip until the completion is back).
    pub fn csr_read(&mut self, off: u32) -> u32 {
        self.tag = self.tag.wrapping_add(1) | 0x80;
        let t = Tlp::mem_read(HOST_RID, Tag(self.tag), Addr(BAR0 + u64::from(off)), 4).unwrap();
        self.send(&t);
        for _ in 0..2000 {
            self.step();
            if let Some(c) = self.cpls.pop_front() {
                if c.tag() != Tag(self.tag) {
                    continue;
                }
                assert_eq!(
                    c.status(),
                    Some(CplStatus::Sc),
                    "CSR read of {off:#x}: {c:?}"
                );
                let d = c.data();
                return u32::from_le_bytes([d[0], d[1], d[2], d[3]]);
            }
        }
        panic!("CSR read of {off:#x} got no completion");
    }

    /// Puts internal descriptor `i`.
    pub fn put_internal(&mut self, i: u32, d: &Descriptor) {
        for (k, dw) in d.to_dws().iter().enumerate() {
            self.csr_write(dma::desc_offset(i) + 4 * k as u32, *dw);
        }
    }

    /// Starts channel `c` at internal descriptor `index`; returns the cycle of the write.
    pub fn start_internal(&mut self, c: u32, index: u32) -> u64 {
        self.csr_write(
            dma::channel_reg(c, dma::CH_CONTROL),
            dma::CONTROL_START | (index << dma::CONTROL_INDEX_SHIFT),
        );
        self.run_until_sent();
        self.cycle
    }

    /// Starts channel `c` at the host descriptor at `addr`.
    pub fn start_host(&mut self, c: u32, addr: u64) -> u64 {
        self.csr_write(dma::channel_reg(c, dma::CH_DESC_LO), addr as u32);
        self.csr_write(dma::channel_reg(c, dma::CH_DESC_HI), (addr >> 32) as u32);
        self.csr_write(
            dma::channel_reg(c, dma::CH_CONTROL),
            dma::CONTROL_START | dma::CONTROL_HOST,
        );
        self.run_until_sent();
        self.cycle
    }

    fn run_until_sent(&mut self) {
        while !self.to_chip.is_empty() {
            self.step();
        }
    }

    /// Runs `n` cycles.
    pub fn run(&mut self, n: u64) {
        for _ in 0..n {
            self.step();
        }
    }

    /// Channel status: state, cause, count.
    pub fn status(&mut self, c: u32) -> (ChannelState, ErrorCause, u32) {
        let st = self.csr_read(dma::channel_reg(c, dma::CH_STATUS));
        let n = self.csr_read(dma::channel_reg(c, dma::CH_COUNT));
        (
            ChannelState::from_status(st),
            ErrorCause::from_status(st).unwrap(),
            n,
        )
    }

    /// Runs until every channel in `chans` is Done or Error.
    pub fn run_until_stopped(&mut self, chans: &[u32], limit: u64) {
        let end = self.cycle + limit;
        loop {
            self.run(500);
            let mut all = true;
            for &c in chans {
                let st = self.csr_read(dma::channel_reg(c, dma::CH_STATUS));
                if ChannelState::from_status(st) == ChannelState::Busy {
                    all = false;
                }
            }
            if all {
                // Let the last writes drain out of the chip.
                self.run(300);
                return;
            }
            assert!(
                self.cycle < end,
                "channels {chans:?} still busy after {limit} cycles"
            );
        }
    }

    /// One cycle.
    pub fn step(&mut self) {
        // Release completions whose time has come, interleaving reads at random.
        if self.to_chip.len() < 16 {
            if let Some(t) = self.host.next_completion(self.cycle) {
                self.send(&t);
            }
        }
        let u = &mut self.s.uut;
        match self.to_chip.front() {
            Some(b) => {
                u.n_rx_data.next = bits128(b.data);
                u.n_rx_valid.next = true;
                u.n_rx_sop.next = b.sop;
                u.n_rx_eop.next = b.eop;
                u.n_rx_empty.next = u64::from(b.empty).into();
            }
            None => u.n_rx_valid.next = false,
        }
        u.n_tx_ready.next = self.p_ready >= 1.0 || self.rng.chance(self.p_ready);
        match self.to_e.front() {
            Some(b) => {
                u.e_rx_data.next = bits128(b.data);
                u.e_rx_valid.next = true;
                u.e_rx_sop.next = b.sop;
                u.e_rx_eop.next = b.eop;
                u.e_rx_empty.next = u64::from(b.empty).into();
            }
            None => u.e_rx_valid.next = false,
        }
        u.e_tx_ready.next = true;
        self.s.settle();
        let u = &self.s.uut;
        // The write generator grants on the requests of the cycle before: a request falls
        // only when granted or cancelled.
        for (c, (valid, cancel, grant)) in u.dmac().write_requests().into_iter().enumerate() {
            assert!(
                !self.write_held[c] || valid || cancel,
                "cycle {}: channel {c} withdrew its write request",
                self.cycle
            );
            self.write_held[c] = valid && !cancel && !grant;
        }
        if u.n_rx_valid.val() && u.n_rx_ready.val() {
            self.to_chip.pop_front();
        }
        if u.e_rx_valid.val() && u.e_rx_ready.val() {
            self.to_e.pop_front();
        }
        if u.e_tx_valid.val() {
            self.e_partial.push(Beat {
                data: u.e_tx_data.val().to_u128(),
                sop: u.e_tx_sop.val(),
                eop: u.e_tx_eop.val(),
                empty: u.e_tx_empty.val().to_u64() as u8,
            });
            if u.e_tx_eop.val() {
                let beats = std::mem::take(&mut self.e_partial);
                let t = tlp_from_beats(&beats).expect("the chip sends valid TLPs on E");
                self.e_tlps.push((self.cycle, t));
            }
        }
        if u.n_tx_valid.val() && u.n_tx_ready.val() {
            let b = Beat {
                data: u.n_tx_data.val().to_u128(),
                sop: u.n_tx_sop.val(),
                eop: u.n_tx_eop.val(),
                empty: u.n_tx_empty.val().to_u64() as u8,
            };
            if b.sop {
                self.partial_start = self.cycle;
            }
            self.partial.push(b);
            if b.eop {
                let beats = std::mem::take(&mut self.partial);
                let t = tlp_from_beats(&beats).expect("the chip sends valid TLPs");
                self.tx_log.push(TxTlp {
                    first: self.partial_start,
                    last: self.cycle,
                    kind: t.kind(),
                    beats: beats.len() as u64,
                    payload: t.payload_len() as u64,
                });
                if let Some(c) = self.host.take(self.cycle, t) {
                    match c.kind() {
                        TlpKind::Cpl | TlpKind::CplD => self.cpls.push_back(c),
                        k => panic!("unexpected {k:?} from the chip"),
                    }
                }
            }
        }
        self.s.tick();
        self.cycle += 1;
    }
}
