//! Random stimulus for a lone chip, the same for any backend: per port a stream of TLPs
//! (valid ones of every kind the chip handles, and malformed ones) presented with random
//! idle cycles, random TX `ready`, obeying the valid/ready rules. Used to check that the
//! Verilated core and the rust-hdl design behave identically.
//!
//! The N port also plays the host behind the chip's DMA: it writes random descriptors
//! (valid and invalid, 1-D and 2-D, with notifications) into the descriptor RAM or
//! serves them from host memory, starts channels, and answers the chip's reads with
//! completions split at random sizes, interleaved across tags, now and then failed
//! (UR) or never sent (the channel times out).

use crate::chip::{Chip, ChipPorts};
use crate::error::SimError;
use pcie_model::beats::{tlp_from_beats, to_beats, Beat};
use pcie_model::completion::{build_completions, error_completion, CompletionRules};
use pcie_model::limits::{MaxPayloadSize, Rcb};
use pcie_model::tlp::{Addr, Bdf, CfgType, CplStatus, Tag, Tlp, TlpKind};
use peach2_regmap::address::{GlobalAddr, Target, GLOBAL_SIZE, MAX_NODES, TRANSLATED_TARGETS};
use peach2_regmap::config::{BAR0, BAR2_HI, BAR2_LO, COMMAND, COMMAND_BUS_MASTER, COMMAND_MEMORY};
use peach2_regmap::csr::{
    route, target_ctrl, target_hi, target_lo, Port, NODE_ID, ROUTE_VALID, SCRATCH, TARGET_ENABLE,
};
use peach2_regmap::dma::{
    self, channel_reg, desc_offset, flags, Descriptor, CHAIN_LIMIT, CHANNELS, CH_CONTROL,
    CH_DESC_HI, CH_DESC_LO, CH_NOTIFY_RX_HI, CH_NOTIFY_RX_LO, CH_NOTIFY_SELF_HI, CH_NOTIFY_SELF_LO,
    CONTROL_HOST, CONTROL_INDEX_SHIFT, CONTROL_START, CPL_TIMEOUT,
};
use peach2_regmap::notify;
use peach2_rtl::harness::Lcg;
use std::collections::VecDeque;

pub use peach2_regmap::host::{BAR0_BASE, BAR2_BASE};
const HOST: Bdf = Bdf(peach2_regmap::host::HOST_RID);
const CHIP: Bdf = Bdf(peach2_regmap::host::CHIP_BDF);

/// One port's side of the stimulus.
struct PortStim {
    port: Port,
    queue: VecDeque<Beat>,
    offer: Option<Beat>,
    ready: bool,
    /// Between a taken SOP beat and its EOP beat.
    in_packet: bool,
    /// Cycles the link stays down (0: up).
    down_for: u64,
}

/// Descriptors the stimulus keeps in the chip's RAM (indices `0..DESC_SLOTS`).
const DESC_SLOTS: u64 = 16;
/// Completion timeout the stimulus programs (cycles), so unanswered reads time out
/// within a run.
const STIM_CPL_TIMEOUT: u32 = 3000;

/// Random stimulus for all four ports of one chip.
pub struct RandomStimulus {
    rng: Lcg,
    ports: [PortStim; 4],
    /// Beats of the TLP the chip is sending on N.
    n_tx: Vec<Beat>,
    /// The chip's reads not answered yet, with the completions still to send.
    reads: Vec<VecDeque<Tlp>>,
    /// Reads of host memory the chip sent on N (its DMA's).
    pub host_reads: u64,
    /// Probability of presenting a queued beat in a cycle.
    pub p_valid: f64,
    /// Probability of TX `ready` in a cycle.
    pub p_ready: f64,
    /// Whether new random TLPs are queued (off: what is queued and the host's answers
    /// still go out, so the chip can be drained).
    pub generate: bool,
    /// Probability, per cycle and cable port (E, W, S) between packets, that its link
    /// goes down for 50 to 2000 cycles: no beats offered, TX not ready, `link_up` low.
    /// 0 (the default) draws no random numbers for it, so other stimuli are unchanged.
    pub p_link_down: f64,
}

fn cfg_write(register: u16, value: u32) -> Tlp {
    Tlp::cfg_write(CfgType::Type0, HOST, Tag(0), CHIP, register / 4, 0xf, value)
        .expect("valid config write")
}

