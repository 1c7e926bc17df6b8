#!/usr/bin/env bash
# Runs the integration suite "Slow name lookups" (Integration/Tests/IntegrationTests/SlowNameLookupTests.swift) in a
# mount namespace whose /etc/resolv.conf names a resolver that never answers: a UDP socket on 127.0.0.99:53 that reads
# every query and replies to none, with 30 s a try. Calls to COURIER_SLOW_DNS_HOST then sit in their name lookup, and
# the suite checks that a timeout or a cancellation there ends on time and leaves the transport free. Needs root (for
# the namespace, the bind mount and port 53); as another user the suite is skipped with a message. Only loopback is
# touched: the host's own /etc/resolv.conf is never changed. docs/reliability.md "Slow name lookups".
#
# Usage: Scripts/slow-dns-test.sh [--no-build]. Needs the servers (it starts them unless they run).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$COURIER_ROOT"
ensure_swift
Scripts/bootstrap.sh

if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null; then
    log "slow name lookups: skipped (needs root and unshare(1) for a mount namespace)"
    exit 0
fi

build=1
if [ "${1:-}" = "--no-build" ]; then build=0; shift; fi
start_servers_unless_running
work="$(mktemp -d)"
resolver=""
trap 'if [ -n "$resolver" ]; then kill "$resolver" 2>/dev/null || true; fi; rm -rf "$work"; stop_started_servers' EXIT
eval "$(Scripts/servers.sh env)"

printf 'nameserver 127.0.0.99\noptions timeout:30 attempts:1\n' > "$work/resolv.conf"
python3 - "$work/ready" <<'PY' &
import socket, sys
sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sock.bind(("127.0.0.99", 53))
open(sys.argv[1], "w").close()
while True:
    sock.recvfrom(4096)   # read every query, answer none
PY
resolver=$!
for _ in $(seq 1 100); do [ -e "$work/ready" ] && break; sleep 0.05; done
[ -e "$work/ready" ] || die "the silent resolver on 127.0.0.99:53 did not start"

cd Integration
if [ "$build" = 1 ]; then
    log "building the integration tests"
    build_without_warnings --build-tests
fi
log "slow name lookups (a resolver that never answers, in a mount namespace)"
COURIER_SLOW_DNS_HOST=slow.courier.test unshare --mount sh -c \
    'mount --bind "$1" /etc/resolv.conf && exec swift test --skip-build --filter SlowNameLookupTests' sh "$work/resolv.conf"
