#!/usr/bin/env bash
# Runs every Courier test suite: builds with zero warnings, unit tests, the linkage test, the unit
# tests again under ThreadSanitizer and under AddressSanitizer with LeakSanitizer, every fuzz target for a
# bounded time (Scripts/fuzz.sh), then the integration tests against real servers on 127.0.0.1, plain,
# under ThreadSanitizer and under AddressSanitizer, a short soak and the exit probe under LeakSanitizer, and
# last the reachability suite in network namespaces (Scripts/netns-test.sh). Installs what it needs.
# Usage: Scripts/test.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$COURIER_ROOT"
# An interrupted run still shows what the crash folder of the suite it stopped in holds (Scripts/lib/common.sh).
trap 'show_crash_reports || true' EXIT

ensure_swift
# System libraries, test servers and their Python packages.
Scripts/bootstrap.sh

log "docs: every guide's Swift examples are in a test"
python3 Scripts/lib/check-doc-examples.py

log "building (debug, tests included)"
build_without_warnings --build-tests

# The namespace suite runs last, on its own (Scripts/netns-test.sh).
NETNS_SUITE=CourierReachabilityNamespaceTests

log "unit tests"
# Each run keeps its crash and sanitizer reports in files and shows them once it ends, so that an exit test's child's
# are seen (Scripts/lib/common.sh).
run_keeping_crash_reports plain swift test --skip-build --skip "$NETNS_SUITE" || die "the unit tests failed (above)"

log "linkage"
Scripts/linkage-test.sh

log "unit tests under ThreadSanitizer"
# COURIER_SANITIZER=thread (set with the sanitizer's options): the XML streaming tests use small documents and do not
# bound resident memory (ThreadSanitizer's shadow memory makes the bound meaningless, and parsing 64 MB under it
# would slow every suite).
run_keeping_crash_reports thread swift test --sanitize=thread --scratch-path .build-tsan --skip "$NETNS_SUITE" ||
    die "the unit tests failed under ThreadSanitizer (above)"

log "unit tests under AddressSanitizer and LeakSanitizer"
run_keeping_crash_reports address swift test --sanitize=address --scratch-path .build-asan --skip "$NETNS_SUITE" ||
    die "the unit tests failed under AddressSanitizer or LeakSanitizer (above)"

log "fuzzing every target for a bounded time (Scripts/fuzz.sh)"
# 15 s per target, two at a time, from the committed corpus with a fixed seed: a regression check that replays the
# same inputs on every run. Discovery is the long runs' job (docs/reliability.md, "Fuzzing").
Scripts/fuzz.sh --seconds "${COURIER_FUZZ_SECONDS:-15}" --seed 1

log "integration tests (real servers on 127.0.0.1)"
Scripts/servers.sh start
trap 'Scripts/servers.sh stop >/dev/null 2>&1 || true; show_crash_reports || true' EXIT
Scripts/integration.sh

log "calls whose host name never resolves: a timeout or a cancellation frees the transport at once"
Scripts/slow-dns-test.sh --no-build

eval "$(Scripts/servers.sh env)"   # the servers' addresses, for the checks below that run the CLI

log "calls while an nginx of the test's own reloads every 20 ms (alone: the reloads load the machine)"
(cd Integration && COURIER_RELOAD_TESTS=1 swift test --skip-build --filter ServerReloadTests)

log "courier over TLS, exiting under a CPU hog (300 runs; any signal fails)"
Scripts/exit-loop.sh 300

log "courier decoding compressed bodies through a slow pipe: byte-exact, peak RSS bounded"
# 16 MiB bodies of every coding at ratios 1, 18, 100 and 1000, HTTP/1.1 and HTTP/2 over TLS (the 256 MiB run is
# recorded in docs/reliability.md). 64 MiB bounds a debug courier (about 35 MiB for a small request).
python3 Scripts/lib/decoding_rss.py .build/debug/courier --sizes 16m --readers slow --max-rss-mib 64

log "courier -c resumes against nginx (interrupted at three offsets, a changed file, a complete one, a longer one)"
python3 Scripts/lib/cli_resume_check.py .build/debug/courier

log "courier --session keeps cookies and authorization (curl reads and writes its file); --stream prints as lines arrive"
python3 Scripts/lib/cli_session_stream_check.py .build/debug/courier

log "courier tour (every step, server-sent events included)"
.build/debug/courier tour --server "$COURIER_HTTPBIN_URL" --tls-server "$COURIER_TLS_URL" --ca "$COURIER_CA_FILE" \
    --sse-server "$COURIER_SSE_URL"

log "courier keeps server-controlled control characters off a terminal"
python3 Scripts/lib/terminal_safety_check.py .build/debug/courier

log "courier ignores the proxy environment variables and honours --proxy"
python3 Scripts/lib/cli_env_proxy_check.py .build/debug/courier

log "courier behind an HTTPS proxy: the tunnel, --proxy-cacert, pins judged against the server (curl agrees)"
python3 Scripts/lib/cli_https_proxy_check.py .build/debug/courier

log "courier fails when its output cannot be written (a full disk), as curl does"
python3 Scripts/lib/cli_output_failure_check.py .build/debug/courier

log "integration tests under ThreadSanitizer"
Scripts/integration.sh --tsan

log "integration tests under AddressSanitizer and LeakSanitizer"
Scripts/integration.sh --asan

log "a short soak under LeakSanitizer (5,000 mixed requests; the 100,000-request run is in docs/reliability.md)"
Scripts/soak.sh --asan

log "programs exiting with their curl threads ending after OpenSSL's exit handler, under LeakSanitizer and a CPU hog (200 runs)"
Scripts/exit-probe.sh 200

log "reachability in network namespaces"
Scripts/netns-test.sh --no-build

log "all suites passed"
