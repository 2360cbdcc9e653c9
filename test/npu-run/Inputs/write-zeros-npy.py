"""Writes a rank-1 .npy file of COUNT zeros of DTYPE (f32 or i32) to PATH,
without numpy: write-zeros-npy.py PATH DTYPE COUNT."""
import sys

path, dtype, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
descr = {"f32": "<f4", "i32": "<i4"}[dtype]
header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (
    descr, count)
# Magic, version 1.0, the header padded with spaces to a multiple of 64.
header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little"))
    f.write(header.encode("latin1"))
    f.write(bytes(4 * count))
