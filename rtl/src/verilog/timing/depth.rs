//! The longest register-to-register paths of a LUT-mapped netlist, read from Yosys'
//! `write_json`.
//!
//! Yosys' own `ltp -noff` is not used: it counts every cell as one level and runs
//! through memories (a path from a write port to the register after the read port is
//! one path to it), and it prints one path with Yosys' internal names. Here paths
//! start at flip-flop outputs, the registered read data of memories and primary
//! inputs, and end at every flip-flop input but the clock, every memory input and the
//! primary outputs; the names are the Verilog's.

use super::super::checks::CheckError;
use super::{TimingPath, CARRY_BITS_PER_LEVEL};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap, HashSet};

#[derive(Deserialize)]
struct Design {
    modules: HashMap<String, Module>,
}

#[derive(Deserialize)]
struct Module {
    #[serde(default)]
    ports: BTreeMap<String, Port>,
    #[serde(default)]
    cells: BTreeMap<String, Cell>,
    #[serde(default)]
    netnames: BTreeMap<String, Net>,
}

#[derive(Deserialize)]
struct Port {
    direction: String,
    bits: Vec<Bit>,
    #[serde(default)]
    offset: i64,
}

#[derive(Deserialize)]
struct Cell {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    parameters: HashMap<String, serde_json::Value>,
    #[serde(default)]
    port_directions: BTreeMap<String, String>,
    connections: BTreeMap<String, Vec<Bit>>,
}

#[derive(Deserialize)]
struct Net {
    #[serde(default)]
    hide_name: u8,
    bits: Vec<Bit>,
    #[serde(default)]
    offset: i64,
}

/// A net bit, or a constant ("0", "1", "x", "z").
#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[serde(untagged)]
enum Bit {
    Net(u64),
    #[allow(dead_code)] // constants start no path; their value is irrelevant here
    Const(char),
}

/// Combinational logic driving some bits: `cost` levels from its inputs.
struct Node {
    cost: u32,
    inputs: Vec<u64>,
}

/// Counts of the mapped netlist's cells.
#[derive(Default)]
pub(super) struct Counts {
    pub luts: u64,
    pub carry_chains: u64,
    pub flip_flops: u64,
    pub memories: u64,
}

/// What [`analyse`] finds.
pub(super) struct Analysis {
    pub worst: u32,
    /// The worst distinct paths, deepest first.
    pub paths: Vec<TimingPath>,
    /// Per depth above `limit`, deepest first: path-end bits, and their distinct
    /// signals (bit indices aside).
    pub over: Vec<(u32, usize, usize)>,
    /// Each of those signals: its deepest path and how many of its bits end a path
    /// above `limit`; deepest first, then by name.
    pub over_list: Vec<OverSignal>,
    /// Every signal the mapping kept a Verilog name of, with the deepest arrival among
    /// its bits (0 for a register's output), by name.
    pub named: Vec<(String, u32)>,
    pub counts: Counts,
}

/// A signal with path ends over the limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverSignal {
    /// Its deepest path: depth, start, end (the bit).
    pub worst: TimingPath,
    /// The signal, bit indices aside.
    pub signal: String,
    /// Its bits that end a path over the limit.
    pub bits: usize,
}

