//! Builds the Verilated PEACH2 core from the rust-hdl design, so the simulated Verilog is
//! always the design in this workspace:
//!
//! 1. `peach2_rtl::verilog::export::write_core` writes `peach2_core.v` (and its lint
//!    waivers) into `OUT_DIR/rtl`;
//! 2. `verilator --cc` turns it into C++ in `OUT_DIR/vl`;
//! 3. the port list is read from the Verilog's module header; a C++ shim and a Rust port
//!    table (`OUT_DIR/ports.rs`) are generated from it; the shim also gets a copy of the
//!    model's eval without its input region, for clock edges with unchanged inputs
//!    (`build/clocked.rs`);
//! 4. one C++ file including the per-cycle `.cpp` files and the shim is compiled at -O2,
//!    one including the cold (`__Slow`) files at -O0, as Verilator's makefiles do.
//!
//! The Verilator runtime comes from the `verilated-rt` crate (compiled once).
//!
//! `PEACH2_VL_PROFILE=1` builds a model to profile: Verilator's `--prof-cfuncs` cuts it
//! into one C++ function per statement, named after its Verilog module and line, and the
//! C++ gets debug information, so a profiler (callgrind, perf) says which block costs.

#[path = "build/clocked.rs"]
mod clocked;
#[path = "build/ports.rs"]
mod ports;
#[path = "build/shim.rs"]
mod shim;

use peach2_rtl::verilog::export::{write_core, CORE_MODULE};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn env_path(key: &str) -> PathBuf {
    PathBuf::from(std::env::var(key).unwrap_or_else(|_| panic!("{key} is not set")))
}

/// A model to profile was asked for (`PEACH2_VL_PROFILE=1`).
fn profiling() -> bool {
    std::env::var("PEACH2_VL_PROFILE").is_ok_and(|v| v == "1")
}

fn verilate(verilog: &Path, waivers: &Path, mdir: &Path) {
    if mdir.exists() {
        std::fs::remove_dir_all(mdir).expect("clear the Verilator output folder");
    }
    let mut cmd = Command::new("verilator");
    if profiling() {
        cmd.arg("--prof-cfuncs");
    }
    let out = cmd
        .args([
            "--cc",
            "-O3",
            "--x-assign",
            "fast",
            "--x-initial",
            "fast",
            "--noassert",
            "--trace",
            "-Wno-fatal",
            "--top-module",
            CORE_MODULE,
            "--Mdir",
        ])
        .arg(mdir)
        .arg(waivers)
        .arg(verilog)
        .output()
        .unwrap_or_else(|e| panic!("cannot run verilator ({e}): install it (scripts/setup.sh)"));
    assert!(
        out.status.success(),
        "verilator failed on {}:\n{}",
        verilog.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A C++ build of the Verilated model's sources at optimization level `opt`.
fn model_build(mdir: &Path, opt: u32) -> cc::Build {
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .opt_level(opt)
        .debug(profiling())
        .warnings(false)
        .flag("-std=gnu++17")
        .flag("-faligned-new")
        .include(env_path("DEP_VERILATED_INCLUDE"))
        .include(env_path("DEP_VERILATED_INCLUDE").join("vltstd"))
        .include(env_path("DEP_VERILATED_SHIM_INCLUDE"))
        .include(mdir);
    let defines = std::env::var("DEP_VERILATED_DEFINES").expect("verilated-rt exports defines");
    for d in defines.split(',').filter(|d| !d.is_empty()) {
        let (k, v) = d.split_once('=').unwrap_or((d, "1"));
        build.define(k, v);
    }
    build
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build/ports.rs");
    println!("cargo:rerun-if-changed=build/shim.rs");
    println!("cargo:rerun-if-changed=build/clocked.rs");
    println!("cargo:rerun-if-env-changed=PEACH2_VL_PROFILE");
    let out = env_path("OUT_DIR");
    let t0 = Instant::now();
    let core = write_core(&out.join("rtl")).expect("write the exported core");
    let t_export = t0.elapsed();
    let mdir = out.join("vl");
    verilate(&core.verilog, &core.waivers, &mdir);
    let t_verilate = t0.elapsed() - t_export;

    let verilog = std::fs::read_to_string(&core.verilog).expect("read the exported core");
    let ports = ports::parse(&verilog, CORE_MODULE).unwrap_or_else(|e| panic!("{e}"));
    let class = format!("V{CORE_MODULE}");
    let mut cpps: Vec<String> = std::fs::read_dir(&mdir)
        .expect("read the Verilator output")
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            (name.ends_with(".cpp") && name != "p2_shim.cpp").then_some(name)
        })
        .collect();
    cpps.sort();
    let sources: Vec<String> = cpps
        .iter()
        .map(|f| std::fs::read_to_string(mdir.join(f)).expect("read generated C++"))
        .collect();
    let clocked = clocked::eval_clocked(&class, &sources);
    if clocked.is_none() {
        println!(
            "cargo:warning=the Verilated model's eval has an unexpected shape; \
             every clock edge runs the full eval (slower, same results)"
        );
    }
    std::fs::write(
        mdir.join("p2_shim.cpp"),
        shim::cpp(&class, &ports, clocked.as_deref()),
    )
    .expect("write shim");
    std::fs::write(out.join("ports.rs"), shim::rust(&ports)).expect("write port table");

    // Cold code (construction, initial/settle, trace declarations; Verilator's `__Slow`
    // files) runs once: like Verilator's own makefiles, compile it without optimization,
    // which halves the build; the per-cycle code gets -O2.
    let (slow, fast): (Vec<&String>, Vec<&String>) =
        cpps.iter().partition(|f| f.ends_with("__Slow.cpp"));
    let unity = |name: &str, files: &[&String], extra: &str| {
        let text: String = files
            .iter()
            .map(|f| format!("#include \"{f}\"\n"))
            .chain(std::iter::once(extra.to_string()))
            .collect();
        let path = mdir.join(name);
        std::fs::write(&path, text).expect("write a one-file build");
        path
    };
    let fast_unity = unity("p2_model_fast.cpp", &fast, "#include \"p2_shim.cpp\"\n");
    let slow_unity = unity("p2_model_slow.cpp", &slow, "");
    let t1 = Instant::now();
    let cold = model_build(&mdir, 0)
        .file(&slow_unity)
        .compile_intermediates();
    let mut hot = model_build(&mdir, 2);
    hot.file(&fast_unity);
    for object in cold {
        hot.object(object);
    }
    hot.compile("peach2_core_verilated");
    let t_compile = t1.elapsed();
    std::fs::write(
        out.join("build_times.txt"),
        format!(
            "export {:.2} s, verilate {:.2} s, compile (cycle code -O2, cold code -O0) {:.2} s\n",
            t_export.as_secs_f64(),
            t_verilate.as_secs_f64(),
            t_compile.as_secs_f64()
        ),
    )
    .expect("write build times");
}
