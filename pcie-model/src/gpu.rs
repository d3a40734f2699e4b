//! A GPU endpoint whose BARs expose device memory, as GPUDirect RDMA uses it: a peer
//! (PEACH2's DMA engine) reads and writes GPU memory through the GPU's 64-bit
//! prefetchable BAR.
//!
//! The endpoint answers configuration requests from its [`ConfigSpace`], serves memory
//! reads that hit an enabled BAR after its own latency at its own bandwidth (GPU BAR
//! reads are slower than host memory reads), and accepts posted writes. Requests that
//! hit no BAR are refused: reads and other non-posted requests with Unsupported Request,
//! writes dropped and counted; either way the Device Status "UR detected" bit is set.
//! Completions are split at the 128-byte RCB of a non-root-complex completer and at the
//! MPS software programmed into Device Control.
//!
//! Every BAR access is translated ([`translation`]): with a translation cache configured,
//! a read whose page is not cached waits for its translation, and the reads after it
//! wait behind it.
//!
//! Only the device-memory windows are modelled: each BAR is backed by sparse memory;
//! GPU registers, the GPU's own DMA engines and interrupts are not.

use std::collections::{HashMap, VecDeque};

use serde::{Deserialize, Serialize};

use crate::bandwidth::Bandwidth;
use crate::completion::{CompletionError, CompletionRules, ReadSpan};
use crate::config_space::{
    reg, BarKind, BarSpec, ConfigSpace, ConfigSpaceSpec, ConfigSpecError, EndpointType,
};
use crate::limits::{MaxPayloadSize, Rcb};
use crate::link::timing::{Generation, LinkWidth};
use crate::memory::{payload_byte_enables, SparseMemory};
use crate::read_server::{ReadServer, ReadServerConfig};
use crate::time::Cycles;
use crate::tlp::{Bdf, CfgRequest, CfgType, CplStatus, Header, Tlp, TlpKind};

pub mod translation;

use translation::{TranslationCache, TranslationConfig, TranslationConfigError};

/// Parameters of a GPU endpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuConfig {
    /// Identity, BARs and capabilities.
    pub config_space: ConfigSpaceSpec,
    /// Latency and bandwidth of BAR reads (and of configuration responses).
    pub read_server: ReadServerConfig,
    /// Largest completion the GPU returns, if smaller than the programmed MPS (a
    /// multiple of 128).
    pub completion_limit: Option<u32>,
    /// What never-written device memory reads as.
    pub memory_fill: u8,
    /// The cache of BAR page translations (`None`: every translation is free).
    #[serde(default)]
    pub translation: Option<TranslationConfig>,
}

impl Default for GpuConfig {
    /// A Tesla K20X as in HA-PACS/TCA nodes: vendor 0x10de, device 0x1021, class 0x030200
    /// (3D controller), a PCIe 2.0 x16 legacy endpoint supporting 256-byte payloads, and
    /// the GPUDirect window as BAR1: 256 MiB, 64-bit, prefetchable (BAR0 registers and
    /// BAR3 are not modelled).
    ///
    /// BAR reads: 2.8 GB/s (11.2 B/cycle), PEACH2's measured peak DMA bandwidth from GPU
    /// memory; 500 ns (125 cycles) to first data, an estimate above the host's 300 ns
    /// to be calibrated against the 2.0 us minimum DMA latency.
    fn default() -> GpuConfig {
        GpuConfig {
            config_space: ConfigSpaceSpec {
                vendor_id: 0x10de,
                device_id: 0x1021,
                revision_id: 0xa1,
                class_code: 0x03_02_00,
                subsystem_vendor_id: 0x10de,
                subsystem_id: 0x0982,
                bars: vec![BarSpec {
                    index: 1,
                    size: 256 << 20,
                    kind: BarKind::Mem64,
                    prefetchable: true,
                }],
                endpoint_type: EndpointType::LegacyEndpoint,
                max_payload_supported: MaxPayloadSize::B256,
                extended_tag: true,
                link_speed: Generation::Gen2,
                link_width: LinkWidth::X16,
            },
            read_server: ReadServerConfig {
                latency: Cycles(125),
                bandwidth: Bandwidth::new(56, 5).expect("non-zero"),
            },
            completion_limit: None,
            memory_fill: 0,
            translation: None,
        }
    }
}

/// A GPU configuration that cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GpuConfigError {
    /// The config space spec is invalid.
    #[error(transparent)]
    ConfigSpace(#[from] ConfigSpecError),
    /// A completion limit that is not a positive multiple of 128 bytes.
    #[error("completion limit {0} must be a positive multiple of 128 bytes")]
    CompletionLimit(u32),
    /// The translation cache's parameters are invalid.
    #[error(transparent)]
    Translation(#[from] TranslationConfigError),
}

/// Event counts of a GPU endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GpuCounters {
    /// Memory reads served from a BAR.
    pub reads_served: u64,
    /// Posted writes committed to a BAR.
    pub writes_accepted: u64,
    /// Memory reads that hit no enabled BAR (answered with UR).
    pub unsupported_reads: u64,
    /// Writes that hit no enabled BAR, dropped.
    pub dropped_writes: u64,
    /// Poisoned (EP) writes, dropped.
    pub poisoned_writes: u64,
    /// Other non-posted requests answered with UR.
    pub unsupported_requests: u64,
    /// Configuration reads and writes handled.
    pub config_accesses: u64,
    /// Completions received (the GPU issues no requests in this model).
    pub unexpected_completions: u64,
    /// Messages received.
    pub messages: u64,
}

