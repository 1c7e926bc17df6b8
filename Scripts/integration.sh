#!/usr/bin/env bash
# Runs the integration tests (Integration/) against real servers on 127.0.0.1: starts them,
# runs the suite, stops them. Usage: Scripts/integration.sh [--tsan | --asan] [swift test arguments…]
# --tsan builds and runs the suite under ThreadSanitizer (in Integration/.build-tsan), --asan under
# AddressSanitizer with LeakSanitizer (in Integration/.build-asan).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$COURIER_ROOT"
ensure_swift
Scripts/bootstrap.sh

start_servers_unless_running
trap stop_started_servers EXIT
eval "$(Scripts/servers.sh env)"

sanitize=()
if [ "${1:-}" = "--tsan" ]; then
    shift
    sanitize=(--sanitize=thread --scratch-path .build-tsan)
    export TSAN_OPTIONS="halt_on_error=1 ${TSAN_OPTIONS:-}"
    # Suites that move many megabytes (the decoding matrix) use smaller bodies under the sanitizer.
    export COURIER_SANITIZER=thread
elif [ "${1:-}" = "--asan" ]; then
    shift
    sanitize=(--sanitize=address --scratch-path .build-asan)
    # Leak detection on; only the named third-party leaks of lsan-suppressions.txt are forgiven.
    export ASAN_OPTIONS="detect_leaks=1:${ASAN_OPTIONS:-}"
    export LSAN_OPTIONS="suppressions=$COURIER_ROOT/Scripts/lib/lsan-suppressions.txt:print_suppressions=0:${LSAN_OPTIONS:-}"
    export COURIER_SANITIZER=address
fi

cd Integration
log "building the integration tests ${sanitize[*]}"
build_without_warnings --build-tests "${sanitize[@]}"
log "integration tests ${sanitize[*]}"
# Under a sanitizer a crash is reported by the sanitizer, at once; the runtime's backtracer would only hold it.
[ ${#sanitize[@]} -eq 0 ] || export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"
output="$(mktemp)"
status=0
swift test --skip-build "${sanitize[@]}" "$@" 2>&1 | tee "$output" || status=$?
# A leak report fails the run even if the runner's exit status were to hide it.
if grep -q "ERROR: LeakSanitizer" "$output"; then status=1; echo "error: LeakSanitizer reported leaks (above)" >&2; fi
rm -f "$output"
exit "$status"
