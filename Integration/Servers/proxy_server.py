#!/usr/bin/env python3
"""Courier's test forward proxy: a tiny HTTP/1.1 forward proxy (stdlib only), for http:// targets and for
CONNECT tunnels.

A client configured with this proxy sends absolute-form requests (`GET http://127.0.0.1:18080/get HTTP/1.1`);
the proxy forwards each to its target over a new connection and relays the answer, with
`Via: 1.1 courier-test-proxy` added to both the forwarded request and the response, so a test can tell from
either side that the request went through it. Bodies stream both ways (Content-Length or chunked).

- Targets must be http://127.0.0.1:PORT/... or http://localhost:PORT/...; any other host gets a 403 and is
  never connected to. A target that cannot be reached gets a 502.
- CONNECT (https:// targets) wants the Basic credentials USER:proxy-secret: without them, 407 Proxy
  Authentication Required with `Proxy-Authenticate: Basic realm="courier-test-proxy"`. The user name says what
  the proxy does (Integration/Servers/README.md has the table):
  - `courier`, or any name starting `tunnel-`: a tunnel to 127.0.0.1 or localhost (any other host: 403, never
    connected to; a port nobody listens on: 502). Bytes are copied both ways as they come, and an end is passed
    on as it came: a FIN as a FIN (half-closed), an RST as an RST, so a TLS connection ends through the tunnel
    as it ended at the server;
  - `refuse`: 405, as a proxy that makes no tunnels;
  - `intercept`: 200, then the proxy answers the TLS handshake itself with `interceptor-chain.pem`, a
    certificate for localhost and 127.0.0.1 under the clients' trusted intermediate but with a key of its own
    (what a proxy holding a trusted CA forges), and any request inside with 200 `intercepted`;
  - `intercept-untrusted`: the same with `untrusted-interceptor-chain.pem`, under a CA the clients do not trust;
  - `stall-before-answer`: the CONNECT is never answered (the connection is held 120 s);
  - `stall-after-answer`: 200, then nothing (held 120 s);
  - `close-after-answer`: 200, then the connection is closed;
  - `endless-answer`: a 200 whose head never ends (header fields at full speed, up to 1 GB).
- `GET /connects?user=NAME` (origin-form) answers JSON: how many CONNECTs that user sent (`count`), their
  targets, and the header fields of the last one (`lastHeaders`), so a test can see what reached the proxy.
- An origin-form request to the proxy itself (`GET /health`) gets 200 "ok\\n": the readiness probe.
- Client connections are kept alive between requests; hop-by-hop headers are not forwarded.
- With --tls-port, the same proxy also listens there behind TLS (an HTTPS proxy: `https://127.0.0.1:PORT`), with
  the test chain `chain.pem`, ALPN http/1.1 only; a tunnel inside it carries the client's TLS to the origin inside
  the proxy's. The `intercept` users work on both ports: on this one the forged TLS session runs inside the
  proxy's own.

Usage: proxy_server.py [--host 127.0.0.1] --port PORT --certs DIR [--tls-port PORT] [--pid-file FILE]
DIR holds gen-certs.sh's files. It listens on 127.0.0.1 only (any other --host is refused) and exits on SIGTERM
or SIGINT.
"""

import base64
import binascii
import http.client
import json
import os
import socket
import ssl
import threading
import loopback_server
from urllib.parse import parse_qs, urlsplit

VIA = "1.1 courier-test-proxy"
PASSWORD = "proxy-secret"
INTERCEPTOR_CHAINS = {"intercept": "interceptor", "intercept-untrusted": "untrusted-interceptor"}
HELD_SECONDS = 120
IDLE_TUNNEL_SECONDS = 300
ALLOWED_TARGETS = ("127.0.0.1", "localhost")
HOP_BY_HOP = {
    "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization",
    "te", "trailer", "trailers", "transfer-encoding", "upgrade",
}
CHUNK = 64 * 1024
INTERCEPTED_ANSWER = (b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 12\r\n"
                      b"Connection: close\r\n\r\nintercepted\n")


log = loopback_server.logger("proxy_server")


class ConnectLog:
    """The CONNECTs each proxy user sent: their targets and the header fields of the last one."""

    lock = threading.Lock()
    users = {}

    @classmethod
    def record(cls, user, target, headers):
        with cls.lock:
            entry = cls.users.setdefault(user, {"count": 0, "targets": [], "lastHeaders": {}})
            entry["count"] += 1
            entry["targets"] = (entry["targets"] + [target])[-100:]
            entry["lastHeaders"] = {name: value for name, value in headers.items()}

    @classmethod
    def report(cls, user):
        with cls.lock:
            return json.loads(json.dumps(cls.users.get(user, {"count": 0, "targets": [], "lastHeaders": {}})))