/// The GPU endpoint; see the module documentation.
#[derive(Debug)]
pub struct GpuEndpoint {
    config_space: ConfigSpace,
    memories: HashMap<u8, SparseMemory>,
    server: ReadServer,
    completion_limit: Option<u32>,
    bdf: Option<Bdf>,
    from_host: VecDeque<Tlp>,
    to_host: VecDeque<Tlp>,
    counters: GpuCounters,
    now: Cycles,
    translation: Option<TranslationCache>,
}

impl GpuEndpoint {
    /// A GPU at power-on: BARs unassigned, memory space disabled, memory empty.
    pub fn new(config: GpuConfig) -> Result<GpuEndpoint, GpuConfigError> {
        if let Some(l) = config.completion_limit {
            if l == 0 || !l.is_multiple_of(128) {
                return Err(GpuConfigError::CompletionLimit(l));
            }
        }
        let memories = config
            .config_space
            .bars
            .iter()
            .map(|b| (b.index, SparseMemory::with_fill(config.memory_fill)))
            .collect();
        Ok(GpuEndpoint {
            config_space: ConfigSpace::new(config.config_space)?,
            memories,
            server: ReadServer::new(Bdf(0), config.read_server),
            completion_limit: config.completion_limit,
            bdf: None,
            from_host: VecDeque::new(),
            to_host: VecDeque::new(),
            counters: GpuCounters::default(),
            now: Cycles::ZERO,
            translation: config.translation.map(TranslationCache::new).transpose()?,
        })
    }

    /// The configuration space.
    pub fn config_space(&self) -> &ConfigSpace {
        &self.config_space
    }

    /// The bus/device/function captured from the first configuration write.
    pub fn bdf(&self) -> Option<Bdf> {
        self.bdf
    }

    /// Device memory behind BAR `index` (offsets from the BAR base).
    pub fn bar_memory(&self, index: u8) -> Option<&SparseMemory> {
        self.memories.get(&index)
    }

    /// Device memory behind BAR `index`, for the GPU's own writes (kernels, cudaMemcpy).
    pub fn bar_memory_mut(&mut self, index: u8) -> Option<&mut SparseMemory> {
        self.memories.get_mut(&index)
    }

    /// Event counts.
    pub fn counters(&self) -> GpuCounters {
        self.counters
    }

    /// Hands over a TLP that arrived from the link; it is processed at the next step.
    pub fn receive(&mut self, tlp: Tlp) {
        self.from_host.push_back(tlp);
    }

    /// The next TLP to send upstream.
    pub fn pop_to_host(&mut self) -> Option<Tlp> {
        self.to_host.pop_front()
    }

    /// True when nothing is queued or scheduled.
    pub fn is_idle(&self) -> bool {
        self.from_host.is_empty() && self.to_host.is_empty() && self.server.pending() == 0
    }

    /// Advances to cycle `now`: handles received TLPs and releases completions whose time
    /// has come.
    pub fn step(&mut self, now: Cycles) {
        self.now = now;
        while let Some(tlp) = self.from_host.pop_front() {
            self.handle(tlp);
        }
        while let Some(cpl) = self.server.pop_ready(now) {
            self.to_host.push_back(cpl);
        }
    }

    fn handle(&mut self, tlp: Tlp) {
        match tlp.kind() {
            TlpKind::MRd => self.handle_read(&tlp),
            TlpKind::MWr => self.handle_write(&tlp),
            TlpKind::CfgRd0 | TlpKind::CfgWr0 => self.handle_config(&tlp),
            TlpKind::Cpl | TlpKind::CplD | TlpKind::CplLk | TlpKind::CplDLk => {
                self.counters.unexpected_completions += 1;
            }
            TlpKind::Msg | TlpKind::MsgD => self.counters.messages += 1,
            _ => {
                self.counters.unsupported_requests += 1;
                self.reject(&tlp);
            }
        }
    }

    fn reject(&mut self, tlp: &Tlp) {
        self.config_space
            .set_status_bits(reg::DEVICE_CONTROL, reg::DEVSTA_UR_DETECTED);
        if let Err(e) = self.server.reject(self.now, tlp, CplStatus::Ur) {
            unreachable!("UR completion for a valid request: {e}");
        }
    }

