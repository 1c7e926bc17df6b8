#!/usr/bin/env python3
"""Courier's fault server: an HTTP/1.1 server (stdlib only) that misbehaves on purpose, one route per fault.

Every route reads the whole request head first (and a request body announced by Content-Length), so a fault
always comes after the client has sent its request. Unless a route says otherwise, each connection serves one
request and is closed (`Connection: close`).

Routes
  /health                   200 "ok\\n": the readiness probe of Scripts/servers.sh.
  /truncated                Announces `Content-Length: 1000`, sends 100 bytes, closes the connection
                            (a FIN, not a reset). Optional `?length=N&sent=M` (defaults 1000 and 100).
  /reset                    Reads the request, then closes with SO_LINGER 0, so the kernel sends a TCP RST.
                            Nothing of a response is sent.
  /never                    Reads the request and never answers; keeps the socket open until the client
                            closes it (the server then closes its side too).
  /malformed-status         Answers `HTTP/1.1 abc\\r\\n\\r\\n` (no status code) and closes.
  /huge-header              A 200 whose head holds one header (`X-Huge`) of about 200 KiB, then a small body
                            (`ok\\n`, with Content-Length). Optional `?kib=N` for another size (default 200).
  /drip?bytes=N&interval_ms=M
                            A 200 with `Content-Length: N`, then one byte (`*`) every M ms (the first one M ms
                            after the head). Defaults: bytes=10, interval_ms=100.
  /slow-headers?delay_ms=M  Waits M ms, then sends a normal 200 with a small body (`ok\\n`). Default 2000.
  /blackhole-port           The port (as text) of a listener on 127.0.0.1 whose accept queue is kept full, so
                            a connect to it never completes: for connect-timeout tests.
  /zstd                     A 200 whose JSON body is sent with `Content-Encoding: zstd` (httpbin has gzip,
                            deflate and brotli routes but none for zstd); 501 if `zstandard` is missing.
  anything else             404 with a plain-text list of the routes.

Usage: fault_server.py [--host 127.0.0.1] --port PORT [--pid-file FILE]
It listens on 127.0.0.1 only (any other --host is refused) and exits on SIGTERM or SIGINT.
"""

import loopback_server
from loopback_server import head_bytes, plain_response
import socket
import time
from urllib.parse import urlsplit


log = loopback_server.logger("fault_server")


ROUTES, route = loopback_server.route_table()


@route("/health")
def health(sock, query):
    sock.sendall(plain_response("200 OK", b"ok\n"))


@route("/truncated")
def truncated(sock, query):
    length = query.integer("length", 1000, 1, 1 << 30)
    sent = query.integer("sent", 100, 0, length - 1)
    sock.sendall(head_bytes("200 OK", [
        ("Content-Type", "application/octet-stream"),
        ("Content-Length", str(length)),
        ("Connection", "close"),
    ]) + b"x" * sent)
    # Returning closes the socket normally (FIN) with the body short by length - sent bytes.


@route("/reset")
def reset(sock, query):
    loopback_server.close_with_reset(sock)


@route("/never")
def never(sock, query):
    while True:
        try:
            if not sock.recv(65536):
                return
        except OSError:
            return


@route("/malformed-status")
def malformed_status(sock, query):
    sock.sendall(b"HTTP/1.1 abc\r\n\r\n")


@route("/huge-header")
def huge_header(sock, query):
    kib = query.integer("kib", 200, 1, 64 * 1024)
    body = b"ok\n"
    sock.sendall(head_bytes("200 OK", [
        ("Content-Type", "text/plain"),
        ("X-Huge", "h" * (kib * 1024)),
        ("Content-Length", str(len(body))),
        ("Connection", "close"),
    ]) + body)


@route("/drip")
def drip(sock, query):
    count = query.integer("bytes", 10, 0, 1 << 30)
    interval = query.integer("interval_ms", 100, 0, 3_600_000) / 1000.0
    sock.sendall(head_bytes("200 OK", [
        ("Content-Type", "application/octet-stream"),
        ("Content-Length", str(count)),
        ("Connection", "close"),
    ]))
    for _ in range(count):
        time.sleep(interval)
        sock.sendall(b"*")


@route("/slow-headers")
def slow_headers(sock, query):
    delay = query.integer("delay_ms", 2000, 0, 3_600_000) / 1000.0
    time.sleep(delay)
    sock.sendall(plain_response("200 OK", b"ok\n"))


class Blackhole:
    """A listener nobody accepts from, its queue filled by our own connections: the kernel then
    drops every further SYN, so a client's connect hangs until its own timeout."""

    def __init__(self):
        self.listener = loopback_server.ephemeral_listener(0)
        self.port = self.listener.getsockname()[1]
        self.fillers = []
        for _ in range(4):
            filler = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            filler.setblocking(False)
            try:
                filler.connect(("127.0.0.1", self.port))
            except (BlockingIOError, OSError):
                pass
            self.fillers.append(filler)


BLACKHOLE = None


@route("/blackhole-port")
def blackhole_port(sock, query):
    global BLACKHOLE
    if BLACKHOLE is None:
        BLACKHOLE = Blackhole()
    sock.sendall(plain_response("200 OK", b"%d\n" % BLACKHOLE.port))


ZSTD_DOCUMENT = b'{"compressed":"zstd","filler":"' + b"courier " * 512 + b'"}'


@route("/zstd")
def zstd(sock, query):
    try:
        import zstandard
    except ImportError:
        sock.sendall(plain_response("501 Not Implemented", b"zstandard is not installed\n"))
        return
    body = zstandard.ZstdCompressor().compress(ZSTD_DOCUMENT)
    sock.sendall(head_bytes("200 OK", [
        ("Content-Type", "application/json"),
        ("Content-Encoding", "zstd"),
        ("Content-Length", str(len(body))),
        ("Connection", "close"),
    ]) + body)


def not_found(sock, query):
    sock.sendall(plain_response("404 Not Found", loopback_server.unknown_route_text(ROUTES, "fault")))


class Handler(loopback_server.OneRequestHandler):
    def answer(self, sock, method, target, headers, rest):
        # Every fault comes after the whole request. A Content-Length that is not a number raises ValueError,
        # which drops the connection without an answer (socketserver logs it): kept as it always was.
        loopback_server.discard_body(sock, int(headers.get("content-length", "0") or "0") - len(rest))
        parts = urlsplit(target)
        ROUTES.get(parts.path, not_found)(sock, loopback_server.Query(parts.query))


def main():
    loopback_server.run("Courier's fault server (see the module docstring).", Handler, log)


if __name__ == "__main__":
    main()
