#!/usr/bin/env python3
"""Courier's TLS recorder: a TLS server (stdlib only) that records, for every connection, whether the TLS
handshake completed and how many bytes of application data the client sent after it. It exists to prove that
a client which refuses the server's certificate sends not one byte of its HTTP request
(Integration/Tests/IntegrationTests/SecurityTests.swift).

Each connection is handshaken by hand (no `do_handshake_on_connect`), so a handshake the client aborts is seen
and recorded with OpenSSL's reason (e.g. "tlsv1 alert unknown ca", the alert a refusing client sends). After a
completed handshake the server reads one HTTP/1.1 request head and answers it, then closes the connection:
  GET /health   200 "ok\\n" (the readiness probe of Scripts/servers.sh)
  GET /log      200 with the JSON record of every earlier connection:
                  {"connections": [{"id": 1, "handshake": "completed" or "failed", "error": "..." or null,
                                    "application_bytes": N, "first_line": "GET /x HTTP/1.1" or null}, ...]}
  anything else 200 "recorded\\n"
`application_bytes` counts every decrypted byte the client sent (request head and body) until it closed or
5 s passed; a refused handshake has 0, by construction and as the test checks.

Usage: tls_recorder.py --port PORT --cert CHAIN.pem --key KEY.pem [--pid-file FILE]
It listens on 127.0.0.1 only and exits on SIGTERM or SIGINT.
"""

import json
import loopback_server
import socket
import socketserver
import ssl
import threading

MAX_HEAD = 64 * 1024
RECORDS_KEPT = 1000


log = loopback_server.logger("tls_recorder")


class Records:
    def __init__(self):
        self.lock = threading.Lock()
        self.next_id = 1
        self.items = []

    def new_id(self):
        with self.lock:
            value = self.next_id
            self.next_id += 1
            return value

    def add(self, record):
        with self.lock:
            self.items.append(record)
            del self.items[:-RECORDS_KEPT]

    def snapshot(self):
        with self.lock:
            return sorted(self.items, key=lambda item: item["id"])


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        server = self.server
        record = {"id": server.records.new_id(), "handshake": "failed", "error": None,
                  "application_bytes": 0, "first_line": None}
        raw = self.request
        raw.settimeout(5)
        try:
            tls = server.context.wrap_socket(raw, server_side=True, do_handshake_on_connect=False)
            tls.do_handshake()
        except (ssl.SSLError, OSError) as error:
            record["error"] = getattr(error, "reason", None) or str(error)
            server.records.add(record)
            return
        record["handshake"] = "completed"
        try:
            data = b""
            while b"\r\n\r\n" not in data and len(data) < MAX_HEAD:
                chunk = tls.recv(65536)
                if not chunk:
                    break
                data += chunk
            record["application_bytes"] = len(data)
            if data:
                record["first_line"] = data.split(b"\r\n", 1)[0].decode("latin-1")
            parts = (record["first_line"] or "").split(" ")
            path = parts[1] if len(parts) > 1 else ""
            if path == "/health":
                body = b"ok\n"
                content_type = "text/plain"
            elif path == "/log":
                body = json.dumps({"connections": server.records.snapshot()}).encode() + b"\n"
                content_type = "application/json"
            else:
                body = b"recorded\n"
                content_type = "text/plain"
            if data:
                tls.sendall(loopback_server.plain_response("200 OK", body, content_type))
            # Whatever else the client sends (a body, a second request) is counted too, until it closes.
            while True:
                chunk = tls.recv(65536)
                if not chunk:
                    break
                record["application_bytes"] += len(chunk)
        except (ssl.SSLError, OSError, socket.timeout) as error:
            record["error"] = getattr(error, "reason", None) or str(error)
        finally:
            server.records.add(record)
            loopback_server.close_quietly(tls)


class Server(loopback_server.ThreadingServer):
    request_queue_size = 64

    def __init__(self, address, handler):
        super().__init__(address, handler)
        self.records = Records()


def main():
    parsed = loopback_server.arguments("Courier's TLS recorder (see the module docstring).",
                                       loopback_server.tls_arguments)
    server = loopback_server.listen(Handler, parsed, Server)
    server.context = loopback_server.tls_context(parsed.cert, parsed.key, ["http/1.1"], ssl.TLSVersion.TLSv1_2)
    loopback_server.serve(server, parsed, log)


if __name__ == "__main__":
    main()
