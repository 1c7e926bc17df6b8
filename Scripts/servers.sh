#!/usr/bin/env bash
# Starts and stops Courier's local test servers (Integration/Servers/README.md), all on 127.0.0.1:
# httpbin (gunicorn), nginx (plain HTTP/1.1, h2c, TLS with HTTP/2 + HTTP/1.1, a Unix socket, big files),
# the fault server, the forward proxy, the upload sink, the compression server, and for CourierSecurity: nginx
# TLS with an unrelated chain, nginx with mutual TLS, and the TLS recorder; for the chaos tests: the chaos server
# (HTTP/1.1 cut, reset, lying and stalling at chosen offsets) and the TLS chaos server (HTTP/2 RST_STREAM and
# GOAWAY over TLS, TLS handshakes that fail); for streaming: the SSE server (server-sent events, line and NDJSON
# streams); and the SOCKS5 proxy.
#
# Usage: Scripts/servers.sh start|stop|status|env
#   start   generates what is missing (certificates, big files), starts what is not running, waits until
#           every server answers; safe to call when they already run
#   stop    stops every server
#   status  says which run; exits 0 when all do, 1 otherwise
#   env     prints `export` lines to eval: eval "$(Scripts/servers.sh env)"
#
# Environment: COURIER_STATE_DIR (default $COURIER_ROOT/.build-servers), COURIER_HTTPBIN_PORT (18080),
# COURIER_NGINX_PORT (18081), COURIER_H2C_PORT (18082), COURIER_TLS_PORT (18083), COURIER_FAULT_PORT (18084),
# COURIER_PROXY_PORT (18085), COURIER_SINK_PORT (18086), COURIER_COMPRESSION_PORT (18087, its cache of
# generated bodies in $STATE/compressed), COURIER_TLS_OTHER_PORT (18090), COURIER_MTLS_PORT (18091),
# COURIER_TLS_RECORDER_PORT (18092), COURIER_CHAOS_PORT (18093), COURIER_TLS_CHAOS_PORT (18094),
# COURIER_SSE_PORT (18095), COURIER_TLS_H1_PORT (18096), COURIER_SOCKS_PORT (18097), COURIER_TLS_PROXY_PORT (18098: the
# forward proxy behind TLS), COURIER_HTTPBIN_WORKERS (2,
# each with 8 threads), COURIER_NGINX_WORKERS (1), COURIER_NGINX_ACCESS_LOG (on; "off" for benchmarks that must not write a line per request).
# `start` records the settings it used in the state directory; `env`, `status` and `stop` use them unless
# overridden, and so does a `start` while servers run (one with other settings then fails: stop first).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

