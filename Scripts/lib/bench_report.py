#!/usr/bin/env python3
"""Turns the JSON lines of Scripts/bench.sh into the Markdown tables of docs/performance.md.

One table per benchmark of bench.sh, each between its own markers in the file:
- clients (`<!-- bench:start -->` … `<!-- bench:end -->`): each (client, workload, concurrency)
  keeps the median of its rounds; ratios are to the raw libcurl client of the same run. The busiest
  thread's processor time per request sits beside the client's: where it nears the wall time per request,
  that one thread (libcurl's or an event loop's) caps the rate.
- multipart (`<!-- bench-multipart:start -->` … `<!-- bench-multipart:end -->`): the 1 GiB
  multipart upload, Courier against the curl command-line tool's -F; medians of the rounds, ratios
  to curl.
- serialization (`<!-- bench-serialization:start -->` … `<!-- bench-serialization:end -->`):
  serialization-bench's medians, Courier's QueryString against Foundation's URLComponents.
- json (`<!-- bench-json:start -->` … `<!-- bench-json:end -->`): json-bench's medians, Courier's JSON
  and Decodable serializers against JSONSerialization and JSONDecoder on the same 50 MB body.
- xml (`<!-- bench-xml:start -->` … `<!-- bench-xml:end -->`): xml-bench, CourierXML's SAX streaming
  over a generated 200 MB document, MB/s and peak RSS.
- observability (`<!-- bench-observability:start -->` … `<!-- bench-observability:end -->`): courier-bench's
  small GETs with CourierLogging, CourierTracing and CourierMetrics installed or not; client CPU per request,
  medians of interleaved rounds, and what each adds to the plain session's.

- scale, allocations: the scale curve (`<!-- bench-scale:start -->`) and heap allocations per small GET
  (`<!-- bench-allocations:start -->`).
- instructions (`<!-- bench-instructions:start -->` … `<!-- bench-instructions:end -->`): user-space
  instructions per small GET under Callgrind, split by shared object.
- idle-path (`<!-- bench-idle-path:start -->` … `<!-- bench-idle-path:end -->`): small GETs at two settings of
  the guest's halt polling; each run's rate over raw libcurl's in the same round, user and system CPU.

`--write FILE` replaces the text between the markers of each benchmark that has results (or
failures) in this run, and leaves the others as they are.
"""
import json
import os
import platform
import statistics
import subprocess
import sys
from datetime import datetime, timezone

NAMES = {"raw-libcurl": "raw libcurl (C)",
         "raw-libcurl-handoff": "raw libcurl, pool callers hand over to a curl thread (C)",
         "raw-libcurl-direct": "raw libcurl, pool callers drive it under a lock (C)",
         "raw-curl-handoff": "raw libcurl, pool callers hand over to a curl thread (C)",
         "raw-curl-direct": "raw libcurl, pool callers drive it under a lock (C)",
         "courier": "Courier, executor preference", "courier-pool": "Courier, shared-pool callers",
         "courier-pool-task": "Courier, shared-pool callers, a task per call",
         "async-http-client": "AsyncHTTPClient",
         "urlsession": "URLSession", "curl-cli": "curl -F (command-line tool)", "courier-bench": "Courier",
         "raw-curl": "raw libcurl (C)", "urlsession-bench": "URLSession", "serialization-bench": "serialization-bench"}
MARKERS = {"clients": ("<!-- bench:start -->", "<!-- bench:end -->"),
           "multipart": ("<!-- bench-multipart:start -->", "<!-- bench-multipart:end -->"),
           "serialization": ("<!-- bench-serialization:start -->", "<!-- bench-serialization:end -->"),
           "json": ("<!-- bench-json:start -->", "<!-- bench-json:end -->"),
           "xml": ("<!-- bench-xml:start -->", "<!-- bench-xml:end -->"),
           "observability": ("<!-- bench-observability:start -->", "<!-- bench-observability:end -->"),
           "scale": ("<!-- bench-scale:start -->", "<!-- bench-scale:end -->"),
           "allocations": ("<!-- bench-allocations:start -->", "<!-- bench-allocations:end -->"),
           "instructions": ("<!-- bench-instructions:start -->", "<!-- bench-instructions:end -->"),
           "idle-path": ("<!-- bench-idle-path:start -->", "<!-- bench-idle-path:end -->")}


