#!/usr/bin/env python3
"""Checks that `courier` fails when its output cannot be written, rather than exit 0 with the output cut short:
`courier URL > FILE` on a full disk wrote what fitted and exited 0, and a script took the truncated file for the
whole body. curl exits 23 there.

/dev/full (every write fails with ENOSPC) stands for the full disk. For a body (small and 1 MiB), `--headers`,
`--stream`, `--help`, `reachability 127.0.0.1` and `-o /dev/full`, courier must exit 1 with one line naming the failure (and leave no resume record
beside a device); with stdout on /dev/null it must exit 0 (the control), and curl must fail on /dev/full too (the
oracle).

Usage: cli_output_failure_check.py COURIER   (with Scripts/servers.sh's environment: COURIER_NGINX_URL)
"""
import os
import subprocess
import sys


def main():
    courier = sys.argv[1]
    nginx = os.environ["COURIER_NGINX_URL"].rstrip("/")
    failures = []

    def run(command, stdout_path):
        with open(stdout_path, "wb") as stdout:
            result = subprocess.run(command, stdout=stdout, stderr=subprocess.PIPE, timeout=60)
        return result.returncode, result.stderr.decode(errors="replace").strip()

    def check(condition, what):
        print(("ok: " if condition else "FAILED: ") + what)
        if not condition:
            failures.append(what)

    cases = [
        ("a small body", [f"{nginx}/json"]),
        ("a 1 MiB body", [f"{nginx}/files/1m.bin"]),
        ("--headers", ["--headers", f"{nginx}/json"]),
        ("--stream", ["--stream", f"{nginx}/json"]),
        ("--help", ["--help"]),
        ("reachability", ["reachability", "127.0.0.1"]),
    ]
    for name, arguments in cases:
        status, error = run([courier, *arguments], "/dev/full")
        check(status == 1 and "cannot write to standard output: No space left on device" in error,
              f"{name} to a full stdout: exit 1 and the reason (got exit {status}: {error!r})")
        status, error = run([courier, *arguments], "/dev/null")
        check(status == 0 and error == "", f"{name} to /dev/null: exit 0, nothing on stderr (got exit {status}: {error!r})")

    status, error = run([courier, "-o", "/dev/full", f"{nginx}/files/1m.bin"], "/dev/null")
    check(status == 1 and "No space left on device" in error, f"-o /dev/full: exit 1 and the reason (got exit {status}: {error!r})")
    # A device cannot be resumed: no resume record may be left beside it (it was, in /dev).
    sidecar = "/dev/full.courier-resume"
    check(not os.path.exists(sidecar), f"-o /dev/full leaves no {sidecar}")
    if os.path.exists(sidecar):
        os.remove(sidecar)

    status, _ = run(["curl", "-sS", f"{nginx}/json"], "/dev/full")
    check(status == 23, f"the oracle: curl to a full stdout exits 23 (got {status})")

    if failures:
        print(f"cli_output_failure_check: {len(failures)} failed", file=sys.stderr)
        return 1
    print("cli_output_failure_check: a failed write to the output fails the command")
    return 0


if __name__ == "__main__":
    sys.exit(main())
