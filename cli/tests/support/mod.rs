//! Helpers the `peach2` command-line tests share.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
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

/// Output bytes as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The example `name` (`examples/tca/<name>.c`) built with `peach2 cc`.
pub fn build(name: &str) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../examples/tca/{name}.c"));
    // One file per test thread: tests run at once, and a binary being run cannot be
    // rewritten by another test's build.
    let thread = format!("{:?}", std::thread::current().id());
    let tag: String = thread.chars().filter(char::is_ascii_digit).collect();
    let exe = temp("examples", &format!("{name}-{tag}"));
    let out = peach2(&[
        "cc",
        "-O2",
        "-Wall",
        "-Werror",
        "-o",
        exe.to_str().unwrap(),
        src.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "peach2 cc {name}: {}",
        text(&out.stderr)
    );
    exe
}
