#!/usr/bin/env bash
# Installs what the project needs and a fresh Debian machine lacks: Verilator, Icarus
# Verilog, Yosys and Open MPI (Debian packages; MPI runs a cluster over several
# processes or machines). Rust comes with the machine (rustup). Idempotent.
set -euo pipefail

missing=()
for tool in verilator:verilator iverilog:iverilog yosys:yosys mpicc:libopenmpi-dev mpirun:openmpi-bin; do
  cmd=${tool%%:*} pkg=${tool##*:}
  command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi
command -v cargo >/dev/null 2>&1 || { echo "setup: cargo not found: install Rust (rustup)" >&2; exit 1; }
echo "setup: $(verilator --version | head -1); iverilog $(iverilog -V 2>&1 | head -1 | awk '{print $4}'); $(yosys -V | awk '{print $1, $2}'); Open MPI $(mpirun --version 2>&1 | head -1 | awk '{print $NF}')"
