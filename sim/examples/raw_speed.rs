//! Speed of the raw Verilated core, without any cluster around it: one chip settling and
//! ticking with constant inputs (idle), and with random traffic on all ports.
//! `clocked_eval` says whether clock edges with unchanged inputs skip Verilator's input
//! region (see `VlCore::eval_clocked`).
//!
//! `cargo run --release -p peach2-sim --example raw_speed [cycles]`

use peach2_sim::chip::{reset, Chip, VlChip};
use peach2_sim::stimulus::RandomStimulus;
use peach2_sim::verilated::{VlContext, VlCore};
use std::time::Instant;

fn main() -> Result<(), peach2_sim::SimError> {
    let cycles: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let ctx = VlContext::new()?;
    let mut chip = VlChip::new(&ctx, "raw")?;
    reset(&mut chip, 2)?;
    let t = Instant::now();
    for _ in 0..cycles {
        chip.settle()?;
        chip.tick()?;
    }
    let idle = cycles as f64 / t.elapsed().as_secs_f64();
    let mut stim = RandomStimulus::new(1);
    let t = Instant::now();
    for _ in 0..cycles {
        stim.drive(&mut chip);
        chip.settle()?;
        stim.sample(&chip);
        chip.tick()?;
    }
    let busy = cycles as f64 / t.elapsed().as_secs_f64();
    println!(
        "{{\"raw_idle_cycles_per_s\":{idle:.0},\"raw_random_traffic_cycles_per_s\":{busy:.0},\"state_bytes\":{},\"clocked_eval\":{}}}",
        chip.core().state().len(),
        VlCore::has_clocked_eval()
    );
    Ok(())
}
