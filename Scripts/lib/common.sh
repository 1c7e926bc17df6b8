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
