//! The exported core: deterministic, named and ported as documented, lint-clean under
//! Verilator -Wall (with the waiver file), and elaborated by Icarus. (Yosys synthesis of
//! the whole core runs in the FPGA open flow's test.)

use peach2_regmap::csr::Port;
use peach2_rtl::verilog::assign_once::multiply_assigned;
use peach2_rtl::verilog::checks::{iverilog_elaborate, scratch_dir, verilator_lint};
use peach2_rtl::verilog::export::{core_verilog, write_core, CORE_MODULE};

#[test]
fn export_is_deterministic_and_has_the_documented_ports() {
    let a = core_verilog();
    let b = core_verilog();
    assert_eq!(a, b, "two exports of the same design differ");
    let header = a
        .lines()
        .find(|l| l.starts_with(&format!("module {CORE_MODULE}(")))
        .expect("top module peach2_core");
    let ports: Vec<&str> = header
        .trim_start_matches(&format!("module {CORE_MODULE}("))
        .trim_end_matches(");")
        .split(',')
        .collect();
    let mut want = vec!["clk".to_string(), "rst".to_string()];
    for p in Port::ALL {
        for f in [
            "rx_data", "rx_valid", "rx_ready", "rx_sop", "rx_eop", "rx_empty", "tx_data",
            "tx_valid", "tx_ready", "tx_sop", "tx_eop", "tx_empty", "link_up",
        ] {
            want.push(format!("{}_{f}", p.name()));
        }
    }
    want.push("s_role_rc".into());
    assert_eq!(ports, want);
    assert!(
        !a.contains("module top"),
        "no module keeps rust-hdl's default name"
    );
}

#[test]
fn core_lints_clean_and_elaborates() {
    let dir = scratch_dir("core").unwrap();
    let files = write_core(&dir).unwrap();
    assert_eq!(
        std::fs::read_to_string(&files.file_list).unwrap(),
        "peach2_core.v\n"
    );
    verilator_lint(&files.verilog, CORE_MODULE).unwrap_or_else(|e| panic!("{e}"));
    iverilog_elaborate(&files.verilog, CORE_MODULE).unwrap_or_else(|e| panic!("{e}"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn no_block_assigns_a_variable_others_read_twice() {
    // An event-driven simulator loops when blocks that read each other's outputs see
    // intermediate values (a default, then the value); `assign_once` removes them all.
    let v = core_verilog();
    let found = multiply_assigned(&v);
    assert!(found.is_empty(), "{found:?}");
    assert!(v.contains("$once;"), "the rewrite ran");
}
