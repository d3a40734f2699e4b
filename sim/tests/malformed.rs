//! A TLP whose length field disagrees with its beats is dropped whole by the chip on every
//! port and in every direction: never written into a register or memory, never
//! forwarded to the next chip; counted once in the ingress port's `ERRORS`; and the next
//! good TLP on the same path arrives.

use pcie_model::beats::{to_beats, Beat};
use pcie_model::tlp::{Addr, Bdf, Tag, Tlp};
use peach2_regmap::address::{GlobalAddr, Target};
use peach2_regmap::csr::{port_reg, Port, PORT_ERRORS, SCRATCH};
use peach2_sim::cluster::{Backend, Cluster, BAR0_BASE, BAR2_BASE};
use peach2_sim::setup::{bring_up, csr_read_all, csr_write, run_until};
use peach2_sim::topology::Topology;

/// The node every test TLP enters.
const NODE: usize = 1;

/// `MWr` of `dws` DWs at `addr`, with its length field changed to `length`.
fn mwr(addr: u64, dws: &[u32], length: u32) -> Vec<Beat> {
    let bytes: Vec<u8> = dws.iter().flat_map(|d| d.to_le_bytes()).collect();
    let tlp = Tlp::mem_write(Bdf(0x0100), Tag(0), Addr(addr), &bytes).unwrap();
    let mut beats = to_beats(&tlp);
    beats[0].data = (beats[0].data & !0x3ff) | u128::from(length & 0x3ff);
    beats
}

/// Where a TLP enters `NODE`'s port `p`: `(cable, side)` of the cable end facing it.
fn into_port(c: &Cluster, p: Port) -> (usize, usize) {
    c.cables
        .iter()
        .enumerate()
        .find_map(|(i, cab)| {
            (0..2).find_map(|s| {
                (cab.ends[1 - s].node == NODE && cab.ends[1 - s].port == p).then_some((i, s))
            })
        })
        .expect("the port is cabled")
}

fn inject(c: &mut Cluster, p: Port, beats: Vec<Beat>) {
    if p == Port::N {
        let now = c.cycle;
        c.nodes[NODE].n_link.ends[0].inject(now, beats);
    } else {
        let (cable, side) = into_port(c, p);
        c.inject(cable, side, beats).unwrap();
    }
}

fn errors(c: &mut Cluster, p: Port) -> u32 {
    csr_read_all(c, &[(NODE, port_reg(p, PORT_ERRORS))]).unwrap()[0]
}

/// Drains the writes delivered to every host.
fn delivered(c: &mut Cluster) -> Vec<(usize, Vec<u8>)> {
    let mut out = Vec::new();
    for (n, node) in c.nodes.iter_mut().enumerate() {
        for d in node.host.delivered.drain(..) {
            out.push((n, d.tlp.data().to_vec()));
        }
    }
    out
}

/// The address a TLP entering port `p` of `NODE` uses for node `dst`'s host memory (the
/// BAR2 view at N).
fn host_addr(p: Port, dst: u8, offset: u64) -> u64 {
    let g = GlobalAddr::new(dst, Target::Host, offset).unwrap().to_u64();
    if p == Port::N {
        BAR2_BASE + (g & (peach2_regmap::address::GLOBAL_SIZE - 1))
    } else {
        g
    }
}

#[test]
fn length_mismatches_are_dropped_on_every_port_and_direction() {
    let mut c = Cluster::new(Topology::preset("2x8").unwrap(), Backend::Verilated).unwrap();
    bring_up(&mut c).unwrap();
    delivered(&mut c);

    // The case: an MWr to SCRATCH with length 4 and 2 payload DWs.
    csr_write(&mut c, NODE, SCRATCH, &[0x1111_2222]).unwrap();
    let before = errors(&mut c, Port::N);
    inject(
        &mut c,
        Port::N,
        mwr(
            BAR0_BASE + u64::from(SCRATCH),
            &[0xbad0_bad0, 0xbad0_bad0],
            4,
        ),
    );
    let scratch = csr_read_all(&mut c, &[(NODE, SCRATCH)]).unwrap()[0];
    assert_eq!(scratch, 0x1111_2222, "SCRATCH must not change");
    assert_eq!(errors(&mut c, Port::N), before + 1);

    // Every ingress port, to this node's host (N) and on to other chips, more and fewer
    // DWs than the header says; then a good write on the same path.
    let onward = |p: Port| match p {
        Port::N | Port::W => 2,
        Port::E => 0,
        Port::S => 3,
    };
    for p in Port::ALL {
        let dsts: Vec<u8> = if p == Port::N {
            vec![onward(p)]
        } else {
            vec![NODE as u8, onward(p)]
        };
        for dst in dsts {
            for (dws, length) in [(6, 4), (2, 4), (5, 1), (9, 12)] {
                let before = errors(&mut c, p);
                let bad: Vec<u32> = (0..dws).map(|i| 0xbad0_0000 | i).collect();
                inject(&mut c, p, mwr(host_addr(p, dst, 0x100), &bad, length));
                let good = [0x600d_0000 | u32::from(dst), 0x600d_0001];
                inject(&mut c, p, mwr(host_addr(p, dst, 0x200), &good, 2));
                let mut got = Vec::new();
                run_until(&mut c, 20_000, "the good write", |c| {
                    got.extend(delivered(c));
                    Ok(!got.is_empty())
                })
                .unwrap();
                // Let anything else that might come arrive too.
                for _ in 0..2_000 {
                    c.step().unwrap();
                }
                got.extend(delivered(&mut c));
                let want: Vec<u8> = good.iter().flat_map(|d| d.to_le_bytes()).collect();
                assert_eq!(
                    got,
                    [(usize::from(dst), want)],
                    "{p:?} -> node {dst}, {dws} DWs with length {length}"
                );
                assert_eq!(errors(&mut c, p), before + 1, "ERRORS[{p:?}]");
            }
        }
    }
}
