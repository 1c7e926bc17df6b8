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
# An interrupted run (a CI time limit) still shows what the crash folder holds.
reports=""
trap 'stop_started_servers; [ -z "$reports" ] || show_crash_reports "$reports" || true' EXIT
eval "$(Scripts/servers.sh env)"

sanitize=()
if [ "${1:-}" = "--tsan" ]; then
    shift
    sanitize=(--sanitize=thread --scratch-path .build-tsan)
    reports="$(crash_reports_dir)"
    export TSAN_OPTIONS="halt_on_error=1:$SANITIZER_CRASH_OPTIONS:log_path=$reports/report ${TSAN_OPTIONS:-}"
    # Suites that move many megabytes (the decoding matrix) use smaller bodies under the sanitizer.
    export COURIER_SANITIZER=thread
elif [ "${1:-}" = "--asan" ]; then
    shift
    sanitize=(--sanitize=address --scratch-path .build-asan)
    # Leak detection on; only the named third-party leaks of lsan-suppressions.txt are forgiven.
    reports="$(crash_reports_dir)"
    export ASAN_OPTIONS="detect_leaks=1:$SANITIZER_CRASH_OPTIONS:log_path=$reports/report:${ASAN_OPTIONS:-}"
    export LSAN_OPTIONS="suppressions=$COURIER_ROOT/Scripts/lib/lsan-suppressions.txt:print_suppressions=0:${LSAN_OPTIONS:-}"
    export COURIER_SANITIZER=address
fi

cd Integration
log "building the integration tests ${sanitize[*]}"
build_without_warnings --build-tests "${sanitize[@]}"
log "integration tests ${sanitize[*]}"
# Under a sanitizer a crash is the sanitizer's to report (its options above), and the runtime's backtracer would only
# hold it; without one, a crash's backtrace goes to a file (Scripts/lib/common.sh says why).
if [ ${#sanitize[@]} -eq 0 ]; then
    reports="$(crash_reports_dir)"
    export SWIFT_BACKTRACE="$(crash_backtraces_to "$reports")"
else
    export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"
fi
status=0
swift test --skip-build "${sanitize[@]}" "$@" || status=$?
# A report fails the run even if the runner's exit status were to hide it (a leak found at exit), and is shown
# whichever process wrote it: the test process or an exit test's child.
show_crash_reports "$reports" || status=1
exit "$status"
