//! The exported core in an event-driven simulator: vectors recorded from the Verilated
//! core under [`RandomStimulus`] are replayed into `peach2_core.v` under Icarus Verilog,
//! which must produce the same outputs, cycle for cycle.
//!
//! Why: Verilator evaluates combinational blocks in a fixed order and settles what an
//! event-driven simulator (Icarus, ModelSim/Questa) may not, so a core that is correct
//! in Verilator can still hang or glitch there. Elaborating proves nothing; only
//! simulating traffic does.
//!
//! The stimulus reacts to the chip's outputs, so its inputs are recorded once, from the
//! Verilated core, together with the outputs it produced. Icarus replays the inputs; as
//! long as its outputs equal the recorded ones, the stimulus would have driven it the
//! same way, so the comparison is exact. A TX beat's data, `sop`, `eop` and `empty` are
//! compared while its `valid` is 1 (the rest of the time they are don't-cares); every
//! other output is compared every cycle, and an `x` or `z` counts as a difference.

use crate::chip::{Backend, Chip, VlChip};
use crate::error::SimError;
use crate::pins::{PinId, PortDir, PORTS};
use crate::stimulus::{compare_backends, Exercised};
use crate::verilated::VlContext;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Inputs and outputs of the core, one row per clock cycle, as the Verilated core saw
/// them just before each rising edge.
#[derive(Clone, Debug, Default)]
pub struct Vectors {
    /// Per cycle, every input but the clock, in [`PORTS`] order.
    pub inputs: Vec<Vec<u128>>,
    /// Per cycle, every output, in [`PORTS`] order.
    pub outputs: Vec<Vec<u128>>,
    /// What the stimulus exercised.
    pub exercised: Exercised,
}

