#!/usr/bin/env bash
# The main job: set up, build, export the PEACH2 core to Verilog and check it with the
# open tools, co-simulate a two-node ring on the Verilated core, run the driver's DMA
# ping-pong (the paper's latency and bandwidth figures), run TCA programs in C on the
# simulated cluster, and show the TLP tool.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo build --release -q -p peach2
peach2=target/release/peach2

echo "== Verilog export and open checks (out/verilog)"
"$peach2" verilog -o out/verilog --check

echo "== Co-simulation: two chips cabled into a ring, every node writing to its neighbour"
"$peach2" sim --topology ring2 --scenario neighbor --cycles 200000 --json

echo "== The paper's figures 2 and 3: DMA ping-pong between adjacent nodes through the driver"
"$peach2" bench pingpong --mem cpu,gpu --desc internal,host \
  --csv out/pingpong.csv --plot out/pingpong.svg
echo "(out/pingpong.csv, out/pingpong.svg)"
grep -E ',(8|4194304),' out/pingpong.csv

echo "== TCA programs in C, built with peach2 cc and run with peach2 run (out/tca)"
mkdir -p out/tca
"$peach2" cc -O2 -Wall -o out/tca/pingpong examples/tca/pingpong.c
"$peach2" run --topology ring2 --summary -- out/tca/pingpong
"$peach2" cc -O2 -Wall -o out/tca/allgather examples/tca/allgather.c
"$peach2" run --topology 2x8 --summary -- out/tca/allgather

echo "== TLP tool"
for tlp in "00000010 01000aff f7c00000" "4a000001 00000004 01000a00 78563412" \
           "60000001 0100000f 00000001 00000000 deadbeef"; do
  echo "\$ peach2 tlp decode $tlp"
  "$peach2" tlp decode $tlp
done
echo "\$ peach2 tlp beats 60000002 010000ff 00000001 00000000 deadbeef cafef00d"
"$peach2" tlp beats 60000002 010000ff 00000001 00000000 deadbeef cafef00d
