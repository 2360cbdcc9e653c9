#!/usr/bin/env python3
"""Runs npu-mlir's libFuzzer targets (make fuzz).

usage: fuzz.py BUILD_DIR SECONDS [TARGET ...]

Each target runs for SECONDS from a seed corpus made of the repository's own
inputs: every function of the .mlir tests and examples (split at
`// -----`) for npu-opt-fuzzer; the .npy files and device descriptions in
test/, plus one .npy file per element type and format version, for
npu-input-fuzzer; the .onnx networks and test models for npu-onnx-fuzzer;
a few data patterns per kernel for npu-data-fuzzer. What the fuzzer adds is kept in BUILD_DIR/fuzz/TARGET/corpus
for the next run. A crash, a sanitizer report, a leak, a hang (25 s on one
input) or running out of memory fails the run; the input that did it is
written to BUILD_DIR/fuzz/TARGET/artifacts/. Prints one line per target:
executions, coverage and corpus size.
"""

import os
import re
import struct
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "test"))
import sanitizers  # noqa: E402  (the lit suites' sanitizer options)
TARGETS = ["npu-opt-fuzzer", "npu-input-fuzzer", "npu-onnx-fuzzer",
           "npu-data-fuzzer"]
OP_NAME = re.compile(rb"\b(?:npu|npudev|sparse|arith|memref|scf|func|tensor|"
                     rb"math)\.[a-z_0-9]+")


def repository_files(suffixes):
    for top in ("test", "examples"):
        for folder, _, names in os.walk(os.path.join(ROOT, top)):
            for name in sorted(names):
                if name.endswith(suffixes):
                    yield os.path.join(folder, name)


def write_seed(seeds, index, data):
    with open(os.path.join(seeds, "seed-%05d" % index), "wb") as out:
        out.write(data)


def mlir_seeds(seeds):
    """Every split of every .mlir file; returns the op names for a dict."""
    count, names = 0, set()
    for path in repository_files((".mlir",)):
        with open(path, "rb") as f:
            text = f.read()
        names.update(OP_NAME.findall(text))
        for piece in re.split(rb"^// -----\s*$", text, flags=re.M):
            write_seed(seeds, count, piece)
            count += 1
    return count, names


def npy_file(descr, shape, data, version):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, "".join("%d," % d for d in shape))
    size_format, fixed = ("<H", 10) if version == 1 else ("<I", 12)
    padded = len(header) + 1
    padded += (-(fixed + padded)) % 64
    header = header.ljust(padded - 1) + "\n"
    return (b"\x93NUMPY" + bytes([version, 0]) +
            struct.pack(size_format, len(header)) + header.encode() + data)


def input_seeds(seeds):
    count = 0
    for path in repository_files((".npy", ".json")):
        with open(path, "rb") as f:
            write_seed(seeds, count, f.read())
        count += 1
    for descr, size in (("<f2", 2), ("<f4", 4), ("<f8", 8), ("|i1", 1),
                        ("<i4", 4), ("<i8", 8)):
        for version in (1, 2, 3):
            data = bytes(range(2 * 3 * size))
            write_seed(seeds, count, npy_file(descr, (2, 3), data, version))
            count += 1
    return count, set()


def onnx_seeds(seeds):
    """The shipped networks and the importer tests' models."""
    count = 0
    for path in repository_files((".onnx",)):
        with open(path, "rb") as f:
            write_seed(seeds, count, f.read())
        count += 1
    return count, set()


def data_seeds(seeds):
    """One input per kernel: its number, then data that makes valid sites,
    indices and probabilities for some of it (small integers, 0.5f)."""
    count = 0
    for kernel in range(7):
        for pattern in (b"\x00\x00\x00\x00", b"\x01\x00\x00\x00",
                        struct.pack("<f", 0.5), struct.pack("<f", -2.0)):
            write_seed(seeds, count, bytes([kernel]) + pattern * 256)
            count += 1
    return count, set()


SEEDS = {"npu-opt-fuzzer": mlir_seeds, "npu-input-fuzzer": input_seeds,
         "npu-onnx-fuzzer": onnx_seeds, "npu-data-fuzzer": data_seeds}


def write_dict(path, names):
    with open(path, "wb") as out:
        for name in sorted(names):
            out.write(b'"' + name + b'"\n')


def run_target(build, target, seconds):
    binary = os.path.join(build, "bin", target)
    work = os.path.join(build, "fuzz", target)
    seeds, corpus = os.path.join(work, "seeds"), os.path.join(work, "corpus")
    artifacts = os.path.join(work, "artifacts") + os.sep
    for folder in (seeds, corpus, artifacts):
        os.makedirs(folder, exist_ok=True)
    for name in os.listdir(seeds):
        os.remove(os.path.join(seeds, name))
    seed_count, names = SEEDS[target](seeds)
    args = [binary, "-max_total_time=%d" % seconds, "-timeout=25",
            "-rss_limit_mb=4096", "-print_final_stats=1",
            "-artifact_prefix=" + artifacts]
    if names:
        write_dict(os.path.join(work, "ops.dict"), names)
        args.append("-dict=" + os.path.join(work, "ops.dict"))
    env = dict(os.environ, ASAN_OPTIONS=sanitizers.ASAN_OPTIONS,
               UBSAN_OPTIONS=sanitizers.UBSAN_OPTIONS)
    log_path = os.path.join(work, "log.txt")
    with open(log_path, "wb") as log:
        status = subprocess.call(args + [corpus, seeds], env=env,
                                 stdout=log, stderr=subprocess.STDOUT)
    with open(log_path, "rb") as log:
        text = log.read().decode(errors="replace")
    stats = dict(re.findall(r"stat::(\w+):\s*(\d+)", text))
    done = re.findall(r"#\d+\s+DONE\s+cov: (\d+) ft: (\d+) corp: (\d+)", text)
    cov, _, corp = done[-1] if done else ("?", "?", "?")
    print("%s: %s executions in %s s (%d seeds), coverage %s, corpus %s, "
          "peak RSS %s MB: %s" % (
              target, stats.get("number_of_executed_units", "?"),
              seconds, seed_count, cov, corp,
              stats.get("peak_rss_mb", "?"),
              "no crash" if status == 0 else "FAILED, see " + log_path))
    if status != 0:
        print("\n".join(text.splitlines()[-60:]))
    return status == 0


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    build, seconds = sys.argv[1], int(sys.argv[2])
    targets = sys.argv[3:] or TARGETS
    unknown = [t for t in targets if t not in TARGETS]
    if unknown:
        sys.exit("fuzz.py: unknown target %s (known: %s)" %
                 (", ".join(unknown), ", ".join(TARGETS)))
    results = [run_target(build, target, seconds) for target in targets]
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
