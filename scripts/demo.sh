#!/usr/bin/env bash
# The end-to-end demo behind `make demo`. Usage: scripts/demo.sh BUILD_DIR
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
opt="$build/bin/npu-opt"
example="$root/examples/cnn.mlir"

echo "== 1. The example network ($example) parses and verifies"
"$opt" "$example" > /dev/null
echo "ok"

echo
echo "== 2. AlignMode of every op, as the rules of seed 002 assign it"
"$opt" "$example" --npu-annotate-align-mode | awk '
  /align_mode</ {
    name = "argument"
    if (match($0, /= npu\.[a-z_0-9]+/)) name = substr($0, RSTART + 2, RLENGTH - 2)
    else if (match($0, /^ *return/)) name = "return (graph output)"
    else if (match($0, /func\.func/)) name = "graph input"
    match($0, /align_mode<[a-z]+>/)
    printf "  %-24s %s\n", name, substr($0, RSTART + 11, RLENGTH - 12)
  }'

echo
echo "== 3. LayoutAlignToNPU: channel_norm insertion, both strategies"
out="$build/demo"
mkdir -p "$out"
for strategy in greedy optimal; do
  "$opt" "$example" \
    --npu-layout-align="strategy=$strategy print-statistics" \
    --npu-verify-layout \
    --npu-print-layout-graph="output=$out/cnn-$strategy.dot" \
    --mlir-print-op-on-diagnostic=false \
    -o "$out/cnn-$strategy.mlir" 2>&1 \
    | sed -n "s/.*remark: npu-layout-align: /  $strategy: /p"
done
echo "  (no conflict left: npu-verify-layout passed on both)"
echo "  IR:       $out/cnn-greedy.mlir, $out/cnn-optimal.mlir"
echo "  pictures: $out/cnn-greedy.dot, $out/cnn-optimal.dot"
echo "            (yellow aligned, grey dense, green border adapted, diamonds channel_norm;"
echo "             render with: dot -Tpng $out/cnn-optimal.dot -o cnn.png)"
