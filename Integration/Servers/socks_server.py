#!/usr/bin/env python3
"""Courier's test SOCKS5 proxy (RFC 1928, stdlib only): the proxy an `ssh -D` or a company's SOCKS gateway is,
for clients configured with `socks5://` (the client resolves the name) or `socks5h://` (the proxy does).

- A client may offer no authentication (method 0) or user name and password (method 2, RFC 1929). Offered both,
  the proxy takes the password. A password other than `proxy-secret` fails the authentication (status 1).
- The user name says what the proxy does with a CONNECT (no authentication counts as `courier`):
  - `courier`, or any name starting `tunnel-`: connects to 127.0.0.1 when asked for 127.0.0.1, ::1, localhost
    or `socks-only.test` (a name only this proxy resolves, so that a call that reached it shows it went through
    the proxy) and copies bytes both ways, each end passed on as it came (a FIN as a half-close, an RST as an RST);
    any other host: reply 2, not allowed, never connected to; a port nobody listens on: reply 5, refused;
  - `reply-N` (N from 1 to 8): answers the CONNECT with reply code N (1 general failure, 2 not allowed,
    3 network unreachable, 4 host unreachable, 5 connection refused, 6 TTL expired, 7 command not supported,
    8 address type not supported), as a proxy that cannot or will not reach the server;
  - `stall-after-auth`: never answers the CONNECT (the connection is held 120 s);
  - `close-after-auth`: closes the connection instead of answering the CONNECT;
  - `bad-version`: answers the CONNECT with version 4 instead of 5.
- Commands other than CONNECT get reply 7.
- An HTTP request on the same port (its first byte is not SOCKS's 5) is answered too, for tests and the
  readiness probe: `GET /health` 200 `ok`; `GET /connects?user=NAME` JSON `{"count": N}`, the CONNECTs that user
  made.

Usage: socks_server.py [--host 127.0.0.1] --port PORT [--pid-file FILE]
It listens on 127.0.0.1 only (any other --host is refused) and exits on SIGTERM or SIGINT.
"""

import json
import socket
import socketserver
import struct
import threading
import loopback_server
from urllib.parse import parse_qs, urlsplit

PASSWORD = b"proxy-secret"
ALLOWED_TARGETS = ("127.0.0.1", "::1", "localhost", "socks-only.test")
HELD_SECONDS = 120
IDLE_TUNNEL_SECONDS = 300

log = loopback_server.logger("socks_server")


class ConnectLog:
    """How many CONNECTs each user made."""

    lock = threading.Lock()
    counts = {}

    @classmethod
    def record(cls, user):
        with cls.lock:
            cls.counts[user] = cls.counts.get(user, 0) + 1

    @classmethod
    def count(cls, user):
        with cls.lock:
            return cls.counts.get(user, 0)


class ProtocolError(Exception):
    """The client broke SOCKS5: the connection is closed."""


class SOCKSHandler(socketserver.BaseRequestHandler):
    def handle(self):
        connection = self.request
        loopback_server.prepare_connection(connection, timeout=30)
        try:
            if connection.recv(1, socket.MSG_PEEK) != b"\x05":
                return self.answer_http(connection)
            user = self.authenticate(connection)
            if user is None:
                return
            host, port = self.read_connect(connection)
            log("%s CONNECT %s:%d as %s" % (self.client_address[0], host, port, user))
            ConnectLog.record(user)
            self.answer_connect(connection, user, host, port)
        except (ProtocolError, OSError) as error:
            log("%s: %s" % (self.client_address[0], error))

    def answer_http(self, connection):
        """The side door for tests: /health and /connects?user=NAME, over HTTP/1.0."""
        head = b""
        while b"\r\n\r\n" not in head and len(head) < 8192:
            more = connection.recv(4096)
            if not more:
                return
            head += more
        target = head.split(b" ")[1].decode("latin-1") if head.count(b" ") >= 2 else ""
        if target == "/health":
            status, body = "200 OK", "ok\n"
        elif target.startswith("/connects?"):
            user = parse_qs(urlsplit(target).query).get("user", [""])[0]
            status, body = "200 OK", json.dumps({"count": ConnectLog.count(user)}) + "\n"
        else:
            status, body = "404 Not Found", "this is a SOCKS5 proxy; over HTTP: /health, /connects?user=NAME\n"
        connection.sendall(("HTTP/1.0 %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s"
                            % (status, len(body), body)).encode())

    def receive(self, connection, count):
        data = b""
        while len(data) < count:
            more = connection.recv(count - len(data))
            if not more:
                raise ProtocolError("the client closed the connection mid-message")
            data += more
        return data

    def authenticate(self, connection):
        """The user name (`courier` without authentication), or None after a failed or refused one."""
        version, count = self.receive(connection, 2)
        if version != 5:
            raise ProtocolError("not SOCKS5: version %d" % version)
        methods = self.receive(connection, count)
        if 2 in methods:
            connection.sendall(b"\x05\x02")
            subversion, length = self.receive(connection, 2)
            user = self.receive(connection, length)
            password = self.receive(connection, self.receive(connection, 1)[0])
            if subversion != 1 or password != PASSWORD:
                connection.sendall(b"\x01\x01")
                return None
            connection.sendall(b"\x01\x00")
            return user.decode("utf-8", "replace")
        if 0 in methods:
            connection.sendall(b"\x05\x00")
            return "courier"
        connection.sendall(b"\x05\xff")
        return None

    def read_connect(self, connection):
        version, command, _, address_type = self.receive(connection, 4)
        if version != 5:
            raise ProtocolError("not SOCKS5: version %d" % version)
        if address_type == 1:
            host = socket.inet_ntoa(self.receive(connection, 4))
        elif address_type == 3:
            host = self.receive(connection, self.receive(connection, 1)[0]).decode("utf-8", "replace")
        elif address_type == 4:
            host = socket.inet_ntop(socket.AF_INET6, self.receive(connection, 16))
        else:
            raise ProtocolError("address type %d" % address_type)
        port = struct.unpack("!H", self.receive(connection, 2))[0]
        if command != 1:
            self.reply(connection, 7)
            raise ProtocolError("command %d" % command)
        return host, port

    @staticmethod
    def reply(connection, code, version=5):
        connection.sendall(bytes([version, code, 0, 1, 0, 0, 0, 0, 0, 0]))

    def answer_connect(self, connection, user, host, port):
        if user.startswith("reply-") and user[6:].isdigit() and 1 <= int(user[6:]) <= 8:
            return self.reply(connection, int(user[6:]))
        if user == "stall-after-auth":
            return loopback_server.hold_open(connection, HELD_SECONDS)
        if user == "close-after-auth":
            return
        if user == "bad-version":
            return self.reply(connection, 0, version=4)
        if user != "courier" and not user.startswith("tunnel-"):
            return self.reply(connection, 2)
        if host not in ALLOWED_TARGETS:
            return self.reply(connection, 2)
        try:
            upstream = socket.create_connection(("127.0.0.1", port), timeout=10)
        except OSError:
            return self.reply(connection, 5)
        loopback_server.prepare_connection(upstream)
        self.reply(connection, 0)
        loopback_server.relay(connection, upstream, IDLE_TUNNEL_SECONDS)


def main():
    loopback_server.run("Courier's test SOCKS5 proxy (see the module docstring).", SOCKSHandler, log)


if __name__ == "__main__":
    main()
