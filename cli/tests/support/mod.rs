//! Helpers the `peach2` command-line tests share.

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs `peach2` with `args`.
pub fn peach2(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_peach2"))
        .args(args)
        .output()
        .expect("run peach2")
}

/// A path named `name` in a per-process, per-suite temporary folder.
pub fn temp(suite: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("peach2-{suite}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}
