"""What Courier's small test servers share: parse the common arguments (127.0.0.1 only), write a
pid file, serve until SIGTERM or SIGINT, and clean up."""

import argparse
import os
import signal
import threading


def arguments(description, more=None):
    """The --host (127.0.0.1 or localhost only), --port and --pid-file arguments; `more(parser)` adds a
    server's own."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pid-file")
    if more:
        more(parser)
    parsed = parser.parse_args()
    if parsed.host not in ("127.0.0.1", "localhost"):
        parser.error("listens on 127.0.0.1 only")
    return parsed


def serve(server, parsed, log):
    """Serves `server` until SIGTERM/SIGINT, keeping `parsed.pid_file` while it runs."""
    if parsed.pid_file:
        with open(parsed.pid_file, "w") as file:
            file.write("%d\n" % os.getpid())

    def stop(signum, frame):
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    log("listening on 127.0.0.1:%d" % parsed.port)
    server.serve_forever(poll_interval=0.2)
    server.server_close()
    if parsed.pid_file:
        try:
            os.unlink(parsed.pid_file)
        except OSError:
            pass
    log("stopped")


def head_bytes(status, headers):
    """An HTTP/1.1 response head: the status line (e.g. "200 OK"), the (name, value) pairs, the blank line."""
    lines = ["HTTP/1.1 %s" % status] + ["%s: %s" % pair for pair in headers] + ["", ""]
    return "\r\n".join(lines).encode("latin-1")


def route_table():
    """A routing table and the decorator that fills it: `ROUTES, route = route_table()`, then `@route("/x")`."""
    routes = {}

    def route(path):
        def register(function):
            routes[path] = function
            return function
        return register

    return routes, route


def parse_request_head(head, error):
    """Splits a request head (the bytes before the blank line) into (method, target, version, headers), the
    header names lower-cased. A malformed line raises `error(message)`."""
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/"):
        raise error("bad request line")
    method, target, version = parts
    headers = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if not sep:
            raise error("bad header line")
        headers[name.strip().lower()] = value.strip()
    return method, target, version, headers
