//! What the real HA-PACS/TCA measured, as published: the figures the `ha-pacs` profile
//! is checked against (`tests/calibration.rs`) and that plots draw beside the simulated
//! curves. Each constant names its source (the seeds are the papers in `../shared/seeds`).

use crate::pingpong::Row;

/// Minimum DMA latency between adjacent nodes with descriptors in the chip, in us
/// (seed 001, figure 2; CPU or GPU memory alike).
pub const LATENCY_INTERNAL_DESC_US: f64 = 2.0;

/// The same with descriptors in host memory, in us (seed 001, figure 2).
pub const LATENCY_HOST_DESC_US: f64 = 2.2;

/// Peak DMA bandwidth from CPU memory, in GB/s (seed 001, figure 3).
pub const PEAK_CPU_GB_S: f64 = 3.5;

/// Peak DMA bandwidth from GPU memory, in GB/s (seed 001, figure 3).
pub const PEAK_GPU_GB_S: f64 = 2.8;

/// What each PEACH2 on a path adds to the latency, in ns: lowest and highest (the TCA
/// team's GTC 2014 talk, latency against the number of chips crossed).
pub const PER_HOP_NS: (f64, f64) = (200.0, 300.0);

/// Where [`GPU_PINGPONG`] comes from.
pub const GPU_PINGPONG_SOURCE: &str = "HA-PACS/TCA, GPU-to-GPU ping-pong between adjacent \
nodes with the TCA library of 2016-17 (tcaDMAUseInternal | tcaDMAUseNotifyInternal | \
tcaDMANotify | tcaDMANotifySelf), half the round trip, minimum of 8 runs";

/// GPU-to-GPU ping-pong on the real system ([`GPU_PINGPONG_SOURCE`]): bytes and the
/// one-way latency in us.
pub const GPU_PINGPONG: [(u64, f64); 14] = [
    (8, 2.01),
    (256, 2.01),
    (512, 2.04),
    (1 << 10, 2.09),
    (2 << 10, 2.18),
    (4 << 10, 3.54),
    (8 << 10, 4.95),
    (16 << 10, 7.93),
    (32 << 10, 14.4),
    (64 << 10, 26.6),
    (256 << 10, 102.1),
    (512 << 10, 201.7),
    (1 << 20, 447.7),
    (4 << 20, 1781.0),
];

/// [`GPU_PINGPONG`] as benchmark rows (bandwidth from latency, as the benchmark does).
pub fn gpu_pingpong_rows() -> Vec<Row> {
    GPU_PINGPONG
        .iter()
        .map(|&(bytes, latency_us)| Row::from_latency(bytes, latency_us))
        .collect()
}
