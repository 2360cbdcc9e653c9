#!/usr/bin/env python3
"""Imports ONNX networks and runs npu-layout-align on each with both
strategies; reports per network the npu ops, channel_norms inserted, bytes
converted, import time and pass time.

    bench/onnx_networks.py BUILD_DIR MODEL.onnx... [--runs N] [--markdown]
                           [--fuse-attention]

Times come from the tools' own --mlir-timing (import: the `import` scope of
npu-import-onnx, excluding process start-up and printing; pass: the
LayoutAlignToNPU line), the median of --runs runs (default 5). Activation
bytes: the stored size of every npu op result after the layout pass (C
padded to 64 where aligned; weights and constants excluded), a proxy for
the memory traffic the graph causes. Every layout
is checked by --npu-verify-layout. With --fuse-attention, npu-fuse-attention
runs on the imported graph first and the figures are of the fused graph.
Standard library only.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

STRATEGIES = ("greedy", "optimal")


def run(cmd):
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), result.stderr))
    return result.stderr


def timing_of(report, name):
    """Wall seconds of the --mlir-timing=list line named `name`."""
    match = re.search(r"^\s*([0-9.]+) \([ 0-9.]+%\)\s+" + re.escape(name) + "$",
                      report, re.M)
    if not match:
        sys.exit("no timing for %s in:\n%s" % (name, report))
    return float(match.group(1))


TIMING = ["--mlir-timing", "--mlir-timing-display=list"]


ELEMENT_BYTES = {"f32": 4, "f16": 2, "bf16": 2, "i64": 8, "i32": 4, "i8": 1,
                 "i1": 1}


def stored_bytes(type_text):
    """Bytes of one `tensor<...>` type as stored: C padded to 64 when
    aligned."""
    dims, _, rest = type_text.rpartition("x")
    shape = [int(d) for d in dims.split("x")] if dims else []
    element = rest.split(",")[0].strip()
    if "#npu.layout<align>" in rest and shape:
        shape[-1] = (shape[-1] + 63) // 64 * 64
    count = 1
    for d in shape:
        count *= d
    return count * ELEMENT_BYTES.get(element, 4)


def activation_bytes(ir):
    """Sum of the stored sizes of every npu op result (weights excluded):
    what the graph writes to memory, a proxy for its traffic."""
    total = 0
    for line in ir.splitlines():
        if "= npu." not in line or "= npu.constant" in line:
            continue
        results = line.rpartition("->")[2]
        for match in re.finditer(r"tensor<([^<>]*(?:<[^<>]*>)?[^<>]*)>",
                                 results):
            total += stored_bytes(match.group(1))
    return total


def measure(bindir, model, runs, workdir, fuse_attention):
    name = os.path.basename(model)[:-len(".onnx")]
    imported = os.path.join(workdir, name + ".mlir")
    importer = [os.path.join(bindir, "npu-import-onnx"), model, "--batch=1",
                "-o", imported] + TIMING
    imports = [timing_of(run(importer), "import") for _ in range(runs)]
    opt = os.path.join(bindir, "npu-opt")
    if fuse_attention:
        name += " + fuse-attention"
        run([opt, imported, "--npu-fuse-attention", "-o", imported])
    stats = run([opt, imported, "--print-op-stats", "-o", os.devnull])
    ops = {op: int(n) for op, n in
           re.findall(r"^\s+npu\.(\w+)\s*,\s*(\d+)$", stats, re.M)}
    row = {"network": name, "ops": sum(ops.values()), "op_counts": ops,
           "import_s": statistics.median(imports)}
    laid_out = os.path.join(workdir, "laid-out.mlir")
    for strategy in STRATEGIES:
        cmd = [opt, imported,
               "--npu-layout-align=strategy=%s print-statistics" % strategy,
               "--npu-verify-layout", "--mlir-print-op-on-diagnostic=false",
               "-o", laid_out] + TIMING
        reports = [run(cmd) for _ in range(runs)]
        norms, converted = re.search(
            r"npu-layout-align: (\d+) channel_norm\(s\) inserted, (\d+) bytes",
            reports[0]).groups()
        with open(laid_out) as f:
            activations = activation_bytes(f.read())
        row[strategy] = {
            "channel_norms": int(norms), "bytes": int(converted),
            "activation_bytes": activations,
            "pass_s": statistics.median(
                timing_of(r, "LayoutAlignToNPU") for r in reports)}
    return row


def print_text(row):
    top = sorted(row["op_counts"].items(), key=lambda kv: (-kv[1], kv[0]))
    kinds = ", ".join("%d %s" % (n, op) for op, n in top[:6])
    more = " ..." if len(top) > 6 else ""
    fused = row["op_counts"].get("flash_attention")
    print("  %s: imported in %.2f s; %d npu ops (%s%s)%s"
          % (row["network"], row["import_s"], row["ops"], kinds, more,
             "; %d attention blocks fused" % fused if fused else ""))
    print("    %-9s %13s %17s %11s %18s" % (
        "strategy", "channel_norms", "bytes converted", "pass time",
        "activation bytes"))
    for strategy in STRATEGIES:
        s = row[strategy]
        print("    %-9s %13d %17s %8.1f ms %18s" % (
            strategy, s["channel_norms"], "{:,}".format(s["bytes"]),
            s["pass_s"] * 1e3, "{:,}".format(s["activation_bytes"])))


def print_markdown(rows):
    print("| network | npu ops | import (s) | greedy channel_norms | greedy "
          "bytes | greedy pass (ms) | optimal channel_norms | optimal bytes "
          "| optimal pass (ms) | optimal activation bytes |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        g, o = row["greedy"], row["optimal"]
        print("| %s | %d | %.2f | %d | %s | %.1f | %d | %s | %.1f | %s |" % (
            row["network"], row["ops"], row["import_s"], g["channel_norms"],
            "{:,}".format(g["bytes"]), g["pass_s"] * 1e3, o["channel_norms"],
            "{:,}".format(o["bytes"]), o["pass_s"] * 1e3,
            "{:,}".format(o["activation_bytes"])))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build")
    parser.add_argument("models", nargs="+")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--fuse-attention", action="store_true")
    args = parser.parse_args()
    bindir = os.path.join(args.build, "bin")
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for model in args.models:
            row = measure(bindir, model, args.runs, workdir,
                          args.fuse_attention)
            if args.markdown:
                rows.append(row)
            else:
                print_text(row)
    if args.markdown:
        print_markdown(rows)


if __name__ == "__main__":
    main()
