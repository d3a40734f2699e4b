#!/usr/bin/env bash
# Every test: set up, then formatting, clippy and the whole workspace's tests (which
# include the Verilog lint/elaboration/synthesis checks of every block and of the core).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -q -- -D warnings
cargo test --workspace
