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
from loopback_server import head_bytes
import socket
import socketserver
import struct
import time
from urllib.parse import parse_qs, urlsplit

MAX_HEAD = 64 * 1024


log = loopback_server.logger("fault_server")


class BadRequest(Exception):
    pass


def read_request(sock):
    """Reads one request head (and a Content-Length body, discarded). Returns (method, target, headers)
    or None when the client closed before sending a full head."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return None
        data += chunk
        if len(data) > MAX_HEAD:
            raise BadRequest("request head too large")
    head, _, rest = data.partition(b"\r\n\r\n")
    method, target, _version, headers = loopback_server.parse_request_head(head, BadRequest)
    remaining = int(headers.get("content-length", "0") or "0") - len(rest)
    while remaining > 0:
        chunk = sock.recv(min(remaining, 65536))
        if not chunk:
            break
        remaining -= len(chunk)
    return method, target, headers


def query_int(query, name, default, low, high):
    values = query.get(name)
    if not values:
        return default
    try:
        value = int(values[0])
    except ValueError:
        raise BadRequest("%s must be an integer" % name)
    if not low <= value <= high:
        raise BadRequest("%s must be in %d...%d" % (name, low, high))
    return value


def simple_response(status, body, content_type="text/plain"):
    return head_bytes(status, [
        ("Content-Type", content_type),
        ("Content-Length", str(len(body))),
        ("Connection", "close"),
    ]) + body


ROUTES, route = loopback_server.route_table()


@route("/health")
def health(sock, query):
    sock.sendall(simple_response("200 OK", b"ok\n"))


@route("/truncated")
def truncated(sock, query):
    length = query_int(query, "length", 1000, 1, 1 << 30)
    sent = query_int(query, "sent", 100, 0, length - 1)
    sock.sendall(head_bytes("200 OK", [
        ("Content-Type", "application/octet-stream"),
        ("Content-Length", str(length)),
        ("Connection", "close"),
    ]) + b"x" * sent)
    # Returning closes the socket normally (FIN) with the body short by length - sent bytes.


@route("/reset")
def reset(sock, query):
    # l_onoff 1, l_linger 0: close() aborts the connection with an RST. Close here, before socketserver's
    # shutdown(SHUT_WR) would send a FIN first.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


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
    kib = query_int(query, "kib", 200, 1, 64 * 1024)
    body = b"ok\n"
    sock.sendall(head_bytes("200 OK", [
        ("Content-Type", "text/plain"),
        ("X-Huge", "h" * (kib * 1024)),
        ("Content-Length", str(len(body))),
        ("Connection", "close"),
    ]) + body)


@route("/drip")
def drip(sock, query):
    count = query_int(query, "bytes", 10, 0, 1 << 30)
    interval = query_int(query, "interval_ms", 100, 0, 3_600_000) / 1000.0
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
    delay = query_int(query, "delay_ms", 2000, 0, 3_600_000) / 1000.0
    time.sleep(delay)
    sock.sendall(simple_response("200 OK", b"ok\n"))


class Blackhole:
    """A listener nobody accepts from, its queue filled by our own connections: the kernel then
    drops every further SYN, so a client's connect hangs until its own timeout."""

    def __init__(self):
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(0)
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
    sock.sendall(simple_response("200 OK", b"%d\n" % BLACKHOLE.port))


ZSTD_DOCUMENT = b'{"compressed":"zstd","filler":"' + b"courier " * 512 + b'"}'


@route("/zstd")
def zstd(sock, query):
    try:
        import zstandard
    except ImportError:
        sock.sendall(simple_response("501 Not Implemented", b"zstandard is not installed\n"))
        return
    body = zstandard.ZstdCompressor().compress(ZSTD_DOCUMENT)
    sock.sendall(head_bytes("200 OK", [
        ("Content-Type", "application/json"),
        ("Content-Encoding", "zstd"),
        ("Content-Length", str(len(body))),
        ("Connection", "close"),
    ]) + body)


def not_found(sock, query):
    listing = "".join("%s\n" % path for path in sorted(ROUTES)).encode()
    sock.sendall(simple_response("404 Not Found", b"no such fault; routes:\n" + listing))


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        sock = self.request
        loopback_server.prepare_connection(sock)
        try:
            request = read_request(sock)
            if request is None:
                return
            method, target, _headers = request
            parts = urlsplit(target)
            query = parse_qs(parts.query)
            ROUTES.get(parts.path, not_found)(sock, query)
        except BadRequest as error:
            try:
                sock.sendall(simple_response("400 Bad Request", ("%s\n" % error).encode()))
            except OSError:
                pass
        except OSError:
            pass  # The client went away mid-fault: that is its right.


def main():
    parsed = loopback_server.arguments("Courier's fault server (see the module docstring).")
    loopback_server.serve(loopback_server.listen(Handler, parsed), parsed, log)


if __name__ == "__main__":
    main()
