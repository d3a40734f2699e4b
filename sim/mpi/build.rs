//! Compiles the shim with the flags Open MPI's compiler wrapper reports and links the
//! MPI library it names.

use std::process::Command;

/// `mpicc --showme:<what>`, split into words.
fn showme(what: &str) -> Vec<String> {
    let out = Command::new("mpicc")
        .arg(format!("--showme:{what}"))
        .output()
        .unwrap_or_else(|e| {
            panic!("mpicc not found ({e}): install Open MPI (scripts/setup.sh: libopenmpi-dev), or build without the `mpi` feature")
        });
    assert!(
        out.status.success(),
        "mpicc --showme:{what} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

fn main() {
    println!("cargo:rerun-if-changed=c/shim.c");
    let mut build = cc::Build::new();
    build.file("c/shim.c").warnings(true);
    for flag in showme("compile") {
        match flag.strip_prefix("-I") {
            Some(dir) => {
                build.include(dir);
            }
            None => {
                build.flag(&flag);
            }
        }
    }
    build.compile("peach2_mpi_shim");
    for flag in showme("link") {
        if let Some(dir) = flag.strip_prefix("-L") {
            println!("cargo:rustc-link-search=native={dir}");
        } else if let Some(lib) = flag.strip_prefix("-l") {
            println!("cargo:rustc-link-lib={lib}");
        } else if flag.starts_with("-Wl,") {
            println!("cargo:rustc-link-arg={flag}");
        }
    }
}
