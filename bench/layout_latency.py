#!/usr/bin/env python3
"""The layout decision priced in time: per network and device, the simulated
end-to-end latency with the importer's dense layouts (no layout pass), with
LayoutAlignToNPU's greedy strategy and with its optimal one, and the time
spent converting between layouts on its own line.

    bench/layout_latency.py BUILD_DIR MODEL.onnx... [--devices D,...]
                            [--markdown]

Per model: npu-import-onnx --batch=1, then for greedy and optimal
npu-opt --npu-layout-align=strategy=S --canonicalize (locations kept, so
that the report names layers), then npu-run --random-inputs=1 --report on
each device (weights random: the modelled time does not depend on the
values). Conversion time is the report's channel_norm step (the kernels
LayoutAlignToNPU inserted) plus its repack step (dense copies made for the
kernels that cannot read padded rows in place). Standard library only.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

STRATEGIES = ("dense", "greedy", "optimal")


def run(cmd):
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), result.stderr))
    return result.stdout


def step_time(report, step):
    """Microseconds of the report's `time by step` line for `step`, 0 when
    the network has none."""
    match = re.search(r"^  " + re.escape(step) + r"\s+([0-9.,]+) us", report,
                      re.M)
    return float(match.group(1).replace(",", "")) if match else 0.0


def measure(build, model, devices, work):
    name = os.path.basename(model).split("-opset")[0]
    imported = os.path.join(work, name + ".mlir")
    run([os.path.join(build, "bin", "npu-import-onnx"), model, "--batch=1",
         "-o", imported])
    rows = []
    for strategy in STRATEGIES:
        path = imported
        if strategy != "dense":
            path = os.path.join(work, "%s.%s.mlir" % (name, strategy))
            run([os.path.join(build, "bin", "npu-opt"), imported,
                 "--npu-layout-align=strategy=" + strategy, "--canonicalize",
                 "--mlir-print-debuginfo", "-o", path])
        with open(path) as f:
            conversions = f.read().count("npu.channel_norm")
        for device in devices:
            report = run([os.path.join(build, "bin", "npu-run"), path,
                          "--random-inputs=1", "--device=" + device,
                          "--report"])
            total = float(re.search(r"^time:\s+([0-9.]+) us", report,
                                    re.M).group(1))
            rows.append({
                "network": name, "strategy": strategy, "device": device,
                "channel_norms": conversions, "time": total,
                "channel_norm": step_time(report, "channel_norm"),
                "repack": step_time(report, "repack"),
            })
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build")
    parser.add_argument("models", nargs="+")
    parser.add_argument("--devices", default="ascend910b,mlu590")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    devices = args.devices.split(",")
    with tempfile.TemporaryDirectory() as work:
        for model in args.models:
            for r in measure(args.build, model, devices, work):
                fields = (r["network"], r["device"], r["strategy"],
                          "%d" % r["channel_norms"], "%.1f" % r["time"],
                          "%.1f" % r["channel_norm"], "%.1f" % r["repack"])
                if args.markdown:
                    print("| " + " | ".join(fields) + " |")
                else:
                    print("\t".join(fields))
                sys.stdout.flush()


if __name__ == "__main__":
    main()
