#!/usr/bin/env bash
# Runs the integration tests (Integration/) against real servers on 127.0.0.1: starts them,
# runs the suite, stops them. Usage: Scripts/integration.sh [swift test arguments…]
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
stop_servers() { [ "$started_here" = 1 ] && Scripts/servers.sh stop || true; }
trap stop_servers EXIT
eval "$(Scripts/servers.sh env)"

cd Integration
log "building the integration tests"
build_without_warnings --build-tests
log "integration tests"
swift test --skip-build "$@"
