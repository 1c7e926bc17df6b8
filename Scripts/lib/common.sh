# Shared helpers for Courier's scripts. Source it; do not run it.

# The repository root, whatever the caller's working directory.
COURIER_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export COURIER_ROOT

# Each line carries the seconds since the first script of the run started (COURIER_RUN_STARTED is inherited
# by the scripts it calls), so a CI log shows where the time goes.
COURIER_RUN_STARTED="${COURIER_RUN_STARTED:-$(date +%s)}"
export COURIER_RUN_STARTED
log() { printf '\033[1m==> [%4ss] %s\033[0m\n' "$(( $(date +%s) - COURIER_RUN_STARTED ))" "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# The test servers, for a script that needs them: servers someone else started (all of them answering) are left
# running; otherwise start_servers_unless_running starts them and stop_started_servers (for the script's EXIT trap)
# stops them. The flag is set before the start, so a start that fails halfway is cleaned up too. Environment for
# Scripts/servers.sh (COURIER_NGINX_ACCESS_LOG, the ports) passes through.
servers_started_here=0
start_servers_unless_running() {
    if ! "$COURIER_ROOT/Scripts/servers.sh" status >/dev/null 2>&1; then
        servers_started_here=1
        "$COURIER_ROOT/Scripts/servers.sh" start
    fi
}
stop_started_servers() {
    if [ "$servers_started_here" = 1 ]; then "$COURIER_ROOT/Scripts/servers.sh" stop || true; fi
}

# A CPU hog, for the checks of races a loaded machine loses: one busy loop per core but one (at least one), whose
# process ids are in cpu_hogs; stop_cpu_hog kills them.
cpu_hogs=()
start_cpu_hog() {
    local cores
    cores="$(nproc)"
    for _ in $(seq 1 $(( cores > 1 ? cores - 1 : 1 ))); do
        ( while :; do :; done ) &
        cpu_hogs+=($!)
    done
}
stop_cpu_hog() { if [ ${#cpu_hogs[@]} -gt 0 ]; then kill "${cpu_hogs[@]}" 2>/dev/null || true; fi; }

# Installs the Debian packages given that are not installed yet (needs root; runs
# `apt-get update` once, only when something is missing).
ensure_apt_packages() {
    local missing=()
    local package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    log "installing ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# The Debian packages of the C libraries Courier's targets link, and what they read at run time (the public
# suffix list libpsl loads): what any script that builds the package needs, whether or not it runs servers.
COURIER_LIBRARY_PACKAGES=(
    pkg-config libcurl4-openssl-dev libssl-dev libxml2-dev zlib1g-dev libbrotli-dev libzstd-dev libpsl-dev publicsuffix
)

# The Swift toolchain is not a Debian package: it must already be on PATH (or in /opt/swift).
ensure_swift() {
    if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
        export PATH="/opt/swift/usr/bin:$PATH"
    fi
    command -v swift >/dev/null 2>&1 || die "Swift 6.1 or later is required (https://www.swift.org/install/linux/); 'swift' is not on PATH"
}

# Runs `swift build` with the given arguments and fails on any warning in Courier's own files.
build_without_warnings() {
    local log_file
    log_file="$(mktemp)"
    if ! swift build "$@" 2>&1 | tee "$log_file"; then
        rm -f "$log_file"
        die "swift build $* failed"
    fi
    if grep -E "^${COURIER_ROOT}/(Modules|Tests|Integration)/.*warning:" "$log_file" >&2; then
        rm -f "$log_file"
        die "the build has warnings (above); Courier builds with none"
    fi
    rm -f "$log_file"
}

# Crash and sanitizer reports as files, for the suites with exit tests. swift-testing sends an exit test's child's
# standard error to /dev/null, so a report written there was lost, and the child's status alone (a signal; 1 under
# AddressSanitizer and LeakSanitizer, 66 under ThreadSanitizer) said nothing of why: a clean-clone CI run at 651966c
# failed PausedStreamTests' exit test with ".exitCode(1)" and no more (it was a leak report at the child's exit).
#
# `run_keeping_crash_reports MODE command…` (MODE plain, thread or address) runs a test command with a folder of its
# own in crash_reports. Under a sanitizer (its options, and COURIER_SANITIZER, set here for both scripts) every
# instrumented process writes what it has to say to report.<pid> there (`log_path`; the test process too, instead of
# its standard error), and Swift's traps (`fatalError`, a failed precondition: SIGILL on x86_64) and `abort` are the
# sanitizer's to report, which by default ignores those signals while the backtracer is off. Without one, Swift's
# backtracer writes a crashing process's backtrace to a file of its own there (`output-to`). Then it shows them
# (show_crash_reports) and fails when the command failed or a report says something went wrong. The folder is in /tmp,
# not TMPDIR: its path goes into option strings that commas, colons and spaces would split.
#
# `show_crash_reports` prints every file of crash_reports, removes the folder, and fails when one is a backtrace or
# holds a sanitizer's report (every report ends with a SUMMARY line; a warning that reports nothing, such as ASan's
# about a stack switch, is shown but does not fail). No test expects a crash. A script's EXIT trap calls it too, so
# that an interrupted run still shows what its folder holds.
crash_reports=""
run_keeping_crash_reports() {
    local mode="$1" status=0
    shift
    crash_reports="$(mktemp -d /tmp/courier-crashes.XXXXXX)" || return 1
    local sanitizer_options="handle_sigill=1:handle_abort=1:log_path=$crash_reports/report"
    case "$mode" in
        plain)
            SWIFT_BACKTRACE="enable=yes,interactive=no,output-to=$crash_reports" "$@" || status=$? ;;
        thread)
            # halt_on_error: a race fails the run instead of scrolling by.
            COURIER_SANITIZER=thread SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}" \
                TSAN_OPTIONS="halt_on_error=1:$sanitizer_options ${TSAN_OPTIONS:-}" "$@" || status=$? ;;
        address)
            # Leak detection on; only the named third-party leaks of lsan-suppressions.txt are forgiven.
            COURIER_SANITIZER=address SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}" \
                ASAN_OPTIONS="detect_leaks=1:$sanitizer_options:${ASAN_OPTIONS:-}" \
                LSAN_OPTIONS="suppressions=$COURIER_ROOT/Scripts/lib/lsan-suppressions.txt:print_suppressions=0:${LSAN_OPTIONS:-}" \
                "$@" || status=$? ;;
        *) echo "run_keeping_crash_reports: no mode $mode" >&2; status=2 ;;
    esac
    show_crash_reports || status=1
    return "$status"
}
show_crash_reports() {
    [ -n "$crash_reports" ] || return 0
    local file errors=0
    for file in "$crash_reports"/*; do
        [ -e "$file" ] || continue
        case "$(basename "$file")" in
            report.*)
                printf '\n--- what the sanitizer wrote in process %s ---\n' "${file##*.}" >&2
                if grep -qE 'ERROR: [A-Za-z]+Sanitizer|^SUMMARY: [A-Za-z]+Sanitizer' "$file"; then errors=1; fi ;;
            *)
                printf '\n--- a crash: %s ---\n' "$(basename "$file")" >&2
                errors=1 ;;
        esac
        cat "$file" >&2
    done
    rm -rf "$crash_reports"
    crash_reports=""
    if [ "$errors" = 1 ]; then echo "error: a process crashed or a sanitizer reported a problem (above)" >&2; return 1; fi
    return 0
}
