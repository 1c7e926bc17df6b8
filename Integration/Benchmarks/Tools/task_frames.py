#!/usr/bin/env python3
"""Names the callers in a report of task_frames.c and prints, per call of a benchmark client, the async frames it
allocated: count per call, size, and the Swift function that asked (demangled), largest first.

Usage: task_frames.py REPORT CALLS
REPORT: the file task_frames.c wrote (TASK_FRAMES_OUT); CALLS: the calls the client made, so that sites that run
once per call show 1. Symbols come from `nm` on each object named in the report, names from `swift demangle`.
"""
import bisect
import collections
import subprocess
import sys


def symbols(path):
    """The object's function symbols, sorted by address."""
    table = []
    listing = subprocess.run(["nm", "-n", "--defined-only", path], capture_output=True, text=True).stdout
    for line in listing.splitlines():
        parts = line.split(None, 2)
        if len(parts) == 3 and parts[1] in "tTwW":
            table.append((int(parts[0], 16), parts[2]))
    return table


def main():
    report, calls = sys.argv[1], int(sys.argv[2])
    rows = []
    tables = {}
    for line in open(report):
        offset, size, count, path = line.split(None, 3)
        path = path.strip()
        if path not in tables:
            tables[path] = symbols(path)
        table = tables[path]
        index = bisect.bisect_right([address for address, _ in table], int(offset, 16)) - 1
        name = table[index][1] if index >= 0 else f"{path}+{offset}"
        rows.append((int(count) / calls, int(size), name))
    names = subprocess.run(["swift", "demangle", "--simplified"], input="\n".join(r[2] for r in rows),
                           capture_output=True, text=True).stdout.splitlines()
    per_call = collections.Counter()
    print(f"{'per call':>8} {'bytes':>6}  caller (the frame is its callee's)")
    for (share, size, _), name in sorted(zip(rows, names), key=lambda r: (-r[0][0] * r[0][1])):
        if share >= 0.5:
            print(f"{share:8.2f} {size:6d}  {name[:150]}")
            per_call["bytes"] += share * size
    print(f"frames of at least one every other call: {per_call['bytes']:.0f} bytes per call")


if __name__ == "__main__":
    main()
