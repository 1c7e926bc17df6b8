#!/usr/bin/env python3
"""Checks that `courier` ignores the proxy environment variables (http_proxy, ALL_PROXY and the rest) and goes
through a proxy only when one is configured (`--proxy`), which is what CourierCurl promises: a transport without
`Configuration.proxy` never sends through a proxy that the environment names.

Runs the built binary against two small servers on 127.0.0.1 (random ports, nothing else is contacted): an origin
that answers `origin`, and a stand-in forward proxy that answers `proxy` to whatever it is asked:

    python3 Scripts/lib/cli_env_proxy_check.py .build/debug/courier

With every proxy variable naming the stand-in, a request must reach the origin; with `--proxy`, it must reach the
stand-in (the control that shows the stand-in would have been noticed), whatever `no_proxy` says; an https URL through the stand-in, which
makes no tunnels, must fail as the proxy's refusal. Exits 0 when all hold; prints each failure otherwise. Needs only Python 3's standard library.
"""
import http.server
import os
import subprocess
import sys
import threading


def serve(answer):
    """A server on a random port that answers every GET with `answer`; returns its port."""

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            body = answer.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server.server_address[1]


def main():
    courier = sys.argv[1]
    origin = serve("origin")
    proxy_url = f"http://127.0.0.1:{serve('proxy')}"
    url = f"http://127.0.0.1:{origin}/resource"
    proxy_variables = ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]
    failures = []

    def run(arguments, environment):
        result = subprocess.run([courier, *arguments], env=environment, capture_output=True, timeout=60)
        return result.returncode, result.stdout.decode(errors="replace").strip(), result.stderr.decode(errors="replace").strip()

    clean = {k: v for k, v in os.environ.items() if k.lower() not in ("http_proxy", "https_proxy", "all_proxy", "no_proxy")}
    with_proxies = dict(clean, **{name: proxy_url for name in proxy_variables})

    status, output, error = run([url], with_proxies)
    if (status, output) != (0, "origin"):
        failures.append(f"with the proxy variables set, expected the origin's answer, got exit {status}: {output!r} {error!r}")

    status, output, error = run(["--proxy", proxy_url, url], clean)
    if (status, output) != (0, "proxy"):
        failures.append(f"with --proxy, expected the proxy's answer, got exit {status}: {output!r} {error!r}")

    # `no_proxy` does not send a request around the proxy the command line chose: libcurl reads it whenever a
    # proxy is set and its own exclusion list is not, so the transport always sets one.
    for value in ("127.0.0.1", "*"):
        status, output, error = run(["--proxy", proxy_url, url], dict(clean, no_proxy=value, NO_PROXY=value))
        if (status, output) != (0, "proxy"):
            failures.append(f"with --proxy and no_proxy={value}, expected the proxy's answer, got exit {status}: {output!r} {error!r}")

    # The stand-in makes no tunnels (Python's server answers CONNECT 501): an https URL through it is the proxy's
    # refusal, said as such, not a lost connection.
    status, output, error = run(["--proxy", proxy_url, f"https://127.0.0.1:{origin}/resource"], clean)
    if status != 1 or "proxy refused the tunnel" not in error or "response 501" not in error:
        failures.append(f"with --proxy and an https URL, expected the proxy's refusal (exit 1), got exit {status}: {output!r} {error!r}")

    for failure in failures:
        print(f"cli_env_proxy_check: {failure}", file=sys.stderr)
    if not failures:
        print("cli_env_proxy_check: proxy variables ignored, --proxy honoured whatever no_proxy says, a refused tunnel reported")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
