#!/usr/bin/env python3
"""Instructions per request from two Callgrind profiles of one benchmark client: a run of N requests and a run
of 2N. Their difference over N leaves out start-up and exit, so what remains is the cost of a request.

Usage: callgrind_costs.py N RUN_N.out RUN_2N.out
Prints one JSON object: "instructions" per request, and "by_object" (each shared object's own instructions,
not those of the functions it calls, per request), so the cost is split between libcurl, libc, the Swift
runtimes and the client's own code.

Reads Callgrind's output format (https://valgrind.org/docs/manual/cl-format.html) itself: compressed names
(`ob=(3) /usr/lib/...` once, `ob=(3)` after), cost lines `position cost`, and the line after each `calls=`
line, which is the called function's inclusive cost and so not the caller's own.
"""
import collections
import json
import os
import sys


def own_costs_by_object(path):
    names = {}
    costs = collections.Counter()
    current_object = "?"
    after_call = False

    def resolve(value):
        # "(id) name" defines a compressed name, "(id)" uses it, a bare name is used as it is.
        if value.startswith("("):
            key, _, name = value.partition(")")
            name = name.strip()
            if name:
                names[key] = name
            return names.get(key, "?")
        return value

    with open(path, errors="replace") as lines:
        for line in lines:
            if not line.strip():
                continue
            # The header says what a cost line holds; this reader takes one position (the line) and Ir first,
            # Callgrind's defaults. Any other layout (--dump-instr=yes, other events first) is refused.
            if line.startswith("positions:") and line.split(":", 1)[1].split() != ["line"]:
                sys.exit(f"{path}: positions {line.split(':', 1)[1].strip()}, expected line only")
            if line.startswith("events:") and line.split(":", 1)[1].split()[:1] != ["Ir"]:
                sys.exit(f"{path}: events {line.split(':', 1)[1].strip()}, expected Ir first")
            first = line[0]
            if first.isdigit() or first in "+-*":
                if after_call:
                    after_call = False
                    continue
                fields = line.split()
                if len(fields) >= 2:
                    costs[current_object] += int(fields[1])
            elif line.startswith("ob="):
                current_object = resolve(line[3:].strip())
            elif line.startswith("cob="):
                resolve(line[4:].strip())   # defines a name that later ob= lines may use
            elif line.startswith("calls="):
                after_call = True
    return costs


def main():
    requests = int(sys.argv[1])
    one, two = own_costs_by_object(sys.argv[2]), own_costs_by_object(sys.argv[3])
    by_object = {}
    for path in set(one) | set(two):
        name = os.path.basename(path)
        by_object[name] = by_object.get(name, 0) + (two[path] - one[path]) / requests
    total = round(sum(by_object.values()))
    by_object = {name: round(count) for name, count in by_object.items() if abs(count) >= 1}
    print(json.dumps({"instructions": total, "by_object": by_object}))


if __name__ == "__main__":
    main()
