#!/usr/bin/env python3
"""Courier's test forward proxy: a tiny HTTP/1.1 forward proxy (stdlib only) for plain http:// targets.

A client configured with this proxy sends absolute-form requests (`GET http://127.0.0.1:18080/get HTTP/1.1`);
the proxy forwards each to its target over a new connection and relays the answer, with
`Via: 1.1 courier-test-proxy` added to both the forwarded request and the response, so a test can tell from
either side that the request went through it. Bodies stream both ways (Content-Length or chunked).

- Targets must be http://127.0.0.1:PORT/... or http://localhost:PORT/...; any other host gets a 403 and is
  never connected to. CONNECT (tunnels, https:// targets) is refused: 407 Proxy Authentication Required (with
  `Proxy-Authenticate: Basic realm="courier-test-proxy"`) unless it carries the Basic credentials
  courier:proxy-secret, and then 405, since this proxy makes no tunnels. So a client sees both ways a proxy
  says no to a tunnel, and whether it sent the credentials of its proxy URL.
- An origin-form request to the proxy itself (`GET /health`) gets 200 "ok\\n": the readiness probe.
- A target that cannot be reached gets a 502.
- Client connections are kept alive between requests; hop-by-hop headers are not forwarded.

Usage: proxy_server.py [--host 127.0.0.1] --port PORT [--pid-file FILE]
It listens on 127.0.0.1 only (any other --host is refused) and exits on SIGTERM or SIGINT.
"""

import base64
import http.client
import loopback_server
from urllib.parse import urlsplit

VIA = "1.1 courier-test-proxy"
CREDENTIALS = base64.b64encode(b"courier:proxy-secret").decode()
ALLOWED_TARGETS = ("127.0.0.1", "localhost")
HOP_BY_HOP = {
    "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization",
    "te", "trailer", "trailers", "transfer-encoding", "upgrade",
}
CHUNK = 64 * 1024


log = loopback_server.logger("proxy_server")


class ProxyHandler(loopback_server.HTTPRequestHandler):
    server_version = "courier-test-proxy"
    log = staticmethod(log)

    def answer(self, status, text):
        if status >= 400:
            self.close_connection = True  # the request's body, if any, was not read
        body = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Via", VIA)
        if status == 407:
            self.send_header("Proxy-Authenticate", 'Basic realm="courier-test-proxy"')
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_CONNECT(self):
        self.close_connection = True
        if self.headers.get("Proxy-Authorization", "") != "Basic " + CREDENTIALS:
            return self.answer(407, "this proxy wants credentials for a CONNECT\n")
        self.answer(405, "CONNECT is not supported by this test proxy\n")

    def forward(self):
        if self.path.startswith("/"):
            if self.path == "/health":
                return self.answer(200, "ok\n")
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


def main():
    loopback_server.run("Courier's test forward proxy (see the module docstring).", ProxyHandler, log,
                        loopback_server.ThreadingHTTPServer)


if __name__ == "__main__":
    main()
