#!/usr/bin/env bash
# The end-to-end demo behind `make demo`. Usage: scripts/demo.sh BUILD_DIR
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
opt="$build/bin/npu-opt"
example="$root/examples/cnn.mlir"

# The launches of a lowered module and the choices each records.
list_launches() {
  sed -n 's/.*npudev.launch tasks(\([0-9]*\))\( on [a-z]*\)\{0,1\} attributes {npudev.tiling = {\(.*\)}}.*/    \1 tasks: \3/p' "$1"
}

# Every .npy of directory $1 equals its namesake in each directory of $2
# (space-separated); prints "NAME: $3" for each (set -e stops on a difference).
same_bytes() {
  for f in "$1"/*.npy; do
    for other in $2; do
      cmp "$f" "$other/$(basename "$f")"
    done
    echo "    $(basename "$f"): $3"
  done
}

echo "== 1. The example network ($example) parses and verifies"
"$opt" "$example" > /dev/null
echo "ok"

echo
echo "== 2. AlignMode of every op, as the rules of the LayoutAlignToNPU design assign it"
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

echo
echo "== 4. MoE dispatch (mlu-ops / tutel): lower to device kernels, simulate, JIT"
run="$build/bin/npu-run"
moe="$root/examples/moe.mlir"
"$opt" "$moe" --npu-graph-to-device=device=mlu590 -o "$out/moe-device.mlir"
echo "  kernels for mlu590 ($out/moe-device.mlir):"
list_launches "$out/moe-device.mlir"
rm -rf "$out/moe-sim" "$out/moe-jit"
echo "  simulator (random inputs, seed 1):"
"$run" "$out/moe-device.mlir" --random-inputs=1 --report \
  --output-dir="$out/moe-sim" | sed 's/^/    /'
echo "  JIT:"
"$run" "$out/moe-device.mlir" --random-inputs=1 --mode=jit \
  --output-dir="$out/moe-jit"
same_bytes "$out/moe-sim" "$out/moe-jit" \
  "simulator and JIT outputs are identical"

echo
echo "== 5. Point cloud (mmcv/spconv, mlu-ops): get_indice_pairs (subm, stride 2) and sparse_conv3d"
pc="$root/examples/point-cloud.mlir"
python3 "$root/scripts/point-cloud-sites.py" "$out/point-cloud-sites.npy"
echo "  3000 LiDAR-like sites, 2 x 21x200x200 voxels: $out/point-cloud-sites.npy"
for strategy in auto grid; do
  "$opt" "$pc" --npu-graph-to-device="device=mlu590 sparse-conv-strategy=$strategy" \
    -o "$out/point-cloud-$strategy.mlir"
done
echo "  kernels for mlu590, strategy auto ($out/point-cloud-auto.mlir):"
list_launches "$out/point-cloud-auto.mlir"
rm -rf "$out"/pc-*
echo "  simulator (features and weights random, seed 1):"
"$run" "$out/point-cloud-auto.mlir" --input="$out/point-cloud-sites.npy" \
  --random-inputs=1 --report --output-dir="$out/pc-sim" | sed 's/^/    /'
echo "  JIT, and the grid strategy in the simulator:"
"$run" "$out/point-cloud-auto.mlir" --input="$out/point-cloud-sites.npy" \
  --random-inputs=1 --mode=jit --output-dir="$out/pc-jit"
"$run" "$out/point-cloud-grid.mlir" --input="$out/point-cloud-sites.npy" \
  --random-inputs=1 --output-dir="$out/pc-grid"
python3 - "$out/pc-sim/arg5.npy" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
header = struct.unpack("<H", data[8:10])[0]
print("    downsampled sites (num_act_out): %d" % ((len(data) - 10 - header) // 16))
PY
same_bytes "$out/pc-sim" "$out/pc-jit $out/pc-grid" \
  "simulator, JIT and the grid strategy give identical bytes"

echo
echo "== 6. FlashAttention (CANN's FlashAttentionScore): a causal GQA layer, forward and backward, on ascend910b's cube and vector cores"
att="$root/examples/attention.mlir"
"$opt" "$att" --npu-graph-to-device=device=ascend910b -o "$out/attention-device.mlir"
echo "  kernels ($out/attention-device.mlir): mixed launches of cube and vector tasks, and vector launches"
sed -n 's/.*npudev.mixed_launch cube(\([0-9]*\)).*/    mixed launch: \1 cube tasks/p; s/.*} vector(\([0-9]*\)).*/                  \1 vector tasks/p' \
  "$out/attention-device.mlir"