/// The worst depth, the worst `keep` distinct paths (one per start and end signal,
/// bit indices aside), the path ends deeper than `limit` and the cell counts of module
/// `top` in Yosys JSON `json`.
pub(super) fn analyse(
    json: &str,
    top: &str,
    keep: usize,
    limit: u32,
) -> Result<Analysis, CheckError> {
    let design: Design = serde_json::from_str(json).map_err(|e| reject(format!("{e}")))?;
    let module = design
        .modules
        .get(top)
        .ok_or_else(|| reject(format!("no module {top} in the netlist")))?;
    let names = NetNames::new(module);
    let mut graph = Graph::default();
    let mut counts = Counts::default();
    for cell in module.cells.values() {
        graph.add_cell(cell, &names, &mut counts)?;
    }
    // Inputs start paths as any undriven net does; outputs end them.
    for (name, port) in module.ports.iter().filter(|(_, p)| p.direction != "input") {
        for (i, bit) in nets(&port.bits) {
            let label = indexed(name, i, port.bits.len(), port.offset);
            graph.ends.push((bit, label));
        }
    }
    let arrival = graph.arrivals()?;
    let mut paths: Vec<TimingPath> = graph
        .ends
        .iter()
        .map(|(bit, end)| {
            let (start, way) = graph.trace(*bit, &arrival);
            TimingPath {
                depth: arrival.get(bit).copied().unwrap_or(0),
                start: graph
                    .starts
                    .get(&start)
                    .cloned()
                    .unwrap_or_else(|| names.of(start)),
                end: end.clone(),
                via: way
                    .into_iter()
                    .filter_map(|b| Some((arrival.get(&b).copied()?, names.verilog(b)?)))
                    .collect(),
            }
        })
        .collect();
    paths.sort_by(|a, b| (b.depth, &a.start, &a.end).cmp(&(a.depth, &b.start, &b.end)));
    let worst = paths.first().map_or(0, |p| p.depth);
    let mut over: BTreeMap<u32, (usize, HashSet<String>)> = BTreeMap::new();
    let mut over_signals: HashMap<String, OverSignal> = HashMap::new();
    // Deepest first: a signal's first path is its worst.
    for p in paths.iter().filter(|p| p.depth > limit) {
        let signal = base(&p.end);
        let (bits, signals) = over.entry(p.depth).or_default();
        *bits += 1;
        signals.insert(signal.clone());
        over_signals
            .entry(signal)
            .or_insert_with_key(|signal| OverSignal {
                worst: p.clone(),
                signal: signal.clone(),
                bits: 0,
            })
            .bits += 1;
    }
    let mut over_list: Vec<OverSignal> = over_signals.into_values().collect();
    over_list.sort_by(|a, b| (b.worst.depth, &a.signal).cmp(&(a.worst.depth, &b.signal)));
    let over = over
        .into_iter()
        .rev()
        .map(|(d, (bits, signals))| (d, bits, signals.len()))
        .collect();
    let mut named: BTreeMap<String, u32> = BTreeMap::new();
    for &bit in names.0.keys() {
        if let Some(label) = names.verilog(bit) {
            let depth = arrival.get(&bit).copied().unwrap_or(0);
            let deepest = named.entry(base(&label)).or_default();
            *deepest = (*deepest).max(depth);
        }
    }
    let mut seen = HashSet::new();
    paths.retain(|p| seen.insert((base(&p.start), base(&p.end))));
    paths.truncate(keep);
    Ok(Analysis {
        worst,
        paths,
        over,
        over_list,
        named: named.into_iter().collect(),
        counts,
    })
}

fn reject(output: String) -> CheckError {
    CheckError::Rejected {
        tool: "timing estimate",
        output,
    }
}

fn nets(bits: &[Bit]) -> impl Iterator<Item = (usize, u64)> + '_ {
    bits.iter().enumerate().filter_map(|(i, b)| match b {
        Bit::Net(n) => Some((i, *n)),
        Bit::Const(_) => None,
    })
}

fn indexed(name: &str, i: usize, width: usize, offset: i64) -> String {
    let name = name.strip_prefix('\\').unwrap_or(name);
    if width == 1 {
        name.to_string()
    } else {
        format!("{name}[{}]", i as i64 + offset)
    }
}

