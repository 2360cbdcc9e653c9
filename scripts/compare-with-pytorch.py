#!/usr/bin/python3
"""Runs torchvision networks in PyTorch and in npu-run, same input and weights.

Usage: scripts/compare-with-pytorch.py WORK_DIR [NET ...] [--build DIR]
           [--modes sim,jit] [--device ascend910b] [--dtype f32|f16]

Needs Debian's python3-torch, python3-torchvision and python3-onnx
(`scripts/install-deps.sh --onnx-export`); `make check` does not.

Each network is built by scripts/export-torchvision-onnx.py (torch's default
random initialization, seed 0), calibrated (zero weight matrices made random,
batch-norm statistics taken from random images, so that no output is
trivially zero or constant), and exported with its weights,
imported with `npu-import-onnx --batch=1 --weights-file=NET.npz`, and run by
`npu-run --weights=NET.npz` on one image drawn from N(0, 1) (seed 1) in each
mode. PyTorch runs the same network on the same image on one thread, in
float32 (the framework as users run it) and in float64 (the definition).
The error is max |npu - torch| / max |torch| over the output; the target
(issue: whole networks end to end) is 1e-4 in f32.

Prints one row per network and mode, and what PyTorch computed with (its
BLAS, its convolution backend).
"""

import argparse
import contextlib
import importlib.util
import io
import os
import re
import subprocess
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))


def load_exporter():
    spec = importlib.util.spec_from_file_location(
        "export_torchvision_onnx",
        os.path.join(HERE, "export-torchvision-onnx.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def torch_backend():
    """The BLAS and convolution library this PyTorch computes with."""
    config = torch.__config__.show()
    blas = re.search(r"BLAS_INFO=([^,\s]+)", config)
    mkldnn = torch.backends.mkldnn.is_available()
    return "torch %s, BLAS %s, convolutions by %s, %d thread" % (
        torch.__version__, blas.group(1) if blas else "not reported",
        "oneDNN (mkldnn)" if mkldnn else "torch's own (THNN) kernels",
        torch.get_num_threads())


def calibrate(net, size):
    """Random weights as initialised leave some outputs uninformative: a
    zero-initialised classifier (ViT's head) gives zeros, and Inception's
    95 convolutions shrink the signal until the output is the classifier's
    bias. Zero weight matrices get N(0, 0.02) values, and every batch norm
    takes the statistics of 8 random images (cumulative, in training
    mode), as if trained: each layer then sees normalised activations."""
    torch.manual_seed(1)
    norms = []
    for m in net.modules():
        weight = getattr(m, "weight", None)
        if (isinstance(weight, torch.nn.Parameter) and weight.dim() >= 2
                and not weight.detach().any()):
            torch.nn.init.normal_(weight, std=0.02)
        if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
            m.reset_running_stats()
            m.momentum = None
            norms.append(m)
    if norms:
        net.train()
        with torch.no_grad():
            net(torch.randn(8, 3, size, size))
    return net.eval()


def reference(net, image, dtype):
    model = net.to(dtype)
    with torch.no_grad():
        out = model(torch.from_numpy(image).to(dtype))
    if isinstance(out, dict):
        out = out["out"]
    return out.to(torch.float64).numpy()


def run(command):
    start = time.time()
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError("%s failed:\n%s" % (" ".join(command),
                                                done.stderr[-2000:]))
    return time.time() - start


def npu_output(out_dir):
    arrays = [f for f in os.listdir(out_dir) if f.endswith(".npy")]
    if len(arrays) != 1:
        raise RuntimeError("%s holds %d outputs, expected 1" %
                           (out_dir, len(arrays)))
    return np.load(os.path.join(out_dir, arrays[0])).astype(np.float64)


def relative_error(got, want):
    if got.shape != want.shape:
        raise RuntimeError("output shape %s, PyTorch's %s" %
                           (got.shape, want.shape))
    scale = np.max(np.abs(want))
    if not scale > 0:
        raise RuntimeError("PyTorch's output is all zeros (or not finite): "
                           "no relative error to report")
    return float(np.max(np.abs(got - want)) / scale)


def compare(name, args, exporter):
    work = os.path.join(args.work_dir, name)
    os.makedirs(work, exist_ok=True)
    size = exporter.INPUT_SIZE.get(name, 224)
    torch.manual_seed(0)
    net = calibrate(exporter.build(name), size)
    # The exporter builds the network by name; it gets this one.
    build, exporter.build = exporter.build, lambda _: net
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exporter.export(name, work, 17, True)
    finally:
        exporter.build = build
    onnx_path = os.path.join(work, "%s-opset17.onnx" % name)
    mlir, npz = os.path.join(work, "net.mlir"), os.path.join(work, "net.npz")
    run([args.tool("npu-import-onnx"), onnx_path, "--batch=1",
         "--weights-file=" + npz, "-o", mlir])
    if args.dtype != "f32":
        narrowed = os.path.join(work, "net.%s.mlir" % args.dtype)
        run([args.tool("npu-opt"), mlir, "--npu-narrow-floats=to=" +
             args.dtype, "-o", narrowed])
        mlir = narrowed
    image = np.random.default_rng(1).standard_normal(
        (1, 3, size, size)).astype(np.float32)
    image_path = os.path.join(work, "image.npy")
    np.save(image_path, image)
    want32 = reference(net, image, torch.float32)
    want64 = reference(net, image, torch.float64)
    rows = []
    for mode in args.modes:
        out_dir = os.path.join(work, "out-" + mode)
        os.makedirs(out_dir, exist_ok=True)
        for f in os.listdir(out_dir):
            os.remove(os.path.join(out_dir, f))
        seconds = run([args.tool("npu-run"), mlir, "--mode=" + mode,
                       "--device=" + args.device, "--input=" + image_path,
                       "--weights=" + npz, "--output-dir=" + out_dir])
        got = npu_output(out_dir)
        rows.append((name, mode, relative_error(got, want32),
                     relative_error(got, want64),
                     relative_error(want32, want64), seconds))
    return rows


def main():
    exporter = load_exporter()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("work_dir")
    parser.add_argument("nets", nargs="*", default=exporter.NETWORKS)
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    parser.add_argument("--modes", default="sim,jit")
    parser.add_argument("--device", default="ascend910b")
    parser.add_argument("--dtype", default="f32", choices=["f32", "f16",
                                                           "bf16"])
    args = parser.parse_intermixed_args()
    args.modes = args.modes.split(",")
    args.tool = lambda t: os.path.join(args.build, "bin", t)
    torch.set_num_threads(1)
    print("PyTorch: " + torch_backend())
    print("%-30s %-4s %12s %12s %14s %9s" % (
        "network", "mode", "err vs f32", "err vs f64", "torch f32 err",
        "seconds"))
    failed = False
    for name in args.nets:
        try:
            rows = compare(name, args, exporter)
        except RuntimeError as e:
            print("%-30s does not run: %s" % (name, str(e).splitlines()[-1]))
            failed = True
            continue
        for row in rows:
            print("%-30s %-4s %12.2e %12.2e %14.2e %9.1f" % row)
            failed |= row[2] > 1e-4 and args.dtype == "f32"
        sys.stdout.flush()
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
