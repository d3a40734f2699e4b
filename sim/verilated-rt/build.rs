//! Compiles the Verilator runtime of the installed Verilator once, with this crate's
//! handlers for `$fatal`, `$stop` and `$finish` (`cpp/vlrt_handlers.cpp`) in place of the
//! runtime's own, which abort or exit the process.
//!
//! Tells dependent build scripts (through `links = "verilated"`) where the runtime's
//! headers are: `DEP_VERILATED_ROOT` (Verilator's root), `DEP_VERILATED_INCLUDE` (its
//! `include` folder) and `DEP_VERILATED_SHIM_INCLUDE` (this crate's `cpp` folder).

use std::path::PathBuf;
use std::process::Command;

/// Preprocessor definitions every translation unit of a Verilated model must share with
/// the runtime (tracing compiled in, VCD format, no coverage, no SystemC).
const DEFINES: [(&str, &str); 5] = [
    ("VM_TRACE", "1"),
    ("VM_TRACE_VCD", "1"),
    ("VM_TRACE_FST", "0"),
    ("VM_COVERAGE", "0"),
    ("VM_SC", "0"),
];

fn verilator_root() -> PathBuf {
    let out = Command::new("verilator")
        .arg("--getenv")
        .arg("VERILATOR_ROOT")
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run `verilator --getenv VERILATOR_ROOT` ({e}): install Verilator (scripts/setup.sh)")
        });
    assert!(
        out.status.success(),
        "`verilator --getenv VERILATOR_ROOT` failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=cpp/vlrt_handlers.cpp");
    println!("cargo:rerun-if-changed=cpp/vlrt.h");
    let root = verilator_root();
    let include = root.join("include");
    let shim_include =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it")).join("cpp");
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .opt_level(2)
        .warnings(false)
        .flag("-std=gnu++17")
        .flag("-faligned-new")
        .include(&include)
        .include(include.join("vltstd"))
        .include(&shim_include)
        .define("VL_USER_FATAL", None)
        .define("VL_USER_STOP", None)
        .define("VL_USER_FINISH", None);
    for (k, v) in DEFINES {
        build.define(k, v);
    }
    for f in [
        "verilated.cpp",
        "verilated_threads.cpp",
        "verilated_vcd_c.cpp",
    ] {
        build.file(include.join(f));
    }
    build.file(shim_include.join("vlrt_handlers.cpp"));
    build.compile("verilated_rt");
    for lib in ["stdc++", "pthread", "atomic"] {
        println!("cargo:rustc-link-lib={lib}");
    }
    println!("cargo:root={}", root.display());
    println!("cargo:include={}", include.display());
    println!("cargo:shim_include={}", shim_include.display());
    println!(
        "cargo:defines={}",
        DEFINES
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",")
    );
    println!("cargo:rustc-env=VERILATOR_ROOT_DIR={}", root.display());
}
