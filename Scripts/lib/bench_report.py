#!/usr/bin/env python3
"""Turns the JSON lines of Scripts/bench.sh into the Markdown table of docs/performance.md.

Each (client, workload, concurrency) keeps the median of its rounds; ratios are to the raw
libcurl client of the same run. `--write FILE` replaces the text between the markers
`<!-- bench:start -->` and `<!-- bench:end -->` in FILE.
"""
import json
import os
import platform
import statistics
import subprocess
import sys
from datetime import datetime, timezone

START, END = "<!-- bench:start -->", "<!-- bench:end -->"
NAMES = {"raw-libcurl": "raw libcurl (C)", "courier": "Courier", "async-http-client": "AsyncHTTPClient",
         "urlsession": "URLSession"}
ORDER = ["raw-libcurl", "courier", "async-http-client", "urlsession"]


def scenario(row):
    workload, c = row["workload"], row.get("concurrency", 1)
    if workload == "small":
        https = row.get("https", False)
        return f"small GET{' HTTPS' if https else ''}, C={c}"
    return {"download-memory": "256 MiB download to memory", "download-file": "256 MiB download to file",
            "upload": "256 MiB upload from file"}[workload]


def load(path):
    rows, errors = [], []
    lines = open(path).read().splitlines()
    for line in lines:
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if "error" in row:
            errors.append(row)
        else:
            rows.append(row)
    return rows, errors


def main():
    path = sys.argv[1]
    rows, errors = load(path)
    for row in rows:
        row["https"] = row.get("scheme") == "https"
    groups = {}
    for row in rows:
        groups.setdefault((scenario(row), row["client"]), []).append(row)

    def median(rows, key):
        return statistics.median(r[key] for r in rows)

    figures = {}
    for (name, client), runs in groups.items():
        seconds = median(runs, "seconds")
        requests = runs[0]["requests"]
        figures[(name, client)] = {
            "rps": requests / seconds if seconds else 0,
            "mbps": median(runs, "bytes") / seconds / 1e6 if seconds else 0,
            "cpu_us": median(runs, "cpu_seconds") / requests * 1e6,
            "rss_mib": median(runs, "max_rss_kib") / 1024,
            "connections": runs[0].get("connections"),
            "failures": max(r.get("failures", 0) for r in runs),
        }
    scenarios = []
    for row in rows:
        name = scenario(row)
        if name not in scenarios:
            scenarios.append(name)

    out = []
    out.append("| scenario | client | req/s | MB/s | client CPU µs/req | peak RSS MiB | TCP connections | vs raw libcurl |")
    out.append("|---|---|---:|---:|---:|---:|---:|---:|")
    for name in scenarios:
        base = figures.get((name, "raw-libcurl"))
        for client in ORDER:
            f = figures.get((name, client))
            if not f:
                continue
            small = name.startswith("small")
            metric = "rps" if small else "mbps"
            ratio = f[metric] / base[metric] if base and base[metric] else float("nan")
            cpu_ratio = f["cpu_us"] / base["cpu_us"] if base and base["cpu_us"] else float("nan")
            connections = "n/a" if f["connections"] is None else str(f["connections"])
            note = f"{ratio:.2f}×" + (f" (CPU {cpu_ratio:.2f}×)" if small else "")
            if f["failures"]:
                note += f", {f['failures']} failed"
            out.append(f"| {name} | {NAMES.get(client, client)} | {f['rps']:.0f} | {f['mbps']:.1f} | "
                       f"{f['cpu_us']:.1f} | {f['rss_mib']:.1f} | {connections} | {note} |")
    for error in errors:
        out.append(f"\nFailed: {NAMES.get(error['client'], error['client'])} {error['workload']}: "
                   f"`{error['error'].strip()[-200:]}`")
    try:
        curl = subprocess.run(["curl", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    except OSError:
        curl = "curl: unknown"
    header = (f"Measured {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')} on {os.cpu_count()} cores "
              f"({platform.machine()}, {platform.release()}), {curl.split(' (')[0]}; medians of the rounds; "
              f"client and nginx share the machine.\n")
    table = header + "\n" + "\n".join(out)
    if len(sys.argv) > 3 and sys.argv[2] == "--write":
        target = sys.argv[3]
        text = open(target).read() if os.path.exists(target) else f"# Performance\n\n{START}\n{END}\n"
        if START not in text:
            text += f"\n{START}\n{END}\n"
        before, rest = text.split(START, 1)
        _, after = rest.split(END, 1)
        open(target, "w").write(f"{before}{START}\n{table}\n{END}{after}")
    else:
        print(table)


if __name__ == "__main__":
    main()
