//! The ping-pong benchmark of the paper's figures 2 and 3, through the driver.
//!
//! Node A DMAs `size` bytes into node B's buffer with a receiver notification; B waits
//! for it (polling its slot) and DMAs the bytes back the same way; A waits. Latency is
//! half the round trip, from A's start to A seeing B's notification; bandwidth is
//! `size / latency`. Chains are set once per size (descriptor creation is not timed, as
//! in the paper), and each size runs one untimed warm-up round and `iters` timed ones.
//! After the last round, B's buffer is checked byte for byte against A's data.

use crate::profile::Profile;
use crate::sim_backend::{SimDevice, SimSystem};
use pcie_model::time::Clock;
use peach2_driver::{DescList, MemKind, NotifyPlace, Placement, Tca, TcaError, Wait};
use peach2_sim::topology::Topology;
use peach2_sim::SimError;

/// Where the ping-pong buffers live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mem {
    /// Host memory.
    Cpu,
    /// GPU 0's memory.
    Gpu,
}

/// One ping-pong run.
#[derive(Clone, Debug)]
pub struct PingPong {
    /// The cluster.
    pub topology: Topology,
    /// Node A.
    pub src: usize,
    /// Node B.
    pub dst: usize,
    /// Buffer memory.
    pub mem: Mem,
    /// Descriptor placement.
    pub desc: Placement,
    /// Where the receiver's notification lands (host memory, or its chip's store).
    pub notify: NotifyPlace,
    /// Transfer sizes in bytes.
    pub sizes: Vec<u64>,
    /// Timed rounds per size.
    pub iters: u32,
    /// Model parameters.
    pub profile: Profile,
    /// Longest window the nodes run apart (`None`: the lookahead; 1: one cycle at a
    /// time, the sequential reference). The figures are the same for any.
    pub window_limit: Option<u64>,
}

/// One size's result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Row {
    /// Bytes per transfer.
    pub bytes: u64,
    /// One-way latency in microseconds (half the mean round trip).
    pub latency_us: f64,
    /// `bytes / latency` in GB/s (10^9 bytes per second).
    pub bandwidth_gb_s: f64,
    /// Mean round trip in core cycles.
    pub round_trip_cycles: f64,
}

impl Row {
    /// The row of a `bytes` transfer with one-way latency `latency_us`.
    pub fn from_latency(bytes: u64, latency_us: f64) -> Row {
        Row {
            bytes,
            latency_us,
            bandwidth_gb_s: bytes as f64 / (latency_us * 1e3),
            round_trip_cycles: 2.0 * latency_us * CORE.cycles_per_us(),
        }
    }
}

/// Why a benchmark run failed.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// Bad parameters.
    #[error("{0}")]
    Config(String),
    /// The cluster could not be built or brought up.
    #[error(transparent)]
    Sim(#[from] SimError),
    /// A driver call failed.
    #[error(transparent)]
    Driver(#[from] TcaError),
    /// The data that arrived is not the data sent.
    #[error("{bytes}-byte transfer: byte {at} arrived as {got:#04x}, sent {want:#04x}{}",
        if *.early { " (DMA_CONFIG.NOTIFY_AT_LAST_READ is set: a notification can come \
            before its data, and node B sends back the buffer it is still receiving)" } else { "" })]
    Mismatch {
        /// Transfer size.
        bytes: u64,
        /// First wrong byte.
        at: usize,
        /// What arrived.
        got: u8,
        /// What was sent.
        want: u8,
        /// The chips notify at their last read (`Params::dma_config`), which explains it.
        early: bool,
    },
}

/// The chip's clock, which the benchmark's cycles count.
const CORE: Clock = Clock::CORE_250MHZ;

/// The default sizes: 8 B to 4 MiB in powers of two.
pub fn default_sizes() -> Vec<u64> {
    (3..=22).map(|s| 1u64 << s).collect()
}

fn parse_size(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let (num, mul) = match s.char_indices().last() {
        Some((i, 'K' | 'k')) => (&s[..i], 1 << 10),
        Some((i, 'M' | 'm')) => (&s[..i], 1 << 20),
        _ => (s, 1),
    };
    num.parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(mul))
        .filter(|n| *n > 0)
        .ok_or_else(|| format!("bad size '{s}': a positive number, optionally with K or M"))
}

/// Parses `8..4M` (powers of two from the first to the last) or a list `8,100,1K`.
pub fn parse_sizes(spec: &str) -> Result<Vec<u64>, String> {
    if let Some((a, b)) = spec.split_once("..") {
        let (a, b) = (parse_size(a)?, parse_size(b)?);
        if a > b {
            return Err(format!("empty size range {spec}"));
        }
        let mut v = Vec::new();
        let mut s = a;
        while s <= b {
            v.push(s);
            s = s.checked_mul(2).ok_or("size range overflows")?;
        }
        return Ok(v);
    }
    spec.split(',').map(parse_size).collect()
}

/// Runs the benchmark; `progress(done, total)` is called after each size.
pub fn run(cfg: &PingPong, progress: &mut dyn FnMut(usize, usize)) -> Result<Vec<Row>, BenchError> {
    run_counted(cfg, progress).map(|(rows, _)| rows)
}

