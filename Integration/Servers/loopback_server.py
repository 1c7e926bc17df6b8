"""What Courier's small test servers share, so that each server file holds only what makes it different:
- starting: the common arguments (127.0.0.1 only), the listener with a thread per connection, the pid file,
  serving until SIGTERM or SIGINT, the log;
- TLS: --cert and --key, and the server context;
- connections: their set-up, and the socket faults several servers make (a reset, a connection held open, a
  listener of a route's own);
- HTTP/1.1 written by hand: the response head, the routing table, reading a request head and its query
  parameters, the usual answers, and the one-request-per-connection handler of the fault and chaos servers."""

import argparse
import http.server
import os
import selectors
import signal
import socket
import socketserver
import ssl
import struct
import sys
import threading
import time
from urllib.parse import parse_qs


# --- starting and serving ---------------------------------------------------------------------------------

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


def logger(name):
    """The `log(message)` of the server `name`: one time-stamped line on stderr, which Scripts/servers.sh sends
    to the server's log file. Flushed at once, so a log read while the server runs is up to date."""

    def log(message):
        sys.stderr.write("%s %s: %s\n" % (time.strftime("%Y-%m-%d %H:%M:%S"), name, message))
        sys.stderr.flush()

    return log


class ServerSettings:
    """What every server's listener needs, whatever protocol it speaks (mixed in before the socketserver class)."""

    allow_reuse_address = True  # servers.sh can restart a server at once, with connections still in TIME_WAIT
    daemon_threads = True  # a connection held open on purpose (a stall, /never) does not keep a stopped server alive
    request_queue_size = 256  # parallel tests connect in bursts: they wait in the queue instead of being refused


class ThreadingServer(ServerSettings, socketserver.ThreadingTCPServer):
    """A TCP listener with a thread per connection, for the servers that write their HTTP by hand (the faults
    are in the bytes)."""


class ThreadingHTTPServer(ServerSettings, http.server.ThreadingHTTPServer):
    """The same for the servers built on http.server's request handler (the proxy, the upload sink)."""


class HTTPRequestHandler(http.server.BaseHTTPRequestHandler):
    """http.server's request handler as the proxy and the upload sink use it: HTTP/1.1, so that a client's
    connection is kept alive between requests; a Server header without Python's version; and its log lines in
    the server's log, through `log` (a subclass sets `log = staticmethod(its log function)`)."""

    protocol_version = "HTTP/1.1"
    sys_version = ""

    def log_message(self, format, *args):
        self.log("%s %s" % (self.address_string(), format % args))


def listen(handler, parsed, server_class=ThreadingServer):
    """`server_class` with `handler` on 127.0.0.1 at --port: never another address, whatever --host said
    (`arguments` accepts only 127.0.0.1 and localhost, which mean the same)."""
    return server_class(("127.0.0.1", parsed.port), handler)


def serve(server, parsed, log):
    """Serves `server` until SIGTERM/SIGINT, keeping `parsed.pid_file` while it runs."""
    if parsed.pid_file:
        with open(parsed.pid_file, "w") as file:
            file.write("%d\n" % os.getpid())

    def stop(signum, frame):
        # shutdown() waits for serve_forever() to return, which runs on this very thread: not from here.
        start_thread(server.shutdown)

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


def run(description, handler, log, server_class=ThreadingServer):
    """The whole main() of a server that needs no set-up of its own: the common arguments, the listener on
    127.0.0.1, serving until SIGTERM or SIGINT."""
    parsed = arguments(description)
    serve(listen(handler, parsed, server_class), parsed, log)


def start_thread(target, *args):
    """Runs `target(*args)` on a daemon thread: one that never keeps a stopping server alive, since what the
    servers run in the background (connections, accept loops) may wait for a client for minutes."""
    threading.Thread(target=target, args=args, daemon=True).start()


# --- TLS --------------------------------------------------------------------------------------------------

