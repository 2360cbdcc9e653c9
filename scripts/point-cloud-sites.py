#!/usr/bin/env python3
"""Writes the demo's point cloud: distinct voxel sites (batch, z, y, x) as
an int32 .npy of shape [L, 4], from a LiDAR-like scene per batch entry (the
ground seen from a sensor at the centre, and the sides and tops of a few
boxes), as bench/LidarSites.h generates at full scale. Deterministic; no
numpy needed.

Usage: point-cloud-sites.py OUT.npy [L] [BATCH] [D H W]
"""
import math
import random
import struct
import sys


def sites(count, batch, shape, seed=2024):
    rng = random.Random(seed)
    depth, height, width = shape
    ground = depth // 4
    out = []
    for b in range(batch):
        want = count // batch + (1 if b < count % batch else 0)
        cy, cx = height / 2, width / 2
        reach = 0.49 * min(cy, cx)
        boxes = []
        for _ in range(6):
            a, r = 2 * math.pi * rng.random(), reach * rng.random()
            boxes.append((cy + r * math.sin(a), cx + r * math.cos(a)))
        seen = set()
        while len(seen) < want:
            if rng.random() < 0.3:
                y0, x0 = boxes[rng.randrange(len(boxes))]
                u, v = rng.random(), rng.random()
                face = rng.randrange(3)
                dy, dx, dz = height / 36, width / 18, max(2, depth / 5)
                if face == 0:
                    z, y, x = ground + v * dz, y0, x0 + u * dx
                elif face == 1:
                    z, y, x = ground + v * dz, y0 + u * dy, x0
                else:
                    z, y, x = ground + dz, y0 + u * dy, x0 + v * dx
            else:
                a, r = 2 * math.pi * rng.random(), 2 + reach * rng.random()
                z = ground + (1 if rng.random() < 0.15 else 0)
                y, x = cy + r * math.sin(a), cx + r * math.cos(a)
            site = (b, int(z), int(y), int(x))
            if 0 <= site[1] < depth and 0 <= site[2] < height and \
                    0 <= site[3] < width and site[1:] not in seen:
                seen.add(site[1:])
                out.append(site)
    return out


def write_npy(path, rows):
    header = "{'descr': '<i4', 'fortran_order': False, 'shape': (%d, 4), }" \
        % len(rows)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        for row in rows:
            f.write(struct.pack("<4i", *row))


if __name__ == "__main__":
    args = sys.argv[1:]
    count = int(args[1]) if len(args) > 1 else 3000
    batch = int(args[2]) if len(args) > 2 else 2
    shape = tuple(int(a) for a in args[3:6]) if len(args) > 5 else (21, 200, 200)
    write_npy(args[0], sites(count, batch, shape))