class NestedTLS:
    """A server-side TLS session inside another TLS connection: the `intercept` users' forged session on the TLS
    port, where the client's connection is an SSLSocket already and OpenSSL cannot wrap it a second time. An
    SSLObject works on memory buffers instead, and `pump` carries its records over the outer connection. It has
    the few methods of an SSLSocket that `ProxyHandler.intercept` uses."""

    def __init__(self, outer, context):
        self.outer = outer
        self.incoming = ssl.MemoryBIO()
        self.outgoing = ssl.MemoryBIO()
        self.tls = context.wrap_bio(self.incoming, self.outgoing, server_side=True)

    def do_handshake(self):
        self.pump(self.tls.do_handshake)

    def recv(self, size):
        return self.pump(self.tls.read, size)

    def sendall(self, data):
        self.pump(self.tls.write, data)  # into a memory buffer, so never a partial write

    def unwrap(self):
        """close_notify both ways in the inner session, then in the proxy's own: an orderly end of both."""
        self.pump(self.tls.unwrap)
        self.outer.unwrap()

    def close(self):
        self.outer.close()

    def pump(self, operation, *args):
        """`operation(*args)` of the inner session, fed the client's bytes until it has what it needs. Its
        output goes out after each attempt, failed ones too: an alert OpenSSL wrote must reach the client."""
        while True:
            try:
                return operation(*args)
            except ssl.SSLWantReadError:
                pass
            finally:
                data = self.outgoing.read()
                if data:
                    self.outer.sendall(data)
            self.receive()

    def receive(self):
        """The client's next bytes into the inner session; the end of the outer connection as the inner's EOF. The
        outer socket's timeout bounds the wait."""
        if self.incoming.eof:
            # OpenSSL asked for more after the end: waiting again would read the same end for ever.
            raise ssl.SSLEOFError("the client's connection ended inside the intercepted session")
        data = self.outer.recv(65536)
        if data:
            self.incoming.write(data)
        else:
            self.incoming.write_eof()


def read_intercepted_head(tls):
    """The request head the client sent in an intercepted session (as far as MAX_HEAD), or None when the client
    closed before its end. `tls` is an SSLSocket or a NestedTLS."""
    head = b""
    while b"\r\n\r\n" not in head and len(head) < loopback_server.MAX_HEAD:
        data = tls.recv(4096)
        if not data:
            return None
        head += data
    return head


