#!/usr/bin/env bash
# Benchmarks Courier against a raw libcurl client in C, URLSession (FoundationNetworking) and
# AsyncHTTPClient, in one run against nginx on 127.0.0.1, and writes the table of
# docs/performance.md. Usage: Scripts/bench.sh [--quick] [--no-write]
#   --quick     fewer requests and one round instead of three (a smoke run)
#   --no-write  print the table without touching docs/performance.md
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$COURIER_ROOT"

rounds=3 small=20000 small_serial=3000 slow_small=1000 write=1
for argument in "$@"; do
    case "$argument" in
        --quick) rounds=1 small=3000 small_serial=500 slow_small=200 ;;
        --no-write) write=0 ;;
        *) die "unknown argument: $argument" ;;
    esac
done

ensure_swift
Scripts/bootstrap.sh

log "building the benchmarks (release)"
(cd Integration/Benchmarks && swift build -c release -q)
bin="$(cd Integration/Benchmarks && swift build -c release --show-bin-path)"

# nginx must not write a log line per request while we measure.
Scripts/servers.sh stop >/dev/null 2>&1 || true
COURIER_NGINX_ACCESS_LOG=off Scripts/servers.sh start
trap 'Scripts/servers.sh stop >/dev/null 2>&1 || true' EXIT
eval "$(Scripts/servers.sh env)"

results="$(mktemp)"
scratch="$(mktemp -d)"
clients=(raw-curl courier-bench async-http-client urlsession-bench)

run() { # run CLIENT WORKLOAD ARGS...
    local client="$1"; shift
    local executable="$bin/$client"
    [ "$client" = async-http-client ] && executable="$bin/ahc-bench"
    local round scheme=http
    case "$2" in https:*) scheme=https ;; esac
    for round in $(seq 1 "$rounds"); do
        # A bounded run: a client that hangs is reported as failed, not waited for.
        if timeout 300 "$executable" "$@" >"$scratch/line" 2>"$scratch/stderr"; then
            sed "s/^{/{\"scheme\":\"$scheme\",/" "$scratch/line" >>"$results"
        else
            printf '{"client":"%s","workload":"%s","error":%s}\n' "$client" "$1" \
                "$(python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()[-300:]))' <"$scratch/stderr")" >>"$results"
        fi
    done
}

for client in "${clients[@]}"; do
    log "benchmark: $client"
    n=$small; n1=$small_serial
    if [ "$client" = urlsession-bench ]; then n=$slow_small; n1=$slow_small; fi
    run "$client" small "$COURIER_NGINX_URL/json" 1 "$n1"
    run "$client" small "$COURIER_NGINX_URL/json" 16 "$n"
    # URLSession on Linux has no way to trust a private CA (it refuses the test server's
    # certificate, and hangs under concurrency), so it sits the HTTPS run out.
    if [ "$client" != urlsession-bench ]; then
        run "$client" small "$COURIER_TLS_URL/json" 16 "$n" "$COURIER_CA_FILE"
    fi
    run "$client" download-memory "$COURIER_NGINX_URL/files/256m.bin"
    run "$client" download-file "$COURIER_NGINX_URL/files/256m.bin" "$scratch/download.bin"
    run "$client" upload "$COURIER_NGINX_URL/upload" "$COURIER_FILES_DIR/256m.bin"
done

table="$(python3 Scripts/lib/bench_report.py "$results")"
printf '%s\n' "$table"
if [ "$write" = 1 ]; then
    python3 Scripts/lib/bench_report.py "$results" --write docs/performance.md
    log "wrote docs/performance.md"
fi
rm -rf "$scratch" "$results"
