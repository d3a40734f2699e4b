//! Setting up a cluster as software does: every host enumerates its chip's N port and
//! its GPUs, the driver programs `NODE_ID`, `DMA_CONFIG` (`Params::dma_config`), the
//! target windows and the routes through BAR0 and reads a register back (posted writes
//! flushed), then the cables are plugged and the chips bring their ring links up by
//! themselves (RC ports configure their partners); the driver polls `PORT_STATUS` until
//! every cabled port is READY.

use crate::cluster::{Cluster, BAR0_BASE, BAR2_BASE, CHIP_BDF};
use crate::error::SimError;
use crate::node::Node;
use pcie_model::requester::{RequestHandle, RequestOutcome};
use pcie_model::root_complex::RootComplex;
use pcie_model::tlp::Bdf;
use peach2_regmap::address::Target;
use peach2_regmap::csr::{
    port_reg, port_status, route, target_lo, NODE_ID, PORT_STATUS, ROUTE_VALID, TARGET_ENABLE,
};

/// Local base of every node's host-memory window (in host memory above 4 GiB).
pub const HOST_WINDOW: u64 = 0x1_0000_0000;

/// Runs the cluster until `done` holds, at most `limit` cycles.
pub fn run_until(
    c: &mut Cluster,
    limit: u64,
    what: &str,
    mut done: impl FnMut(&mut Cluster) -> Result<bool, SimError>,
) -> Result<(), SimError> {
    let start = c.cycle;
    while !done(c)? {
        if c.cycle - start >= limit {
            return Err(SimError::BringUp(format!(
                "{what}: not done within {limit} cycles\n{}",
                c.describe()
            )));
        }
        c.step()?;
    }
    Ok(())
}

/// The root-complex port through which node `n`'s host enumerates its device `i` (0: the
/// chip, 1..: the GPUs).
fn enumerating_port(c: &mut Cluster, n: usize, i: usize) -> &mut RootComplex {
    let h = &mut c.nodes[n].host;
    if i == 0 {
        h.cpu()
    } else {
        h.gpu_cpu()
    }
}

/// Every host enumerates its chip, then its GPUs one by one; the hosts are independent,
/// so they all do it at once (bring-up then takes the same time for 2 nodes as for 64).
fn enumerate(c: &mut Cluster) -> Result<(), SimError> {
    let devices = 1 + c.nodes.iter().map(|n| n.host.gpus.len()).max().unwrap_or(0);
    for i in 0..devices {
        let targets: Vec<(usize, Bdf)> = (0..c.nodes.len())
            .filter_map(|n| match i {
                0 => Some((n, CHIP_BDF)),
                _ => c.nodes[n].host.gpus.get(i - 1).map(|g| (n, g.bdf)),
            })
            .collect();
        for &(n, bdf) in &targets {
            enumerating_port(c, n, i)
                .start_enumeration(bdf)
                .map_err(|e| SimError::BringUp(e.to_string()))?;
        }
        run_until(c, 20_000, "enumeration", |c| {
            Ok(targets
                .iter()
                .all(|&(n, _)| enumerating_port(c, n, i).enumeration_result().is_some()))
        })?;
        for &(n, bdf) in &targets {
            let dev = enumerating_port(c, n, i).enumeration_result().cloned();
            let node = &mut c.nodes[n];
            let dev = match dev {
                Some(Ok(d)) => d,
                other => {
                    return Err(SimError::BringUp(format!(
                        "{}: enumeration of {bdf}: {other:?}",
                        node.name
                    )))
                }
            };
            if i == 0 {
                let bars = (dev.bar(0).map(|b| b.base), dev.bar(2).map(|b| b.base));
                if bars != (Some(BAR0_BASE), Some(BAR2_BASE)) {
                    return Err(SimError::BringUp(format!(
                        "{}: chip BARs at {bars:x?}",
                        node.name
                    )));
                }
            } else {
                let bar = dev.bar(1).ok_or_else(|| {
                    SimError::BringUp(format!("{}: GPU {bdf} has no BAR 1", node.name))
                })?;
                node.host.gpus[i - 1].bar = Some((bar.base, bar.size));
            }
        }
    }
    Ok(())
}

/// Posted MMIO write of `values` at BAR0 offset `offset` of node `n`.
pub fn csr_write(c: &mut Cluster, n: usize, offset: u32, values: &[u32]) -> Result<(), SimError> {
    node_csr_write(&mut c.nodes[n], offset, values).map_err(|e| SimError::BringUp(e.to_string()))
}

/// Posted MMIO write of `values` at BAR0 offset `offset` by `node`'s CPU.
pub(crate) fn node_csr_write(
    node: &mut Node,
    offset: u32,
    values: &[u32],
) -> Result<(), pcie_model::root_complex::RcError> {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    node.host
        .cpu()
        .mmio_write(BAR0_BASE + u64::from(offset), &bytes)
}