/// Why an Icarus replay did not pass.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// `iverilog` or `vvp` is not installed.
    #[error("{0} is not installed (run scripts/setup.sh)")]
    ToolMissing(&'static str),
    /// `iverilog` rejected the design or the testbench.
    #[error("iverilog failed:\n{0}")]
    Compile(String),
    /// The simulation did not finish in time: a zero-delay loop keeps Icarus inside one
    /// time step, or the machine is far too slow.
    #[error("Icarus did not finish within {seconds} s (last progress: {progress}); a zero-delay loop between combinational blocks keeps an event-driven simulator inside one time step")]
    Timeout {
        /// The limit.
        seconds: u64,
        /// The last progress line the testbench printed.
        progress: String,
    },
    /// An output differs from the Verilated core's.
    #[error("Icarus differs from the Verilated core: {0}")]
    Mismatch(String),
    /// The testbench ended without its verdict.
    #[error("Icarus ended without a verdict:\n{0}")]
    NoVerdict(String),
    /// Recording the vectors failed.
    #[error(transparent)]
    Sim(#[from] SimError),
    /// Writing or reading the work files failed.
    #[error("{path}: {source}")]
    Io {
        /// File or folder concerned.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ReplayError + '_ {
    move |source| ReplayError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A [`Chip`] that passes everything to another and records its pins at every clock edge.
struct Recorder<'a> {
    chip: &'a mut dyn Chip,
    clk: PinId,
    vectors: Vectors,
}

impl Chip for Recorder<'_> {
    fn set(&mut self, pin: PinId, value: u128) {
        self.chip.set(pin, value);
    }
    fn get(&self, pin: PinId) -> u128 {
        self.chip.get(pin)
    }
    fn settle(&mut self) -> Result<(), SimError> {
        self.chip.settle()
    }
    fn tick(&mut self) -> Result<(), SimError> {
        let pins = |dir| {
            (0..PORTS.len())
                .filter(|&p| PORTS[p].dir == dir && p != self.clk)
                .map(|p| self.chip.get(p))
                .collect::<Vec<_>>()
        };
        let (inputs, outputs) = (pins(PortDir::In), pins(PortDir::Out));
        self.vectors.inputs.push(inputs);
        self.vectors.outputs.push(outputs);
        self.chip.tick()
    }
    fn backend(&self) -> Backend {
        self.chip.backend()
    }
}

/// Records `cycles` cycles of [`RandomStimulus`](crate::stimulus::RandomStimulus) from
/// `seed` on the Verilated core (reset included).
pub fn record(seed: u64, cycles: u64) -> Result<Vectors, SimError> {
    let ctx = VlContext::new()?;
    let mut chip = VlChip::new(&ctx, "record")?;
    // The stimulus drives two chips in lockstep; a second Verilated core costs little and
    // keeps one code path for every comparison.
    let mut twin = VlChip::new(&ctx, "twin")?;
    let mut rec = Recorder {
        chip: &mut chip,
        clk: crate::pins::core_pins()?.clk,
        vectors: Vectors::default(),
    };
    let exercised = compare_backends(&mut rec, &mut twin, seed, cycles)?
        .map_err(|d| SimError::Scenario(format!("two Verilated cores differ: {d}")))?;
    let mut v = rec.vectors;
    v.exercised = exercised;
    Ok(v)
}

fn concat(values: &[u128], widths: &[u32]) -> String {
    let mut bits: Vec<bool> = Vec::new();
    for (v, w) in values.iter().zip(widths) {
        for b in (0..*w).rev() {
            bits.push(v >> b & 1 == 1);
        }
    }
    while !bits.len().is_multiple_of(4) {
        bits.insert(0, false);
    }
    bits.chunks(4)
        .map(|c| {
            let n = c.iter().fold(0u8, |a, &b| a << 1 | u8::from(b));
            char::from_digit(u32::from(n), 16).unwrap_or('0')
        })
        .collect()
}

fn widths(dir: PortDir, clk: PinId) -> Vec<u32> {
    (0..PORTS.len())
        .filter(|&p| PORTS[p].dir == dir && p != clk)
        .map(|p| PORTS[p].width)
        .collect()
}

/// The `valid` pin that qualifies output `name` (`n_tx_data` -> `n_tx_valid`), if any.
fn qualifier(name: &str) -> Option<String> {
    let (port, field) = name.split_once("_tx_")?;
    matches!(field, "data" | "sop" | "eop" | "empty").then(|| format!("{port}_tx_valid"))
}

/// The Verilog testbench that replays `cycles` rows of `in.hex` into `top` and compares
/// its outputs with `out.hex` (generated from the port table).
pub fn testbench(top: &str, cycles: usize) -> String {
    let clk = crate::pins::core_pins().map(|p| p.clk).unwrap_or(0);
    let ins: Vec<usize> = (0..PORTS.len())
        .filter(|&p| PORTS[p].dir == PortDir::In && p != clk)
        .collect();
    let outs: Vec<usize> = (0..PORTS.len())
        .filter(|&p| PORTS[p].dir == PortDir::Out)
        .collect();
    let iw: u32 = ins.iter().map(|&p| PORTS[p].width).sum();
    let ow: u32 = outs.iter().map(|&p| PORTS[p].width).sum();
    let decl = |p: usize, kind: &str| {
        let w = PORTS[p].width;
        let range = if w > 1 {
            format!("[{}:0] ", w - 1)
        } else {
            String::new()
        };
        format!("  {kind} {range}{};\n", PORTS[p].name)
    };
    let mut v = String::new();
    let _ = writeln!(
        v,
        "// Generated by peach2-sim (sim/src/icarus.rs): replays vectors recorded from the\n\
         // Verilated core and compares every output, cycle by cycle.\n\
         `timescale 1ns/1ps\nmodule replay_tb;\n  localparam CYCLES = {cycles};"
    );
    let clk_name = PORTS[clk].name;
    let _ = writeln!(v, "  reg {clk_name} = 1'b0;");
    for &p in &ins {
        v.push_str(&decl(p, "reg"));
    }
    for &p in &outs {
        v.push_str(&decl(p, "wire"));
    }
    let _ = writeln!(
        v,
        "  reg [{}:0] vin [0:CYCLES-1];\n  reg [{}:0] vout [0:CYCLES-1];\n  reg [{}:0] want;\n  integer i, bad;",
        iw - 1,
        ow - 1,
        ow - 1
    );
    let conns: Vec<String> = std::iter::once(clk)
        .chain(ins.iter().copied())
        .chain(outs.iter().copied())
        .map(|p| format!(".{0}({0})", PORTS[p].name))
        .collect();
    let _ = writeln!(v, "  {top} dut({});", conns.join(", "));
    // Slices of the packed rows, first port in the most significant bits.
    let slices = |list: &[usize], total: u32| {
        let mut hi = total;
        list.iter()
            .map(|&p| {
                let w = PORTS[p].width;
                let s = (p, hi - 1, hi - w);
                hi -= w;
                s
            })
            .collect::<Vec<_>>()
    };
    let out_slices = slices(&outs, ow);
    let want_of = |name: &str| {
        out_slices
            .iter()
            .find(|(p, _, _)| PORTS[*p].name == name)
            .map(|(_, h, l)| format!("want[{h}:{l}]"))
    };
    let _ = writeln!(
        v,
        "  initial begin\n    $readmemh(\"in.hex\", vin);\n    $readmemh(\"out.hex\", vout);\n    bad = 0;\n    for (i = 0; i < CYCLES; i = i + 1) begin"
    );
    for (p, h, l) in slices(&ins, iw) {
        let _ = writeln!(v, "      {} = vin[i][{h}:{l}];", PORTS[p].name);
    }
    let _ = writeln!(v, "      want = vout[i];\n      #1;");
    for &(p, h, l) in &out_slices {
        let name = PORTS[p].name;
        let guard = qualifier(name)
            .and_then(|q| want_of(&q))
            .map(|w| format!("{w} && "))
            .unwrap_or_default();
        let _ = writeln!(
            v,
            "      if ({guard}{name} !== want[{h}:{l}]) begin\n        $display(\"MISMATCH cycle %0d: {name} = %h, Verilator %h\", i, {name}, want[{h}:{l}]);\n        bad = bad + 1;\n      end"
        );
    }
    let _ = writeln!(
        v,
        "      if (bad != 0) begin\n        $display(\"FAIL\");\n        $finish;\n      end\n      if (i % 1000 == 0) $display(\"PROGRESS %0d\", i);\n      {clk_name} = 1'b1;\n      #1;\n      {clk_name} = 1'b0;\n    end\n    $display(\"PASS %0d cycles\", CYCLES);\n    $finish;\n  end\nendmodule"
    );
    v
}

/// Seed of the stimulus `peach2 verilog --check` and `peach2 fpga open-flow` replay.
pub const CHECK_SEED: u64 = 0x5eed_0001;
/// Cycles they replay (about 2 s of Icarus).
pub const CHECK_CYCLES: u64 = 3_000;

/// Records [`CHECK_CYCLES`] cycles from [`CHECK_SEED`] on the Verilated core and replays
/// them into `core` under Icarus in `work`, with a limit of ten minutes: the check the
/// command-line tools run.
pub fn check(core: &Path, top: &str, work: &Path) -> Result<ReplayReport, ReplayError> {
    let v = record(CHECK_SEED, CHECK_CYCLES)?;
    replay(core, top, work, &v, Duration::from_secs(600))
}

/// What a passing replay did.
#[derive(Clone, Debug)]
pub struct ReplayReport {
    /// Cycles replayed and compared.
    pub cycles: usize,
    /// Wall-clock time of the Icarus simulation.
    pub sim_seconds: f64,
    /// What the stimulus exercised.
    pub exercised: Exercised,
}

fn tool(name: &'static str, cmd: &mut Command) -> Result<std::process::Child, ReplayError> {
    cmd.spawn().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => ReplayError::ToolMissing(name),
        _ => ReplayError::Io {
            path: PathBuf::from(name),
            source: e,
        },
    })
}

