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
# An interrupted run (a CI time limit) still shows what the crash folder holds (Scripts/lib/common.sh).
trap 'stop_started_servers; show_crash_reports || true' EXIT
eval "$(Scripts/servers.sh env)"

# Under a sanitizer, suites that move many megabytes (the decoding matrix) use smaller bodies (COURIER_SANITIZER, set
# by run_keeping_crash_reports with the sanitizer's options).
mode=plain
sanitize=()
if [ "${1:-}" = "--tsan" ]; then
    shift
    mode=thread
    sanitize=(--sanitize=thread --scratch-path .build-tsan)
elif [ "${1:-}" = "--asan" ]; then
    shift
    mode=address
    sanitize=(--sanitize=address --scratch-path .build-asan)
fi

cd Integration
log "building the integration tests ${sanitize[*]}"
build_without_warnings --build-tests "${sanitize[@]}"
log "integration tests ${sanitize[*]}"
# A report fails the run even if the runner's exit status were to hide it (a leak found at exit), and is shown
# whichever process wrote it: the test process or an exit test's child.
status=0
run_keeping_crash_reports "$mode" swift test --skip-build "${sanitize[@]}" "$@" || status=$?
exit "$status"
