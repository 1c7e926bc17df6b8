#!/usr/bin/env bash
# Runs courier-exit-probe (Integration/ExitProbe), an AddressSanitizer build, many times with a CPU hog on the
# other core, and fails on any leak, signal or failed run. The runs rotate through the probe's four ways to exit:
# - after shutdownAll(), as a program should;
# - after shutdownAll() with the curl threads held until after OpenSSL's exit handler (--late): the order a
#   descheduled thread meets `exit` in, which left each thread's OpenSSL state (random generators, error queue) to a
#   destructor that never ran, 9-10 KB that LeakSanitizer reported in about 1 soak run of 6;
# - with the transports still running (--no-shutdown), which Courier's exit handler must stop before OpenSSL's;
# - from code on a transport's executor (--exit-on-curl-thread), whose thread that handler must leave alone.
# Each run fetches over TLS with HTTP/2, TLS with HTTP/1.1 and cleartext HTTP/1.1, one transport each.
# docs/reliability.md "Program exit".
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

output=""
trap 'stop_cpu_hog; rm -f "$output"; stop_started_servers' EXIT
output="$(mktemp)"
start_cpu_hog

urls=("$COURIER_TLS_URL/json" "$COURIER_TLS_H1_URL/json" "$COURIER_NGINX_URL/json")
modes=("" --late --no-shutdown --exit-on-curl-thread)
failures=0
declare -A runs=()
for i in $(seq 1 "$RUNS"); do
    mode="${modes[$(( (i - 1) % ${#modes[@]} ))]}"
    runs[${mode:-plain}]=$(( ${runs[${mode:-plain}]:-0} + 1 ))
    set +e
    # shellcheck disable=SC2086
    ASAN_OPTIONS="detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}" timeout 120 "$BIN" $mode "${urls[@]}" >"$output" 2>&1
    status=$?
    set -e
    if [ "$status" -ne 0 ] || grep -q "Sanitizer" "$output"; then
        failures=$((failures + 1))
        echo "run $i (${mode:-a plain exit}) exited $status:" >&2
        cat "$output" >&2
    fi
done
summary=""
for mode in plain "${modes[@]:1}"; do summary+="${summary:+, }$mode ${runs[$mode]:-0}"; done
log "exit probe: $RUNS runs ($summary), $failures failed"
[ "$failures" -eq 0 ]