SERVERS_DIR="$COURIER_ROOT/Integration/Servers"
VENV="$COURIER_ROOT/.venv"
STATE="${COURIER_STATE_DIR:-$COURIER_ROOT/.build-servers}"
case "$STATE" in /*) ;; *) STATE="$PWD/$STATE" ;; esac
CONFIG="$STATE/config.env"
CERTS="$STATE/certs"
FILES="$STATE/files"
LOGS="$STATE/logs"
SOCKET="$STATE/nginx.sock"
SERVERS=(httpbin nginx fault proxy sink compression recorder chaos tlschaos sse socks)

# What a live server's command line contains, so a recycled pid is never taken for (or killed as) one.
signature() {
    case "$1" in
        httpbin) echo "gunicorn" ;;
        nginx) echo "nginx: master process" ;;
        fault) echo "fault_server.py" ;;
        proxy) echo "proxy_server.py" ;;
        sink) echo "upload_sink.py" ;;
        compression) echo "compression_server.py" ;;
        recorder) echo "tls_recorder.py" ;;
        chaos) echo "chaos_server.py" ;;
        tlschaos) echo "tls_chaos_server.py" ;;
        sse) echo "sse_server.py" ;;
        socks) echo "socks_server.py" ;;
    esac
}
log_of() { echo "$LOGS/$1.log"; }

# pid_of NAME: prints the server's pid and succeeds when it runs.
pid_of() {
    local pid
    pid="$(cat "$STATE/$1.pid" 2>/dev/null)" || return 1
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    [ -r "/proc/$pid/cmdline" ] || return 1
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF "$(signature "$1")" || return 1
    echo "$pid"
}

any_running() {
    local name
    for name in "${SERVERS[@]}"; do pid_of "$name" >/dev/null && return 0; done
    return 1
}

# Settings: the environment first, then what the `start` of the running servers recorded, then the
# defaults. A `start` with nothing running forgets what an earlier one recorded.
declare -A SAVED=()
if [ -f "$CONFIG" ] && { [ "${1:-}" != start ] || any_running; }; then
    while IFS='=' read -r key value; do
        [[ "$key" =~ ^COURIER_[A-Z0-9_]+$ ]] && SAVED[$key]="$value"
    done <"$CONFIG"
fi
setting() { # setting NAME DEFAULT
    local name="$1" default="$2"
    if [ -n "${!name:-}" ]; then printf '%s' "${!name}"
    elif [ -n "${SAVED[$name]:-}" ]; then printf '%s' "${SAVED[$name]}"
    else printf '%s' "$default"; fi
}
HTTPBIN_PORT="$(setting COURIER_HTTPBIN_PORT 18080)"
NGINX_PORT="$(setting COURIER_NGINX_PORT 18081)"
H2C_PORT="$(setting COURIER_H2C_PORT 18082)"
TLS_PORT="$(setting COURIER_TLS_PORT 18083)"
FAULT_PORT="$(setting COURIER_FAULT_PORT 18084)"
PROXY_PORT="$(setting COURIER_PROXY_PORT 18085)"
SINK_PORT="$(setting COURIER_SINK_PORT 18086)"
COMPRESSION_PORT="$(setting COURIER_COMPRESSION_PORT 18087)"
TLS_OTHER_PORT="$(setting COURIER_TLS_OTHER_PORT 18090)"
MTLS_PORT="$(setting COURIER_MTLS_PORT 18091)"
RECORDER_PORT="$(setting COURIER_TLS_RECORDER_PORT 18092)"
CHAOS_PORT="$(setting COURIER_CHAOS_PORT 18093)"
TLS_CHAOS_PORT="$(setting COURIER_TLS_CHAOS_PORT 18094)"
SSE_PORT="$(setting COURIER_SSE_PORT 18095)"
TLS_H1_PORT="$(setting COURIER_TLS_H1_PORT 18096)"
SOCKS_PORT="$(setting COURIER_SOCKS_PORT 18097)"
TLS_PROXY_PORT="$(setting COURIER_TLS_PROXY_PORT 18098)"
HTTPBIN_WORKERS="$(setting COURIER_HTTPBIN_WORKERS 2)"
NGINX_WORKERS="$(setting COURIER_NGINX_WORKERS 1)"
NGINX_ACCESS_LOG="$(setting COURIER_NGINX_ACCESS_LOG on)"
for port in "$HTTPBIN_PORT" "$NGINX_PORT" "$H2C_PORT" "$TLS_PORT" "$FAULT_PORT" "$PROXY_PORT" "$SINK_PORT" \
    "$COMPRESSION_PORT" "$TLS_OTHER_PORT" "$MTLS_PORT" "$RECORDER_PORT" "$CHAOS_PORT" "$TLS_CHAOS_PORT" \
    "$SSE_PORT" "$TLS_H1_PORT" "$SOCKS_PORT" "$TLS_PROXY_PORT" "$HTTPBIN_WORKERS" "$NGINX_WORKERS"; do
    [[ "$port" =~ ^[1-9][0-9]*$ ]] && [ "$port" -le 65535 ] ||
        die "not a port or a count: '$port' (check the COURIER_*_PORT and COURIER_*_WORKERS variables)"
done

HTTPBIN_URL="http://127.0.0.1:$HTTPBIN_PORT"
NGINX_URL="http://127.0.0.1:$NGINX_PORT"
H2C_URL="http://127.0.0.1:$H2C_PORT"
TLS_URL="https://127.0.0.1:$TLS_PORT"
TLS_LOCALHOST_URL="https://localhost:$TLS_PORT"
FAULT_URL="http://127.0.0.1:$FAULT_PORT"
PROXY_URL="http://127.0.0.1:$PROXY_PORT"
SINK_URL="http://127.0.0.1:$SINK_PORT"
COMPRESSION_URL="http://127.0.0.1:$COMPRESSION_PORT"
TLS_OTHER_URL="https://127.0.0.1:$TLS_OTHER_PORT"
TLS_H1_URL="https://127.0.0.1:$TLS_H1_PORT"
MTLS_URL="https://127.0.0.1:$MTLS_PORT"
RECORDER_URL="https://127.0.0.1:$RECORDER_PORT"
CHAOS_URL="http://127.0.0.1:$CHAOS_PORT"
TLS_CHAOS_URL="https://127.0.0.1:$TLS_CHAOS_PORT"
SSE_URL="http://127.0.0.1:$SSE_PORT"
SOCKS_URL="socks5h://127.0.0.1:$SOCKS_PORT"
TLS_PROXY_URL="https://127.0.0.1:$TLS_PROXY_PORT"

# --- processes ---------------------------------------------------------------------------------------

# port_free PORT WHAT: dies naming the listener when something already listens on 127.0.0.1:PORT.
port_free() {
    local listeners
    listeners="$(ss -Hltnp "( sport = :$1 )" 2>/dev/null || true)"
    [ -z "$listeners" ] || die "port $1 (for $2) is already in use: $listeners
set COURIER_*_PORT to move Courier's servers elsewhere (Scripts/servers.sh header)"
}

start_httpbin() {
    [ -x "$VENV/bin/gunicorn" ] || die "$VENV/bin/gunicorn is missing: run Scripts/bootstrap.sh"
    "$VENV/bin/gunicorn" --bind "127.0.0.1:$HTTPBIN_PORT" --workers "$HTTPBIN_WORKERS" \
        --worker-class gthread --threads 8 --keep-alive 75 --graceful-timeout 5 \
        --daemon --pid "$STATE/httpbin.pid" --chdir "$STATE" \
        --error-logfile "$(log_of httpbin)" --access-logfile "$LOGS/httpbin-access.log" \
        httpbin:app >>"$(log_of httpbin)" 2>&1 || die "gunicorn (httpbin) did not start; see $(log_of httpbin)"
}

start_nginx() {
    command -v nginx >/dev/null 2>&1 || die "nginx is missing: run Scripts/bootstrap.sh"
    rm -f "$SOCKET" # a stale socket file left by a killed nginx would make bind() fail
    nginx -p "$STATE/nginx/" -c "$STATE/nginx/nginx.conf" -e "$(log_of nginx)" >>"$(log_of nginx)" 2>&1 \
        || die "nginx did not start; see $(log_of nginx):
$(tail -n 5 "$(log_of nginx)")"
}

start_python_server() { # start_python_server NAME SCRIPT PORT [ARGUMENT ...]
    local name="$1" script="$2" port="$3" python="$VENV/bin/python"
    shift 3
    [ -x "$python" ] || python="$(command -v python3)" || die "python3 is missing: run Scripts/bootstrap.sh"
    rm -f "$STATE/$name.pid"
    # setsid -f: its own session, so the caller's terminal or process group ending does not stop it;
    # the server writes its pid file itself once it listens.
    setsid -f "$python" "$SERVERS_DIR/$script" --port "$port" --pid-file "$STATE/$name.pid" "$@" \
        >>"$(log_of "$name")" 2>&1 </dev/null
}

# probe NAME: succeeds when the server answers as it should.
probe() {
    local curl=(curl -sS -o /dev/null -m 3 --fail --noproxy '*')
    case "$1" in
        httpbin) "${curl[@]}" "$HTTPBIN_URL/get" ;;
        nginx)
            "${curl[@]}" "$NGINX_URL/json" &&
            "${curl[@]}" "$NGINX_URL/get" &&
            "${curl[@]}" --http2-prior-knowledge "$H2C_URL/json" &&
            "${curl[@]}" --cacert "$CERTS/root.pem" "$TLS_URL/json" &&
            "${curl[@]}" --cacert "$CERTS/root.pem" "$TLS_H1_URL/json" &&
            "${curl[@]}" --cacert "$CERTS/root2.pem" --resolve "other.test:$TLS_OTHER_PORT:127.0.0.1" \
                "https://other.test:$TLS_OTHER_PORT/json" &&
            "${curl[@]}" --cacert "$CERTS/root.pem" --cert "$CERTS/client.pem" --key "$CERTS/client.key" \
                "$MTLS_URL/client" &&
            "${curl[@]}" --unix-socket "$SOCKET" "http://localhost/get" ;;
        fault) pid_of fault >/dev/null && "${curl[@]}" "$FAULT_URL/health" ;;
        proxy) pid_of proxy >/dev/null && "${curl[@]}" "$PROXY_URL/health" &&
            "${curl[@]}" --cacert "$CERTS/root.pem" "$TLS_PROXY_URL/health" ;;
        sink) pid_of sink >/dev/null && "${curl[@]}" "$SINK_URL/health" ;;
        compression) pid_of compression >/dev/null && "${curl[@]}" "$COMPRESSION_URL/health" ;;
        recorder) pid_of recorder >/dev/null && "${curl[@]}" --cacert "$CERTS/root.pem" "$RECORDER_URL/health" ;;
        chaos) pid_of chaos >/dev/null && "${curl[@]}" "$CHAOS_URL/health" ;;
        tlschaos) pid_of tlschaos >/dev/null && "${curl[@]}" --http2 --cacert "$CERTS/root.pem" "$TLS_CHAOS_URL/health" ;;
        sse) pid_of sse >/dev/null && "${curl[@]}" "$SSE_URL/health" ;;
        socks) pid_of socks >/dev/null && "${curl[@]}" "http://${SOCKS_URL#socks5h://}/health" ;;
    esac
}

# wait_until_ready NAME SECONDS
wait_until_ready() {
    local name="$1" deadline=$((SECONDS + $2))
    until probe "$name" 2>/dev/null; do
        if [ "$SECONDS" -ge "$deadline" ]; then
            probe "$name" || true
            die "$name did not answer within $2 s; its log is $(log_of "$name"):
$(tail -n 15 "$(log_of "$name")" 2>/dev/null)"
        fi
        sleep 0.1
    done
}

# alive PID: the process exists and is not a zombie (a daemon's parent is init, which may reap it late).
alive() {
    local stat
    stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
    stat="${stat##*) }"
    [ "${stat:0:1}" != Z ]
}

stop_server() { # stop_server NAME
    local name="$1" pid i
    pid="$(pid_of "$name")" || { rm -f "$STATE/$name.pid"; return 0; }
    # gunicorn: INT is its quick shutdown (TERM would wait for nginx's idle keep-alive connections).
    if [ "$name" = httpbin ]; then kill -INT "$pid" 2>/dev/null || true; else kill -TERM "$pid" 2>/dev/null || true; fi
    for ((i = 0; i < 200; i++)); do
        alive "$pid" || break
        sleep 0.05
    done
    if alive "$pid"; then
        log "$name (pid $pid) did not stop within 10 s; killing it"
        kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$STATE/$name.pid"
    [ "$name" != nginx ] || rm -f "$SOCKET"
}

# --- fixtures ----------------------------------------------------------------------------------------

# random_file NAME BYTES: random bytes, written anew only when the file is missing or of another size.
random_file() {
    local path="$FILES/$1" size
    size="$(stat -c %s "$path" 2>/dev/null || echo -1)"
    [ "$size" = "$2" ] && return 1
    log "generating $path ($2 random bytes)"
    openssl rand -out "$path.tmp" "$2" || die "could not write $path.tmp (disk full?)"
    mv -f "$path.tmp" "$path" || die "could not write $path"
}

make_files() {
    local changed=0
    mkdir -p "$FILES"
    if ! cmp -s "$SERVERS_DIR/small.json" "$FILES/small.json"; then
        cp "$SERVERS_DIR/small.json" "$FILES/small.json.tmp" && mv -f "$FILES/small.json.tmp" "$FILES/small.json"
        changed=1
    fi
    random_file 1m.bin $((1024 * 1024)) && changed=1
    random_file 256m.bin $((256 * 1024 * 1024)) && changed=1
    random_file 1g.bin $((1024 * 1024 * 1024)) && changed=1
    if [ "$changed" -eq 1 ] || [ ! -s "$FILES/SHA256SUMS" ]; then
        log "hashing the files into $FILES/SHA256SUMS"
        (cd "$FILES" && sha256sum small.json 1m.bin 256m.bin 1g.bin >SHA256SUMS.tmp && mv -f SHA256SUMS.tmp SHA256SUMS)
    fi
}

# render TEMPLATE OUTPUT: replaces every @NAME@ of the template.
render() {
    local text user_directive=""
    [ "$(id -u)" -ne 0 ] || user_directive="user root;  # workers run as root: they read the state directory"
    local access_log="$LOGS/nginx-access.log combined buffer=64k flush=1s"
    [ "$NGINX_ACCESS_LOG" != off ] || access_log="off"
    text="$(<"$1")"
    text="${text//@USER_DIRECTIVE@/"$user_directive"}"
    text="${text//@WORKERS@/"$NGINX_WORKERS"}"
    text="${text//@ACCESS_LOG@/"$access_log"}"
    text="${text//@HTTPBIN_PORT@/"$HTTPBIN_PORT"}"
    text="${text//@COMPRESSION_PORT@/"$COMPRESSION_PORT"}"
    text="${text//@NGINX_PORT@/"$NGINX_PORT"}"
    text="${text//@H2C_PORT@/"$H2C_PORT"}"
    text="${text//@TLS_PORT@/"$TLS_PORT"}"
    text="${text//@TLS_OTHER_PORT@/"$TLS_OTHER_PORT"}"
    text="${text//@TLS_H1_PORT@/"$TLS_H1_PORT"}"
    text="${text//@MTLS_PORT@/"$MTLS_PORT"}"
    text="${text//@CERTS@/"$CERTS"}"
    text="${text//@FILES@/"$FILES"}"
    text="${text//@LOGS@/"$LOGS"}"
    text="${text//@STATE@/"$STATE"}"
    if [[ "$text" =~ @[A-Z_]+@ ]]; then die "$1: placeholder ${BASH_REMATCH[0]} is not rendered"; fi
    printf '%s\n' "$text" >"$2.tmp"
    mv -f "$2.tmp" "$2"
}

save_config() {
    cat >"$CONFIG.tmp" <<EOF
COURIER_HTTPBIN_PORT=$HTTPBIN_PORT
COURIER_NGINX_PORT=$NGINX_PORT
COURIER_H2C_PORT=$H2C_PORT
COURIER_TLS_PORT=$TLS_PORT
COURIER_FAULT_PORT=$FAULT_PORT
COURIER_PROXY_PORT=$PROXY_PORT
COURIER_SINK_PORT=$SINK_PORT
COURIER_COMPRESSION_PORT=$COMPRESSION_PORT
COURIER_TLS_OTHER_PORT=$TLS_OTHER_PORT
COURIER_MTLS_PORT=$MTLS_PORT
COURIER_TLS_RECORDER_PORT=$RECORDER_PORT
COURIER_CHAOS_PORT=$CHAOS_PORT
COURIER_TLS_CHAOS_PORT=$TLS_CHAOS_PORT
COURIER_SSE_PORT=$SSE_PORT
COURIER_TLS_H1_PORT=$TLS_H1_PORT
COURIER_SOCKS_PORT=$SOCKS_PORT
COURIER_TLS_PROXY_PORT=$TLS_PROXY_PORT
COURIER_HTTPBIN_WORKERS=$HTTPBIN_WORKERS
COURIER_NGINX_WORKERS=$NGINX_WORKERS
COURIER_NGINX_ACCESS_LOG=$NGINX_ACCESS_LOG
EOF
    mv -f "$CONFIG.tmp" "$CONFIG"
}

# Dies when a server runs with other settings than the ones asked for now.
check_running_settings() {
    local key now
    for key in "${!SAVED[@]}"; do
        now="$(setting "$key" "")"
        [ "$now" = "${SAVED[$key]}" ] && continue
        for name in "${SERVERS[@]}"; do
            pid_of "$name" >/dev/null &&
                die "the servers run with $key=${SAVED[$key]}, not $now: run 'Scripts/servers.sh stop' first"
        done
    done
    return 0
}

# --- commands ----------------------------------------------------------------------------------------

cmd_start() {
    local started=() name
    check_running_settings
    # sockaddr_un.sun_path holds 107 characters.
    [ "${#SOCKET}" -le 107 ] || die "the state directory's path is too long for a Unix socket: $SOCKET"
    mkdir -p "$STATE" "$LOGS" "$STATE/nginx/tmp"
    "$SERVERS_DIR/gen-certs.sh" "$CERTS"
    make_files
    render "$SERVERS_DIR/nginx.conf.template" "$STATE/nginx/nginx.conf"
    render "$SERVERS_DIR/nginx-locations.conf.template" "$STATE/nginx/locations.conf"
    save_config

    for name in "${SERVERS[@]}"; do pid_of "$name" >/dev/null || started+=("$name"); done
    # Every port is checked before anything starts, so a conflict leaves nothing half-started.
    for name in "${started[@]}"; do
        case "$name" in
            httpbin) port_free "$HTTPBIN_PORT" httpbin ;;
            nginx) port_free "$NGINX_PORT" nginx; port_free "$H2C_PORT" "nginx h2c"; port_free "$TLS_PORT" "nginx TLS"
                port_free "$TLS_OTHER_PORT" "nginx TLS (other chain)"; port_free "$MTLS_PORT" "nginx mutual TLS"
                port_free "$TLS_H1_PORT" "nginx TLS (HTTP/1.1 only)" ;;
            fault) port_free "$FAULT_PORT" "the fault server" ;;
            proxy) port_free "$PROXY_PORT" "the proxy"; port_free "$TLS_PROXY_PORT" "the proxy behind TLS" ;;
            sink) port_free "$SINK_PORT" "the upload sink" ;;
            compression) port_free "$COMPRESSION_PORT" "the compression server" ;;
            recorder) port_free "$RECORDER_PORT" "the TLS recorder" ;;
            chaos) port_free "$CHAOS_PORT" "the chaos server" ;;
            tlschaos) port_free "$TLS_CHAOS_PORT" "the TLS chaos server" ;;
            sse) port_free "$SSE_PORT" "the SSE server" ;;
            socks) port_free "$SOCKS_PORT" "the SOCKS5 proxy" ;;
        esac
    done
    for name in "${started[@]}"; do
        case "$name" in
            httpbin) start_httpbin ;;
            nginx) start_nginx ;;
            fault) start_python_server fault fault_server.py "$FAULT_PORT" ;;
            proxy) start_python_server proxy proxy_server.py "$PROXY_PORT" --certs "$CERTS" --tls-port "$TLS_PROXY_PORT" ;;
            sink) start_python_server sink upload_sink.py "$SINK_PORT" ;;
            compression) start_python_server compression compression_server.py "$COMPRESSION_PORT" \
                --cache-dir "$STATE/compressed" ;;
            recorder) start_python_server recorder tls_recorder.py "$RECORDER_PORT" \
                --cert "$CERTS/chain.pem" --key "$CERTS/leaf.key" ;;
            chaos) start_python_server chaos chaos_server.py "$CHAOS_PORT" --cache-dir "$STATE/compressed" ;;
            tlschaos) start_python_server tlschaos tls_chaos_server.py "$TLS_CHAOS_PORT" \
                --cert "$CERTS/chain.pem" --key "$CERTS/leaf.key" ;;
            sse) start_python_server sse sse_server.py "$SSE_PORT" ;;
            socks) start_python_server socks socks_server.py "$SOCKS_PORT" ;;
        esac
    done

    wait_until_ready httpbin 30
    wait_until_ready nginx 10
    wait_until_ready fault 10
    wait_until_ready proxy 10
    wait_until_ready sink 10
    wait_until_ready compression 10
    wait_until_ready recorder 10
    wait_until_ready chaos 10
    wait_until_ready tlschaos 10
    wait_until_ready sse 10
    wait_until_ready socks 10
    if [ ${#started[@]} -eq 0 ]; then
        log "servers already running (state in $STATE)"
    else
        log "started ${started[*]} (state in $STATE); eval \"\$(Scripts/servers.sh env)\" for their addresses"
    fi
}

cmd_stop() {
    local name
    for name in socks sse tlschaos chaos recorder compression sink proxy fault nginx httpbin; do stop_server "$name"; done
    log "servers stopped"
}

cmd_status() {
    local name pid all=0 where
    for name in "${SERVERS[@]}"; do
        case "$name" in
            httpbin) where="$HTTPBIN_URL" ;;
            nginx) where="$NGINX_URL (HTTP/1.1), $H2C_URL (h2c), $TLS_URL (TLS), $TLS_H1_URL (TLS, HTTP/1.1 only), $TLS_OTHER_URL (TLS, other chain), $MTLS_URL (mutual TLS), unix:$SOCKET" ;;
            fault) where="$FAULT_URL" ;;
            proxy) where="$PROXY_URL, $TLS_PROXY_URL (behind TLS)" ;;
            sink) where="$SINK_URL" ;;
            compression) where="$COMPRESSION_URL (cache in $STATE/compressed)" ;;
            recorder) where="$RECORDER_URL (TLS recorder)" ;;
            chaos) where="$CHAOS_URL (chaos)" ;;
            tlschaos) where="$TLS_CHAOS_URL (TLS chaos: HTTP/2 faults, handshake faults)" ;;
            sse) where="$SSE_URL (SSE: server-sent events, line and NDJSON streams)" ;;
            socks) where="$SOCKS_URL (SOCKS5 proxy)" ;;
        esac
        if pid="$(pid_of "$name")"; then
            printf '%-12s running  pid %-7s %s\n' "$name" "$pid" "$where"
        else
            printf '%-12s stopped\n' "$name"
            all=1
        fi
    done
    return "$all"
}

cmd_env() {
    local name value
    for name in COURIER_HTTPBIN_URL=HTTPBIN_URL COURIER_NGINX_URL=NGINX_URL COURIER_H2C_URL=H2C_URL \
        COURIER_TLS_URL=TLS_URL COURIER_TLS_LOCALHOST_URL=TLS_LOCALHOST_URL COURIER_FAULT_URL=FAULT_URL \
        COURIER_PROXY_URL=PROXY_URL COURIER_SINK_URL=SINK_URL COURIER_COMPRESSION_URL=COMPRESSION_URL \
        COURIER_TLS_OTHER_URL=TLS_OTHER_URL COURIER_MTLS_URL=MTLS_URL COURIER_TLS_RECORDER_URL=RECORDER_URL \
        COURIER_CHAOS_URL=CHAOS_URL COURIER_TLS_CHAOS_URL=TLS_CHAOS_URL COURIER_SSE_URL=SSE_URL \
        COURIER_TLS_H1_URL=TLS_H1_URL COURIER_SOCKS_URL=SOCKS_URL \
        COURIER_TLS_PROXY_URL=TLS_PROXY_URL; do
        value="${name#*=}"
        printf 'export %s=%q\n' "${name%%=*}" "${!value}"
    done
    printf 'export COURIER_CA_FILE=%q\n' "$CERTS/root.pem"
    printf 'export COURIER_CERTS_DIR=%q\n' "$CERTS"
    printf 'export COURIER_UNIX_SOCKET=%q\n' "$SOCKET"
    printf 'export COURIER_FILES_DIR=%q\n' "$FILES"
    printf 'export COURIER_STATE_DIR=%q\n' "$STATE"
}

case "${1:-}" in
    start) cmd_start ;;
    stop) cmd_stop ;;
    status) cmd_status ;;
    env) cmd_env ;;
    *) echo "usage: $0 start|stop|status|env" >&2; exit 2 ;;
esac
