#!/usr/bin/env python3
"""`courier -c` (the library's resume data) against nginx: byte-exact after an interrupt or a kill at several offsets,
a restart when the file changed (200), "already complete" on a 416 with the file's length, and a refusal when
the partial file is longer than the server's.

Downloads come from nginx's /slow-files/ (512 KiB/s), so an interrupt lands part-way. The reference bytes are
the server's own file in COURIER_FILES_DIR; curl is not needed as an oracle here because nginx serves a static
file whose bytes are on disk.

Usage: cli_resume_check.py COURIER   (with Scripts/servers.sh's environment: COURIER_NGINX_URL, COURIER_FILES_DIR)
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time


def main():
    courier = sys.argv[1]
    url = os.environ["COURIER_NGINX_URL"].rstrip("/") + "/slow-files/1m.bin"
    with open(os.path.join(os.environ["COURIER_FILES_DIR"], "1m.bin"), "rb") as f:
        original = f.read()
    failures = []
    directory = tempfile.mkdtemp(prefix="courier-resume-")

    def check(condition, what):
        if not condition:
            failures.append(what)
        print(("ok: " if condition else "FAILED: ") + what)

    def run(*args):
        return subprocess.run([courier, *args], capture_output=True, text=True, timeout=120)

    def contents(path):
        with open(path, "rb") as f:
            return f.read()

    try:
        # Interrupted part-way (SIGINT, as Ctrl-C, or SIGKILL, as a crash), then resumed. nginx sends about
        # 100 KiB at a time and a signal takes a moment: each stop leaves half a MiB to go.
        for stop_at, stop in ((50_000, signal.SIGINT), (250_000, signal.SIGKILL), (500_000, signal.SIGINT)):
            out = os.path.join(directory, f"interrupted-{stop_at}.bin")
            # A script run in the background (CI) inherits SIGINT ignored, as every background job does, and an
            # ignored signal stays ignored across exec: give courier the disposition a terminal's Ctrl-C meets.
            process = subprocess.Popen(
                [courier, "-q", "-o", out, url], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
            )
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and (not os.path.exists(out) or os.path.getsize(out) < stop_at):
                if process.poll() is not None:
                    break
                time.sleep(0.005)
            process.send_signal(stop)
            process.wait(timeout=30)
            size = os.path.getsize(out)
            check(0 < size < len(original), f"interrupted at {stop_at}: a partial file of {size} bytes")
            check(contents(out) == original[:size], f"interrupted at {stop_at}: the partial bytes are the file's")
            result = run("-c", "-o", out, url)
            check(result.returncode == 0, f"resumed from {size}: exit {result.returncode} ({result.stderr.strip()[-200:]})")
            check(f"from byte {size}" in result.stderr, f"resumed from {size}: says where it resumed")
            check(contents(out) == original, f"resumed from {size}: byte-exact")
            check(not os.path.exists(out + ".courier-resume"), f"resumed from {size}: the sidecar is gone")

        # The file changed on the server (its validator no longer matches): If-Range makes nginx send it whole.
        out = os.path.join(directory, "changed.bin")
        with open(out, "wb") as f:
            f.write(b"x" * 300_000)
        with open(out + ".courier-resume", "w") as f:
            f.write(f'url: {url}\netag: "not-the-file-you-had"\n')
        result = run("-c", "-o", out, url)
        check(result.returncode == 0 and "starting over" in result.stderr, f"changed file: starts over ({result.stderr.strip()[-200:]})")
        check(contents(out) == original, "changed file: byte-exact after starting over")

        # Already complete: the server answers 416 with the file's own length.
        out = os.path.join(directory, "complete.bin")
        shutil.copyfile(os.path.join(os.environ["COURIER_FILES_DIR"], "1m.bin"), out)
        result = run("-c", "-o", out, url)
        check(result.returncode == 0 and "already complete" in result.stderr, f"complete file: 416 accepted ({result.stderr.strip()[-200:]})")
        check(contents(out) == original, "complete file: untouched")

        # Longer than the server's file: a 416 with another length is refused, the file left alone.
        out = os.path.join(directory, "longer.bin")
        with open(out, "wb") as f:
            f.write(original + b"tail")
        result = run("-c", "-o", out, url)
        check(result.returncode != 0 and "cannot resume" in result.stderr, f"longer file: refused ({result.stderr.strip()[-200:]})")
        check(contents(out) == original + b"tail", "longer file: untouched")
    finally:
        shutil.rmtree(directory, ignore_errors=True)

    if failures:
        print(f"cli_resume_check: {len(failures)} failed", file=sys.stderr)
        return 1
    print("cli_resume_check: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