/// Replays `vectors` into `core` (the exported `peach2_core.v`) under Icarus in `work`,
/// with a wall-clock limit.
pub fn replay(
    core: &Path,
    top: &str,
    work: &Path,
    vectors: &Vectors,
    limit: Duration,
) -> Result<ReplayReport, ReplayError> {
    std::fs::create_dir_all(work).map_err(io(work))?;
    let clk = crate::pins::core_pins()?.clk;
    let (iw, ow) = (widths(PortDir::In, clk), widths(PortDir::Out, clk));
    let rows = |rows: &[Vec<u128>], w: &[u32]| {
        let mut s = String::new();
        for r in rows {
            s.push_str(&concat(r, w));
            s.push('\n');
        }
        s
    };
    let write = |name: &str, text: String| {
        let path = work.join(name);
        std::fs::write(&path, text).map_err(io(&path))
    };
    let cycles = vectors.inputs.len();
    write("in.hex", rows(&vectors.inputs, &iw))?;
    write("out.hex", rows(&vectors.outputs, &ow))?;
    write("replay_tb.v", testbench(top, cycles))?;
    let core = std::fs::canonicalize(core).map_err(io(core))?;
    let out = tool(
        "iverilog",
        Command::new("iverilog")
            .current_dir(work)
            .args([
                "-g2012",
                "-s",
                "replay_tb",
                "-o",
                "replay.vvp",
                "replay_tb.v",
            ])
            .arg(&core)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )?
    .wait_with_output()
    .map_err(io(work))?;
    if !out.status.success() {
        return Err(ReplayError::Compile(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    let log = work.join("replay.log");
    let log_file = std::fs::File::create(&log).map_err(io(&log))?;
    let t = Instant::now();
    let mut child = tool(
        "vvp",
        Command::new("vvp")
            .current_dir(work)
            .args(["-n", "replay.vvp"])
            .stdout(log_file)
            .stderr(Stdio::null()),
    )?;
    let finished = loop {
        if child.try_wait().map_err(io(work))?.is_some() {
            break true;
        }
        if t.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break false;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let text = std::fs::read_to_string(&log).map_err(io(&log))?;
    if !finished {
        let progress = text
            .lines()
            .rev()
            .find(|l| l.starts_with("PROGRESS"))
            .unwrap_or("none")
            .to_string();
        return Err(ReplayError::Timeout {
            seconds: limit.as_secs(),
            progress,
        });
    }
    if text.lines().any(|l| l.starts_with("FAIL")) {
        let diffs: Vec<&str> = text.lines().filter(|l| l.starts_with("MISMATCH")).collect();
        return Err(ReplayError::Mismatch(diffs.join("\n")));
    }
    if !text.lines().any(|l| l.starts_with("PASS")) {
        return Err(ReplayError::NoVerdict(text));
    }
    Ok(ReplayReport {
        cycles,
        sim_seconds: t.elapsed().as_secs_f64(),
        exercised: vectors.exercised,
    })
}
