//! The README's account of what costs simulated time restates the `ha-pacs` profile's
//! values (`testbench/src/profile.rs`): they must be the profile's, so a profile change
//! that the README misses fails here.

use pcie_model::time::{Clock, Cycles};
use peach2_testbench::profile::{Profile, TransferCost};

#[test]
fn the_readmes_costs_are_the_ha_pacs_profiles() {
    // README prose wraps anywhere: compare with single spaces.
    let readme = include_str!("../../README.md")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let p = Profile::ha_pacs();
    let core = Clock::CORE_250MHZ;
    let ns = |c: u64| core.to_picos(Cycles(c)).0 / 1000;
    let us = |c: u64| core.micros(Cycles(c));
    let gb_s = |per_kcycle: u64| per_kcycle as f64 / 1000.0 * (core.hz() as f64 / 1e9);
    // "NAME (LATENCY us + RATE GB/s": a transfer cost as the README writes it.
    let transfer = |name: &str, c: &TransferCost, after: &str| {
        format!(
            "{name} ({} us + {} GB/s{after}",
            us(c.latency),
            gb_s(c.bytes_per_kcycle)
        )
    };
    let sw = &p.software;
    let want = [
        format!(
            "Nothing crosses a cable faster than its latency ({} cycles, {} ns, in the `ha-pacs` profile)",
            p.params.cable.latency_cycles().0,
            ns(p.params.cable.latency_cycles().0)
        ),
        format!(
            "the CPU costs of the profile: {} ns between core and root port each way",
            ns(p.cpu.uncached_leg)
        ),
        format!(
            "it costs the core {} ns per 64-byte line and reaches the root port {} ns later",
            ns(p.cpu.store_line),
            ns(p.cpu.uncached_leg)
        ),
        format!(
            "a poll of host memory a {} ns cache hit until the DMA writes the word, then an {} ns DRAM miss",
            ns(p.cpu.poll_hit),
            ns(p.cpu.poll_miss)
        ),
        transfer("MPI messages", &sw.mpi, " each"),
        transfer("CUDA copies", &sw.cuda_copy, ")"),
    ];
    let missing: Vec<&String> = want
        .iter()
        .filter(|w| !readme.contains(w.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "README.md does not say (or says otherwise):\n{missing:#?}"
    );
}