def group_of(row):
    """Which benchmark of bench.sh a result line belongs to."""
    if row.get("group"):
        return row["group"]
    return {"multipart-upload": "multipart", "query-string": "serialization", "json-parse": "json", "xml-sax": "xml"}.get(row["workload"], "clients")
ORDER = ["raw-libcurl", "raw-libcurl-handoff", "raw-libcurl-direct", "courier-pool", "courier", "async-http-client", "urlsession"]


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


def clients_table(rows, errors):
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
            # The busiest thread's processor time per request: a client whose work is serial (one thread runs libcurl
            # or an event loop) is capped by that thread before the machine's cores. Absent from runs recorded before
            # the field existed.
            "busiest_us": (median(runs, "busiest_thread_seconds") / requests * 1e6
                           if all("busiest_thread_seconds" in r for r in runs) else None),
            "rss_mib": median(runs, "max_rss_kib") / 1024,
            # nginx's own count (stub_status accepts during the run) when bench.sh read it; the
            # client's report otherwise. Every round's count, so a varying one shows.
            "connections": sorted({r.get("server_connections", r.get("connections")) for r in runs} - {None}),
            "failures": max(r.get("failures", 0) for r in runs),
        }
    scenarios = []
    for row in rows:
        name = scenario(row)
        if name not in scenarios:
            scenarios.append(name)

    out = []
    out.append("| scenario | client | req/s | MB/s | client CPU µs/req | busiest thread µs/req | peak RSS MiB "
               "| TCP connections (nginx) | vs raw libcurl |")
    out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|")
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
            connections = "/".join(str(c) for c in f["connections"]) or "n/a"
            note = f"{ratio:.2f}×" + (f" (CPU {cpu_ratio:.2f}×)" if small else "")
            if f["failures"]:
                note += f", {f['failures']} failed"
            busiest = "n/a" if f["busiest_us"] is None else f"{f['busiest_us']:.1f}"
            out.append(f"| {name} | {NAMES.get(client, client)} | {f['rps']:.0f} | {f['mbps']:.1f} | "
                       f"{f['cpu_us']:.1f} | {busiest} | {f['rss_mib']:.1f} | {connections} | {note} |")
    out += failures(errors)
    return header("medians of the rounds; client and nginx share the machine") + "\n" + "\n".join(out)


def failures(errors):
    return [f"\nFailed: {NAMES.get(error['client'], error['client'])} {error['workload']}: "
            f"`{error['error'].strip()[-200:]}`" for error in errors]


def curl_version():
    try:
        return subprocess.run(["curl", "--version"], capture_output=True, text=True).stdout.splitlines()[0].split(" (")[0]
    except (OSError, IndexError):
        return "curl: unknown"


def swift_version():
    try:
        text = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout
        return next(line for line in text.splitlines() if "Swift version" in line).split(" (")[0].strip()
    except (OSError, StopIteration):
        return "Swift: unknown"


def header(what):
    return (f"Measured {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')} on {os.cpu_count()} cores "
            f"({platform.machine()}, {platform.release()}), {curl_version()}, {swift_version()}; {what}.\n")