fn csr_write(offset: u32, value: u32) -> Tlp {
    Tlp::mem_write(
        HOST,
        Tag(0),
        Addr(BAR0_BASE + u64::from(offset)),
        &value.to_le_bytes(),
    )
    .expect("valid CSR write")
}

/// The local base address [`setup_tlps`] gives target window `t` (a `Target` code).
pub fn window_base(t: u32) -> u64 {
    (u64::from(t) << 32) | u64::from(0x1000_0000 * (t + 1))
}

/// What the host writes before the random traffic, on N: BARs, memory and bus-master
/// enable, node id 3, a route for every node (node `k` through port `k % 4`), five target
/// windows and the completion timeout.
pub fn setup_tlps() -> Vec<Tlp> {
    let mut setup = vec![
        cfg_write(BAR0, BAR0_BASE as u32),
        cfg_write(BAR2_LO, BAR2_BASE as u32 | 0xc),
        cfg_write(BAR2_HI, (BAR2_BASE >> 32) as u32),
        cfg_write(COMMAND, COMMAND_MEMORY | COMMAND_BUS_MASTER),
        csr_write(NODE_ID, 3),
    ];
    for node in 0..MAX_NODES as u32 {
        setup.push(csr_write(route(node), ROUTE_VALID | (node % 4)));
    }
    for t in 0..TRANSLATED_TARGETS as u32 {
        let base = window_base(t);
        setup.push(csr_write(target_lo(t), base as u32));
        setup.push(csr_write(target_hi(t), (base >> 32) as u32));
        setup.push(csr_write(target_ctrl(t), TARGET_ENABLE));
    }
    setup.push(csr_write(CPL_TIMEOUT, STIM_CPL_TIMEOUT));
    setup
}

impl RandomStimulus {
    /// Stimulus from `seed`. The N port starts with what a host and driver do (BARs,
    /// memory enable, node id, routes, target windows), so random traffic reaches deep.
    pub fn new(seed: u64) -> Self {
        let ports = Port::ALL.map(|port| PortStim {
            port,
            queue: VecDeque::new(),
            offer: None,
            ready: false,
            in_packet: false,
            down_for: 0,
        });
        let mut s = Self {
            rng: Lcg(seed | 1),
            ports,
            n_tx: Vec::new(),
            reads: Vec::new(),
            host_reads: 0,
            p_valid: 0.8,
            p_ready: 0.7,
            generate: true,
            p_link_down: 0.0,
        };
        for tlp in &setup_tlps() {
            s.ports[0].queue.extend(to_beats(tlp));
        }
        s
    }

    /// A random descriptor: mostly one the chip accepts (local source, local or global
    /// destination, 1-D or 2-D, notifications), sometimes a broken one.
    fn random_descriptor(&mut self) -> Descriptor {
        let r = &mut self.rng;
        let lane = 4 * r.below(4);
        let src = 0x1000_0000 + r.below(1 << 16) * 16 + lane;
        let dst_off = r.below(1 << 16) * 16 + lane;
        let dst = if r.chance(0.5) {
            0x2000_0000 + dst_off
        } else {
            GlobalAddr::new(r.below(16) as u8, Target::Host, dst_off)
                .expect("fields in range")
                .to_u64()
        };
        let max_dws = if r.chance(0.2) { 512 } else { 48 };
        let mut d = Descriptor {
            src,
            dst,
            length: 4 * (1 + r.below(max_dws) as u32),
            flags: flags::LAST,
            next: 0,
            height: 0,
            src_pitch: 0,
            dst_pitch: 0,
            immediate: false,
        };
        if r.chance(0.15) {
            // A notification as a write-immediate descriptor, often into a chip's store.
            d.immediate = true;
            d.length = 4;
            if r.chance(0.5) {
                let off = notify::internal_offset(r.below(16) as u32, r.below(64) as u32);
                d.dst = GlobalAddr::new(r.below(16) as u8, Target::Internal, off)
                    .expect("fields in range")
                    .to_u64();
            }
        } else if r.chance(0.3) {
            d.flags |= flags::TWO_D;
            d.height = 1 + r.below(4) as u16;
            d.src_pitch = d.length + 16 * r.below(8) as u32;
            d.dst_pitch = d.length + 16 * r.below(8) as u32;
        }
        if r.chance(0.3) {
            d.flags |= flags::NOTIFY_SELF;
        }
        if r.chance(0.2) {
            d.flags |= flags::NOTIFY_RX;
        }
        if r.chance(0.2) {
            // Chained to another slot of the RAM.
            d.flags &= !flags::LAST;
            d.next = u64::from(desc_offset(r.below(DESC_SLOTS) as u32));
        }
        if r.chance(0.1) {
            // Broken: a misaligned source, or no length.
            if r.chance(0.5) {
                d.src += 1;
            } else {
                d.length = 0;
            }
        }
        d
    }