class ProxyHandler(loopback_server.HTTPRequestHandler):
    server_version = "courier-test-proxy"
    log = staticmethod(log)

    def answer(self, status, text, content_type="text/plain"):
        if status >= 400:
            self.close_connection = True  # the request's body, if any, was not read
        body = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Via", VIA)
        if status == 407:
            self.send_header("Proxy-Authenticate", 'Basic realm="courier-test-proxy"')
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_CONNECT(self):
        self.close_connection = True
        user = self.proxy_user()
        if user is None:
            return self.answer(407, "this proxy wants credentials for a CONNECT\n")
        ConnectLog.record(user, self.path, self.headers)
        if user == "refuse":
            return self.answer(405, "this proxy user makes no tunnels\n")
        host, _, port = self.path.rpartition(":")
        host = host.strip("[]")
        if host not in ALLOWED_TARGETS:
            return self.answer(403, "tunnel to %s refused: this proxy connects to 127.0.0.1 and localhost only\n"
                               % host)
        if not port.isdigit() or not 0 < int(port) < 65536:
            return self.answer(400, "a CONNECT target is host:port\n")
        if user == "stall-before-answer":
            return loopback_server.hold_open(self.connection, HELD_SECONDS)
        if user == "endless-answer":
            return self.endless_answer()
        if user in ("stall-after-answer", "close-after-answer") or user in INTERCEPTOR_CHAINS:
            self.established()
            if user == "stall-after-answer":
                loopback_server.hold_open(self.connection, HELD_SECONDS)
            elif user in INTERCEPTOR_CHAINS:
                self.intercept(INTERCEPTOR_CHAINS[user])
            return
        if user != "courier" and not user.startswith("tunnel-"):
            return self.answer(403, "no such proxy user: %s\n" % user)
        try:
            upstream = socket.create_connection(("127.0.0.1", int(port)), timeout=10)
        except OSError as error:
            return self.answer(502, "tunnel to %s failed: %s\n" % (self.path, error))
        loopback_server.prepare_connection(upstream)
        self.established()
        loopback_server.relay(self.connection, upstream, IDLE_TUNNEL_SECONDS, first=self.read_ahead())

    def proxy_user(self):
        """The user name of the request's Basic credentials when their password is the proxy's, else None."""
        scheme, _, encoded = self.headers.get("Proxy-Authorization", "").partition(" ")
        if scheme.lower() != "basic":
            return None
        try:
            user, _, password = base64.b64decode(encoded, validate=True).decode("utf-8").partition(":")
        except (binascii.Error, UnicodeDecodeError):
            return None
        return user if password == PASSWORD else None

    def established(self):
        self.log_request(200)
        self.wfile.write(b"HTTP/1.1 200 Connection established\r\nVia: " + VIA.encode() + b"\r\n\r\n")
        self.wfile.flush()

    def endless_answer(self):
        """A 200 whose head never ends: header fields at full speed until the client goes, or 1 GB."""
        self.log_request(200)
        line = b"X-Filler: " + b"x" * 1000 + b"\r\n"
        self.connection.settimeout(30)  # a client that stops reading does not hold the thread
        try:
            self.wfile.write(b"HTTP/1.1 200 Connection established\r\n")
            for _ in range(1_000_000):
                self.wfile.write(line)
        except OSError:
            pass

    def read_ahead(self):
        """What the client sent after its CONNECT head that rfile has read already (nothing, from a client that
        waits for the 200, as it should)."""
        self.connection.setblocking(False)
        try:
            return self.rfile.read1(65536) or b""
        except (BlockingIOError, ssl.SSLWantReadError):
            return b""
        finally:
            self.connection.setblocking(True)

    def intercept(self, chain):
        """Answers the client's TLS handshake with `chain` instead of the origin's certificate, then any request
        with 200 `intercepted`: what a client must refuse unless it trusts the forging CA and pins nothing."""
        certs = self.server.certs
        context = loopback_server.tls_context(os.path.join(certs, chain + "-chain.pem"),
                                              os.path.join(certs, chain + ".key"), ["http/1.1"])
        self.connection.settimeout(10)  # each read and write: a silent client does not hold the thread
        try:
            tls = self.forged_session(context)
        except (ssl.SSLError, OSError) as error:
            self.log("%s refused the intercepting certificate: %s" % (self.address_string(), error))
            return
        try:
            if read_intercepted_head(tls) is None:
                return
            tls.sendall(INTERCEPTED_ANSWER)
            tls.unwrap()
        except (ssl.SSLError, OSError):
            pass
        finally:
            loopback_server.close_quietly(tls)

    def forged_session(self, context):
        """The client's TLS session with the proxy posing as the origin, handshake made: on the cleartext port
        over the connection itself; on the TLS port inside the proxy's own session (a NestedTLS), since an
        SSLSocket cannot be wrapped again (Python 3.11 even lets it, and then speaks TLS on the raw socket)."""
        if not isinstance(self.connection, ssl.SSLSocket):
            return context.wrap_socket(self.connection, server_side=True)
        tls = NestedTLS(self.connection, context)
        tls.do_handshake()
        return tls

    def forward(self):
        if self.path.startswith("/"):
            if self.path == "/health":
                return self.answer(200, "ok\n")
            if self.path.startswith("/connects?"):
                users = parse_qs(urlsplit(self.path).query).get("user", [""])
                return self.answer(200, json.dumps(ConnectLog.report(users[0])) + "\n", "application/json")
            return self.answer(400, "a proxy request needs an absolute-form target (http://host:port/path)\n")
        target = urlsplit(self.path)
        if target.scheme != "http" or not target.hostname:
            return self.answer(400, "only http:// targets are proxied\n")
        if target.hostname not in ALLOWED_TARGETS:
            return self.answer(403, "target %s refused: this proxy forwards to 127.0.0.1 and localhost only\n"
                               % target.hostname)
        try:
            port = target.port or 80
        except ValueError:
            return self.answer(400, "bad port\n")
        path = target.path or "/"
        if target.query:
            path += "?" + target.query

        connection_tokens = {token.strip().lower() for token in self.headers.get("Connection", "").split(",")}
        headers = []
        for name, value in self.headers.items():
            lowered = name.lower()
            # Host is rewritten from the target, Content-Length added below, and Expect was answered here
            # (100 Continue) already.
            if lowered in HOP_BY_HOP or lowered in connection_tokens or lowered in ("host", "expect",
                                                                                    "content-length"):
                continue
            headers.append((name, value))
        headers.append(("Host", target.netloc))
        headers.append(("Via", VIA))

        length = self.headers.get("Content-Length")
        chunked = "chunked" in self.headers.get("Transfer-Encoding", "").lower()
        upstream = http.client.HTTPConnection("127.0.0.1" if target.hostname == "localhost" else target.hostname,
                                              port, timeout=300)
        try:
            upstream.putrequest(self.command, path, skip_host=True, skip_accept_encoding=True)
            for name, value in headers:
                upstream.putheader(name, value)
            if length is not None:
                upstream.putheader("Content-Length", length)
            elif chunked:
                upstream.putheader("Transfer-Encoding", "chunked")
            upstream.endheaders()
            if length is not None:
                self.copy_body(int(length), upstream.send)
            elif chunked:
                self.copy_chunked(upstream.send)
            response = upstream.getresponse()
        except (OSError, http.client.HTTPException) as error:
            upstream.close()
            self.close_connection = True
            return self.answer(502, "upstream %s:%d failed: %s\n" % (target.hostname, port, error))

        try:
            self.relay(response)
        finally:
            upstream.close()

    def copy_body(self, remaining, send):
        while remaining > 0:
            chunk = self.rfile.read(min(remaining, CHUNK))
            if not chunk:
                raise OSError("client body ended early")
            send(chunk)
            remaining -= len(chunk)

    def copy_chunked(self, send):
        while True:
            line = self.rfile.readline(1024)
            size = int(line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                    pass  # trailers: dropped
                send(b"0\r\n\r\n")
                return
            data = self.rfile.read(size)
            self.rfile.readline(1024)
            send(b"%x\r\n" % len(data) + data + b"\r\n")

    def relay(self, response):
        no_body = self.command == "HEAD" or response.status in (204, 304) or 100 <= response.status < 200
        connection_tokens = {token.strip().lower()
                             for token in (response.getheader("Connection") or "").split(",")}
        self.log_request(response.status)
        self.send_response_only(response.status, response.reason)
        length = response.getheader("Content-Length")
        for name, value in response.getheaders():
            lowered = name.lower()
            if lowered in HOP_BY_HOP or lowered in connection_tokens:
                continue
            self.send_header(name, value)
        self.send_header("Via", VIA)
        use_chunked = not no_body and length is None
        if use_chunked:
            self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if no_body:
            return
        while True:
            chunk = response.read1(CHUNK) if hasattr(response, "read1") else response.read(CHUNK)
            if not chunk:
                break
            self.wfile.write(b"%x\r\n" % len(chunk) + chunk + b"\r\n" if use_chunked else chunk)
            self.wfile.flush()
        if use_chunked:
            self.wfile.write(b"0\r\n\r\n")
        elif response.length:
            # The target's body ended short of its Content-Length: do not pretend otherwise.
            self.close_connection = True

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = forward


class TLSProxyServer(loopback_server.ThreadingHTTPServer):
    """The proxy behind TLS: each accepted connection is wrapped, and its handshake made on the connection's own
    thread (in `finish_request`), so that a client that stalls in it holds no other."""

    def get_request(self):
        connection, address = self.socket.accept()
        return self.tls.wrap_socket(connection, server_side=True, do_handshake_on_connect=False), address

    def finish_request(self, request, client_address):
        request.settimeout(10)
        try:
            request.do_handshake()
        except (ssl.SSLError, OSError) as error:
            log("%s: TLS handshake with the proxy failed: %s" % (client_address[0], error))
            return
        request.settimeout(None)
        super().finish_request(request, client_address)


def main():
    def more(parser):
        parser.add_argument("--certs", required=True, help="the directory of gen-certs.sh's files (the interceptors' chains)")
        parser.add_argument("--tls-port", type=int, help="also listen here behind TLS (an HTTPS proxy)")

    parsed = loopback_server.arguments("Courier's test forward proxy (see the module docstring).", more)
    server = loopback_server.listen(ProxyHandler, parsed, loopback_server.ThreadingHTTPServer)
    server.certs = parsed.certs
    if parsed.tls_port:
        tls_server = TLSProxyServer(("127.0.0.1", parsed.tls_port), ProxyHandler)
        tls_server.certs = parsed.certs
        tls_server.tls = loopback_server.tls_context(os.path.join(parsed.certs, "chain.pem"),
                                                     os.path.join(parsed.certs, "leaf.key"), ["http/1.1"])
        loopback_server.start_thread(tls_server.serve_forever)
        log("listening behind TLS on 127.0.0.1:%d" % parsed.tls_port)
    loopback_server.serve(server, parsed, log)


if __name__ == "__main__":
    main()