sed -n 's/.*npudev.tiling = {\([^}]*\)}.*/    \1/p' "$out/attention-device.mlir"
rm -rf "$out"/att-*
echo "  simulator (random inputs, seed 1):"
"$run" "$out/attention-device.mlir" --random-inputs=1 --report \
  --output-dir="$out/att-sim" | sed 's/^/    /'
echo "  JIT:"
"$run" "$out/attention-device.mlir" --random-inputs=1 --mode=jit \
  --output-dir="$out/att-jit"
same_bytes "$out/att-sim" "$out/att-jit" \
  "simulator and JIT outputs are identical"

echo
echo "== 7. Sparse iteration (SparseTIR): SpMM and the row softmax of a power-law CSR matrix"
sp="$root/examples/sparse.mlir"
python3 "$root/scripts/sparse-matrix.py" "$out/sparse" 512 512 4096
echo "  512 x 512, 4096 nonzeros (R-MAT-like rows): $out/sparse-{indptr,indices,values}.npy"
"$opt" "$sp" --npu-sparse-to-device-pipeline=checked=true \
  -o "$out/sparse-device.mlir"
echo "  lowered by npu-sparse-to-device-pipeline: checked mode, rows over 48 tasks by work, position loops, a row's nonzeros as gathered chunks, tiles of the feature axis, staged runs, flat memrefs"
echo "  ($out/sparse-device.mlir)"
csr=(--input="$out/sparse-indptr.npy" --input="$out/sparse-indices.npy"
     --input="$out/sparse-values.npy")
rm -rf "$out"/sp-*
for entry in spmm softmax; do
  echo "  $entry, simulator (dense inputs random, seed 1):"
  "$run" "$out/sparse-device.mlir" --entry=$entry "${csr[@]}" --random-inputs=1 \
    --report --output-dir="$out/sp-sim-$entry" \
    | grep -E '^(cycles|time|io efficiency):' | sed 's/^/    /'
  "$run" "$out/sparse-device.mlir" --entry=$entry "${csr[@]}" --random-inputs=1 \
    --mode=jit --output-dir="$out/sp-jit-$entry"
  same_bytes "$out/sp-sim-$entry" "$out/sp-jit-$entry" "" > /dev/null
  echo "    simulator and JIT outputs are identical"
done
echo "  (feature rows move by DMA, several in flight (npu-pipeline-dma-loops); indptr, indices and values are staged on chip in runs)"

echo
echo "== 8. ONNX networks (torchvision, exported by scripts/export-torchvision-onnx.py): import, then LayoutAlignToNPU"
echo "  Weights are npu.weight arguments the layout pass adapts; times are the median of 3 runs."
python3 "$root/bench/onnx_networks.py" "$build" --runs=3 \
  "$root/examples/onnx/resnet50-opset17.onnx" \
  "$root/examples/onnx/swin_t-opset17.onnx"
echo "  Swin-T again, its attention fused first (npu-fuse-attention):"
python3 "$root/bench/onnx_networks.py" "$build" --runs=3 --fuse-attention \
  "$root/examples/onnx/swin_t-opset17.onnx"
"$build/bin/npu-import-onnx" "$root/examples/onnx/resnet50-opset17.onnx" \
  --batch=1 -o "$out/resnet50.mlir"
