#!/usr/bin/env bash
# Runs the integration tests (Integration/) against real servers on 127.0.0.1: starts them,
# runs the suite, stops them. Usage: Scripts/integration.sh [--tsan] [swift test arguments…]
# --tsan builds and runs the suite under ThreadSanitizer (in Integration/.build-tsan).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$COURIER_ROOT"
ensure_swift
Scripts/bootstrap.sh

started_here=0
if ! Scripts/servers.sh status >/dev/null 2>&1; then
    Scripts/servers.sh start
    started_here=1
fi
stop_servers() { [ "$started_here" = 1 ] && "$COURIER_ROOT/Scripts/servers.sh" stop || true; }  # the suite runs from Integration/
trap stop_servers EXIT
eval "$(Scripts/servers.sh env)"

sanitize=()
if [ "${1:-}" = "--tsan" ]; then
    shift
    sanitize=(--sanitize=thread --scratch-path .build-tsan)
    export TSAN_OPTIONS="halt_on_error=1 ${TSAN_OPTIONS:-}"
    # Suites that move many megabytes (the decoding matrix) use smaller bodies under the sanitizer.
    export COURIER_SANITIZER=thread
fi

cd Integration
log "building the integration tests ${sanitize[*]}"
build_without_warnings --build-tests "${sanitize[@]}"
log "integration tests ${sanitize[*]}"
swift test --skip-build "${sanitize[@]}" "$@"
