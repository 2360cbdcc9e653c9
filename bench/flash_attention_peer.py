#!/usr/bin/python3
"""The peer of bench/FlashAttentionBench.cpp: attention in PyTorch on the CPU.

softmax(Q K^T * scale) V, forward and backward through autograd, f32, one
thread, B 1, N 8, D 128, S = 1024 / 2048 / 4096, the shapes the JIT row of
npu-flash-attention-bench uses. Prints GFLOP/s at 4 S^2 D per head for
the forward and 8 S^2 D for the backward (dQ K, dK, dV, dP: four matmuls of
the forward's size), best of --runs.

The peer at its strongest: Debian's torch multiplies through the BLAS
that libblas.so.3 resolves to, OpenBLAS when libopenblas0-pthread is
installed (scripts/install-deps.sh --bench installs it with
python3-torch), else the reference BLAS, several times slower. OpenBLAS
picks its kernels by CPU model, and 0.3.21 gives AMD's AVX-512 cores its
AVX2 (Haswell) kernels: where the CPU has AVX-512 each shape also runs
with OPENBLAS_CORETYPE=SkylakeX, and the faster of the two counts. Each
configuration runs in a process of its own (OpenBLAS reads the variable
when it loads), with OpenBLAS's threads held to one as torch's are, and
with glibc's malloc backing its large blocks with transparent huge pages
(GLIBC_TUNABLES=glibc.malloc.hugetlb=1): torch allocates each S x S score
matrix afresh, and where first touching a 4 KiB page is slow (this
project's VMs: 0.3 GB/s) that alone took 8.8 of the 9 s of the S 4096
forward. The
output names the BLAS and kernels of every configuration and which one
each figure came from. --machine prints, for npu-flash-attention-bench
--peer, "peer I NAME" lines and "S s forward_seconds I backward_seconds
J" lines instead of the table.

Not part of `make check`.

Usage: /usr/bin/python3 bench/flash_attention_peer.py [--runs 3] [--machine]
(Debian's interpreter: another python3 on the PATH lacks Debian's torch.)
"""

import argparse
import ctypes
import os
import subprocess
import sys
import time

LENGTHS = (1024, 2048, 4096)
HEADS, DIM = 8, 128


def best_of(runs, fn):
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def loaded_blas(torch):
    """The BLAS this process multiplies with, after a first matmul."""
    torch.ones(64, 64) @ torch.ones(64, 64)
    with open("/proc/self/maps") as maps:
        paths = {line.split()[-1] for line in maps
                 if "blas" in line.split()[-1].lower()}
    openblas = sorted(p for p in paths if "libopenblas" in p)
    if not openblas:
        return ("reference BLAS, not the strongest peer (%s; "
                "scripts/install-deps.sh --bench installs OpenBLAS)"
                % ", ".join(sorted(paths)))
    lib = ctypes.CDLL(openblas[0])
    lib.openblas_get_config.restype = ctypes.c_char_p
    lib.openblas_get_corename.restype = ctypes.c_char_p
    config = lib.openblas_get_config().decode().split()
    return "%s %s, %s kernels" % (config[0], config[1],
                                  lib.openblas_get_corename().decode())


def measure(runs):
    """This process's configuration: prints its BLAS, then per length the
    forward's and the backward's seconds."""
    import torch
    torch.set_num_threads(1)
    print("blas torch %s, %s, malloc with %s" % (
        torch.__version__, loaded_blas(torch),
        os.environ.get("GLIBC_TUNABLES", "default tunables")), flush=True)
    for s in LENGTHS:
        q, k, v = (torch.randn(1, HEADS, s, DIM, requires_grad=True)
                   for _ in range(3))
        scale = DIM ** -0.5

        def forward():
            p = torch.softmax(torch.matmul(q, k.transpose(-1, -2)) * scale,
                              dim=-1)
            return torch.matmul(p, v)

        with torch.no_grad():
            t_fwd = best_of(runs, forward)
        dy = torch.randn_like(forward())

        def backward():
            forward().backward(dy)

        # Backward time alone: forward and backward minus the forward.
        t_bwd = max(best_of(runs, backward) - t_fwd, 1e-9)
        print("time", s, t_fwd, t_bwd, flush=True)


def configurations():
    """OPENBLAS_CORETYPE values to try: the library's own choice, and
    SkylakeX's AVX-512 kernels where the CPU has AVX-512."""
    with open("/proc/cpuinfo") as cpuinfo:
        avx512 = " avx512f" in cpuinfo.read()
    return [None, "SkylakeX"] if avx512 else [None]


def run_configuration(coretype, runs):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               GLIBC_TUNABLES="glibc.malloc.hugetlb=1")
    if coretype:
        env["OPENBLAS_CORETYPE"] = coretype
    out = subprocess.run([sys.executable, __file__, "--runs", str(runs),
                          "--child"], env=env, check=True,
                         capture_output=True, text=True).stdout
    name, times = "", {}
    for line in out.splitlines():
        if line.startswith("blas "):
            name = line[len("blas "):]
        elif line.startswith("time "):
            _, s, fwd, bwd = line.split()
            times[int(s)] = (float(fwd), float(bwd))
    return name, times


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--machine", action="store_true")
    parser.add_argument("--child", action="store_true",
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return measure(args.runs)
    peers = [run_configuration(c, args.runs) for c in configurations()]
    if args.machine:
        for i, (name, _) in enumerate(peers):
            print("peer", i, name)
    else:
        for i, (name, _) in enumerate(peers):
            print("peer %d: %s" % (i, name))
        print("\n| torch, f32, 1 thread | forward | GFLOP/s | peer "
              "| backward | GFLOP/s | peer |")
        print("|---|---:|---:|---:|---:|---:|---:|")
    for s in LENGTHS:
        fwd = min(range(len(peers)), key=lambda i: peers[i][1][s][0])
        bwd = min(range(len(peers)), key=lambda i: peers[i][1][s][1])
        t_fwd, t_bwd = peers[fwd][1][s][0], peers[bwd][1][s][1]
        if args.machine:
            print("S", s, t_fwd, fwd, t_bwd, bwd)
            continue
        flops_fwd = 4.0 * HEADS * s * s * DIM
        print("| S %d | %.1f ms | %.1f | %d | %.1f ms | %.1f | %d |"
              % (s, t_fwd * 1e3, flops_fwd / t_fwd / 1e9, fwd, t_bwd * 1e3,
                 2 * flops_fwd / t_bwd / 1e9, bwd))


if __name__ == "__main__":
    main()