def tls_arguments(parser):
    """The --cert and --key arguments of the TLS servers (for `arguments(description, more)`): Scripts/servers.sh
    passes the test chain, chain.pem and leaf.key, made by gen-certs.sh."""
    parser.add_argument("--cert", required=True,
                        help="the certificate chain to serve (PEM, leaf first), e.g. chain.pem")
    parser.add_argument("--key", required=True, help="the leaf's private key (PEM), e.g. leaf.key")


def tls_context(cert, key, protocols, minimum_version=None):
    """A server-side TLS context serving `cert` (a chain, leaf first) with `key`, offering the ALPN
    `protocols` in that order; `minimum_version` (an ssl.TLSVersion) when a server must refuse older ones."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    if minimum_version is not None:
        context.minimum_version = minimum_version
    context.load_cert_chain(cert, key)
    context.set_alpn_protocols(protocols)
    return context


# --- connections and socket faults ------------------------------------------------------------------------

def prepare_connection(sock, timeout=None):
    """Sets an accepted connection up: TCP_NODELAY, because a fault is often a few bytes whose timing matters
    and Nagle's algorithm would hold them until the client's ACK; and a bound of `timeout` seconds on each read
    and write (None: none), so that a client that vanishes does not pin a thread for ever."""
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.settimeout(timeout)


def ephemeral_listener(backlog):
    """A listening socket on 127.0.0.1 at a port the kernel picks, for the listeners a route makes on demand
    and whose port it answers. No SO_REUSEADDR: with it, Linux may pick a port that another such socket holds."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(backlog)
    return listener


