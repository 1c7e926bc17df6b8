#!/usr/bin/env bash
# The soak (a benchmark, not a test; docs/reliability.md "Soak"): courier-soak (Integration/Soak) sends a seeded
# mix of requests of every kind to the local servers, checks every outcome, samples its RSS, descriptors and
# threads every second and judges them flat after warm-up. Starts the servers when they are not running (with
# nginx's access log off) and stops only what it started.
#
# Usage: Scripts/soak.sh [--requests N] [--concurrency C] [--asan] [other courier-soak options...]
#   default  a release build, 100,000 requests at 64 in flight; fails on a wrong outcome or resources that are
#            not flat (exit status 1 or 3, courier-soak --help)
#   --asan   an AddressSanitizer build (Integration/.build-asan) with LeakSanitizer at exit, 5,000 requests by
#            default; fails on a wrong outcome, any memory error and any leak (no suppressions: none is
#            needed). Flatness is not judged: shadow memory and the allocator's quarantine make the resident
#            size say nothing about Courier.
# Other options go to courier-soak as they are: --seed S, --warm-up-fraction F, --warm-up-seconds W,
# --time-limit SECONDS (1800), --samples FILE.tsv.
#
# Environment: COURIER_BUILD_LOCK, a lock file that flock(1) takes around the build (as in Scripts/bench.sh);
# the COURIER_*_PORT variables of Scripts/servers.sh.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$COURIER_ROOT"

asan=0 requests="" concurrency=64 time_limit=1800 passed=()
while [ $# -gt 0 ]; do
    case "$1" in
        -h | --help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        --asan) asan=1; shift ;;
        --requests) requests="${2:?--requests needs a number}"; shift 2 ;;
        --concurrency) concurrency="${2:?--concurrency needs a number}"; shift 2 ;;
        --time-limit) time_limit="${2:?--time-limit needs seconds}"; shift 2 ;;
        --no-flatness) passed+=("$1"); shift ;;
        --*) passed+=("$1" "${2:?$1 needs a value}"); shift 2 ;;
        *) die "unknown argument: $1 (Scripts/soak.sh [--requests N] [--concurrency C] [--asan] [courier-soak options])" ;;
    esac
done
[ -n "$requests" ] || { if [ "$asan" = 1 ]; then requests=5000; else requests=100000; fi; }

ensure_swift
Scripts/bootstrap.sh

# No log line per request: 100,000 of them would only cost the machine the soak measures.
COURIER_NGINX_ACCESS_LOG=off start_servers_unless_running
trap stop_started_servers EXIT
eval "$(Scripts/servers.sh env)"

cd Integration
if [ "$asan" = 1 ]; then
    build=(--sanitize=address --scratch-path .build-asan --product courier-soak)
    bin=".build-asan/debug/courier-soak"
    passed+=(--no-flatness)
else
    build=(-c release --product courier-soak)
    bin=".build/release/courier-soak"
fi
log "building courier-soak ${build[*]}"
if [ -n "${COURIER_BUILD_LOCK:-}" ]; then exec 9>"$COURIER_BUILD_LOCK" && flock 9; fi
build_without_warnings "${build[@]}"
if [ -n "${COURIER_BUILD_LOCK:-}" ]; then flock -u 9; fi

log "soak: $requests requests, $concurrency in flight$([ "$asan" = 1 ] && echo ", AddressSanitizer and LeakSanitizer")"
# courier-soak stops itself at its time limit; timeout(1) is the backstop should it not.
status=0
if [ "$asan" = 1 ]; then
    ASAN_OPTIONS="detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}" timeout $((time_limit + 120)) \
        "$bin" --requests "$requests" --concurrency "$concurrency" --time-limit "$time_limit" ${passed[@]+"${passed[@]}"} || status=$?
else
    timeout $((time_limit + 120)) \
        "$bin" --requests "$requests" --concurrency "$concurrency" --time-limit "$time_limit" ${passed[@]+"${passed[@]}"} || status=$?
fi
case "$status" in
    0) log "soak passed" ;;
    3) die "soak: resources not flat after warm-up (the verdict above)" ;;
    124) die "soak: still running $((time_limit + 120)) s after it started; killed" ;;
    *) die "soak failed (exit status $status: wrong outcomes above$([ "$asan" = 1 ] && echo ", or AddressSanitizer/LeakSanitizer's report"))" ;;
esac