def multipart_table(rows, errors):
    """Courier against curl -F: median MB/s (and the rounds' range), CPU and peak RSS, ratios to curl."""
    by_client = {}
    for row in rows:
        by_client.setdefault(row["client"], []).append(row)
    figures = {}
    for client, runs in by_client.items():
        rates = sorted(r["bytes"] / r["seconds"] / 1e6 for r in runs if r["seconds"])
        figures[client] = {
            "mbps": statistics.median(rates), "low": rates[0], "high": rates[-1], "rounds": len(runs),
            "cpu": statistics.median(r["cpu_seconds"] for r in runs),
            "rss": statistics.median(r["max_rss_kib"] for r in runs) / 1024,
            "rss_max": max(r["max_rss_kib"] for r in runs) / 1024,
            "bytes": runs[0]["bytes"],
            "failures": sum(r.get("failures", 0) for r in runs),
        }
    base = figures.get("curl-cli")
    out = ["| client | MB/s (median) | MB/s (slowest–fastest round) | client CPU s | peak RSS MiB (max of rounds) "
           "| body bytes | vs curl -F: MB/s | CPU | RSS |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for client in ["curl-cli", "courier"]:
        f = figures.get(client)
        if not f:
            continue

        def ratio(key):
            return f"{f[key] / base[key]:.2f}×" if base and base[key] else "n/a"
        note = f", {f['failures']} failed" if f["failures"] else ""
        out.append(f"| {NAMES[client]} | {f['mbps']:.0f} | {f['low']:.0f}–{f['high']:.0f} | {f['cpu']:.2f} | "
                   f"{f['rss']:.1f} ({f['rss_max']:.1f}) | {f['bytes']} | {ratio('mbps')}{note} | {ratio('cpu')} | "
                   f"{ratio('rss')} |")
    out += failures(errors)
    rounds = max((f["rounds"] for f in figures.values()), default=0)
    return header(f"{rounds} interleaved rounds, medians; client and nginx share the machine") + "\n" + "\n".join(out)


def serialization_table(rows, errors):
    out = []
    for row in rows:
        ratio = row["foundation_us"] / row["courier_us"] if row["courier_us"] else float("nan")
        out += [
            f"{row['pairs']} name–value pairs ({row['users']} users); {row['rounds']} rounds of {row['batch']} calls "
            "per side, the sides alternating; figures are per call (one whole query string).\n",
            "| side | what is timed | median µs | fastest round µs | query bytes | speed vs URLComponents |",
            "|---|---|---:|---:|---:|---:|",
            f"| Courier | `QueryString.encode(tree)` | {row['courier_us']:.0f} | {row['courier_min_us']:.0f} | "
            f"{row['courier_bytes']} | {ratio:.2f}× |",
            f"| Foundation | walk the tree (sorted keys, bracketed names) → `[URLQueryItem]` → "
            f"`URLComponents.queryItems` → `percentEncodedQuery` | {row['foundation_us']:.0f} | "
            f"{row['foundation_min_us']:.0f} | {row['foundation_bytes']} | 1.00× |",
            "",
            f"Escaped by Courier only: `{row['escaped_by_courier_only']}`; by Foundation only: "
            f"`{row['escaped_by_foundation_only'] or 'none'}`. Foundation's query decodes to the same pairs: "
            f"{'yes' if row['foundation_round_trips'] else 'no'}.",
        ]
    out += failures(errors)
    return header("no server, one process") + "\n" + "\n".join(out)


def json_table(rows, errors):
    out = []
    if rows:
        size = rows[0]["megabytes"]
        out += [
            f"A generated {size:.0f} MB JSON document (an array of user-like records: strings with escapes and "
            "non-ASCII, integers, doubles, booleans, nulls, nesting), parsed in one process; median of the rounds. "
            "Courier's serializers read the DataResponse's own buffer (no copy of the body); the baselines get the "
            "same `Data`. The last column is the baseline's time over Courier's (≥ 0.95 is the target).\n",
            "| parser | seconds | MB/s | vs Courier |",
            "|---|---:|---:|---:|",
        ]
        for row in rows:
            out.append(f"| {row['parser']} | {row['seconds']:.3f} | {row['mb_per_s']:.1f} | {row['baseline_over_courier']:.2f}× |")
    out += failures(errors)
    return header("no server, one process") + "\n" + "\n".join(out)


def xml_table(rows, errors):
    out = []
    if rows:
        out += ["| document | seconds | MB/s | events | peak RSS MiB | target |", "|---:|---:|---:|---:|---:|---|"]
        for row in rows:
            rss = row["max_rss_kib"] / 1024
            out.append(f"| {row['megabytes']} MB | {row['seconds']:.2f} | {row['mb_per_s']:.1f} | {row['events']} | "
                       f"{rss:.1f} | {'met' if rss <= 32 else 'missed'} (≤ 32 MiB) |")
    out += failures(errors)
    return header("no server, one process; the document is generated in 64 KiB chunks as it is parsed") + "\n" + "\n".join(out)


OBSERVATIONS = [("courier", "plain session"),
                ("courier+logging", "CourierLogging, a line per call at `info`, rendered as swift-log's stream handler does"),
                ("courier+logging-unrendered", "CourierLogging, the same line built and handed to a handler that drops it"),
                ("courier+tracing", "CourierTracing, no-op tracer"), ("courier+metrics", "CourierMetrics, no-op factory"),
                ("courier+all", "all three")]


def observability_table(rows, errors):
    out = []
    by_client = {}
    for row in rows:
        by_client.setdefault(row["client"], []).append(row)

    def median(client, f):
        values = [f(r) for r in by_client.get(client, [])]
        return statistics.median(values) if values else None

    cpu = lambda r: r["cpu_seconds"] / r["requests"] * 1e6
    rate = lambda r: r["requests"] / r["seconds"]
    plain = median("courier", cpu)
    if rows:
        first = rows[0]
        out += [
            f"`GET /json` from nginx, {first['requests']} requests at concurrency {first['concurrency']}, the modes' rounds "
            "interleaved; client CPU is the process's user and system time over its requests. \"Added\" is the mode's "
            "CPU per request less the plain session's, and its share of the plain session's (target: under 10%).\n",
            "| session | req/s | client CPU µs/request | added µs/request | added, share of plain | target |",
            "|---|---:|---:|---:|---:|---|",
        ]
        for client, label in OBSERVATIONS:
            if client not in by_client:
                continue
            c, r = median(client, cpu), median(client, rate)
            if client == "courier" or plain is None:
                out.append(f"| {label} | {r:,.0f} | {c:.1f} | — | — | — |")
            else:
                added = c - plain
                share = added / plain * 100
                # The target is Courier's own cost: the rendered row adds the logging backend's formatting, shown for
                # what a stream handler costs, and judged by the row that drops lines unrendered.
                if client in ("courier+metrics", "courier+all"):
                    target = "—"
                elif client == "courier+logging":
                    target = "— (backend's formatting included)"
                else:
                    target = "met" if share < 10 else "missed"
                out.append(f"| {label} | {r:,.0f} | {c:.1f} | {added:+.1f} | {share:+.1f}% | {target} |")
    out += failures(errors)
    return header("nginx on 127.0.0.1, HTTP/1.1 keep-alive") + "\n" + "\n".join(out)


def scale_table(rows, errors):
    out = []
    curve = [r for r in rows if not r.get("slow")]
    slow = [r for r in rows if r.get("slow")]
    if curve:
        out += ["Courier with shared-pool callers, `GET /json` from nginx; medians of the rounds. HTTP/1.1 keeps the "
                "default 8 connections per host (calls beyond wait in the transport); HTTP/2 over TLS multiplexes them "
                "on one connection.\n",
                "| protocol | in flight | req/s | client CPU µs/request | peak RSS MiB | threads | TCP connections (nginx) |",
                "|---|---:|---:|---:|---:|---:|---:|"]
        groups = {}
        for r in curve:
            groups.setdefault((r.get("scheme"), r["concurrency"]), []).append(r)
        for (scheme, c) in sorted(groups, key=lambda k: (k[0] != "http", k[1])):
            runs = groups[(scheme, c)]
            seconds = statistics.median(r["seconds"] for r in runs)
            requests = runs[0]["requests"]
            cpu = statistics.median(r["cpu_seconds"] for r in runs) / requests * 1e6
            rss = statistics.median(r["max_rss_kib"] for r in runs) / 1024
            threads = max(r.get("threads", -1) for r in runs)
            connections = "/".join(str(x) for x in sorted({r.get("server_connections", r.get("connections")) for r in runs} - {None})) or "n/a"
            protocol = "HTTP/1.1" if scheme == "http" else "HTTP/2 (TLS)"
            out.append(f"| {protocol} | {c:,} | {requests / seconds:,.0f} | {cpu:.1f} | {rss:.1f} | {threads} | {connections} |")
    for r in slow:
        out += ["",
                f"{r['requests']:,} calls at once to a server that answers each after 1 s (asyncio, HTTP/1.1, no connection "
                "limit, so a connection per call):\n",
                "| calls | wall time s | req/s | client CPU µs/request | peak RSS MiB | RSS per call KiB | threads | failures |",
                "|---:|---:|---:|---:|---:|---:|---:|---:|",
                f"| {r['requests']:,} | {r['seconds']:.2f} | {r['requests'] / r['seconds']:,.0f} | "
                f"{r['cpu_seconds'] / r['requests'] * 1e6:.1f} | {r['max_rss_kib'] / 1024:.1f} | "
                f"{r['max_rss_kib'] / r['requests']:.1f} | {r.get('threads', -1)} | {r.get('failures', 0)} |"]
    out += failures(errors)
    return header("client and servers share the machine") + "\n" + "\n".join(out)


def allocations_table(rows, errors):
    out = []
    if rows:
        out += ["Heap allocations (malloc, calloc, realloc and the aligned ones) per small GET at C=16, counted by "
                "`Integration/Benchmarks/Tools/malloc_count.c` preloaded: a run of 2N requests less a run of N, over N, so "
                "start-up does not count. `malloc` alone is what `perf probe -x libc.so.6 malloc` counts, the figure "
                "issue 16 sets its target on (Courier: 30 or fewer).\n",
                "| client | `malloc` calls per request | all allocation calls per request |", "|---|---:|---:|"]
        order = ["raw-curl", "courier-pool", "courier", "async-http-client"]
        for row in sorted(rows, key=lambda r: order.index(r["client"]) if r["client"] in order else 9):
            mallocs = (row["malloc_2n"] - row["malloc_n"]) / row["requests"]
            every = (row["all_2n"] - row["all_n"]) / row["requests"]
            out.append(f"| {NAMES.get(row['client'], row['client'])} | {mallocs:.1f} | {every:.1f} |")
    out += failures(errors)
    return header("nginx on 127.0.0.1, HTTP/1.1 keep-alive") + "\n" + "\n".join(out)


INSTRUCTION_CLIENTS = [("raw-libcurl", "raw libcurl (C), one thread"),
                       ("raw-libcurl-handoff", "raw-curl-threads handoff (C)"),
                       ("courier", "Courier, executor preference, long-lived callers"),
                       ("courier-task", "Courier, executor preference, a task per call"),
                       ("courier-transport", "Courier's transport alone (no session), executor preference, long-lived"),
                       ("courier-pool", "Courier, shared-pool callers, long-lived"),
                       ("courier-pool-task", "Courier, shared-pool callers, a task per call"),
                       ("async-http-client", "AsyncHTTPClient")]


def instructions_table(rows, errors):
    """Instructions per small GET and their split by shared object (each object's own instructions)."""
    def share(row, *objects):
        return sum(v for k, v in row["by_object"].items() if any(k.startswith(o) for o in objects))

    out = ["User-space instructions per small GET (`GET /json`, 600 bytes), counted by Valgrind's Callgrind: a run of 2N "
           "requests less a run of N, over N. Callgrind runs one thread at a time, so these are the instructions each "
           "design executes, not how its threads meet; the kernel's work is not counted, nor Courier's idle polling "
           "(turned off: what it executes depends on timing). Each column is a shared "
           "object's own instructions (not those of what it calls); the client's binary holds Courier (or "
           "AsyncHTTPClient and SwiftNIO) and swift-http-types, compiled in. \"Other\" is mostly the dynamic "
           "linker (thread-local variables) and Foundation.\n",
           "| in flight | client | instructions per request | vs raw libcurl | libcurl | libc | Swift runtime | "
           "concurrency runtime | client binary | other |",
           "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for concurrency in sorted({r["concurrency"] for r in rows}):
        mine = {r["client"]: r for r in rows if r["concurrency"] == concurrency}
        raw = mine.get("raw-libcurl", {}).get("instructions")
        for label, name in INSTRUCTION_CLIENTS:
            row = mine.get(label)
            if not row:
                continue
            total = row["instructions"]
            curl, libc = share(row, "libcurl"), share(row, "libc.so")
            swift, concurrency_runtime = share(row, "libswiftCore"), share(row, "libswift_Concurrency", "libdispatch")
            binary = share(row, "profiled", "courier-bench", "raw-curl", "ahc-bench")
            other = total - curl - libc - swift - concurrency_runtime - binary
            ratio = f"{total / raw:.2f}×" if raw else "n/a"
            out.append(f"| {concurrency} | {name} | {total:,} | {ratio} | {curl:,} | {libc:,} | {swift:,} | "
                       f"{concurrency_runtime:,} | {binary:,} | {other:,} |")
    for error in errors:
        out.append(f"\nFailed: {error['client']} at C={error.get('concurrency', '?')}: `{error['error'].strip()[-200:]}`")
    return header("nginx on 127.0.0.1, HTTP/1.1 keep-alive, Valgrind's Callgrind") + "\n" + "\n".join(out)


IDLE_PATH_CLIENTS = [("raw-libcurl", "raw libcurl (C), one thread"),
                     ("raw-libcurl-handoff", "raw-curl-threads handoff (C)"),
                     ("raw-libcurl-direct", "raw-curl-threads socket action (C)"),
                     ("courier", "Courier, executor preference, long-lived callers"),
                     ("courier-pool", "Courier, shared-pool callers, long-lived"),
                     ("courier-pool-task", "Courier, shared-pool callers, a task per call"),
                     ("courier-pool-nopoll", "Courier, shared-pool callers, long-lived, idle polling off"),
                     ("courier-pool-task-nopoll", "Courier, shared-pool callers, a task per call, idle polling off")]


def idle_path_table(rows, errors):
    """Small GETs with the guest's halt polling at two settings: each run's rate over raw libcurl's in the same
    round (bench.sh tags every line with its round), and user and system CPU per request."""
    def rate(row):
        return row["requests"] / row["seconds"] if row.get("seconds") else 0.0

    runs = {}
    for row in rows:
        runs.setdefault((row["halt_poll_ns"], row["concurrency"], row["label"]), []).append(row)
    out = ["| guest halt polling | in flight | client | req/s | vs raw libcurl (range over rounds) | user CPU µs/req | system CPU µs/req |",
           "|---:|---:|---|---:|---:|---:|---:|"]
    for poll in sorted({key[0] for key in runs}):
        for concurrency in sorted({key[1] for key in runs if key[0] == poll}):
            raw_by_round = {r["round"]: rate(r) for r in runs.get((poll, concurrency, "raw-libcurl"), [])}
            for label, name in IDLE_PATH_CLIENTS:
                mine = runs.get((poll, concurrency, label))
                if not mine:
                    continue
                # A round whose raw libcurl run failed has no ratio; the other rounds still do.
                ratios = [rate(r) / raw_by_round[r["round"]] for r in mine if raw_by_round.get(r["round"])]
                ratio = f"{statistics.median(ratios):.2f}× ({min(ratios):.2f}–{max(ratios):.2f})" if ratios else "n/a"
                user = statistics.median(r["user_seconds"] / r["requests"] * 1e6 for r in mine)
                system = statistics.median(r["system_seconds"] / r["requests"] * 1e6 for r in mine)
                setting = f"{poll / 1000:.0f} µs" if poll else "off"
                out.append(f"| {setting} | {concurrency} | {name} | {statistics.median(rate(r) for r in mine):.0f} | {ratio} | {user:.1f} | {system:.1f} |")
    for error in errors:
        setting = f"{error['halt_poll_ns'] / 1000:.0f} µs" if error.get("halt_poll_ns") else "off"
        out.append(f"\nFailed: {NAMES.get(error['client'], error['client'])} at C={error.get('concurrency', '?')}, "
                   f"halt polling {setting}, round {error.get('round', '?')}: `{error['error'].strip()[-200:]}`")
    return header("nginx on 127.0.0.1, `GET /json`, medians of the rounds") + "\n" + "\n".join(out)


def replace_block(text, group, table):
    start, end = MARKERS[group]
    if start not in text:
        text += f"\n{start}\n{end}\n"
    before, rest = text.split(start, 1)
    _, after = rest.split(end, 1)
    return f"{before}{start}\n{table}\n{end}{after}"


def main():
    rows, errors = load(sys.argv[1])
    tables = {}
    builders = {"clients": clients_table, "multipart": multipart_table, "serialization": serialization_table,
                "json": json_table, "xml": xml_table, "observability": observability_table, "scale": scale_table,
                "allocations": allocations_table, "instructions": instructions_table, "idle-path": idle_path_table}
    for group, build in builders.items():
        group_rows = [r for r in rows if group_of(r) == group]
        group_errors = [e for e in errors if group_of(e) == group]
        if group_rows or group_errors:
            tables[group] = build(group_rows, group_errors)
    if len(sys.argv) > 3 and sys.argv[2] == "--write":
        target = sys.argv[3]
        text = open(target).read() if os.path.exists(target) else "# Performance\n"
        for group, table in tables.items():
            text = replace_block(text, group, table)
        open(target, "w").write(text)
    else:
        print("\n\n".join(tables.values()))


if __name__ == "__main__":
    main()
