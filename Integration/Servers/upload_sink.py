#!/usr/bin/env python3
"""Courier's upload sink: an HTTP/1.1 server (stdlib only) that reads request bodies of any size without
keeping them and says what it read.

Routes
  POST or PUT to any path   Reads the whole body as it arrives, in reads of at most 1 MiB, announced by
                            `Content-Length` or sent `Transfer-Encoding: chunked` (chunk extensions and
                            trailers are read and ignored), hashing it and dropping each read. Then answers
                            200 with a JSON object:
                              {"length": N, "sha256": "<hex of the body>",
                               "content_type": "<the request's Content-Type>" or null,
                               "method": "POST" or "PUT", "chunked": true or false}
                            A request with neither header has an empty body. `Expect: 100-continue` gets its
                            `100 Continue`. A malformed chunked body gets 400 and the connection is closed.
  GET /health               200 "ok\\n": the readiness probe of Scripts/servers.sh.
  anything else             405 (GET, HEAD, DELETE... to any other path).

Connections are kept alive between requests (HTTP/1.1) and each is served by its own thread, so any number of
uploads can run at once; memory stays at a few MiB per upload whatever its size.

Usage: upload_sink.py [--host 127.0.0.1] --port PORT [--pid-file FILE]
It listens on 127.0.0.1 only (any other --host is refused) and exits on SIGTERM or SIGINT.
"""

import hashlib
import json
import loopback_server

READ_SIZE = 1024 * 1024
MAX_LINE = 64 * 1024


log = loopback_server.logger("upload_sink")


class BadBody(Exception):
    pass


class Digest:
    """The length and SHA-256 of the bytes read so far; the bytes themselves are not kept."""

    def __init__(self):
        self.length = 0
        self.hash = hashlib.sha256()

    def add(self, view):
        self.length += len(view)
        self.hash.update(view)


class SinkHandler(loopback_server.HTTPRequestHandler):
    server_version = "courier-upload-sink"
    log = staticmethod(log)

    def log_request(self, code="-", size="-"):
        pass  # one line per upload is noise; errors still go to log_error

    def answer(self, status, body, content_type="application/json"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    # Reading -----------------------------------------------------------------------------------------

    def read_exactly(self, count, digest, buffer):
        """Reads `count` body bytes into `digest`, at most READ_SIZE at a time."""
        view = memoryview(buffer)
        while count > 0:
            want = min(count, READ_SIZE)
            got = self.rfile.readinto(view[:want])
            if not got:
                raise BadBody("the body ended %d bytes early" % count)
            digest.add(view[:got])
            count -= got

    def read_line(self):
        line = self.rfile.readline(MAX_LINE + 1)
        if not line.endswith(b"\n") or len(line) > MAX_LINE:
            raise BadBody("a chunk size or trailer line is missing or too long")
        return line

    def read_chunked(self, digest, buffer):
        while True:
            size_text = self.read_line().split(b";", 1)[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                raise BadBody("bad chunk size %r" % size_text[:40])
            if size < 0:
                raise BadBody("negative chunk size")
            if size == 0:
                while self.read_line() not in (b"\r\n", b"\n"):
                    pass  # trailer fields
                return
            self.read_exactly(size, digest, buffer)
            if self.read_line() not in (b"\r\n", b"\n"):
                raise BadBody("a chunk does not end with CRLF")

    def sink(self):
        digest = Digest()
        buffer = bytearray(READ_SIZE)
        transfer_encoding = self.headers.get("Transfer-Encoding", "")
        chunked = "chunked" in [part.strip().lower() for part in transfer_encoding.split(",") if part.strip()]
        try:
            if chunked:
                self.read_chunked(digest, buffer)
            elif transfer_encoding:
                raise BadBody("unsupported Transfer-Encoding: %s" % transfer_encoding)
            else:
                length_text = self.headers.get("Content-Length")
                try:
                    length = int(length_text) if length_text is not None else 0
                except ValueError:
                    raise BadBody("bad Content-Length %r" % length_text)
                if length < 0:
                    raise BadBody("negative Content-Length")
                self.read_exactly(length, digest, buffer)
        except BadBody as error:
            self.close_connection = True  # the rest of the body, if any, was not read
            self.answer(400, ("%s\n" % error).encode(), "text/plain")
            return
        body = json.dumps({
            "length": digest.length,
            "sha256": digest.hash.hexdigest(),
            "content_type": self.headers.get("Content-Type"),
            "method": self.command,
            "chunked": chunked,
        }).encode() + b"\n"
        self.answer(200, body)

    # Methods -----------------------------------------------------------------------------------------

    def do_POST(self):
        self.sink()

    def do_PUT(self):
        self.sink()

    def do_GET(self):
        if self.path.split("?", 1)[0] == "/health":
            self.answer(200, b"ok\n", "text/plain")
        else:
            self.not_allowed()

    def not_allowed(self):
        # The body of the refused request is not read, so the connection cannot be reused.
        self.close_connection = True
        self.answer(405, b"POST or PUT a body to any path; GET /health\n", "text/plain")

    do_HEAD = do_DELETE = do_PATCH = do_OPTIONS = not_allowed


def main():
    loopback_server.run("Courier's upload sink (see the module docstring).", SinkHandler, log,
                        loopback_server.ThreadingHTTPServer)


if __name__ == "__main__":
    main()
