#!/usr/bin/env python3
"""Writes a CSR matrix for the demo as three .npy files, PREFIX-indptr.npy
(int32, ROWS + 1), PREFIX-indices.npy (int32, NNZ, sorted within each row)
and PREFIX-values.npy (float32, NNZ): exactly NNZ nonzeros spread over the
rows by an R-MAT-like power law (a few heavy rows, many light or empty
ones). Deterministic; no numpy needed.

Usage: sparse-matrix.py PREFIX ROWS COLS NNZ
"""
import random
import struct
import sys


def rmat_cell(rng, rows, cols, a=0.57, b=0.19, c=0.19):
    """One (row, column) by recursive quadrant choice, as R-MAT does."""
    r0, r1, c0, c1 = 0, rows, 0, cols
    while r1 - r0 > 1 or c1 - c0 > 1:
        x = rng.random()
        top = x < a + b
        left = x < a or (a + b <= x < a + b + c)
        if r1 - r0 > 1:
            mid = (r0 + r1) // 2
            r0, r1 = (r0, mid) if top else (mid, r1)
        if c1 - c0 > 1:
            mid = (c0 + c1) // 2
            c0, c1 = (c0, mid) if left else (mid, c1)
    return r0, c0


def npy(path, fmt, code, values):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (
        code, len(values))
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))


def main():
    prefix, rows, cols, nnz = sys.argv[1], *map(int, sys.argv[2:5])
    rng = random.Random(2026)
    cells = set()
    while len(cells) < nnz:
        cells.add(rmat_cell(rng, rows, cols))
    cells = sorted(cells)
    indptr = [0] * (rows + 1)
    for r, _ in cells:
        indptr[r + 1] += 1
    for r in range(rows):
        indptr[r + 1] += indptr[r]
    npy(prefix + "-indptr.npy", "i", "<i4", indptr)
    npy(prefix + "-indices.npy", "i", "<i4", [c for _, c in cells])
    npy(prefix + "-values.npy", "f", "<f4",
        [rng.uniform(-4, 4) for _ in cells])


if __name__ == "__main__":
    main()
