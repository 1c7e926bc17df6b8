#!/usr/bin/env bash
# Runs courier-exit-probe (Integration/ExitProbe), an AddressSanitizer build, many times with a CPU hog on the
# other core, and fails on any leak, signal or failed run. Every other run holds the curl threads until after
# OpenSSL's exit handler (--late): the order a descheduled thread meets `exit` in, which left each thread's
# OpenSSL state (random generators, error queue) to a destructor that never ran, 9–10 KB that LeakSanitizer
# reported in about 1 soak run of 6. The others exit as a program normally does. Each run fetches over TLS with
# HTTP/2, TLS with HTTP/1.1 and cleartext HTTP/1.1, one transport each. docs/reliability.md "Program exit".
#
# Usage: Scripts/exit-probe.sh [RUNS] (default 200). Starts the servers when they are not running and stops only
# what it started. Environment: COURIER_BUILD_LOCK, as in Scripts/soak.sh.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$COURIER_ROOT"
RUNS="${1:-200}"

ensure_swift
Scripts/bootstrap.sh

start_servers_unless_running
trap stop_started_servers EXIT
eval "$(Scripts/servers.sh env)"

log "building courier-exit-probe with AddressSanitizer"
if [ -n "${COURIER_BUILD_LOCK:-}" ]; then exec 9>"$COURIER_BUILD_LOCK" && flock 9; fi
(cd Integration && build_without_warnings --sanitize=address --scratch-path .build-asan --product courier-exit-probe)
if [ -n "${COURIER_BUILD_LOCK:-}" ]; then flock -u 9; fi
BIN="$COURIER_ROOT/Integration/.build-asan/debug/courier-exit-probe"

start_cpu_hog
output="$(mktemp)"
trap 'stop_cpu_hog; rm -f "$output"; stop_started_servers' EXIT

urls=("$COURIER_TLS_URL/json" "$COURIER_TLS_H1_URL/json" "$COURIER_NGINX_URL/json")
failures=0 late=0 plain=0
for i in $(seq 1 "$RUNS"); do
    mode=()
    if [ $((i % 2)) = 1 ]; then mode=(--late); late=$((late + 1)); else plain=$((plain + 1)); fi
    set +e
    ASAN_OPTIONS="detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}" timeout 120 "$BIN" ${mode[@]+"${mode[@]}"} "${urls[@]}" >"$output" 2>&1
    status=$?
    set -e
    if [ "$status" -ne 0 ] || grep -q "Sanitizer" "$output"; then
        failures=$((failures + 1))
        echo "run $i (${mode[*]:-a plain exit}) exited $status:" >&2
        cat "$output" >&2
    fi
done
log "exit probe: $RUNS runs ($late with the curl threads ending after OpenSSL's exit handler, $plain plain), $failures failed"
[ "$failures" -eq 0 ]
