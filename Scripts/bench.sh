#!/usr/bin/env bash
# Courier's benchmarks, each client its own process, against nginx on 127.0.0.1; writes the tables of
# docs/performance.md. Usage: Scripts/bench.sh [--quick] [--no-write] [BENCHMARK...]
#   clients        Courier (calls on the transport's executor, and on Swift's shared pool) against a raw
#                  libcurl client in C, URLSession (FoundationNetworking) and AsyncHTTPClient: small GETs,
#                  256 MiB downloads and upload; and, for the small GETs, raw-curl-threads: raw libcurl with its
#                  callers on a two-thread pool, handing each transfer to a curl thread (Courier's design at
#                  its cheapest) or driving libcurl themselves under a lock (curl_multi_socket_action)
#   multipart      a 1 GiB multipart/form-data upload (a file part and a text field): Courier
#                  (CourierMultipart) against the curl command-line tool's -F, rounds interleaved
#   serialization  QueryString.encode of a 5,204-pair parameter tree against Foundation's URLComponents
#                  (no server; serialization-bench times its own rounds)
#   json           JSONResponseSerializer and DecodableResponseSerializer on a generated 50 MB body against
#                  JSONSerialization and JSONDecoder called directly on the same bytes (no server)
#   xml            CourierXML's SAX streaming over a generated 200 MB document (no server): MB/s and peak RSS
#   observability  courier-bench's small GETs plain and with CourierLogging (info), CourierTracing (no-op
#                  tracer), CourierMetrics (no-op factory) and all three: the client CPU each adds per request
#   scale          Courier with shared-pool callers at 1, 16, 64, 256 and 1,024 calls in flight, over HTTP/1.1
#                  (8 connections per host) and HTTP/2 over TLS (multiplexed); and 10,000 calls at once to a
#                  server that answers each after 1 s (no connection limit): req/s, CPU, RSS, threads
#   allocations    heap allocations per small GET (C=16) of raw libcurl, Courier (both kinds of callers) and
#                  AsyncHTTPClient, counted by an LD_PRELOAD library (Integration/Benchmarks/Tools/malloc_count.c):
#                  the difference between a run of 2N and one of N requests, over N
#   instructions   user-space instructions per small GET (C=1 and C=16) of raw libcurl, raw-curl-threads' handoff,
#                  Courier (executor preference and shared-pool callers, long-lived and a task per call, and the
#                  transport called without the session) and AsyncHTTPClient, counted by Valgrind's Callgrind (2N requests less N, over
#                  N) and split by shared object: a figure that does not depend on how busy the machine is (Courier's
#                  idle polling off: what polling executes depends on timing, not on the call's path)
#   idle-path      small GETs at C=1 and C=16 of raw libcurl, raw-curl-threads (both designs) and Courier (executor
#                  preference, shared-pool callers long-lived and a task per call; the shared-pool ones also with
#                  the curl thread's idle polling off) with the guest kernel's halt polling as the machine has it
#                  and at 200 µs (0 if that is the machine's), rounds interleaved: user and system CPU per request. Needs root on a KVM guest with cpuidle-haltpoll (the knob
#                  /sys/module/haltpoll/parameters/guest_halt_poll_ns), which it sets back when it ends;
#                  skipped elsewhere. Not part of the default run: it changes a machine setting while it runs
#   (none named: all but idle-path)
#   --quick     fewer requests and rounds (a smoke run)
#   --no-write  print the tables without touching docs/performance.md
# --write replaces only the tables of the benchmarks that ran; the others stay as they are.
#
# Environment: COURIER_BUILD_LOCK, a lock file (e.g. /work/.swift-build.lock) that several people on one
# machine take around their Swift builds: when set, this script takes it with flock(1) around its build
# and around every measured run, so no build shares the machine with a measurement. (Do not also run the
# whole script under flock on that file: it would wait for itself.)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$COURIER_ROOT"

rounds=3 small=20000 small_serial=3000 counted=1000 slow_calls=10000 slow_small=1000 multipart_rounds=7 serialization_rounds=31 json_rounds=3 xml_megabytes=200 observe_rounds=5 write=1
benchmarks=()
for argument in "$@"; do
    case "$argument" in
        --quick) rounds=1 small=3000 small_serial=500 counted=200 slow_calls=2000 slow_small=200 multipart_rounds=1 serialization_rounds=7 json_rounds=1 xml_megabytes=50 observe_rounds=1 ;;
        --no-write) write=0 ;;
        clients | multipart | serialization | json | xml | observability | scale | allocations | instructions | idle-path) benchmarks+=("$argument") ;;
        *) die "unknown argument: $argument (options: --quick --no-write; benchmarks: clients multipart serialization json xml observability scale allocations instructions idle-path)" ;;
    esac
