"""Compares two `npu-run --print-outputs` listings value by value.

usage: close-outputs.py A B [RTOL]
Prints "close" when every output has the same shape in both and each pair
of values x, y satisfies |x - y| <= RTOL * max(|x|, |y|, 1) (default 1e-6),
else the first pair that does not. Output names (argN) may differ: the two
runs may number their arguments differently.
"""
import sys


def outputs(path):
    result = []
    for line in open(path):
        head, values = line.split(" = [")
        shape = head.split(" ", 1)[1]
        body = values.strip().rstrip("]")
        result.append((shape, [float(v) for v in body.split(", ")] if body else []))
    return result


a, b = outputs(sys.argv[1]), outputs(sys.argv[2])
rtol = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-6
if len(a) != len(b):
    sys.exit(f"{len(a)} outputs against {len(b)}")
for n, ((shape_a, xs), (shape_b, ys)) in enumerate(zip(a, b)):
    if shape_a != shape_b:
        sys.exit(f"output {n}: shape {shape_a} against {shape_b}")
    for i, (x, y) in enumerate(zip(xs, ys)):
        if abs(x - y) > rtol * max(abs(x), abs(y), 1.0):
            sys.exit(f"output {n}, element {i}: {x} against {y}")
print("close")
