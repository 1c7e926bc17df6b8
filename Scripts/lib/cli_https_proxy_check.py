#!/usr/bin/env python3
"""Checks `courier` behind an HTTPS proxy, where every https call it makes carries a trust evaluator (its
SecurityPolicy, pins or not): the call goes through the proxy's tunnel, the proxy's own certificate is checked against
`--proxy-cacert`, and a pin is checked against the server, not the proxy. `courier --curl` prints the same command for
curl, which is run as the oracle and must agree.

Runs the built binary against the test servers (Scripts/servers.sh; their addresses from the environment that
`Scripts/servers.sh env` prints): the test proxy behind TLS, nginx over TLS with the first chain, nginx with the
unrelated chain (other.test):

    eval "$(Scripts/servers.sh env)"; python3 Scripts/lib/cli_https_proxy_check.py .build/debug/courier

Exits 0 when all hold; prints each failure otherwise. Needs only Python 3's standard library and curl.
"""
import base64
import hashlib
import json
import os
import subprocess
import sys
import urllib.request


def main():
    courier = sys.argv[1]
    env = os.environ
    ca = env["COURIER_CA_FILE"]
    certs = env["COURIER_CERTS_DIR"]
    tls, other = env["COURIER_TLS_URL"], env["COURIER_TLS_OTHER_URL"]
    user = "tunnel-cli-%d" % os.getpid()
    proxy = env["COURIER_TLS_PROXY_URL"].replace("https://", "https://%s:proxy-secret@" % user)
    failures = []

    def run(arguments):
        result = subprocess.run([courier, *arguments], capture_output=True, timeout=60)
        return result.returncode, result.stdout.decode(errors="replace"), result.stderr.decode(errors="replace").strip()

    def curl_agrees(arguments, expected_success):
        """The line `courier --curl` prints for `arguments`, run by sh: succeeds exactly when courier did."""
        status, line, error = run(["--curl", *arguments])
        if status != 0 or "--proxy-cacert" not in line:
            failures.append(f"--curl {arguments}: exit {status}, no --proxy-cacert in {line!r} {error!r}")
            return
        result = subprocess.run(["sh", "-c", line.strip() + " --silent --show-error --max-time 10 -o /dev/null"],
                                capture_output=True, timeout=60)
        if (result.returncode == 0) != expected_success:
            failures.append(f"curl disagrees for {arguments}: curl exit {result.returncode} "
                            f"({result.stderr.decode(errors='replace').strip()!r}), courier {'passed' if expected_success else 'failed'}")

    def pin(name):
        """The sha256/ pin of a fixture certificate's public key, which `--curl` passes on as curl's --pinnedpubkey."""
        key = subprocess.run(["openssl", "x509", "-pubkey", "-noout", "-in", f"{certs}/{name}.pem"], capture_output=True, check=True).stdout
        der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=key, capture_output=True, check=True).stdout
        return "sha256/" + base64.b64encode(hashlib.sha256(der).digest()).decode()

    base = ["--proxy", proxy, "--proxy-cacert", ca, "--cacert", ca]
    cases = [
        # (what, arguments, passes)
        ("through the tunnel", base + [tls + "/json"], True),
        ("the server's key pinned", base + ["--pin-key", pin("leaf"), tls + "/json"], True),
        # The proxy presents the first chain too: a pin of the unrelated chain's key on the first chain's server fails,
        # and one of the first chain's key on the unrelated server fails (the server is judged, not the proxy).
        ("another chain's key pinned", base + ["--pin-key", pin("leaf2"), tls + "/json"], False),
        ("the proxy's key pinned for the other server", ["--proxy", proxy, "--proxy-cacert", ca, "-k",
                                                         "--pin-key", pin("leaf"), other + "/json"], False),
        ("the other server's own key pinned", ["--proxy", proxy, "--proxy-cacert", ca, "-k",
                                               "--pin-key", pin("leaf2"), other + "/json"], True),
    ]
    for what, arguments, passes in cases:
        status, output, error = run(arguments)
        if (status == 0) != passes:
            failures.append(f"{what}: expected {'success' if passes else 'a failure'}, got exit {status}: {output[:200]!r} {error!r}")
        elif passes and "Courier benchmark fixture" not in output:
            failures.append(f"{what}: not nginx's JSON: {output[:200]!r}")
        curl_agrees(arguments, passes)

    # Without --proxy-cacert the proxy's certificate is checked against the system store, which lacks the test CA.
    status, output, error = run(["--proxy", proxy, "--cacert", ca, tls + "/json"])
    if status == 0:
        failures.append(f"without --proxy-cacert the proxy's certificate passed: {output[:200]!r}")
    status, output, error = run(["--proxy", proxy, "--proxy-cacert", "/nonexistent/ca.pem", tls + "/json"])
    if status == 0 or "--proxy-cacert" not in error:
        failures.append(f"an unreadable --proxy-cacert: exit {status}: {error!r}")

    # Every passing call went through the proxy's tunnel: the proxy counted the user's CONNECTs.
    with urllib.request.urlopen(env["COURIER_PROXY_URL"] + "/connects?user=" + user, timeout=10) as answer:
        count = json.load(answer)["count"]
    if count < 3:
        failures.append(f"the proxy saw {count} CONNECTs from {user}, expected at least 3")

    for failure in failures:
        print("FAIL:", failure)
    if failures:
        sys.exit(1)
    print(f"courier behind an HTTPS proxy: {len(cases) + 2} cases hold, curl agrees, {count} tunnels")


if __name__ == "__main__":
    main()
