#!/usr/bin/env bash
# Runs `courier` many times over TLS (HTTP/2 and HTTP/1.1, with and without a pinned policy) with a CPU hog
# on the other core, and fails on any run that ends by a signal or with an unexpected status. This is the
# process-level test of CurlTransport.shutdownAll() before exit: without it, exit() ran OpenSSL's clean-up
# while the curl thread still held TLS state, and about 1 run in 300 crashed after printing the body.
#
# Usage: Scripts/exit-loop.sh [RUNS] (default 300; each run alternates the four flows)
# Needs the servers (Scripts/servers.sh start) and a built courier (.build/debug/courier, or $COURIER_BIN).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$COURIER_ROOT"
RUNS="${1:-300}"
BIN="${COURIER_BIN:-$COURIER_ROOT/.build/debug/courier}"
[ -x "$BIN" ] || die "$BIN is missing: build it first (swift build --product courier)"
eval "$(Scripts/servers.sh env)"

# The hog, so the curl thread and exit race on a loaded machine.
start_cpu_hog
trap stop_cpu_hog EXIT


flows=(
    "--cacert $COURIER_CA_FILE --http2 $COURIER_TLS_URL/json"
    "--cacert $COURIER_CA_FILE --http1.1 $COURIER_TLS_URL/json"
    "--cacert $COURIER_CA_FILE --headers $COURIER_TLS_URL/get"
    "--cacert $COURIER_CA_FILE --http2 $COURIER_TLS_URL/gzip"
)
signals=0 failures=0
declare -A statuses=()
for i in $(seq 1 "$RUNS"); do
    flow="${flows[$(( i % ${#flows[@]} ))]}"
    set +e
    # shellcheck disable=SC2086
    "$BIN" $flow >/dev/null 2>/tmp/courier-exit-loop.err
    status=$?
    set -e
    statuses[$status]=$(( ${statuses[$status]:-0} + 1 ))
    if [ "$status" -ge 128 ]; then
        signals=$((signals + 1))
        echo "run $i ($flow) ended by signal $((status - 128))" >&2
        cat /tmp/courier-exit-loop.err >&2
    elif [ "$status" -ne 0 ]; then
        failures=$((failures + 1))
        echo "run $i ($flow) exited $status" >&2
        cat /tmp/courier-exit-loop.err >&2
    fi
done
summary=""
for status in "${!statuses[@]}"; do summary+=" status $status: ${statuses[$status]}"; done
log "exit loop: $RUNS runs,$summary; $signals ended by a signal, $failures failed"
[ "$signals" -eq 0 ] && [ "$failures" -eq 0 ]