"$opt" "$out/resnet50.mlir" --npu-layout-align \
  --npu-print-layout-graph="output=$out/resnet50-optimal.dot" \
  -o "$out/resnet50-optimal.mlir"
echo "  IR: $out/resnet50.mlir (imported), $out/resnet50-optimal.mlir (layouts decided)"
if command -v dot > /dev/null; then
  dot -Tsvg "$out/resnet50-optimal.dot" -o "$out/resnet50-optimal.svg"
  echo "  picture: $out/resnet50-optimal.svg (Graphviz, from $out/resnet50-optimal.dot)"
else
  echo "  picture: $out/resnet50-optimal.dot (install graphviz to render it)"
fi

echo
echo "== 9. ResNet-50 end to end: every op lowered to device kernels and run on the simulated ascend910b"
echo "  (input image and weights random, seeded; weights scaled by fan-in, batch 1: the exported file"
echo "  has no weight data, and the modelled time does not depend on the values)"
# With locations, the report names the ONNX nodes of the slowest layers.
"$build/bin/npu-import-onnx" "$root/examples/onnx/resnet50-opset17.onnx" \
  --batch=1 --mlir-print-debuginfo -o "$out/resnet50-named.mlir"
echo "  Latency by layout: the importer's dense tensors, then LayoutAlignToNPU's greedy and optimal"
echo "  layouts (aligned tensors stored with padded rows, channel_norm kernels between layouts):"
for strategy in greedy optimal; do
  "$opt" "$out/resnet50-named.mlir" --npu-layout-align=strategy=$strategy \
    --canonicalize --mlir-print-debuginfo -o "$out/resnet50-$strategy.mlir"
done
for variant in named greedy optimal; do
  "$run" "$out/resnet50-$variant.mlir" --device=ascend910b --random-inputs=1 \
    --report 2>/dev/null > "$out/resnet50-$variant.report"
  # The dense graph has no channel_norm: no line to find is not an error.
  conversions=$(grep -E '^  channel_norm ' "$out/resnet50-$variant.report" \
    | awk '{print $2" "$3}' || true)
  printf '    %-8s %s, channel_norm %s\n' \
    "$(echo $variant | sed 's/named/dense/')" \
    "$(grep -E '^time:' "$out/resnet50-$variant.report" | sed 's/^time: *//')" \
    "${conversions:-none}"
done
echo "  f32, optimal layouts:"
"$run" "$out/resnet50-optimal.mlir" --device=ascend910b --random-inputs=1 \
  --report --report-layers=5 2>/dev/null \
  | grep -E '^(time|cube utilisation|roofline|peak global|time by step|slowest layers)|^  [a-z/]' \
  | sed 's/^/  /'
echo "  f16 (npu-narrow-floats), optimal layouts:"
"$opt" "$out/resnet50-optimal.mlir" --npu-narrow-floats --mlir-print-debuginfo \
  | "$run" - --device=ascend910b --random-inputs=1 --report --report-layers=5 2>/dev/null \
  | grep -E '^(time|roofline):|^slowest layers|^  /' | sed 's/^/  /'
echo "  The JIT's answer against the simulator's (same image, same weights, optimal layouts):"
rm -rf "$out/resnet-sim" "$out/resnet-jit"
"$run" "$out/resnet50-optimal.mlir" --device=ascend910b --random-inputs=1 \
  --output-dir="$out/resnet-sim" 2>/dev/null
"$run" "$out/resnet50-optimal.mlir" --device=ascend910b --random-inputs=1 \
  --mode=jit --output-dir="$out/resnet-jit" 2>/dev/null
same_bytes "$out/resnet-sim" "$out/resnet-jit" \
  "simulator and JIT outputs are identical"
echo "  (kernels: docs/graph-kernels.md; the other networks and the comparison"
echo "  with PyTorch, scripts/compare-with-pytorch.py: docs/benchmarks.md)"
