#!/usr/bin/env python3
"""Runs `courier` on compressed bodies from the compression server (directly over HTTP/1.1 and through nginx
over TLS with HTTP/2), reads its standard output through a pipe (fast, or slowly so the transfer pauses for
backpressure again and again), checks the SHA-256 of what it printed against the server's X-Decoded-SHA256,
and records the process's peak resident memory (wait4's ru_maxrss). Fails when a hash differs, a run fails
or a peak passes --max-rss-mib.

Usage: decoding_rss.py COURIER_BIN [--sizes 16m,256m] [--ratios 1,18,1000] [--encodings gzip,deflate,br,zstd]
                      [--readers fast,slow] [--max-rss-mib N]
Needs `eval "$(Scripts/servers.sh env)"` (COURIER_COMPRESSION_URL, COURIER_TLS_URL, COURIER_CA_FILE).
"""
import argparse, hashlib, os, subprocess, sys, threading, time, urllib.request

TIMEOUT_SECONDS = 300


def expected(base, query):
    request = urllib.request.Request("%s/compressed?%s" % (base, query), method="HEAD")
    with urllib.request.urlopen(request, timeout=600) as response:
        return response.headers["X-Decoded-SHA256"], int(response.headers["X-Decoded-Length"])


def run(binary, url, extra, reader):
    started = time.monotonic()
    process = subprocess.Popen([binary] + extra + [url], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # A stalled transfer (the bug this guards against) must fail the run, not hang it.
    watchdog = threading.Timer(TIMEOUT_SECONDS, process.kill)
    watchdog.start()
    digest, count, reads = hashlib.sha256(), 0, 0
    while True:
        chunk = process.stdout.read1(65536) if reader == "fast" else process.stdout.read1(16384)
        if not chunk:
            break
        digest.update(chunk)
        count += len(chunk)
        reads += 1
        if reader == "slow" and reads % 8 == 0:
            time.sleep(0.001)
    stderr = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    watchdog.cancel()
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, digest.hexdigest(), count, usage.ru_maxrss / 1024.0, time.monotonic() - started, stderr


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--sizes", default="16m,256m")
    parser.add_argument("--ratios", default="1,18,100,1000")
    parser.add_argument("--encodings", default="gzip,deflate,br,zstd")
    parser.add_argument("--readers", default="fast,slow")
    parser.add_argument("--max-rss-mib", type=float, default=0)
    arguments = parser.parse_args()
    compression = os.environ["COURIER_COMPRESSION_URL"]
    tls = os.environ["COURIER_TLS_URL"]
    ca = os.environ["COURIER_CA_FILE"]
    routes = [("http1", compression, ["--http1.1"]), ("tls-h2", tls, ["--cacert", ca, "--http2"])]
    failures, peak = 0, 0.0
    print("| encoding | size | ratio | reader | route | seconds | peak RSS MiB | result |")
    print("|---|---|---:|---|---|---:|---:|---|")
    for encoding in arguments.encodings.split(","):
        for size in arguments.sizes.split(","):
            for ratio in arguments.ratios.split(","):
                query = "encoding=%s&size=%s&ratio=%s&framing=length&seed=%s" % (encoding, size, ratio, ratio)
                sha, length = expected(compression, query)
                for reader in arguments.readers.split(","):
                    for name, base, extra in routes:
                        status, got, count, rss, seconds, stderr = run(arguments.binary, "%s/compressed?%s" % (base, query), extra, reader)
                        ok = status == 0 and got == sha and count == length
                        if arguments.max_rss_mib and rss > arguments.max_rss_mib:
                            ok = False
                        failures += 0 if ok else 1
                        peak = max(peak, rss)
                        result = "byte-exact" if ok else "FAILED (status %d, %d of %d bytes) %s" % (status, count, length, stderr.decode(errors="replace")[-200:])
                        print("| %s | %s | %s | %s | %s | %.2f | %.1f | %s |" % (encoding, size, ratio, reader, name, seconds, rss, result), flush=True)
    print("\n%d cells failed; highest peak RSS %.1f MiB" % (failures, peak))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
