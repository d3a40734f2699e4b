//! Speed of the raw Verilated core, without any cluster around it: one chip settling and
//! ticking with constant inputs (idle), and with random traffic on all ports.
//! `clocked_eval` says whether clock edges with unchanged inputs skip Verilator's input
//! region (see `VlCore::eval_clocked`). `peach2 bench sim-speed` also runs clusters.
//!
//! `cargo run --release -p peach2-sim --example raw_speed [cycles]`

fn main() -> Result<(), peach2_sim::SimError> {
    let cycles: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let r = peach2_sim::speed::raw(cycles)?;
    println!(
        "{{\"raw_idle_cycles_per_s\":{:.0},\"raw_random_traffic_cycles_per_s\":{:.0},\"state_bytes\":{},\"clocked_eval\":{}}}",
        r.idle_cycles_per_s, r.random_cycles_per_s, r.state_bytes, r.clocked_eval
    );
    Ok(())
}
