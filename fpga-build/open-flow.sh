#!/usr/bin/env bash
# The open FPGA flow, one command: installs the tools if missing, then lints,
# elaborates, simulates and synthesizes the board image (wrapper + core) and writes
# the report (default out/fpga-open-flow/report.txt). Arguments go to
# `peach2 fpga open-flow` (e.g. -o DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec cargo run --release -q -p peach2 -- fpga open-flow "$@"
