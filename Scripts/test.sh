#!/usr/bin/env bash
# Runs every Courier test suite: builds with zero warnings, unit tests, the linkage test, then the
# unit tests again under ThreadSanitizer. Installs what it needs. Usage: Scripts/test.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$COURIER_ROOT"

ensure_swift
# Build tools the Swift toolchain expects on Debian; C libraries join as modules need them.
ensure_apt_packages git ca-certificates pkg-config libc6-dev

log "building (debug, tests included)"
build_without_warnings --build-tests

log "unit tests"
swift test --skip-build

log "linkage"
Scripts/linkage-test.sh

log "unit tests under ThreadSanitizer"
# halt_on_error: a race fails the run instead of scrolling by.
TSAN_OPTIONS="halt_on_error=1 ${TSAN_OPTIONS:-}" \
    swift test --sanitize=thread --scratch-path .build-tsan

if [ -f Integration/Package.swift ]; then
    log "integration tests"
    "$COURIER_ROOT/Scripts/integration.sh"
fi

log "all suites passed"