/// [`run`], with the cycles the cluster ran in all (bring-up included).
pub fn run_counted(
    cfg: &PingPong,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<(Vec<Row>, u64), BenchError> {
    let n = cfg.topology.nodes.len();
    if cfg.src >= n || cfg.dst >= n || cfg.src == cfg.dst {
        return Err(BenchError::Config(format!(
            "--src-node and --dst-node must be two different nodes of 0..{n}"
        )));
    }
    if cfg.sizes.is_empty() || cfg.iters == 0 {
        return Err(BenchError::Config(
            "need at least one size and one iteration".into(),
        ));
    }
    let kind = match cfg.mem {
        Mem::Cpu => MemKind::Host,
        Mem::Gpu => {
            if [cfg.src, cfg.dst]
                .iter()
                .any(|&i| cfg.topology.nodes[i].gpus == 0)
            {
                return Err(BenchError::Config(
                    "--mem gpu needs a GPU on both nodes".into(),
                ));
            }
            MemKind::Gpu(0)
        }
    };
    let limit = cfg.window_limit;
    let sys = SimSystem::with_setup(cfg.topology.clone(), &cfg.profile, |c| match limit {
        Some(w) => c.set_window_limit(w),
        None => Ok(()),
    })?
    .shared();
    let mut a = Tca::open(
        SimDevice::new(&sys, cfg.src)?,
        SimDevice::new(&sys, cfg.src)?,
    )?;
    let mut b = Tca::open(
        SimDevice::new(&sys, cfg.dst)?,
        SimDevice::new(&sys, cfg.dst)?,
    )?;
    let max = *cfg.sizes.iter().max().expect("non-empty");
    let buf_a = a.malloc(max, kind)?;
    let buf_b = b.malloc(max, kind)?;
    let data: Vec<u8> = (0..max).map(|i| (i ^ (i >> 8) ^ (i >> 16)) as u8).collect();
    a.write(&buf_a, 0, &data)?;
    b.write(&buf_b, 0, &vec![0; max as usize])?;
    let (ha, hb) = (a.create_handle(&buf_a)?, b.create_handle(&buf_b)?);
    let wait = Wait { slot: 0, tag: 1 };
    a.set_notify_poll(cfg.notify);
    b.set_notify_poll(cfg.notify);
    let now = || sys.borrow().cluster.cycle;
    let mut rows = Vec::new();
    for (k, &size) in cfg.sizes.iter().enumerate() {
        let mut la = DescList::new();
        la.memcpy(&hb, 0, &ha, 0, size, Some(wait))
            .notify_in(cfg.notify);
        a.set_chain(0, &la, cfg.desc)?;
        let mut lb = DescList::new();
        lb.memcpy(&ha, 0, &hb, 0, size, Some(wait))
            .notify_in(cfg.notify);
        b.set_chain(0, &lb, cfg.desc)?;
        let mut total = 0;
        for round in 0..=cfg.iters {
            let t0 = now();
            a.start(0)?;
            b.wait_recv(a.node(), wait.slot, wait.tag)?;
            b.start(0)?;
            a.wait_recv(b.node(), wait.slot, wait.tag)?;
            if round > 0 {
                total += now() - t0;
            }
            a.wait_dmac(0)?;
            b.wait_dmac(0)?;
        }
        let mut got = vec![0u8; size as usize];
        b.read(&buf_b, 0, &mut got)?;
        if let Some(at) = got.iter().zip(&data).position(|(g, w)| g != w) {
            return Err(BenchError::Mismatch {
                bytes: size,
                at,
                got: got[at],
                want: data[at],
                early: sys.borrow().cluster.topology.params.dma_config
                    & peach2_regmap::dma::config::NOTIFY_AT_LAST_READ
                    != 0,
            });
        }
        let rt = total as f64 / f64::from(cfg.iters);
        rows.push(Row::from_latency(size, rt / 2.0 / CORE.cycles_per_us()));
        progress(k + 1, cfg.sizes.len());
    }
    let cycles = now();
    Ok((rows, cycles))
}

/// The rows as CSV with the header `bytes,latency_us,bandwidth_gb_s`.
pub fn csv(rows: &[Row]) -> String {
    let mut s = String::from("bytes,latency_us,bandwidth_gb_s\n");
    for r in rows {
        s += &format!("{},{:.3},{:.3}\n", r.bytes, r.latency_us, r.bandwidth_gb_s);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_as_ranges_and_lists() {
        assert_eq!(parse_sizes("8..64").unwrap(), vec![8, 16, 32, 64]);
        assert_eq!(parse_sizes("1K,3,2M").unwrap(), vec![1024, 3, 2 << 20]);
        assert_eq!(default_sizes().len(), 20);
        assert_eq!(*default_sizes().last().unwrap(), 4 << 20);
        for bad in ["", "0", "x", "64..8", "5Q", "-1"] {
            assert!(parse_sizes(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn csv_has_the_documented_columns() {
        let rows = [Row {
            bytes: 8,
            latency_us: 2.0,
            bandwidth_gb_s: 0.004,
            round_trip_cycles: 1000.0,
        }];
        assert_eq!(
            csv(&rows),
            "bytes,latency_us,bandwidth_gb_s\n8,2.000,0.004\n"
        );
    }
}
