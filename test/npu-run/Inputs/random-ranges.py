"""Reads random-weights.mlir's three printed outputs and says whether each
lies where --random-inputs puts it."""
import sys

outputs = [line.split(" = [")[1].strip().rstrip("]").split(", ")
           for line in sys.stdin if " = [" in line]
w, v, x = ([float(t) for t in o] for o in outputs)
print("matrix " + ("in range" if all(abs(t) <= 0.25 for t in w) else "OUT"),
      end=", ")
print("vector " + ("in range" if all(0.5 <= t < 1.5 for t in v) else "OUT"),
      end=", ")
print("data " + ("wider" if max(abs(t) for t in x) > 0.5 else "narrow"))