    /// Programs a descriptor and starts a channel on it (from the RAM or from host
    /// memory), as a driver does.
    fn dma_program(&mut self) -> Vec<Beat> {
        let c = self.rng.below(u64::from(CHANNELS)) as u32;
        let slot = self.rng.below(DESC_SLOTS) as u32;
        let d = self.random_descriptor();
        let mut tlps = Vec::new();
        for (k, dw) in d.to_dws().iter().enumerate() {
            tlps.push(csr_write(desc_offset(slot) + 4 * k as u32, *dw));
        }
        let notify = 0x3000_0000 + 64 * u64::from(c);
        tlps.push(csr_write(channel_reg(c, CH_NOTIFY_SELF_LO), notify as u32));
        tlps.push(csr_write(channel_reg(c, CH_NOTIFY_SELF_HI), 0));
        let rx = GlobalAddr::new(self.rng.below(16) as u8, Target::Host, 0x100)
            .expect("fields in range")
            .to_u64();
        tlps.push(csr_write(channel_reg(c, CH_NOTIFY_RX_LO), rx as u32));
        tlps.push(csr_write(
            channel_reg(c, CH_NOTIFY_RX_HI),
            (rx >> 32) as u32,
        ));
        let mut control = CONTROL_START | (slot << CONTROL_INDEX_SHIFT);
        if self.rng.chance(0.3) {
            // The chain from host memory: the reads of it are answered like data reads.
            let at = 0x4000_0000 + 32 * self.rng.below(1 << 12);
            tlps.push(csr_write(channel_reg(c, CH_DESC_LO), at as u32));
            tlps.push(csr_write(channel_reg(c, CH_DESC_HI), 0));
            control = CONTROL_START | CONTROL_HOST;
        }
        tlps.push(csr_write(channel_reg(c, CH_CONTROL), control));
        tlps.iter().flat_map(to_beats).collect()
    }

    /// The chip sent `beats` on N: a read of host memory gets its completions queued
    /// (random sizes at the RCB, random data; a descriptor fetch gets a random
    /// descriptor), now and then a UR instead, or nothing.
    fn host_receives(&mut self, beats: &[Beat]) {
        let Ok(tlp) = tlp_from_beats(beats) else {
            return;
        };
        if tlp.kind() != TlpKind::MRd {
            return;
        }
        self.host_reads += 1;
        let r = &mut self.rng;
        if r.chance(0.01) {
            return;
        }
        if r.chance(0.02) {
            if let Ok(ur) = error_completion(&tlp, HOST, CplStatus::Ur) {
                self.reads.push(VecDeque::from([ur]));
            }
            return;
        }
        let limit = [64, 128, 256][r.below(3) as usize];
        let rules = CompletionRules::new(Rcb::B64, MaxPayloadSize::B256)
            .with_chunk_limit(limit)
            .expect("a multiple of the RCB within MPS");
        // Descriptor fetches carry the tags after the data tags.
        let desc = u32::from(tlp.tag().0) >= dma::tags::data_tags(dma::CHANNELS);
        let fill: Vec<u8> = if desc {
            self.random_descriptor().to_bytes().to_vec()
        } else {
            (0..4096).map(|_| self.rng.next_u64() as u8).collect()
        };
        let start = tlp.address().map_or(0, |a| a.0);
        let read = |addr: u64, buf: &mut [u8]| {
            for (i, b) in buf.iter_mut().enumerate() {
                *b = fill[((addr - start) as usize + i) % fill.len()];
            }
        };
        if let Ok(cpls) = build_completions(&tlp, HOST, &rules, read) {
            self.reads.push(cpls.into());
        }
    }