def close_with_reset(sock):
    """Closes the connection with a TCP RST instead of a FIN: SO_LINGER on with a linger time of 0 makes
    close() abort it. Call it before socketserver's own shutdown(SHUT_WR), which would send a FIN first."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def close_quietly(sock):
    """Closes a socket whose peer may have broken the connection already: that OSError says nothing new."""
    try:
        sock.close()
    except OSError:
        pass


def hold_open(sock, seconds):
    """Keeps the connection open, reading and dropping whatever comes, until the client closes it or `seconds`
    pass: a server that stalls. Reads wake every second so that the deadline is kept."""
    sock.settimeout(1.0)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if not sock.recv(65536):
                return
        except socket.timeout:
            continue


def relay(client, upstream, idle_seconds=300, first=b""):
    """Copies bytes both ways between two connected sockets (a proxy's tunnel) until both directions have ended or
    nothing moved for `idle_seconds` (reads and writes alike, so a side that stops reading frees the thread too);
    `first` goes to `upstream` before anything else (what the client sent ahead). Each end is passed on as it came:
    a FIN becomes a half-close of the other side, an RST an RST, so that a TLS connection ends through the tunnel
    as it ended at the server. Closes `upstream`, and `client` after an RST; socketserver closes `client`
    otherwise."""
    client.settimeout(idle_seconds)
    upstream.settimeout(idle_seconds)
    try:
        if first:
            upstream.sendall(first)
        # What a TLS client socket decrypted already is invisible to select.
        while getattr(client, "pending", lambda: 0)():
            upstream.sendall(client.recv(65536))
        with selectors.DefaultSelector() as selector:
            selector.register(client, selectors.EVENT_READ, upstream)
            selector.register(upstream, selectors.EVENT_READ, client)
            reading = 2
            while reading:
                events = selector.select(timeout=idle_seconds)
                if not events:
                    return
                for key, _ in events:
                    source, destination = key.fileobj, key.data
                    try:
                        data = source.recv(65536)
                    except ConnectionResetError:
                        close_with_reset(destination)
                        return
                    if data:
                        try:
                            destination.sendall(data)
                            # A TLS socket may hold more decrypted bytes than one recv took, which select cannot see.
                            while getattr(source, "pending", lambda: 0)():
                                destination.sendall(source.recv(65536))
                        except (ConnectionResetError, BrokenPipeError):
                            close_with_reset(source)  # the side that sent the bytes hears of the reset
                            return
                        continue
                    selector.unregister(source)
                    reading -= 1
                    try:
                        # socket.socket's own shutdown: an SSLSocket's would drop its TLS state, and what the
                        # client sends after would be read as raw bytes.
                        socket.socket.shutdown(destination, socket.SHUT_WR)
                    except OSError:
                        pass
    except OSError:
        pass  # a timeout, or a socket already broken: the tunnel is over
    finally:
        close_quietly(upstream)


# --- HTTP/1.1 written by hand -----------------------------------------------------------------------------

MAX_HEAD = 64 * 1024


class BadRequest(Exception):
    """A request (or a query parameter) a server refuses; its message becomes the body of the 400."""


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


def read_request_head(sock):
    """(method, target, headers, bytes read past the head) of one request, or None when the client closed
    before a whole head came. It reads in large pieces, so the start of a body may come with the head; nothing
    more of the body is read, which lets a route leave it unread on purpose. A head of more than MAX_HEAD bytes,
    or a malformed one, raises BadRequest."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return None
        data += chunk
        if len(data) > MAX_HEAD:
            raise BadRequest("request head too large")
    head, _, rest = data.partition(b"\r\n\r\n")
    method, target, _version, headers = parse_request_head(head, BadRequest)
    return method, target, headers, rest


def discard_body(sock, remaining):
    """Reads and drops `remaining` bytes of a request body (or fewer, when the client closes first). A
    connection closed with unread bytes makes the kernel send an RST, which could overtake the answer: a route
    whose fault is not that must have read the whole request first."""
    while remaining > 0:
        chunk = sock.recv(min(remaining, 65536))
        if not chunk:
            return
        remaining -= len(chunk)


class Query:
    """A request's query parameters, checked as a route reads them: a missing one takes its default, a bad one
    raises BadRequest naming it, so a test with a typo gets a 400 that says why instead of a fault it did not
    ask for."""

    def __init__(self, text):
        self.values = parse_qs(text)

    def integer(self, name, default, low, high):
        values = self.values.get(name)
        if not values:
            return default
        try:
            value = int(values[0])
        except ValueError:
            raise BadRequest("%s must be an integer" % name)
        if not low <= value <= high:
            raise BadRequest("%s must be in %d...%d" % (name, low, high))
        return value

    def choice(self, name, default, allowed):
        value = (self.values.get(name) or [default])[0]
        if value not in allowed:
            raise BadRequest("%s must be one of %s" % (name, ", ".join(allowed)))
        return value


def plain_response(status, body, content_type="text/plain"):
    """A whole answer of one request per connection: head (with Content-Length and `Connection: close`) and
    body, as one write, so that the client gets it before the connection closes."""
    return head_bytes(status, [
        ("Content-Type", content_type),
        ("Content-Length", str(len(body))),
        ("Connection", "close"),
    ]) + body


def unknown_route_text(routes, kind="route"):
    """The body of a 404: every route the server has, so that a test that asked for the wrong one is told the
    right names."""
    return ("no such %s; routes:\n" % kind + "".join("%s\n" % path for path in sorted(routes))).encode()


class OneRequestHandler(socketserver.BaseRequestHandler):
    """A connection that serves one request, then closes: the fault and chaos servers' way, since most of their
    answers break the connection anyway. It reads the request head and calls `answer(sock, method, target,
    headers, rest)` (rest: the body bytes read with the head). A BadRequest from either gets a 400; a client
    that goes away mid-answer is let go."""

    timeout = None  # seconds that one read or write may take (None: no bound)

    def handle(self):
        sock = self.request
        prepare_connection(sock, self.timeout)
        try:
            request = read_request_head(sock)
            if request is None:
                return
            self.answer(sock, *request)
        except BadRequest as error:
            try:
                sock.sendall(plain_response("400 Bad Request", ("%s\n" % error).encode()))
            except OSError:
                pass
        except OSError:
            pass  # The client went away mid-fault: that is its right.

    def answer(self, sock, method, target, headers, rest):
        raise NotImplementedError