/// MMIO read of the registers at `offsets` of every node in `nodes`; waits for all. In a
/// cluster spread over processes, each process reads its own nodes' and every process
/// gets every value.
pub fn csr_read_all(c: &mut Cluster, reads: &[(usize, u32)]) -> Result<Vec<u32>, SimError> {
    let mut handles: Vec<Option<RequestHandle>> = Vec::new();
    for &(n, off) in reads {
        if !c.is_local(n) {
            handles.push(None);
            continue;
        }
        let h = c.nodes[n]
            .host
            .cpu()
            .mmio_read(BAR0_BASE + u64::from(off), 4)
            .map_err(|e| SimError::BringUp(e.to_string()))?;
        handles.push(Some(h));
    }
    let mut out = vec![None; reads.len()];
    run_until(c, 20_000, "CSR reads", |c| {
        for (i, ((n, _), h)) in reads.iter().zip(&handles).enumerate() {
            if let (None, Some(h)) = (&out[i], h) {
                out[i] = c.nodes[*n].host.rc.take_result(*h);
            }
        }
        let mut waiting = [u64::from(
            out.iter()
                .zip(&handles)
                .any(|(o, h)| h.is_some() && o.is_none()),
        )];
        c.all_reduce(&mut waiting, true)?;
        Ok(waiting[0] == 0)
    })?;
    // Values, and 1 for a read that failed, from whichever process made it.
    let mut v = vec![0u64; 2 * reads.len()];
    let mut failures = Vec::new();
    for (i, (r, (n, off))) in out.into_iter().zip(reads).enumerate() {
        let Some(r) = r else { continue };
        match r.as_ref().ok().and_then(RequestOutcome::dword) {
            Some(w) => v[i] = u64::from(w),
            None => {
                v[reads.len() + i] = 1;
                failures.push(format!("node {n}: CSR read at {off:#x}: {r:?}"));
            }
        }
    }
    c.all_reduce(&mut v, false)?;
    if let Some(bad) = v[reads.len()..].iter().position(|f| *f != 0) {
        let (n, off) = reads[bad];
        return Err(SimError::BringUp(
            failures.into_iter().next().unwrap_or_else(|| {
                format!("node {n}: CSR read at {off:#x} failed in another process")
            }),
        ));
    }
    Ok(v[..reads.len()].iter().map(|x| *x as u32).collect())
}

/// Enumerates, programs, plugs and waits for every cabled port to be READY. Returns the
/// cycles bring-up took after plugging.
pub fn bring_up(c: &mut Cluster) -> Result<u64, SimError> {
    enumerate(c)?;
    let routes = c.topology.routes()?;
    for (n, node_routes) in routes.iter().enumerate() {
        let id = c.nodes[n].id;
        csr_write(c, n, NODE_ID, &[u32::from(id)])?;
        let dma_config = c.topology.params.dma_config;
        if dma_config != peach2_regmap::dma::CONFIG_RESET {
            csr_write(c, n, peach2_regmap::dma::CONFIG, &[dma_config])?;
        }
        let mut windows = vec![(Target::Host, HOST_WINDOW)];
        for (g, gpu) in c.nodes[n].host.gpus.iter().enumerate() {
            let (base, _) = gpu.bar.expect("enumerated");
            windows.push((Target::Gpu(g as u8), base));
        }
        for (t, base) in windows {
            let code = t.code() as u32;
            csr_write(
                c,
                n,
                target_lo(code),
                &[base as u32, (base >> 32) as u32, TARGET_ENABLE],
            )?;
        }
        for (dst, r) in node_routes.iter().enumerate() {
            if let Some(p) = r {
                let dst_id = u32::from(c.nodes[dst].id);
                csr_write(c, n, route(dst_id), &[ROUTE_VALID | p.index()])?;
            }
        }
    }
    let reads: Vec<_> = (0..c.nodes.len()).map(|n| (n, NODE_ID)).collect();
    let ids = csr_read_all(c, &reads)?;
    for (n, id) in ids.iter().enumerate() {
        if *id != u32::from(c.nodes[n].id) {
            return Err(SimError::BringUp(format!("node {n}: NODE_ID reads {id}")));
        }
    }
    c.plug_all();
    let plugged = c.cycle;
    let ends: Vec<_> = c.cables.iter().flat_map(|cab| cab.ends).collect();
    let ports: Vec<(usize, u32)> = ends
        .iter()
        .map(|e| (e.node, port_reg(e.port, PORT_STATUS)))
        .collect();
    loop {
        let st = csr_read_all(c, &ports)?;
        if st.iter().all(|s| s & port_status::READY != 0) {
            return Ok(c.cycle - plugged);
        }
        if c.cycle - plugged > 400_000 {
            let bad: Vec<String> = ends
                .iter()
                .zip(&st)
                .filter(|(_, s)| *s & port_status::READY == 0)
                .map(|(e, s)| format!("{}.{:?} status {s:#x}", c.nodes[e.node].name, e.port))
                .collect();
            return Err(SimError::BringUp(format!(
                "links not ready: {}",
                bad.join(", ")
            )));
        }
        for _ in 0..256 {
            c.step()?;
        }
    }
}