    /// Queues one completion of a random outstanding read on N.
    fn host_answers(&mut self) {
        if self.reads.is_empty() || !self.rng.chance(0.3) {
            return;
        }
        let i = self.rng.below(self.reads.len() as u64) as usize;
        if let Some(cpl) = self.reads[i].pop_front() {
            self.ports[0].queue.extend(to_beats(&cpl));
        }
        if self.reads[i].is_empty() {
            self.reads.swap_remove(i);
        }
    }

    fn random_tlp(&mut self, port: Port) -> Vec<Beat> {
        if port == Port::N && self.rng.chance(0.1) {
            return self.dma_program();
        }
        let r = &mut self.rng;
        let max_dws = if r.chance(0.3) { 64 } else { 8 };
        let len = 4 * (1 + r.below(max_dws) as usize);
        let data: Vec<u8> = (0..len).map(|_| r.next_u64() as u8).collect();
        let node = r.below(16) as u8;
        let target = [
            Target::Host,
            Target::Gpu(0),
            Target::Gpu(3),
            Target::Internal,
        ][r.below(4) as usize];
        let global = GlobalAddr::new(node, target, r.below(1 << 20) * 256)
            .expect("fields in range")
            .to_u64();
        let tlp = match r.below(10) {
            // Writes into the global space (BAR2 at N, global addresses elsewhere).
            0..=3 => {
                let addr = if port == Port::N {
                    BAR2_BASE + (global & (GLOBAL_SIZE - 1))
                } else {
                    global
                };
                Tlp::mem_write(Bdf(r.below(1 << 16) as u16), Tag(0), Addr(addr), &data)
            }
            // CSR accesses through BAR0.
            4 => {
                let off = if r.chance(0.3) {
                    // 16-byte aligned, so that up to 4 DWs stay inside a 4 KiB page.
                    u64::from(notify::BAR0_BASE) + 16 * r.below(u64::from(notify::DWS) / 4)
                } else {
                    // Below the DMA block, a read of up to 4 DWs included.
                    r.below(u64::from(CHAIN_LIMIT) / 4 - 4) * 4
                };
                Tlp::mem_read(
                    HOST,
                    Tag(r.below(32) as u8),
                    Addr(BAR0_BASE + off),
                    4 * (1 + r.below(4) as usize),
                )
            }
            5 => Tlp::mem_write(
                HOST,
                Tag(0),
                Addr(BAR0_BASE + u64::from(SCRATCH)),
                &data[..4],
            ),
            // Reads of remote memory (answered with UR or forwarded).
            6 => Tlp::mem_read(HOST, Tag(r.below(32) as u8), Addr(global), len.min(512)),
            // Config requests (link controllers) and stray completions.
            7 => Tlp::cfg_read(
                CfgType::Type0,
                Bdf(r.below(1 << 16) as u16),
                Tag(r.below(256) as u8),
                CHIP,
                r.below(64) as u16,
                0xf,
            ),
            8 => Tlp::completion(
                Bdf(r.below(1 << 16) as u16),
                CplStatus::Sc,
                Bdf(r.below(1 << 16) as u16),
                Tag(r.below(256) as u8),
                len as u16,
                0,
                &data,
            ),
            // Malformed: random DWs framed as a TLP.
            _ => {
                let dws = 1 + r.below(12) as usize;
                let mut beats = Vec::new();
                for i in 0..dws.div_ceil(4) {
                    let used = (dws - 4 * i).min(4);
                    let mut d = 0u128;
                    for k in 0..used {
                        d |= u128::from(r.next_u64() as u32) << (32 * k);
                    }
                    beats.push(Beat {
                        data: d,
                        sop: i == 0,
                        eop: i == dws.div_ceil(4) - 1,
                        empty: if i == dws.div_ceil(4) - 1 {
                            (4 - used) as u8
                        } else {
                            0
                        },
                    });
                }
                return beats;
            }
        };
        to_beats(&tlp.expect("generated TLPs are valid"))
    }

    /// Drives every input of `chip` for this cycle (same sequence for every backend).
    pub fn drive(&mut self, chip: &mut dyn Chip) {
        self.host_answers();
        for i in 0..4 {
            let port = self.ports[i].port;
            if self.generate && self.ports[i].queue.len() < 4 {
                let beats = self.random_tlp(port);
                self.ports[i].queue.extend(beats);
            }
            let present = self.rng.chance(self.p_valid);
            let ready = self.rng.chance(self.p_ready);
            self.flap_link(i);
            let p = &mut self.ports[i];
            let up = p.down_for == 0;
            if p.offer.is_none() && present && up {
                p.offer = p.queue.pop_front();
            }
            p.ready = ready && up;
            chip.drive_rx(port, p.offer);
            chip.set_tx_ready(port, p.ready);
            chip.set_link_up(port, up);
        }
    }

