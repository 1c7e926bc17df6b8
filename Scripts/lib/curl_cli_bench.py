#!/usr/bin/env python3
"""Runs the curl command-line tool once as a benchmark client and prints one JSON line in the format of
Integration/Benchmarks (what Scripts/bench.sh and bench_report.py read).

Usage: curl_cli_bench.py WORKLOAD -- CURL ARGUMENTS...
  e.g. curl_cli_bench.py multipart-upload -- curl -F comment=x -F file=@/path/1g.bin http://127.0.0.1:18081/upload

The figures are the ones the Swift and C clients report about themselves:
- seconds: curl's own `%{time_total}` (from the start of the transfer to its end, like the clients' clock
  around their request), so the process's start-up is not counted;
- cpu_seconds and max_rss_kib: the curl process's whole rusage (user + system time, ru_maxrss), from wait4;
- bytes: `%{size_upload}` + `%{size_download}`; connections: `%{num_connects}`;
- failures: 1 when curl exits non-zero or the status is 400 or more.
"""
import json
import os
import subprocess
import sys

WRITE_OUT = "%{http_code} %{time_total} %{size_upload} %{size_download} %{num_connects}"


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.stderr.write(__doc__)
        return 2
    workload, command = sys.argv[1], sys.argv[3:]
    command = command[:1] + ["-sS", "-o", "/dev/null", "-w", WRITE_OUT] + command[1:]
    process = subprocess.Popen(command, stdout=subprocess.PIPE)
    output = process.stdout.read().decode()
    _, status, usage = os.wait4(process.pid, 0)
    exit_code = os.waitstatus_to_exitcode(status)
    try:
        code, seconds, up, down, connects = output.split()
        code, seconds, up, down, connects = int(code), float(seconds), int(up), int(down), int(connects)
    except ValueError:
        sys.stderr.write("curl printed %r and exited %d\n" % (output, exit_code))
        return 1
    failed = exit_code != 0 or code >= 400 or code == 0
    print(json.dumps({
        "client": "curl-cli", "workload": workload, "concurrency": 1, "requests": 1,
        "failures": int(failed), "seconds": seconds, "cpu_seconds": usage.ru_utime + usage.ru_stime,
        "max_rss_kib": usage.ru_maxrss, "bytes": up + down, "connections": connects,
    }, separators=(",", ":")))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