    fn rules(&self) -> CompletionRules {
        // A reserved MPS encoding is a software error; fall back to the smallest MPS.
        let mps = self
            .config_space
            .max_payload_size()
            .unwrap_or(MaxPayloadSize::B128);
        let rules = CompletionRules::new(Rcb::B128, mps);
        let limit = self
            .completion_limit
            .unwrap_or(mps.bytes())
            .min(mps.bytes());
        rules
            .with_chunk_limit(limit)
            .expect("a multiple of 128 no larger than MPS")
    }

    fn handle_read(&mut self, mrd: &Tlp) {
        let span = match ReadSpan::of_request(mrd) {
            Ok(s) => s,
            Err(e) => unreachable!("MRd has a read span: {e}"),
        };
        let Some(hit) = self
            .config_space
            .decode(span.dw_start, u64::from(span.length_dw) * 4)
        else {
            self.counters.unsupported_reads += 1;
            self.reject(mrd);
            return;
        };
        self.counters.reads_served += 1;
        let len = u64::from(span.length_dw) * 4;
        let wait = self.translate(hit.offset, len);
        let base = span.dw_start - hit.offset;
        let rules = self.rules();
        let memory = &self.memories[&hit.bar];
        let served: Result<(), CompletionError> =
            self.server.serve(self.now + wait, mrd, &rules, |a, buf| {
                if let Err(e) = memory.read(a - base, buf) {
                    unreachable!("BAR offsets fit the address space: {e}");
                }
            });
        if let Err(e) = served {
            unreachable!("completions of a valid MRd: {e}");
        }
    }

    fn handle_write(&mut self, mwr: &Tlp) {
        let Header::MemWrite(req) = mwr.header() else {
            unreachable!("MWr has a MemWrite header");
        };
        if mwr.ep() {
            self.counters.poisoned_writes += 1;
            return;
        }
        let data = mwr.data();
        let Some(hit) = self.config_space.decode(req.address.0, data.len() as u64) else {
            self.counters.dropped_writes += 1;
            self.config_space
                .set_status_bits(reg::DEVICE_CONTROL, reg::DEVSTA_UR_DETECTED);
            return;
        };
        // Posted: the write's translation fills the cache; its wait is not modelled.
        self.translate(hit.offset, data.len() as u64);
        let enable = payload_byte_enables(req.first_be, req.last_be, data.len());
        let memory = self
            .memories
            .get_mut(&hit.bar)
            .expect("every BAR has a memory");
        if let Err(e) = memory.write_masked(hit.offset, data, &enable) {
            unreachable!("BAR offsets fit the address space: {e}");
        }
        self.counters.writes_accepted += 1;
    }

    /// The cycles an access of `len` bytes at BAR offset `offset` waits for its
    /// translations.
    fn translate(&mut self, offset: u64, len: u64) -> Cycles {
        self.translation
            .as_mut()
            .map_or(Cycles::ZERO, |t| t.access(offset, len))
    }

    /// Translations missed since power-on.
    pub fn translation_misses(&self) -> u64 {
        self.translation
            .as_ref()
            .map_or(0, TranslationCache::misses)
    }

    fn handle_config(&mut self, tlp: &Tlp) {
        let (Header::CfgRead(cfg) | Header::CfgWrite(cfg)) = *tlp.header() else {
            unreachable!("configuration requests have a CfgRequest header");
        };
        // Only function 0 exists: other functions do not answer (UR).
        if cfg.cfg_type != CfgType::Type0 || cfg.target_id.function() != 0 {
            self.counters.unsupported_requests += 1;
            self.reject(tlp);
            return;
        }
        self.counters.config_accesses += 1;
        let data = match tlp.header() {
            Header::CfgWrite(_) => {
                self.capture_id(&cfg);
                let d = tlp.data();
                let value = u32::from_le_bytes([d[0], d[1], d[2], d[3]]);
                self.config_space
                    .write(cfg.register, value, cfg.first_be)
                    .map(|()| Vec::new())
            }
            _ => self
                .config_space
                .read(cfg.register)
                .map(|v| v.to_le_bytes().to_vec()),
        };
        let completer = self.bdf.unwrap_or(cfg.target_id);
        let cpl = match data {
            Ok(data) => Tlp::completion(
                completer,
                CplStatus::Sc,
                cfg.requester_id,
                cfg.tag,
                4,
                0,
                &data,
            ),
            Err(_) => Tlp::completion(
                completer,
                CplStatus::Ur,
                cfg.requester_id,
                cfg.tag,
                4,
                0,
                &[],
            ),
        };
        match cpl {
            Ok(cpl) => self.server.respond(self.now, cpl),
            Err(e) => unreachable!("configuration completion fields are in range: {e}"),
        }
    }

    /// Functions capture their bus and device numbers from every Type 0 configuration
    /// write (PCIe Base spec 2.2.6.2) and use them as Completer/Requester ID.
    fn capture_id(&mut self, cfg: &CfgRequest) {
        self.bdf = Some(cfg.target_id);
        self.server.set_completer_id(cfg.target_id);
    }
}

#[cfg(test)]
mod tests;
