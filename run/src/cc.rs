//! `peach2 cc`: compiles and links a C program for `peach2 run`, as `mpicc` does for MPI:
//! the arguments go to the system C compiler (`$CC`, else `cc`) with the headers
//! (`tca-api.h`, `mpi.h`, `cuda_runtime.h`) on the include path and, when it links, the
//! runtime (`peach2_rt.c`) added.

use crate::abi::c_header;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The public headers and the runtime, as shipped in the binary.
const FILES: [(&str, &str); 4] = [
    ("tca-api.h", include_str!("../c/include/tca-api.h")),
    ("mpi.h", include_str!("../c/include/mpi.h")),
    (
        "cuda_runtime.h",
        include_str!("../c/include/cuda_runtime.h"),
    ),
    ("peach2_rt.c", include_str!("../c/peach2_rt.c")),
];

/// Why `peach2 cc` could not compile.
#[derive(Debug, thiserror::Error)]
pub enum CcError {
    /// The files could not be written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The compiler could not be started.
    #[error("cannot run the C compiler `{compiler}`: {source}")]
    Compiler {
        /// Its name.
        compiler: String,
        /// The error.
        source: std::io::Error,
    },
    /// The runtime did not compile (a broken compiler setup).
    #[error("the runtime did not compile with `{0}`")]
    Runtime(String),
}

fn write_if_changed(path: &Path, text: &str) -> Result<(), CcError> {
    if std::fs::read_to_string(path).is_ok_and(|t| t == text) {
        return Ok(());
    }
    // Write beside, then rename: concurrent `peach2 cc` runs never see half a file.
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|source| CcError::Io {
            path: path.to_path_buf(),
            source,
        })
}

/// Writes the headers (with the generated `peach2_abi.h`) and the runtime's source into
/// a folder of this version of `peach2`; returns it.
pub fn install() -> Result<PathBuf, CcError> {
    let abi = c_header();
    let mut stamp = 0u64;
    for b in FILES.iter().flat_map(|(_, t)| t.bytes()).chain(abi.bytes()) {
        stamp = stamp
            .wrapping_mul(0x100_0000_01b3)
            .wrapping_add(u64::from(b));
    }
    let dir = std::env::temp_dir().join(format!("peach2-cc-{stamp:016x}"));
    let include = dir.join("include");
    std::fs::create_dir_all(&include).map_err(|source| CcError::Io {
        path: include.clone(),
        source,
    })?;
    for (name, text) in FILES {
        let path = if name.ends_with(".h") {
            include.join(name)
        } else {
            dir.join(name)
        };
        write_if_changed(&path, text)?;
    }
    write_if_changed(&include.join("peach2_abi.h"), &abi)?;
    Ok(dir)
}

/// The C compiler: `$CC`, else `cc`.
pub fn compiler() -> String {
    std::env::var("CC")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .unwrap_or_else(|| "cc".into())
}

/// Arguments that stop before linking.
fn compiles_only(args: &[String]) -> bool {
    args.iter()
        .any(|a| matches!(a.as_str(), "-c" | "-S" | "-E" | "-M" | "-MM"))
}

/// The runtime's object file, compiled once per installation.
fn runtime_object(dir: &Path, cc: &str) -> Result<PathBuf, CcError> {
    let obj = dir.join("peach2_rt.o");
    if obj.exists() {
        return Ok(obj);
    }
    let tmp = dir.join(format!("peach2_rt.{}.o", std::process::id()));
    let status = Command::new(cc)
        .args(["-O2", "-fPIC", "-c", "-o"])
        .arg(&tmp)
        .arg("-I")
        .arg(dir.join("include"))
        .arg(dir.join("peach2_rt.c"))
        .status()
        .map_err(|source| CcError::Compiler {
            compiler: cc.into(),
            source,
        })?;
    if !status.success() {
        return Err(CcError::Runtime(cc.into()));
    }
    std::fs::rename(&tmp, &obj).map_err(|source| CcError::Io {
        path: obj.clone(),
        source,
    })?;
    Ok(obj)
}

/// The compiler command `peach2 cc args` runs.
pub fn command(args: &[String]) -> Result<Command, CcError> {
    let dir = install()?;
    let cc = compiler();
    let mut cmd = Command::new(&cc);
    cmd.arg("-I").arg(dir.join("include")).args(args);
    if !compiles_only(args) {
        // `-x none`: a `-x c` in the arguments (a source on stdin) must not apply to it.
        cmd.arg("-x").arg("none").arg(runtime_object(&dir, &cc)?);
    }
    Ok(cmd)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compile_only_arguments_get_no_runtime() {
        let a = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(compiles_only(&a(&["-c", "x.c"])));
        assert!(!compiles_only(&a(&["-O2", "x.c", "-o", "x"])));
    }
}
