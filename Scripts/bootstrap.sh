#!/usr/bin/env bash
# Installs everything Courier's integration tests, demo and benchmarks need on Debian 12: the system
# packages (nginx, the C libraries' -dev packages, openssl, curl, ...) and a Python venv at
# $COURIER_ROOT/.venv with httpbin and gunicorn (Integration/Servers/requirements.txt).
# Safe to re-run, and fast when everything is already there: apt runs only for missing packages, pip only
# when requirements.txt changed since the last successful install. Usage: Scripts/bootstrap.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

APT_PACKAGES=(
    ca-certificates curl openssl iproute2
    nginx
    "${COURIER_LIBRARY_PACKAGES[@]}"
    python3 python3-venv
)

# Debian's nginx package starts its service (listening on every address, port 80) from its postinst
# unless /usr/sbin/policy-rc.d forbids it. Forbid it for the duration of the install when nothing does.
POLICY_RC_D=/usr/sbin/policy-rc.d
temporary_policy=""
remove_temporary_policy() { [ -z "$temporary_policy" ] || rm -f "$temporary_policy"; }
trap remove_temporary_policy EXIT
if [ ! -e "$POLICY_RC_D" ] && [ -w "$(dirname "$POLICY_RC_D")" ]; then
    missing=0
    for package in "${APT_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing=1
    done
    if [ "$missing" -eq 1 ]; then
        printf '#!/bin/sh\n# Temporary, written by Courier'"'"'s Scripts/bootstrap.sh: no service starts.\nexit 101\n' >"$POLICY_RC_D"
        chmod 755 "$POLICY_RC_D"
        temporary_policy="$POLICY_RC_D"
    fi
fi
ensure_apt_packages "${APT_PACKAGES[@]}"
remove_temporary_policy
temporary_policy=""

# The venv is built on Debian's Python (the one python3-venv belongs to), whatever else is on PATH.
VENV="$COURIER_ROOT/.venv"
REQUIREMENTS="$COURIER_ROOT/Integration/Servers/requirements.txt"
STAMP="$VENV/.courier-requirements.sha256"
PYTHON=/usr/bin/python3
[ -x "$PYTHON" ] || die "$PYTHON is missing (apt package python3)"

if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import sys' >/dev/null 2>&1; then
    log "creating the Python venv at $VENV"
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
fi

wanted="$(sha256sum "$REQUIREMENTS" | cut -d' ' -f1)"
if [ "$(cat "$STAMP" 2>/dev/null || true)" != "$wanted" ]; then
    log "installing the test servers' Python packages (Integration/Servers/requirements.txt)"
    rm -f "$STAMP"
    "$VENV/bin/python" -m pip install --disable-pip-version-check --no-input -q -r "$REQUIREMENTS" \
        || die "pip install -r $REQUIREMENTS failed"
    # (httpbin warns on import that flasgger, which it does not need, is missing: keep that quiet.)
    "$VENV/bin/python" -c 'import httpbin, gunicorn' 2>/dev/null ||
        die "httpbin or gunicorn does not import in $VENV: $("$VENV/bin/python" -c 'import httpbin, gunicorn' 2>&1 | tail -n 3)"
    printf '%s\n' "$wanted" >"$STAMP"
fi

log "bootstrap done"
