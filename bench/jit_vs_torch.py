#!/usr/bin/env python3
"""A network through the JIT against PyTorch, both on one thread, same run.

    bench/jit_vs_torch.py BUILD_DIR [--network resnet50] [--runs N]
                          [--layout dense|greedy|optimal]

The JIT side: npu-import-onnx examples/onnx/NETWORK-opset17.onnx --batch=1
(optionally npu-layout-align), then npu-run --mode=jit --jit-threads=1
--jit-runs=N on random inputs and weights (the time does not depend on the
values); its fastest and median run, compile time apart. The PyTorch side:
torchvision's NETWORK, eval, no_grad, f32, batch 1, torch.set_num_threads(1)
(and OMP/OpenBLAS limited to one thread), in three configurations: as
built (NCHW), channels_last, and torch.jit.optimize_for_inference (frozen,
convolutions prepacked for oneDNN); the fastest of each after two warm-up
runs. The strongest is the peer. It prints what PyTorch loaded: its
version, whether oneDNN (mkldnn) is on, and the BLAS library mapped into
the process. Needs python3-torch and python3-torchvision (run with
/usr/bin/python3); not part of make check.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import torch  # noqa: E402
import torchvision  # noqa: E402


def loaded_blas():
    """The BLAS shared objects mapped into this process."""
    with open("/proc/self/maps") as maps:
        names = {os.path.realpath(line.split()[-1]) for line in maps
                 if re.search(r"blas|mkl", line.split()[-1])}
    return sorted(names) or ["none mapped"]


def time_torch(model, x, runs):
    with torch.no_grad():
        for _ in range(2):
            model(x)
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            model(x)
            times.append(time.perf_counter() - start)
    times.sort()
    return times[0], times[len(times) // 2]


def torch_configurations(network, runs):
    torch.set_num_threads(1)
    model = getattr(torchvision.models, network)().eval()
    x = torch.randn(1, 3, 224, 224)
    results = {"nchw": time_torch(model, x, runs)}
    last = model.to(memory_format=torch.channels_last)
    results["channels_last"] = time_torch(
        last, x.to(memory_format=torch.channels_last), runs)
    model = getattr(torchvision.models, network)().eval()
    with torch.no_grad():
        frozen = torch.jit.optimize_for_inference(
            torch.jit.trace(model, x).eval())
    results["optimize_for_inference"] = time_torch(frozen, x, runs)
    return results


def time_jit(build, network, layout, runs):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    model = os.path.join(root, "examples", "onnx", network + "-opset17.onnx")
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, network + ".mlir")
        subprocess.run([os.path.join(build, "bin", "npu-import-onnx"), model,
                        "--batch=1", "-o", path], check=True)
        if layout != "dense":
            laid = os.path.join(work, network + "." + layout + ".mlir")
            subprocess.run([os.path.join(build, "bin", "npu-opt"), path,
                            "--npu-layout-align=strategy=" + layout,
                            "--canonicalize", "-o", laid], check=True)
            path = laid
        result = subprocess.run(
            [os.path.join(build, "bin", "npu-run"), path, "--random-inputs=1",
             "--mode=jit", "--jit-threads=1", "--jit-runs=%d" % runs],
            capture_output=True, text=True, check=True)
    match = re.search(r"jit compile ([0-9.]+) s; \d+ runs: fastest ([0-9.]+) "
                      r"ms, median ([0-9.]+) ms", result.stderr)
    if not match:
        sys.exit("no timing from npu-run:\n" + result.stderr)
    return (float(match.group(1)), float(match.group(2)) / 1e3,
            float(match.group(3)) / 1e3)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build")
    parser.add_argument("--network", default="resnet50")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--layout", default="dense",
                        choices=("dense", "greedy", "optimal"))
    args = parser.parse_args()
    compile_s, jit_fast, jit_median = time_jit(args.build, args.network,
                                               args.layout, args.runs)
    peers = torch_configurations(args.network, args.runs)
    print("torch %s, oneDNN %s, BLAS: %s" % (
        torch.__version__,
        "on" if torch.backends.mkldnn.is_available() else "off",
        ", ".join(loaded_blas())))
    print("npu JIT (%s layouts): compile %.1f s, fastest %.1f ms, median "
          "%.1f ms" % (args.layout, compile_s, 1e3 * jit_fast,
                       1e3 * jit_median))
    for name, (fast, median) in peers.items():
        print("torch %-22s fastest %7.1f ms, median %7.1f ms; JIT speed-up "
              "%.2fx" % (name, 1e3 * fast, 1e3 * median, fast / jit_fast))
    best = min(peers, key=lambda name: peers[name][0])
    print("strongest peer: torch %s; JIT / peer speed: %.2fx (fastest runs)"
          % (best, peers[best][0] / jit_fast))


if __name__ == "__main__":
    main()
