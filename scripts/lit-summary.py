#!/usr/bin/env python3
"""Prints one closing line, 'check: N passed, N failed', from lit's JSON
results (lit -o FILE), counting each gtest case of a sharded run once."""
import json
import sys

PASSING = {"PASS", "XFAIL"}
SKIPPED = {"UNSUPPORTED", "SKIPPED", "EXCLUDED"}


def main(path):
    try:
        with open(path) as f:
            tests = json.load(f)["tests"]
    except (OSError, ValueError, KeyError) as err:
        print(f"check: no lit results ({err})")
        return 1
    passed = sum(t["code"] in PASSING for t in tests)
    skipped = sum(t["code"] in SKIPPED for t in tests)
    failed = len(tests) - passed - skipped
    line = f"check: {passed} passed, {failed} failed"
    if skipped:
        line += f", {skipped} skipped"
    print(line)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
