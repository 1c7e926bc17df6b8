#!/usr/bin/env bash
# Courier's guided tour: installs what is missing, builds the `courier` command line (debug), starts the
# local test servers on 127.0.0.1, runs `courier tour` against them, and stops the servers again if this
# script started them. Exits with the tour's status (0 when every step worked). Usage: Scripts/demo.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$COURIER_ROOT"

ensure_swift
# System libraries, nginx, and httpbin in a Python venv.
Scripts/bootstrap.sh

log "building courier (debug)"
swift build --product courier
COURIER="$(swift build --show-bin-path)/courier"

# Servers someone else started (all of them answering) are left running; otherwise this script starts
# them and stops them when it exits, whatever the tour's outcome.
started_servers=0
stop_servers() {
    if [ "$started_servers" -eq 1 ]; then
        log "stopping the test servers"
        Scripts/servers.sh stop || true
    fi
}
trap stop_servers EXIT
if ! Scripts/servers.sh status >/dev/null 2>&1; then
    log "starting the test servers"
    started_servers=1   # set first, so a start that fails halfway is cleaned up too
    Scripts/servers.sh start
fi
eval "$(Scripts/servers.sh env)"

log "courier tour"
"$COURIER" tour --server "$COURIER_HTTPBIN_URL" --tls-server "$COURIER_TLS_URL" --ca "$COURIER_CA_FILE" --sse-server "$COURIER_SSE_URL"
