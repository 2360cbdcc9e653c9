#!/usr/bin/python3
"""The peer of bench/FlashAttentionBench.cpp: attention in PyTorch on the CPU.

softmax(Q K^T * scale) V, forward and backward through autograd, f32, one
thread, B 1, N 8, D 128, S = 1024 / 2048 / 4096, the shapes the JIT row of
npu-flash-attention-bench uses. Prints GFLOP/s at 4 S^2 D per head for
the forward and 8 S^2 D for the backward (dQ K, dK, dV, dP: four matmuls of
the forward's size), best of --runs.

Needs Debian's python3-torch (scripts/install-deps.sh --bench); not part
of `make check`.

Usage: /usr/bin/python3 bench/flash_attention_peer.py [--runs 3]
(Debian's interpreter: another python3 on the PATH lacks Debian's torch.)
"""

import argparse
import time

import torch


def best_of(runs, fn):
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    torch.set_num_threads(1)
    heads, dim = 8, 128
    print("| torch %s, f32, 1 thread | forward | GFLOP/s | backward | GFLOP/s |"
          % torch.__version__)
    print("|---|---:|---:|---:|---:|")
    for s in (1024, 2048, 4096):
        q, k, v = (torch.randn(1, heads, s, dim, requires_grad=True)
                   for _ in range(3))
        scale = dim ** -0.5

        def forward():
            p = torch.softmax(torch.matmul(q, k.transpose(-1, -2)) * scale,
                              dim=-1)
            return torch.matmul(p, v)

        with torch.no_grad():
            t_fwd = best_of(args.runs, forward)
        out = forward()
        dy = torch.randn_like(out)

        def backward():
            o = forward()
            o.backward(dy)

        # Backward time alone: forward and backward minus the forward.
        t_both = best_of(args.runs, backward)
        t_bwd = max(t_both - t_fwd, 1e-9)
        flops_fwd = 4.0 * heads * s * s * dim
        print("| S %d | %.1f ms | %.1f | %.1f ms | %.1f |"
              % (s, t_fwd * 1e3, flops_fwd / t_fwd / 1e9, t_bwd * 1e3,
                 2 * flops_fwd / t_bwd / 1e9))


if __name__ == "__main__":
    main()
