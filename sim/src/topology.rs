//! Cluster topologies: presets (`ring2`..`ring8`, `2x8`) and TOML files naming nodes,
//! cables, port roles and model parameters; shortest-path routes for every node.
//!
//! A topology file:
//!
//! ```toml
//! [[nodes]]
//! name = "a"
//! s_role = "rc"      # strap of the S port: "rc" or "ep" (default "ep")
//! gpus = 1           # GPUs behind the host, 0..=4 (default 0)
//! [[nodes]]
//! name = "b"
//! [[cables]]
//! a = "a.E"
//! b = "b.W"
//! [[cables]]
//! a = "b.E"
//! b = "a.W"
//! [params]           # optional; give only what differs from the profile
//! tx_buffer_beats = 64
//! stall_cycles = 50000
//! cable = { cable_latency = 20000 }   # ps; a cable's other fields stay the profile's
//! # host_link = { ... }               # pcie_model::link::timing::LinkTiming
//! # max_read_request = 256            # bytes, as the hosts program it
//! # dma_config = 1                    # DMA_CONFIG at bring-up (peach2_regmap::dma::config)
//! ```
//!
//! A file's `[params]` are kept as written ([`Topology::given`]) and laid over whatever
//! parameters the topology gets later ([`Topology::set_params`], as a profile does), so a
//! field the file sets wins and every field it leaves out comes from the profile.

use crate::error::SimError;
use pcie_model::gpu::GpuConfig;
use pcie_model::limits::MaxReadRequestSize;
use pcie_model::link::timing::LinkTiming;
use pcie_model::read_server::ReadServerConfig;
use pcie_model::root_complex::RootComplexConfig;
use peach2_regmap::address::MAX_NODES;
use peach2_regmap::csr::Port;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Strap of the S port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SRole {
    /// Root complex.
    Rc,
    /// Endpoint.
    #[default]
    Ep,
}

/// One node.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    /// Unique name.
    pub name: String,
    /// S strap.
    #[serde(default)]
    pub s_role: SRole,
    /// GPUs behind the host (0..=4).
    #[serde(default)]
    pub gpus: u8,
}

/// One cable between two chip ports, written `node.PORT` (`PORT` is E, W or S).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CableSpec {
    /// One end.
    pub a: String,
    /// The other end.
    pub b: String,
}

/// Model parameters.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// Timing of every host's link to its chip's N port.
    pub host_link: LinkTiming,
    /// Timing of every cable between two chips.
    pub cable: LinkTiming,
    /// Beats a sender's hard-IP TX buffer holds.
    pub tx_buffer_beats: usize,
    /// Cycles without progress, with traffic in flight, before a stall is reported.
    pub stall_cycles: u64,
    /// Cables (indices into `cables`) that routes must not use (they are still brought
    /// up). A ring routed by shortest paths has a cyclic buffer dependency and can
    /// deadlock under all-to-all traffic; leaving out one cable per ring (a dateline)
    /// breaks the cycle at the cost of that cable's bandwidth.
    pub avoid_cables: Vec<usize>,
    /// Latency and bandwidth of every host's memory reads (the root complex's read
    /// server).
    pub host_read: ReadServerConfig,
    /// Every GPU's model (identity, BAR, BAR read latency and bandwidth).
    pub gpu: GpuConfig,
    /// The Max Read Request Size every host programs into its devices, the chip's N port
    /// among them: the size of the chip's DMA reads (at most 512 bytes).
    pub max_read_request: MaxReadRequestSize,
    /// What bring-up writes to every chip's `DMA_CONFIG` (`peach2_regmap::dma::config`).
    pub dma_config: u32,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            host_link: LinkTiming::gen2_x8(),
            cable: LinkTiming::gen2_x8(),
            tx_buffer_beats: 64,
            stall_cycles: 50_000,
            avoid_cables: Vec::new(),
            host_read: RootComplexConfig::default().read_server,
            gpu: GpuConfig::default(),
            max_read_request: RootComplexConfig::default().max_read_request,
            dma_config: peach2_regmap::dma::CONFIG_RESET,
        }
    }
}

/// A cluster description.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Topology {
    /// Nodes; a node's id is its index.
    pub nodes: Vec<NodeSpec>,
    /// Cables.
    #[serde(default)]
    pub cables: Vec<CableSpec>,
    /// Parameters: the defaults, or what [`Topology::set_params`] gave, with the file's
    /// own `[params]` over them.
    #[serde(skip)]
    pub params: Params,
    /// The file's `[params]` as written.
    #[serde(default, rename = "params")]
    pub given: toml::Table,
}

/// Lays `top` over `base`: a key of both whose values are tables is merged the same way,
/// any other key of `top` replaces `base`'s.
fn overlay(base: &mut toml::Table, top: &toml::Table) {
    for (k, v) in top {
        match (base.get_mut(k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(t)) => overlay(b, t),
            _ => {
                base.insert(k.clone(), v.clone());
            }
        }
    }
}