done
[ ${#benchmarks[@]} -gt 0 ] || benchmarks=(clients multipart serialization json xml observability scale allocations instructions)
selected() { [[ " ${benchmarks[*]} " == *" $1 "* ]]; }

# with_lock COMMAND...: runs COMMAND holding COURIER_BUILD_LOCK when it is set.
with_lock() {
    if [ -n "${COURIER_BUILD_LOCK:-}" ]; then flock "$COURIER_BUILD_LOCK" "$@"; else "$@"; fi
}

ensure_swift
Scripts/bootstrap.sh
selected instructions && ensure_apt_packages valgrind binutils

products=()
selected clients && products+=(raw-curl raw-curl-threads courier-bench ahc-bench urlsession-bench)
selected multipart && products+=(courier-bench)
selected observability && products+=(courier-bench)
selected scale && products+=(courier-bench)
selected allocations && products+=(raw-curl courier-bench ahc-bench)
selected idle-path && products+=(raw-curl raw-curl-threads courier-bench)
selected instructions && products+=(raw-curl raw-curl-threads courier-bench ahc-bench)
selected serialization && products+=(serialization-bench)
selected json && products+=(json-bench)
selected xml && products+=(xml-bench)
log "building the benchmarks (release): $(printf '%s\n' "${products[@]}" | sort -u | tr '\n' ' ')"
if selected clients; then
    (cd Integration/Benchmarks && with_lock swift build -c release -q --disable-build-manifest-caching)
else
    # One --product per build: swift build keeps only the last one it is given.
    for product in $(printf '%s\n' "${products[@]}" | sort -u); do
        (cd Integration/Benchmarks && with_lock swift build -c release -q --disable-build-manifest-caching --product "$product")
    done
fi
bin="$(cd Integration/Benchmarks && swift build -c release --show-bin-path)"

results="$(mktemp)"
scratch="$(mktemp -d)"
halt_poll_knob=/sys/module/haltpoll/parameters/guest_halt_poll_ns
halt_poll_original=""
cleanup() {
    if [ -n "$halt_poll_original" ]; then echo "$halt_poll_original" >"$halt_poll_knob" || true; fi
    rm -rf "$scratch" "$results"
    if [ "${servers_started:-0}" = 1 ]; then Scripts/servers.sh stop >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT

if selected clients || selected multipart || selected observability || selected scale || selected allocations || selected instructions || selected idle-path; then
    # nginx must not write a log line per request while we measure.
    Scripts/servers.sh stop >/dev/null 2>&1 || true
    servers_started=1
    COURIER_NGINX_ACCESS_LOG=off Scripts/servers.sh start
    eval "$(Scripts/servers.sh env)"
fi

# record CLIENT WORKLOAD SCHEME COMMAND...: one bounded run (a client that hangs is reported as failed,
# not waited for); its JSON line, or its failure, goes to the results.
record() {
    local client="$1" workload="$2" scheme="$3"
    shift 3
    if with_lock timeout 300 "$@" >"$scratch/line" 2>"$scratch/stderr"; then
        sed "s/^{/{\"scheme\":\"$scheme\",/" "$scratch/line" >>"$results"
    else
        printf '{"client":"%s","workload":"%s","error":%s}\n' "$client" "$workload" \
            "$(python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()[-300:]))' <"$scratch/stderr")" >>"$results"
    fi
}

# accepted_connections: how many TCP connections nginx has accepted since it started (stub_status).
accepted_connections() {
    curl -s --max-time 5 "$COURIER_NGINX_URL/nginx_status" | awk 'NR == 3 { print $1 }'
}

run() { # run CLIENT WORKLOAD ARGS...: $rounds rounds of one benchmark client
    local client="$1"; shift
    local executable="$bin/$client"
    [ "$client" = async-http-client ] && executable="$bin/ahc-bench"
    # courier-pool: courier-bench with its calls on Swift's shared pool, as most code makes them.
    local callers=executor
    if [ "$client" = courier-pool ]; then executable="$bin/courier-bench" callers=pool; fi
    # raw-curl-handoff, raw-curl-direct: raw-curl-threads, whose first argument is that mode (small GETs only).
    local mode=()
    case "$client" in raw-curl-handoff | raw-curl-direct) executable="$bin/raw-curl-threads" mode=("${client#raw-curl-}") ;; esac
    local arguments=("$@")
    [ ${#mode[@]} -eq 0 ] || arguments=("${mode[@]}" "${@:2}")
    local round scheme=http before after lines
    case "$2" in https:*) scheme=https ;; esac
    for round in $(seq 1 "$rounds"); do
        # The server counts every client's connections alike: the accepts during the run, less the
        # status request that reads the second count.
        before="$(accepted_connections)"
        lines="$(wc -l <"$results")"
        COURIER_BENCH_CALLERS=$callers record "$client" "$1" "$scheme" "$executable" "${arguments[@]}"
        after="$(accepted_connections)"
        if [ -n "$before" ] && [ -n "$after" ] && [ "$(wc -l <"$results")" -gt "$lines" ]; then
            sed -i "\$s/^{/{\"server_connections\":$((after - before - 1)),/" "$results"
        fi
    done
}

if selected clients; then
    for client in raw-curl raw-curl-handoff raw-curl-direct courier-bench courier-pool async-http-client urlsession-bench; do
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
        # The two designs' ceilings are measured on small requests only: large ones cross threads rarely.
        case "$client" in raw-curl-handoff | raw-curl-direct) continue ;; esac
        run "$client" download-memory "$COURIER_NGINX_URL/files/256m.bin"
        run "$client" download-file "$COURIER_NGINX_URL/files/256m.bin" "$scratch/download.bin"
        run "$client" upload "$COURIER_NGINX_URL/upload" "$COURIER_FILES_DIR/256m.bin"
    done
fi

if selected multipart; then
    # 1g.bin: 1 GiB of random bytes (openssl rand), written once by servers.sh into the state directory's
    # files; read once here so that every round finds it in the page cache.
    file="$COURIER_FILES_DIR/1g.bin"
    cat "$file" >/dev/null
    curl_command=(curl -F comment=courier-bench -F "file=@$file" "$COURIER_NGINX_URL/upload")
    log "benchmark: 1 GiB multipart upload, Courier and curl -F, $multipart_rounds interleaved rounds"
    # One untimed upload first: nginx's first pass through its temporary body file is the slowest.
    with_lock python3 Scripts/lib/curl_cli_bench.py multipart-upload -- "${curl_command[@]}" >/dev/null 2>&1 || true
    for round in $(seq 1 "$multipart_rounds"); do
        # Alternate who goes first, so neither always follows the other's upload.
        if [ $((round % 2)) = 1 ]; then
            record courier-bench multipart-upload http "$bin/courier-bench" multipart-upload "$COURIER_NGINX_URL/upload" "$file"
            record curl-cli multipart-upload http python3 Scripts/lib/curl_cli_bench.py multipart-upload -- "${curl_command[@]}"
        else
            record curl-cli multipart-upload http python3 Scripts/lib/curl_cli_bench.py multipart-upload -- "${curl_command[@]}"
            record courier-bench multipart-upload http "$bin/courier-bench" multipart-upload "$COURIER_NGINX_URL/upload" "$file"
        fi
    done
fi

if selected observability; then
    log "benchmark: what logging, tracing and metrics add per small request, $observe_rounds interleaved rounds"
    for round in $(seq 1 "$observe_rounds"); do
        for mode in none logging logging-unrendered tracing metrics all; do
            COURIER_BENCH_OBSERVE=$mode record courier-bench small http "$bin/courier-bench" small "$COURIER_NGINX_URL/json" 16 "$small"
            sed -i '$s/^{/{"group":"observability",/' "$results"
        done
    done
fi

if selected scale; then
    log "benchmark: scale, Courier with shared-pool callers at 1 to 1,024 calls in flight"
    for round in $(seq 1 "$rounds"); do
        for concurrency in 1 16 64 256 1024; do
            n=$small; [ "$concurrency" = 1 ] && n=$small_serial
            before="$(accepted_connections)"
            COURIER_BENCH_CALLERS=pool record courier-pool small http "$bin/courier-bench" small "$COURIER_NGINX_URL/json" "$concurrency" "$n"
            after="$(accepted_connections)"
            sed -i "\$s/^{/{\"group\":\"scale\",\"server_connections\":$((after - before - 1)),/" "$results"
            COURIER_BENCH_CALLERS=pool record courier-pool small https "$bin/courier-bench" small "$COURIER_TLS_URL/json" "$concurrency" "$n" "$COURIER_CA_FILE"
            sed -i '$s/^{/{"group":"scale",/' "$results"
        done
    done
    # 10,000 calls at once to a server that answers each after a second: what holding them costs.
    slow_port=18099
    python3 Integration/Benchmarks/Tools/slow_server.py --port "$slow_port" --delay 1 &
    slow_pid=$!
    for _ in $(seq 1 50); do curl -s -o /dev/null "http://127.0.0.1:$slow_port/" --max-time 3 && break; sleep 0.1; done
    COURIER_BENCH_CALLERS=pool COURIER_BENCH_CONNECTIONS_PER_HOST=0 record courier-pool slow http \
        "$bin/courier-bench" small "http://127.0.0.1:$slow_port/" "$slow_calls" "$slow_calls"
    sed -i '$s/^{/{"group":"scale","slow":true,/' "$results"
    kill "$slow_pid" 2>/dev/null || true
    wait "$slow_pid" 2>/dev/null || true
fi

if selected allocations; then
    log "benchmark: heap allocations per small GET"
    cc -O2 -shared -fPIC -o "$scratch/malloc_count.so" Integration/Benchmarks/Tools/malloc_count.c -ldl
    # count CALLERS EXECUTABLE N: the allocations of one run of N requests at C=16.
    count() {
        COURIER_BENCH_CALLERS="$1" LD_PRELOAD="$scratch/malloc_count.so" with_lock timeout 300 "$2" small "$COURIER_NGINX_URL/json" 16 "$3" \
            2>&1 >/dev/null | awk '/^malloc_count:/ { print $2 "," $3 }' | tail -1
    }
    n=$small
    for entry in raw-curl:executor:raw-curl courier:executor:courier-bench courier-pool:pool:courier-bench async-http-client:executor:ahc-bench; do
        IFS=: read -r client callers executable <<<"$entry"
        one="$(count "$callers" "$bin/$executable" "$n")"; two="$(count "$callers" "$bin/$executable" $((2 * n)))"
        if [ -n "$one" ] && [ -n "$two" ]; then
            printf '{"group":"allocations","client":"%s","workload":"allocations","requests":%s,"all_n":%s,"malloc_n":%s,"all_2n":%s,"malloc_2n":%s}\n' \
                "$client" "$n" "${one%,*}" "${one#*,}" "${two%,*}" "${two#*,}" >>"$results"
        else
            printf '{"group":"allocations","client":"%s","workload":"allocations","error":"no count"}\n' "$client" >>"$results"
        fi
    done
fi

if selected instructions; then
    log "benchmark: instructions per small GET, under Callgrind"
    cc -O2 -shared -fPIC -o "$scratch/sigsuspend_copy.so" Integration/Benchmarks/Tools/sigsuspend_copy.c
    # profile N PROFILE CLIENT ARGS...: one run of N requests under Callgrind, its profile written to PROFILE.
    # Callgrind runs one thread at a time, so the counts are the work each design does, not how its threads meet.
    profile() {
        local n="$1" out="$2" executable="$3" mode="$4" concurrency="$5"
        # A copy without DWARF: Valgrind 3.19 cannot read the debug information Swift 6 writes for some
        # binaries (ahc-bench), and gives up. The symbol table stays, so functions keep their names.
        rm -f "$scratch/profiled"
        objcopy --strip-debug "$executable" "$scratch/profiled" 2>"$scratch/stderr" || return 1
        LD_PRELOAD="$scratch/sigsuspend_copy.so" with_lock timeout 900 valgrind -q --tool=callgrind --callgrind-out-file="$out" \
            "$scratch/profiled" "$mode" "$COURIER_NGINX_URL/json" "$concurrency" "$n" >/dev/null 2>"$scratch/stderr"
    }
    for concurrency in 1 16; do
        for entry in raw-libcurl:::raw-curl raw-libcurl-handoff:::raw-curl-threads:handoff courier::workers:courier-bench \
            courier-task:::courier-bench courier-transport::workers:courier-bench:small:transport \
            courier-pool:pool:workers:courier-bench courier-pool-task:pool::courier-bench async-http-client:::ahc-bench; do
            # client:callers:shape:executable[:mode[:layer]], as in idle-path; layer=transport skips the session.
            IFS=: read -r client callers shape executable mode layer <<<"$entry"
            # The curl thread's idle polling off: what it executes depends on how threads meet (slowed and taken in
            # turn under Valgrind), not on a call's path, which is what this benchmark counts.
            export COURIER_BENCH_CALLERS="$callers" COURIER_BENCH_SHAPE="$shape" COURIER_BENCH_LAYER="$layer" COURIER_BENCH_IDLE_POLL_US=0
            if profile "$counted" "$scratch/one.out" "$bin/$executable" "${mode:-small}" "$concurrency" &&
                profile $((2 * counted)) "$scratch/two.out" "$bin/$executable" "${mode:-small}" "$concurrency" &&
                costs="$(python3 Integration/Benchmarks/Tools/callgrind_costs.py "$counted" "$scratch/one.out" "$scratch/two.out" 2>"$scratch/stderr")"; then
                printf '{"group":"instructions","client":"%s","workload":"small","concurrency":%s,"requests":%s,%s\n' \
                    "$client" "$concurrency" "$counted" "${costs#\{}" >>"$results"
            else
                printf '{"group":"instructions","client":"%s","workload":"small","concurrency":%s,"error":%s}\n' "$client" "$concurrency" \
                    "$(python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()[-300:]))' <"$scratch/stderr")" >>"$results"
            fi
            unset COURIER_BENCH_CALLERS COURIER_BENCH_SHAPE COURIER_BENCH_LAYER COURIER_BENCH_IDLE_POLL_US
        done
    done
    rm -f "$scratch/one.out" "$scratch/two.out" "$scratch/profiled"
fi

if selected idle-path; then
    if [ -w "$halt_poll_knob" ]; then
        halt_poll_original="$(cat "$halt_poll_knob")"
        other=200000
        [ "$halt_poll_original" = 200000 ] && other=0
        log "benchmark: small GETs with the guest's halt polling at ${halt_poll_original} ns (the machine's) and at $other ns"
        # Rounds interleave the two settings, so a machine that drifts does not favour either.
        for round in $(seq 1 "$rounds"); do
            for poll in "$halt_poll_original" "$other"; do
                echo "$poll" >"$halt_poll_knob"
                for concurrency in 1 16; do
                    # Runs of a second or so: getrusage's split of user and system time is sampled at the tick.
                    n=$((3 * small))
                    [ "$concurrency" = 1 ] && n=$((3 * small / 2))
                    for entry in raw-libcurl:::raw-curl raw-libcurl-handoff:::raw-curl-threads:handoff \
                        raw-libcurl-direct:::raw-curl-threads:direct courier::workers:courier-bench \
                        courier-pool:pool:workers:courier-bench courier-pool-task:pool::courier-bench \
                        courier-pool-nopoll:pool:workers:courier-bench courier-pool-task-nopoll:pool::courier-bench; do
                        # client:callers:shape:executable[:mode]; raw-curl-threads takes its mode where the others take "small".
                        IFS=: read -r client callers shape executable mode <<<"$entry"
                        # -nopoll: Courier with its curl thread's idle polling off (CurlTransport.Configuration.idlePolling).
                        idle_poll=""
                        [[ "$client" == *-nopoll ]] && idle_poll=0
                        lines="$(wc -l <"$results")"
                        COURIER_BENCH_CALLERS="$callers" COURIER_BENCH_SHAPE="$shape" COURIER_BENCH_IDLE_POLL_US="$idle_poll" \
                            record "$client" small http "$bin/$executable" "${mode:-small}" "$COURIER_NGINX_URL/json" "$concurrency" "$n"
                        # A client that ended well but printed nothing still leaves a line to tag, never its neighbour's.
                        if [ "$(wc -l <"$results")" = "$lines" ]; then
                            printf '{"client":"%s","workload":"small","error":"no output"}\n' "$client" >>"$results"
                        fi
                        sed -i "\$s/^{/{\"group\":\"idle-path\",\"halt_poll_ns\":$poll,\"round\":$round,\"concurrency\":$concurrency,\"label\":\"$client\",/" "$results"
                    done
                done
            done
        done
        echo "$halt_poll_original" >"$halt_poll_knob"
        halt_poll_original=""
    else
        log "idle-path skipped: $halt_poll_knob is not writable here (not a KVM guest with cpuidle-haltpoll, or not root)"
    fi
fi

if selected serialization; then
    log "benchmark: query-string serialization, Courier and Foundation's URLComponents"
    record serialization-bench query-string none "$bin/serialization-bench" --rounds "$serialization_rounds"
    cat "$scratch/stderr" >&2
fi

if selected json; then
    log "benchmark: JSON parsing of a 50 MB body, Courier's serializers against JSONSerialization and JSONDecoder"
    record json-bench json-parse none "$bin/json-bench" 50 "$json_rounds"
fi

if selected xml; then
    log "benchmark: SAX streaming of a ${xml_megabytes} MB XML document"
    record xml-bench xml-sax none "$bin/xml-bench" "$xml_megabytes"
fi

python3 Scripts/lib/bench_report.py "$results"
if [ "$write" = 1 ]; then
    python3 Scripts/lib/bench_report.py "$results" --write docs/performance.md
    log "wrote docs/performance.md"
fi
