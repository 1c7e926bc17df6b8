#!/usr/bin/env bash
# Runs the reachability suite that needs network namespaces (Tests/ReachabilityNamespaceTests):
# `courier reachability --watch` and a probe run inside namespaces made with `ip netns` while
# links, routes and addresses change there, and the reachability interceptor and offline retrier
# against httpbin in a namespace of its own. Needs root (CI runs as root); as another user, or
# where the machine forbids namespaces, the tests skip and say why.
# Every namespace is named courier-<pid>-<n>-<name> and deleted by the test that made it; this
# script also removes any that a killed run left behind. Nothing touches the host's own
# interfaces, routes or addresses.
# Usage: Scripts/netns-test.sh [--no-build] [swift test arguments…]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$COURIER_ROOT"
ensure_swift

# Namespaces (and their /etc/netns files) of test processes that no longer run.
remove_leftovers() {
    local name pid
    for name in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^courier-[0-9]+-' || true); do
        pid="${name#courier-}"; pid="${pid%%-*}"
        [ -d "/proc/$pid" ] || ip netns del "$name" 2>/dev/null || true
    done
    for name in /etc/netns/courier-*; do
        [ -e "$name" ] || continue
        pid="${name#/etc/netns/courier-}"; pid="${pid%%-*}"
        [ -d "/proc/$pid" ] || rm -rf "$name"
    done
}

build=1
if [ "${1:-}" = "--no-build" ]; then build=0; shift; fi
# Always: it is quick when nothing is missing, and a venv left from before says nothing of new system packages.
Scripts/bootstrap.sh

remove_leftovers
trap remove_leftovers EXIT
if [ "$build" = 1 ]; then
    log "building (the courier CLI and the reachability probe run inside the namespaces)"
    build_without_warnings --build-tests
fi
log "reachability in network namespaces"
swift test --skip-build --filter CourierReachabilityNamespaceTests "$@"