/// A cable end resolved: node index and port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct End {
    /// Node index.
    pub node: usize,
    /// Port.
    pub port: Port,
}

fn ring(n: usize, offset: usize, name: &str, s_role: SRole) -> (Vec<NodeSpec>, Vec<CableSpec>) {
    let nodes = (0..n)
        .map(|i| NodeSpec {
            name: format!("{name}{}", offset + i),
            s_role,
            gpus: 1,
        })
        .collect();
    let cables = (0..n)
        .map(|i| CableSpec {
            a: format!("{name}{}.E", offset + i),
            b: format!("{name}{}.W", offset + (i + 1) % n),
        })
        .collect();
    (nodes, cables)
}

impl Topology {
    /// A preset: `ringN` (N nodes cabled E to W in a ring, N from 2 to 64: the chip's
    /// global address has room for 64 nodes), or `2xN` (two N-rings, N from 2 to 32, node
    /// i of ring A cabled S to S with node i of ring B; ring A's S ports are root
    /// complexes; `2x8` is the 16-node group of HA-PACS/TCA).
    pub fn preset(name: &str) -> Result<Self, SimError> {
        let size = |prefix: &str, max: usize| {
            name.strip_prefix(prefix)
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|n| (2..=max).contains(n))
        };
        let (nodes, cables) = if let Some(n) = size("ring", MAX_NODES) {
            ring(n, 0, "n", SRole::Ep)
        } else if let Some(n) = size("2x", MAX_NODES / 2) {
            let (mut nodes, mut cables) = ring(n, 0, "n", SRole::Rc);
            let (nb, cb) = ring(n, n, "n", SRole::Ep);
            nodes.extend(nb);
            cables.extend(cb);
            cables.extend((0..n).map(|i| CableSpec {
                a: format!("n{i}.S"),
                b: format!("n{}.S", i + n),
            }));
            (nodes, cables)
        } else {
            return Err(SimError::Topology(format!(
                "unknown preset {name:?} (ring2..ring{MAX_NODES}, 2x2..2x{}, or a TOML file)",
                MAX_NODES / 2
            )));
        };
        Ok(Self {
            nodes,
            cables,
            params: Params::default(),
            given: toml::Table::new(),
        })
    }

    /// Dateline routing: routes avoid every ring's wrap-around cable (an E port cabled to
    /// the W port of a node listed before it), which makes rings deadlock-free.
    pub fn with_dateline(mut self) -> Result<Self, SimError> {
        let cables = self.validate()?;
        self.params.avoid_cables = cables
            .iter()
            .enumerate()
            .filter(|(_, [a, b])| {
                let (e, w) = if a.port == Port::E { (a, b) } else { (b, a) };
                e.port == Port::E && w.port == Port::W && w.node <= e.node
            })
            .map(|(i, _)| i)
            .collect();
        Ok(self)
    }

    /// Routing by name: `dateline` ([`Topology::with_dateline`], deadlock-free, the
    /// default of the tools) or `shortest` (shortest paths, both ways round a ring: more
    /// bandwidth, but the chip has no virtual channels, so a ring under all-to-all
    /// traffic can deadlock on credits; kept for studying exactly that).
    pub fn with_routing(self, routing: &str) -> Result<Self, SimError> {
        match routing {
            "dateline" => self.with_dateline(),
            "shortest" => Ok(self),
            r => Err(SimError::Topology(format!(
                "unknown routing {r:?} (dateline, shortest)"
            ))),
        }
    }

    /// Parses a TOML topology.
    pub fn from_toml(text: &str) -> Result<Self, SimError> {
        let mut t: Self = toml::from_str(text).map_err(|e| SimError::Topology(e.to_string()))?;
        t.set_params(&Params::default())?;
        t.validate()?;
        Ok(t)
    }

    /// Takes `base` (a profile's parameters) with the file's own `[params]` laid over it,
    /// field by field and into nested tables. The routes' avoided cables stay.
    pub fn set_params(&mut self, base: &Params) -> Result<(), SimError> {
        let bad = |e: &dyn std::fmt::Display| SimError::Topology(format!("[params]: {e}"));
        let toml::Value::Table(mut merged) = toml::Value::try_from(base).map_err(|e| bad(&e))?
        else {
            return Err(bad(&"parameters are not a table"));
        };
        overlay(&mut merged, &self.given);
        let mut params: Params = toml::Value::Table(merged).try_into().map_err(|e| bad(&e))?;
        if !self.given.contains_key("avoid_cables") {
            params.avoid_cables = std::mem::take(&mut self.params.avoid_cables);
        }
        self.params = params;
        Ok(())
    }

    /// A preset name or a path to a TOML file.
    pub fn load(spec: &str) -> Result<Self, SimError> {
        if spec.ends_with(".toml") {
            let text = std::fs::read_to_string(spec).map_err(|e| SimError::Io {
                path: spec.to_string(),
                source: e,
            })?;
            Self::from_toml(&text)
        } else {
            Self::preset(spec)
        }
    }

    fn end(&self, s: &str) -> Result<End, SimError> {
        let bad = |why: &str| SimError::Topology(format!("cable end {s:?}: {why}"));
        let (node, port) = s
            .rsplit_once('.')
            .ok_or_else(|| bad("expected node.PORT"))?;
        let node = self
            .nodes
            .iter()
            .position(|n| n.name == node)
            .ok_or_else(|| bad("no such node"))?;
        let port = match port {
            "E" | "e" => Port::E,
            "W" | "w" => Port::W,
            "S" | "s" => Port::S,
            _ => return Err(bad("port must be E, W or S (N belongs to the host)")),
        };
        Ok(End { node, port })
    }

    /// Checks names, sizes and cable ends; returns the resolved cables.
    pub fn validate(&self) -> Result<Vec<[End; 2]>, SimError> {
        if self.nodes.is_empty() || self.nodes.len() > MAX_NODES {
            return Err(SimError::Topology(format!(
                "{} nodes: a cluster has 1..={MAX_NODES}",
                self.nodes.len()
            )));
        }
        let unknown = self.params.dma_config & !peach2_regmap::dma::config::MASK;
        if unknown != 0 {
            return Err(SimError::Topology(format!(
                "[params] dma_config {:#x}: bits {unknown:#x} are not DMA_CONFIG bits",
                self.params.dma_config
            )));
        }
        for (i, n) in self.nodes.iter().enumerate() {
            if self.nodes[..i].iter().any(|m| m.name == n.name) {
                return Err(SimError::Topology(format!("node {:?} twice", n.name)));
            }
            if n.gpus > 4 {
                return Err(SimError::Topology(format!(
                    "node {:?}: {} GPUs (0..=4)",
                    n.name, n.gpus
                )));
            }
        }
        let mut used: Vec<End> = Vec::new();
        let mut out = Vec::new();
        for c in &self.cables {
            let ends = [self.end(&c.a)?, self.end(&c.b)?];
            for e in ends {
                if used.contains(&e) {
                    return Err(SimError::Topology(format!(
                        "{}.{:?} has two cables",
                        self.nodes[e.node].name, e.port
                    )));
                }
                used.push(e);
            }
            out.push(ends);
        }
        Ok(out)
    }

    /// `routes[src][dst]`: the port `src` sends traffic for `dst` out of (`None` for
    /// itself or an unreachable node). Shortest paths; ties go S, then E, then W.
    pub fn routes(&self) -> Result<Vec<Vec<Option<Port>>>, SimError> {
        let cables = self.validate()?;
        let n = self.nodes.len();
        let mut adj = vec![Vec::new(); n];
        for (i, [a, b]) in cables.iter().enumerate() {
            if self.params.avoid_cables.contains(&i) {
                continue;
            }
            adj[a.node].push((a.port, b.node));
            adj[b.node].push((b.port, a.node));
        }
        let mut routes = vec![vec![None; n]; n];
        for dst in 0..n {
            let mut dist = vec![usize::MAX; n];
            dist[dst] = 0;
            let mut q = VecDeque::from([dst]);
            while let Some(u) = q.pop_front() {
                for &(_, v) in &adj[u] {
                    if dist[v] == usize::MAX {
                        dist[v] = dist[u] + 1;
                        q.push_back(v);
                    }
                }
            }
            for src in (0..n).filter(|&s| s != dst && dist[s] != usize::MAX) {
                routes[src][dst] = [Port::S, Port::E, Port::W].into_iter().find(|p| {
                    adj[src]
                        .iter()
                        .any(|&(q, v)| q == *p && dist[v] + 1 == dist[src])
                });
            }
        }
        Ok(routes)
    }

    /// Hops from `src` to `dst` following [`Topology::routes`].
    pub fn hops(&self, src: usize, dst: usize) -> Result<Option<usize>, SimError> {
        let (cables, routes) = (self.validate()?, self.routes()?);
        Ok(route_cables(&cables, &routes, src, dst).map(|crossed| crossed.len()))
    }
}

/// The cables (indices into `cables`, [`Topology::validate`]'s list, as the cluster
/// numbers them) that a packet from `src` to `dst` crosses, each chip forwarding it by
/// its `routes` entry for `dst` ([`Topology::routes`]); `None` if there is no route.
pub fn route_cables(
    cables: &[[End; 2]],
    routes: &[Vec<Option<Port>>],
    src: usize,
    dst: usize,
) -> Option<Vec<usize>> {
    let (mut at, mut crossed) = (src, Vec::new());
    while at != dst {
        let p = routes[at][dst]?;
        let (k, [a, b]) = cables
            .iter()
            .enumerate()
            .find(|(_, [a, b])| (a.node, a.port) == (at, p) || (b.node, b.port) == (at, p))
            .expect("a route leaves by a cable");
        at = if a.node == at && a.port == p {
            b.node
        } else {
            a.node
        };
        crossed.push(k);
    }
    Some(crossed)
}
