//! Topology files and presets: parsing, typed errors, routes.

use peach2_regmap::csr::Port;
use peach2_sim::topology::{SRole, Topology};
use peach2_sim::SimError;

const TRIANGLE: &str = r#"
[[nodes]]
name = "a"
s_role = "rc"
gpus = 2
[[nodes]]
name = "b"
[[nodes]]
name = "c"
[[cables]]
a = "a.E"
b = "b.W"
[[cables]]
a = "b.E"
b = "c.W"
[[cables]]
a = "c.E"
b = "a.W"
[[cables]]
a = "a.S"
b = "b.S"
[params]
tx_buffer_beats = 32
stall_cycles = 1000
"#;

#[test]
fn toml_topology_parses_and_routes() {
    let t = Topology::from_toml(TRIANGLE).unwrap();
    assert_eq!(t.nodes[0].s_role, SRole::Rc);
    assert_eq!(t.nodes[1].s_role, SRole::Ep);
    assert_eq!(t.nodes[0].gpus, 2);
    assert_eq!(t.params.tx_buffer_beats, 32);
    let r = t.routes().unwrap();
    // a reaches b over S (preferred on a tie), c over W; b reaches c over E.
    assert_eq!(r[0][1], Some(Port::S));
    assert_eq!(r[0][2], Some(Port::W));
    assert_eq!(r[1][2], Some(Port::E));
    assert_eq!(r[0][0], None);
}

#[test]
fn bad_topologies_are_typed_errors() {
    let cases = [
        ("[[nodes]]\nname = \"a\"\n[[cables]]\na = \"a.E\"\nb = \"z.W\"\n", "no such node"),
        ("[[nodes]]\nname = \"a\"\n[[nodes]]\nname = \"b\"\n[[cables]]\na = \"a.N\"\nb = \"b.W\"\n", "N belongs"),
        ("[[nodes]]\nname = \"a\"\n[[nodes]]\nname = \"a\"\n", "twice"),
        ("[[nodes]]\nname = \"a\"\ngpus = 5\n", "GPUs"),
        ("[[nodes]]\nname = \"a\"\ncolour = 1\n", "unknown field"),
        ("[[nodes]]\nname = \"a\"\n[[nodes]]\nname = \"b\"\n[[cables]]\na = \"a.E\"\nb = \"b.W\"\n[[cables]]\na = \"a.E\"\nb = \"b.S\"\n", "two cables"),
    ];
    for (text, want) in cases {
        match Topology::from_toml(text) {
            Err(SimError::Topology(m)) => assert!(m.contains(want), "{want}: {m}"),
            other => panic!("{want}: {other:?}"),
        }
    }
    for bad in ["ring65", "2x33", "2x1", "ring", "3x4"] {
        assert!(
            matches!(Topology::preset(bad), Err(SimError::Topology(_))),
            "{bad}"
        );
    }
    assert!(matches!(
        Topology::preset("ring1"),
        Err(SimError::Topology(_))
    ));
}

#[test]
fn presets_have_the_documented_shape() {
    for n in 2..=64 {
        let t = Topology::preset(&format!("ring{n}")).unwrap();
        assert_eq!((t.nodes.len(), t.cables.len()), (n, n));
        let far = (0..n)
            .map(|d| t.hops(0, d).unwrap().unwrap())
            .max()
            .unwrap();
        assert_eq!(far, n / 2);
    }
    for n in 2..=32 {
        let g = Topology::preset(&format!("2x{n}")).unwrap();
        assert_eq!((g.nodes.len(), g.cables.len()), (2 * n, 3 * n));
        g.routes().unwrap();
    }
    let g = Topology::preset("2x8").unwrap();
    assert_eq!((g.nodes.len(), g.cables.len()), (16, 24));
    assert!(g.nodes[..8].iter().all(|n| n.s_role == SRole::Rc));
    assert!(g.nodes[8..].iter().all(|n| n.s_role == SRole::Ep));
    let d = g.clone().with_dateline().unwrap();
    assert_eq!(d.params.avoid_cables, vec![7, 15]);
    // With the dateline, node 7 reaches node 0 the long way round.
    assert_eq!(d.hops(7, 0).unwrap(), Some(7));
    assert_eq!(g.hops(7, 0).unwrap(), Some(1));
}

/// A file gives only the parameters it changes, nested fields included; everything else
/// comes from the parameters the topology gets (a profile's), and the file wins.
#[test]
fn a_files_params_lie_over_the_profiles_field_by_field() {
    use pcie_model::link::timing::LinkTiming;
    use pcie_model::time::Picos;
    use peach2_sim::topology::Params;
    let text = format!("{TRIANGLE}cable = {{ cable_latency = 20000 }}\n");
    let mut t = Topology::from_toml(&text).unwrap();
    let gen2 = LinkTiming::gen2_x8();
    assert_eq!(t.params.cable.cable_latency, Picos::from_ns(20));
    assert_eq!(
        t.params.cable.tx_latency, gen2.tx_latency,
        "left out: the default"
    );
    assert_eq!(t.params.host_link, gen2, "host links have their own timing");

    let mut profile = Params::default();
    profile.host_link.tx_latency = Picos::from_ns(40);
    profile.cable.tx_latency = Picos::from_ns(40);
    profile.cable.cable_latency = Picos::from_ns(5);
    profile.tx_buffer_beats = 99;
    t = t.with_dateline().unwrap();
    let avoided = t.params.avoid_cables.clone();
    t.set_params(&profile).unwrap();
    assert_eq!(
        t.params.cable.cable_latency,
        Picos::from_ns(20),
        "the file's"
    );
    assert_eq!(
        t.params.cable.tx_latency,
        Picos::from_ns(40),
        "the profile's"
    );
    assert_eq!(t.params.host_link.tx_latency, Picos::from_ns(40));
    assert_eq!(t.params.tx_buffer_beats, 32, "the file's");
    assert_eq!(t.params.avoid_cables, avoided, "routing stays");

    let bad = format!("{TRIANGLE}cable = {{ cable_latncy = 1 }}\n");
    assert!(matches!(
        Topology::from_toml(&bad),
        Err(SimError::Topology(m)) if m.contains("cable_latncy")
    ));
}

/// A TOML file cannot name the register map's constants, so the example that sets
/// `DMA_CONFIG` spells a number: it must be the bit its comment names.
#[test]
fn the_notify_at_last_read_example_sets_that_bit() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/topologies/ring2-notify-at-last-read.toml"
    );
    let t = Topology::load(path).unwrap();
    assert_eq!(
        t.params.dma_config,
        peach2_regmap::dma::config::NOTIFY_AT_LAST_READ
    );
}