/// A signal's name without its bit index, to tell distinct paths apart.
fn base(label: &str) -> String {
    let mut out = String::with_capacity(label.len());
    let mut rest = label;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find(']') {
            Some(close) if after[..close].bytes().all(|c| c.is_ascii_digit()) => {
                rest = &after[close + 1..];
            }
            _ => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The readable name of each net bit: a Verilog name rather than one Yosys made up,
/// then the shortest.
struct NetNames(HashMap<u64, ((u8, bool, usize), String)>);

impl NetNames {
    fn new(module: &Module) -> Self {
        let mut best: HashMap<u64, ((u8, bool, usize), String)> = HashMap::new();
        for (name, net) in &module.netnames {
            for (i, bit) in nets(&net.bits) {
                let label = indexed(name, i, net.bits.len(), net.offset);
                let rank = (net.hide_name, name.starts_with('$'), label.len());
                match best.get(&bit) {
                    Some((r, l)) if (*r, l) <= (rank, &label) => {}
                    _ => {
                        best.insert(bit, (rank, label));
                    }
                }
            }
        }
        NetNames(best)
    }

    /// The bit's name if the Verilog gave it one (not one Yosys or ABC made up).
    fn verilog(&self, bit: u64) -> Option<String> {
        self.0
            .get(&bit)
            .filter(|((hidden, made_up, _), _)| *hidden == 0 && !made_up)
            .map(|(_, l)| l.clone())
    }

    fn of(&self, bit: u64) -> String {
        self.0
            .get(&bit)
            .map_or_else(|| format!("net {bit}"), |(_, l)| l.clone())
    }
}

#[derive(Default)]
struct Graph {
    nodes: Vec<Node>,
    /// Which node drives each combinationally driven bit.
    driver: HashMap<u64, usize>,
    /// Path starts with a name other than their net's (memory read data, black boxes).
    starts: HashMap<u64, String>,
    ends: Vec<(u64, String)>,
}

impl Graph {
    fn add_node(&mut self, cost: u32, inputs: Vec<u64>, outputs: impl Iterator<Item = u64>) {
        let id = self.nodes.len();
        self.nodes.push(Node { cost, inputs });
        for bit in outputs {
            self.driver.insert(bit, id);
        }
    }

    fn add_cell(
        &mut self,
        cell: &Cell,
        names: &NetNames,
        counts: &mut Counts,
    ) -> Result<(), CheckError> {
        let pins = |dir: &str| -> Vec<(&String, &Vec<Bit>)> {
            cell.connections
                .iter()
                .filter(|(p, _)| cell.port_directions.get(*p).map(String::as_str) == Some(dir))
                .collect()
        };
        let inputs = || -> Vec<u64> {
            pins("input")
                .into_iter()
                .flat_map(|(_, b)| nets(b).map(|(_, n)| n))
                .collect()
        };
        let outputs = || -> Vec<u64> {
            pins("output")
                .into_iter()
                .flat_map(|(_, b)| nets(b).map(|(_, n)| n))
                .collect()
        };
        let kind = cell.kind.as_str();
        if kind == "$lut" {
            counts.luts += 1;
            self.add_node(1, inputs(), outputs().into_iter());
        } else if kind == "$alu" {
            // A carry chain: one level for the LUTs in front of it, one more per
            // CARRY_BITS_PER_LEVEL bits of carry.
            counts.carry_chains += 1;
            let width = cell.connections.get("Y").map_or(1, Vec::len).max(1) as u32;
            self.add_node(
                1 + (width - 1) / CARRY_BITS_PER_LEVEL,
                inputs(),
                outputs().into_iter(),
            );
        } else if kind.starts_with("$_") && (kind.contains("DFF") || kind.contains("LATCH")) {
            counts.flip_flops += 1;
            let reg = cell
                .connections
                .get("Q")
                .and_then(|q| nets(q).next())
                .map_or_else(|| "a register".to_string(), |(_, q)| names.of(q));
            for (pin, bits) in pins("input") {
                let what = match pin.as_str() {
                    "C" => continue,
                    "D" => String::new(),
                    "E" => " (enable)".to_string(),
                    "R" => " (reset)".to_string(),
                    "S" => " (set)".to_string(),
                    other => format!(" ({other})"),
                };
                for (_, bit) in nets(bits) {
                    self.ends.push((bit, format!("{reg}{what}")));
                }
            }
        } else if kind == "$mem_v2" {
            counts.memories += 1;
            self.add_memory(cell)?;
        } else if kind.starts_with('$') {
            return Err(reject(format!("cell type {kind} is not modelled")));
        } else {
            // A black box (a hard IP): its ports are registered boundaries.
            for bit in inputs() {
                self.ends.push((bit, format!("{kind} input")));
            }
            for bit in outputs() {
                self.starts.insert(bit, format!("{kind} output"));
            }
        }
        Ok(())
    }

    /// Clocked read ports start paths; an asynchronous read port is a mux tree of
    /// 4:1 muxes (one 6-input LUT each) from its address to its data. Every input ends
    /// a path.
    fn add_memory(&mut self, cell: &Cell) -> Result<(), CheckError> {
        let param = |name: &str| -> String {
            match cell.parameters.get(name) {
                Some(serde_json::Value::String(s)) => s.clone(),
                Some(v) => v.to_string(),
                None => String::new(),
            }
        };
        let number = |name: &str| -> Result<usize, CheckError> {
            let text = param(name);
            usize::from_str_radix(&text, 2)
                .or_else(|_| text.parse())
                .map_err(|_| reject(format!("memory parameter {name} = {text:?}")))
        };
        let mem = param("MEMID");
        let mem = mem.strip_prefix('\\').unwrap_or(&mem).to_string();
        let (ports, abits, width, size) = (
            number("RD_PORTS")?,
            number("ABITS")?,
            number("WIDTH")?,
            number("SIZE")?,
        );
        // RD_CLK_ENABLE has one bit per port, port 0 last.
        let clocked: Vec<bool> = param("RD_CLK_ENABLE")
            .chars()
            .rev()
            .map(|c| c == '1')
            .collect();
        let empty = Vec::new();
        let conn = |p: &str| cell.connections.get(p).unwrap_or(&empty);
        let levels = (usize::BITS - size.max(2).saturating_sub(1).leading_zeros()).div_ceil(2);
        for port in 0..ports {
            let data: Vec<u64> = nets(
                conn("RD_DATA")
                    .get(port * width..(port + 1) * width)
                    .unwrap_or(&[]),
            )
            .map(|(_, n)| n)
            .collect();
            if clocked.get(port).copied().unwrap_or(false) {
                for bit in data {
                    self.starts.insert(bit, format!("{mem} (read data)"));
                }
            } else {
                let addr: Vec<u64> = nets(
                    conn("RD_ADDR")
                        .get(port * abits..(port + 1) * abits)
                        .unwrap_or(&[]),
                )
                .map(|(_, n)| n)
                .collect();
                self.add_node(levels, addr, data.into_iter());
            }
        }
        for (pin, what) in [
            ("WR_ADDR", "write address"),
            ("WR_DATA", "write data"),
            ("WR_EN", "write enable"),
            ("RD_EN", "read enable"),
            ("RD_SRST", "read reset"),
            ("RD_ARST", "read reset"),
        ] {
            for (_, bit) in nets(conn(pin)) {
                self.ends.push((bit, format!("{mem} ({what})")));
            }
        }
        for port in (0..ports).filter(|p| clocked.get(*p).copied().unwrap_or(false)) {
            for (_, bit) in nets(
                conn("RD_ADDR")
                    .get(port * abits..(port + 1) * abits)
                    .unwrap_or(&[]),
            ) {
                self.ends.push((bit, format!("{mem} (read address)")));
            }
        }
        Ok(())
    }

    /// Each driven bit's depth in LUT levels from the nearest path start. Fails on a
    /// combinational loop.
    fn arrivals(&self) -> Result<HashMap<u64, u32>, CheckError> {
        let mut depth: Vec<Option<u32>> = vec![None; self.nodes.len()];
        let mut on_stack = vec![false; self.nodes.len()];
        for root in 0..self.nodes.len() {
            let mut stack = vec![(root, 0usize)];
            while let Some(&(node, next)) = stack.last() {
                if depth[node].is_some() {
                    stack.pop();
                    continue;
                }
                on_stack[node] = true;
                let inputs = &self.nodes[node].inputs;
                if let Some(&bit) = inputs.get(next) {
                    let top = stack.len() - 1;
                    stack[top].1 += 1;
                    if let Some(&d) = self.driver.get(&bit) {
                        if on_stack[d] && depth[d].is_none() {
                            return Err(reject(format!("combinational loop through net {bit}")));
                        }
                        if depth[d].is_none() {
                            stack.push((d, 0));
                        }
                    }
                    continue;
                }
                let deepest = inputs
                    .iter()
                    .filter_map(|b| self.driver.get(b).and_then(|&d| depth[d]))
                    .max()
                    .unwrap_or(0);
                depth[node] = Some(deepest + self.nodes[node].cost);
                on_stack[node] = false;
                stack.pop();
            }
        }
        Ok(self
            .driver
            .iter()
            .map(|(&bit, &node)| (bit, depth[node].unwrap_or(0)))
            .collect())
    }

    /// Walks back from `bit` along the deepest inputs to a path start: the start, and
    /// the bits on the way in order from it (the start not among them, `bit` last).
    fn trace(&self, mut bit: u64, arrival: &HashMap<u64, u32>) -> (u64, Vec<u64>) {
        let mut way = Vec::new();
        while let Some(&node) = self.driver.get(&bit) {
            let deepest = self.nodes[node]
                .inputs
                .iter()
                .copied()
                .max_by_key(|b| (arrival.get(b).copied().unwrap_or(0), std::cmp::Reverse(*b)));
            let Some(b) = deepest else { break };
            way.push(bit);
            bit = b;
        }
        way.reverse();
        (bit, way)
    }
}