    /// Takes port `i`'s link down now and then (cable ports, between packets), and
    /// counts down the cycles of one that is down.
    fn flap_link(&mut self, i: usize) {
        if self.ports[i].down_for > 0 {
            self.ports[i].down_for -= 1;
            return;
        }
        let p = &self.ports[i];
        if self.p_link_down <= 0.0 || p.port == Port::N || p.in_packet || p.offer.is_some() {
            return;
        }
        if self.rng.chance(self.p_link_down) {
            self.ports[i].down_for = 50 + self.rng.below(1950);
        }
    }

    /// Whether the TX stream of `port` is ready this cycle.
    pub fn tx_ready(&self, port: Port) -> bool {
        self.ports[port.index() as usize].ready
    }

    /// The beat offered on the RX stream of `port` this cycle.
    pub fn offered(&self, port: Port) -> Option<Beat> {
        self.ports[port.index() as usize].offer
    }

    /// Nothing left to send: every queue and offer empty, every read answered, every
    /// link up.
    pub fn idle(&self) -> bool {
        self.reads.is_empty()
            && self
                .ports
                .iter()
                .all(|p| p.queue.is_empty() && p.offer.is_none() && p.down_for == 0)
    }

    /// Samples the handshakes after the chip settled: beats it took leave the offer; the
    /// host sees what the chip sends on N.
    pub fn sample(&mut self, chip: &dyn Chip) {
        for p in &mut self.ports {
            if let Some(b) = p.offer.filter(|_| chip.rx_ready(p.port)) {
                p.in_packet = !b.eop;
                p.offer = None;
            }
        }
        if self.ports[0].ready {
            if let Some(b) = chip.tx_beat(Port::N) {
                self.n_tx.push(b);
                if b.eop {
                    let beats = std::mem::take(&mut self.n_tx);
                    self.host_receives(&beats);
                }
            }
        }
    }
}

/// What a comparison run exercised: beats into and out of each port (N, E, W, S).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Exercised {
    /// Beats the chip took on each RX stream.
    pub beats_in: [u64; 4],
    /// Beats the chip sent on each TX stream.
    pub beats_out: [u64; 4],
    /// Reads of host memory the chip's DMA sent on N.
    pub host_reads: u64,
}

/// Runs `cycles` cycles of [`RandomStimulus`] on two chips in lockstep and compares every
/// output pin after every settle. Returns what was exercised, or the first difference
/// (cycle, pin, values).
pub fn compare_backends(
    a: &mut dyn Chip,
    b: &mut dyn Chip,
    seed: u64,
    cycles: u64,
) -> Result<Result<Exercised, String>, SimError> {
    let mut ex = Exercised::default();
    use crate::pins::{PortDir, PORTS};
    let mut sa = RandomStimulus::new(seed);
    let mut sb = RandomStimulus::new(seed);
    a.set_s_role_rc(seed & 2 != 0);
    b.set_s_role_rc(seed & 2 != 0);
    crate::chip::reset(a, 2)?;
    crate::chip::reset(b, 2)?;
    for cycle in 0..cycles {
        sa.drive(a);
        sb.drive(b);
        a.settle()?;
        b.settle()?;
        for (pin, decl) in PORTS.iter().enumerate() {
            if decl.dir == PortDir::Out && a.get(pin) != b.get(pin) {
                return Ok(Err(format!(
                    "cycle {cycle}: {} = {:#x} ({:?}) but {:#x} ({:?})",
                    decl.name,
                    a.get(pin),
                    a.backend(),
                    b.get(pin),
                    b.backend()
                )));
            }
        }
        for (i, port) in Port::ALL.into_iter().enumerate() {
            ex.beats_in[i] += u64::from(sa.ports[i].offer.is_some() && a.rx_ready(port));
            ex.beats_out[i] += u64::from(sa.ports[i].ready && a.tx_beat(port).is_some());
        }
        sa.sample(a);
        sb.sample(b);
        a.tick()?;
        b.tick()?;
    }
    ex.host_reads = sa.host_reads;
    Ok(Ok(ex))
}
