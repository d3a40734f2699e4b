//! `peach2 verilog`: writes the core, its waivers and file list; bad arguments exit 2.

use std::process::Command;

fn peach2() -> Command {
    Command::new(env!("CARGO_BIN_EXE_peach2"))
}

#[test]
fn verilog_writes_the_core_files() {
    let dir = std::env::temp_dir().join(format!("peach2-verilog-cli-{}", std::process::id()));
    let out = peach2().args(["verilog", "-o"]).arg(&dir).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = std::fs::read_to_string(dir.join("peach2_core.v")).unwrap();
    assert!(v.contains("module peach2_core("));
    let vlt = std::fs::read_to_string(dir.join("peach2_core.vlt")).unwrap();
    assert!(vlt.starts_with("`verilator_config"));
    assert_eq!(
        std::fs::read_to_string(dir.join("peach2_core.f")).unwrap(),
        "peach2_core.v\n"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("wrote ")).count(),
        3
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn verilog_rejects_bad_arguments() {
    let out = peach2().args(["verilog", "--bogus"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    // The timing estimate alone, or every check with it: not both.
    let out = peach2()
        .args(["verilog", "--timing", "--check"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be used with"));
    let out = peach2()
        .args(["verilog", "-o", "/proc/peach2-cannot-write-here"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "one-line error: {err}");
    assert!(err.starts_with("error: cannot write"), "{err}");
}
