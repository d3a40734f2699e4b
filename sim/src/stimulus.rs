//! Random stimulus for a lone chip, the same for any backend: per port a stream of TLPs
//! (valid ones of every kind the chip handles, and malformed ones) presented with random
//! idle cycles, random TX `ready`, obeying the valid/ready rules. Used to check that the
//! Verilated core and the rust-hdl design behave identically.

use crate::chip::{Chip, ChipPorts};
use crate::error::SimError;
use pcie_model::beats::{to_beats, Beat};
use pcie_model::tlp::{Addr, Bdf, CfgType, CplStatus, Tag, Tlp};
use peach2_regmap::address::{GlobalAddr, Target};
use peach2_regmap::config::{BAR0, BAR2_HI, BAR2_LO, COMMAND, COMMAND_BUS_MASTER, COMMAND_MEMORY};
use peach2_regmap::csr::{route, target_ctrl, target_hi, target_lo, Port, NODE_ID, ROUTE_VALID};
use peach2_rtl::harness::Lcg;
use std::collections::VecDeque;

/// Where the stimulus puts the N port's BAR0.
pub const BAR0_BASE: u64 = 0xF7A0_0000;
/// Where the stimulus puts the N port's BAR2.
pub const BAR2_BASE: u64 = 0x3800_0000_0000;
const HOST: Bdf = Bdf(0x0008);
const CHIP: Bdf = Bdf(0x0500);

/// One port's side of the stimulus.
struct PortStim {
    port: Port,
    queue: VecDeque<Beat>,
    offer: Option<Beat>,
    ready: bool,
}

/// Random stimulus for all four ports of one chip.
pub struct RandomStimulus {
    rng: Lcg,
    ports: [PortStim; 4],
    /// Probability of presenting a queued beat in a cycle.
    pub p_valid: f64,
    /// Probability of TX `ready` in a cycle.
    pub p_ready: f64,
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

impl RandomStimulus {
    /// Stimulus from `seed`. The N port starts with what a host and driver do (BARs,
    /// memory enable, node id, routes, target windows), so random traffic reaches deep.
    pub fn new(seed: u64) -> Self {
        let ports = Port::ALL.map(|port| PortStim {
            port,
            queue: VecDeque::new(),
            offer: None,
            ready: false,
        });
        let mut s = Self {
            rng: Lcg(seed | 1),
            ports,
            p_valid: 0.8,
            p_ready: 0.7,
        };
        let mut setup = vec![
            cfg_write(BAR0, BAR0_BASE as u32),
            cfg_write(BAR2_LO, BAR2_BASE as u32 | 0xc),
            cfg_write(BAR2_HI, (BAR2_BASE >> 32) as u32),
            cfg_write(COMMAND, COMMAND_MEMORY | COMMAND_BUS_MASTER),
            csr_write(NODE_ID, 3),
        ];
        for node in 0..16u32 {
            setup.push(csr_write(route(node), ROUTE_VALID | (node % 4)));
        }
        for t in 0..5u32 {
            setup.push(csr_write(target_lo(t), 0x1000_0000 * (t + 1)));
            setup.push(csr_write(target_hi(t), t));
            setup.push(csr_write(target_ctrl(t), 1));
        }
        for tlp in &setup {
            s.ports[0].queue.extend(to_beats(tlp));
        }
        s
    }

    fn random_tlp(&mut self, port: Port) -> Vec<Beat> {
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
                    BAR2_BASE + (global & ((1 << 40) - 1))
                } else {
                    global
                };
                Tlp::mem_write(Bdf(r.below(1 << 16) as u16), Tag(0), Addr(addr), &data)
            }
            // CSR accesses through BAR0.
            4 => Tlp::mem_read(
                HOST,
                Tag(r.below(32) as u8),
                Addr(BAR0_BASE + r.below(0x3fc) * 4),
                4 * (1 + r.below(4) as usize),
            ),
            5 => Tlp::mem_write(HOST, Tag(0), Addr(BAR0_BASE + 0x0c), &data[..4]),
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
        for i in 0..4 {
            let port = self.ports[i].port;
            if self.ports[i].queue.len() < 4 {
                let beats = self.random_tlp(port);
                self.ports[i].queue.extend(beats);
            }
            let present = self.rng.chance(self.p_valid);
            let ready = self.rng.chance(self.p_ready);
            let p = &mut self.ports[i];
            if p.offer.is_none() && present {
                p.offer = p.queue.pop_front();
            }
            p.ready = ready;
            chip.drive_rx(port, p.offer);
            chip.set_tx_ready(port, ready);
            chip.set_link_up(port, true);
        }
    }

    /// Samples the handshakes after the chip settled: beats it took leave the offer.
    pub fn sample(&mut self, chip: &dyn Chip) {
        for p in &mut self.ports {
            if p.offer.is_some() && chip.rx_ready(p.port) {
                p.offer = None;
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
    Ok(Ok(ex))
}
