#!/usr/bin/env python3
"""Courier's streaming server: an HTTP/1.1 server (stdlib only) for clients that read a response as it arrives,
line by line: server-sent events (the WHATWG EventSource protocol: fields, resumption with Last-Event-ID, retry,
204 to stop reconnecting) and plain-text or NDJSON line streams of any length, with the faults such streams meet:
a server that dies mid-stream, lines cut at any byte, other line endings, a BOM, a very long line.

Every stream is sent `Transfer-Encoding: chunked` with `Cache-Control: no-cache` and made as it is sent, so a
stream of gigabytes costs no memory. A stream that ends normally ends its chunked body (the zero-length chunk)
and the connection stays open for the next request; `drop_after` instead closes the connection (a FIN) without
that last chunk, as a server that dies does, so the client sees a truncated body (curl 7.88: exit 18).
Query parameters are checked: an unknown one, or a bad value, gets a 400 saying why. Flags take 0 or 1.

Routes (GET)
  /health                   200 "ok\\n": the readiness probe of Scripts/servers.sh.
  /events                   `Content-Type: text/event-stream`: the events with ids 1 to `count`. Each event is
                            `id: K`, then `event: tick` (named=1 only), then `data: ` and the JSON text
                              {"id":K,"lastEventId":"<this request's Last-Event-ID header, or empty>","connection":C}
                            then a blank line. C counts the requests to /events with the same `stream` (1 for
                            the first), so a test sees how often its client reconnected.
                            A request with `Last-Event-ID: K` (a number) gets the events from K + 1 on; when
                            none is left (K >= count) it gets `204 No Content`, EventSource's "do not reconnect".
      count=N               N events (default 5, 0 to 100000).
      stream=NAME           the name whose requests C counts (default "default"); use a new name per test.
      drop_after=M          after the M-th event of this request, the connection is closed without ending the
                            body (even when that event was the last one); 0 (the default): never.
      retry=MS              `retry: MS` as the first line of every request's stream.
      interval_ms=T         a pause of T ms between two events (default 0, at most 10000).
      line_ending=E         lf (default), crlf or cr: the terminator of every line.
      bom=1                 the stream begins with a UTF-8 BOM (EF BB BF) when C is 1 (the first request only).
      comments=1            a comment line `: keep-alive` before each event.
      multiline=1           the data in three lines: `data: line one`, `data: <the JSON>`, `data: line three`
                            (a client joins them with "\\n").
      named=1               an `event: tick` line in each event.
      split=1               the stream's bytes in chunks of 1 to 7 bytes (sizes 1, 2, ... 7, 1, 2, ...), each sent
                            by itself, so a parser sees lines cut anywhere (the CR and LF of a CRLF apart too).
      status=S              200 to 599 (default 200): any other than 200 answers S with a short text body instead
                            of a stream (no body for 204 and 304). Checked before Last-Event-ID.
      content_type=T        the Content-Type of the answer instead (a stream that is not an event stream).
  /connections?stream=NAME  The requests to /events with that `stream` so far, as text ("0" for none): to see
                            whether a client reconnected after a 204 or a clean end.
  /lines                    `Content-Type: text/plain` (`application/x-ndjson` with ndjson=1): `count` lines,
                            line K being `line K` padded with `x` to `size` bytes (a line longer than `size`
                            is not cut), or with ndjson=1 the JSON {"n":K,"pad":"xx…"} padded (in `pad`) to
                            `size` bytes; `size` counts the line without its terminator.
      count=N               N lines (default 10, 0 to 10000000).
      size=S                0 (default: no padding) to 1048576.
      ndjson=1              JSON lines, as above.
      line_ending=E         lf (default) or crlf.
      final_newline=0       no terminator after the last line (default 1).
      drop_after=M          the connection is closed without ending the body after line M (with its
                            terminator); 0 (the default): never.
      split=1               chunks of 1 to 7 bytes, as for /events.
      long=L                line 3 exactly L bytes long (at least 6, 16 with ndjson=1; at most 1 GiB; needs
                            count >= 3): for a client's limit on a line's length.
  anything else             404 with a plain-text list of the routes; other methods than GET: 501.

Usage: sse_server.py [--host 127.0.0.1] --port PORT [--pid-file FILE]
It listens on 127.0.0.1 only (any other --host is refused) and exits on SIGTERM or SIGINT.
"""

import itertools
import json
import threading
import time
from urllib.parse import urlsplit

import loopback_server
from loopback_server import BadRequest, Query

MAX_EVENTS = 100_000
MAX_INTERVAL_MS = 10_000
MAX_RETRY_MS = 3_600_000
MAX_LINES = 10_000_000
MAX_SIZE = 1 << 20
MAX_LONG = 1 << 30
MAX_TEXT = 200
FLUSH_AT = 64 * 1024  # the chunk size of a stream that is not split
SPLIT_SIZES = (1, 2, 3, 4, 5, 6, 7)
ENDINGS = {"lf": b"\n", "crlf": b"\r\n", "cr": b"\r"}
BOM = b"\xef\xbb\xbf"
PAD = b"x" * FLUSH_AT

EVENT_PARAMETERS = ("count", "stream", "drop_after", "retry", "interval_ms", "line_ending", "bom", "comments",
                    "multiline", "named", "split", "status", "content_type")
LINE_PARAMETERS = ("count", "size", "ndjson", "line_ending", "final_newline", "drop_after", "split", "long")

# stream name -> requests to /events so far; the handlers run on a thread per connection.
CONNECTIONS = {}
CONNECTIONS_LOCK = threading.Lock()


log = loopback_server.logger("sse_server")


class Dropped(Exception):
    """drop_after was reached: the connection is closed with the chunked body unfinished."""


def only(query, allowed):
    unknown = sorted(set(query.values) - set(allowed))
    if unknown:
        raise BadRequest("unknown parameter %s; this route takes %s" % (", ".join(unknown), ", ".join(allowed)))


def flag(query, name):
    return query.integer(name, 0, 0, 1) == 1


def text(query, name, default):
    value = (query.values.get(name) or [default])[0]
    if not (0 < len(value) <= MAX_TEXT and value.isascii() and value.isprintable()):
        raise BadRequest("%s must be 1 to %d printable ASCII characters" % (name, MAX_TEXT))
    return value


class ChunkedBody:
    """A chunked response body written as it is made: chunks of about FLUSH_AT bytes (or fewer, at each
    `flush`), or with `split` chunks of 1 to 7 bytes, each its own write."""

    def __init__(self, wfile, split):
        self.wfile = wfile
        self.sizes = itertools.cycle(SPLIT_SIZES) if split else None
        self.pending = []
        self.length = 0

    def write(self, data):
        self.pending.append(data)
        self.length += len(data)
        if self.length >= FLUSH_AT:
            self.flush()

    def flush(self):
        data = b"".join(self.pending)
        self.pending, self.length = [], 0
        offset = 0
        while offset < len(data):
            size = next(self.sizes) if self.sizes else len(data)
            piece = data[offset:offset + size]
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            offset += size

    def end(self):
        self.flush()
        self.wfile.write(b"0\r\n\r\n")


ROUTES, route = loopback_server.route_table()


@route("/health")
def health(handler, query):
    handler.answer(200, b"ok\n")


@route("/connections")
def connections(handler, query):
    only(query, ("stream",))
    stream = text(query, "stream", "default")
    with CONNECTIONS_LOCK:
        count = CONNECTIONS.get(stream, 0)
    handler.answer(200, b"%d\n" % count)


def event_bytes(event_id, last_event_id, connection, named, multiline, comments, eol):
    data = json.dumps({"id": event_id, "lastEventId": last_event_id, "connection": connection},
                      separators=(",", ":")).encode()
    lines = [b": keep-alive"] if comments else []
    lines.append(b"id: %d" % event_id)
    if named:
        lines.append(b"event: tick")
    if multiline:
        lines += [b"data: line one", b"data: " + data, b"data: line three"]
    else:
        lines.append(b"data: " + data)
    return eol.join(lines) + eol + eol


@route("/events")
def events(handler, query):
    only(query, EVENT_PARAMETERS)
    count = query.integer("count", 5, 0, MAX_EVENTS)
    drop_after = query.integer("drop_after", 0, 0, MAX_EVENTS)
    retry = query.integer("retry", None, 0, MAX_RETRY_MS)
    interval = query.integer("interval_ms", 0, 0, MAX_INTERVAL_MS) / 1000.0
    eol = ENDINGS[query.choice("line_ending", "lf", ("lf", "crlf", "cr"))]
    bom, comments, multiline, named, split = (flag(query, name)
                                              for name in ("bom", "comments", "multiline", "named", "split"))
    status = query.integer("status", 200, 200, 599)
    content_type = text(query, "content_type", "") if "content_type" in query.values else None
    stream = text(query, "stream", "default")
    last_event_id = handler.headers.get("Last-Event-ID", "").strip()
    start = 1
    if last_event_id:
        if not (last_event_id.isascii() and last_event_id.isdigit() and len(last_event_id) <= 18):
            raise BadRequest("Last-Event-ID must be a number of at most 18 digits (this server's ids are 1, 2, ...)")
        start = int(last_event_id) + 1

    with CONNECTIONS_LOCK:
        connection = CONNECTIONS[stream] = CONNECTIONS.get(stream, 0) + 1
    if status != 200:
        handler.answer(status, b"status %d, as asked\n" % status, content_type or "text/plain")
        return
    if last_event_id and start > count:
        handler.answer(204, b"")
        return

    body = handler.start_stream(content_type or "text/event-stream", split)
    if bom and connection == 1:
        body.write(BOM)
    if retry is not None:
        body.write(b"retry: %d" % retry + eol)
    for sent, event_id in enumerate(range(start, count + 1), 1):
        if sent > 1 and interval:
            time.sleep(interval)
        body.write(event_bytes(event_id, last_event_id, connection, named, multiline, comments, eol))
        body.flush()
        if sent == drop_after:
            raise Dropped()
    body.end()


def line_pieces(number, length, ndjson):
    """Line `number` without its terminator, in pieces: its start, `x` up to `length` bytes in all (none when
    the start is that long already), its end."""
    head, tail = (b'{"n":%d,"pad":"' % number, b'"}') if ndjson else (b"line %d" % number, b"")
    yield head
    pad = length - len(head) - len(tail)
    while pad > 0:
        yield PAD[:pad]
        pad -= len(PAD)
    yield tail


@route("/lines")
def lines(handler, query):
    only(query, LINE_PARAMETERS)
    count = query.integer("count", 10, 0, MAX_LINES)
    size = query.integer("size", 0, 0, MAX_SIZE)
    ndjson = flag(query, "ndjson")
    eol = ENDINGS[query.choice("line_ending", "lf", ("lf", "crlf"))]
    final_newline = query.integer("final_newline", 1, 0, 1)
    drop_after = query.integer("drop_after", 0, 0, MAX_LINES)
    split = flag(query, "split")
    long = query.integer("long", None, 16 if ndjson else 6, MAX_LONG)
    if long is not None and count < 3:
        raise BadRequest("long makes line 3 long: it needs count >= 3")

    body = handler.start_stream("application/x-ndjson" if ndjson else "text/plain", split)
    for number in range(1, count + 1):
        for piece in line_pieces(number, long if number == 3 and long is not None else size, ndjson):
            body.write(piece)
        if number < count or final_newline:
            body.write(eol)
        if number == drop_after:
            body.flush()
            raise Dropped()
    body.end()


class Handler(loopback_server.HTTPRequestHandler):
    server_version = "courier-sse-server"
    log = staticmethod(log)
    disable_nagle_algorithm = True  # each write leaves at once: split=1's pieces, an event after a pause
    timeout = 300  # seconds one read or write may take: a client that stopped reading lets its thread go

    def answer(self, status, body, content_type="text/plain"):
        self.send_response(status)
        self.send_header("Cache-Control", "no-cache")
        if status not in (204, 304):  # answers without a body (RFC 9110, 6.4.1)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if status not in (204, 304):
            self.wfile.write(body)

    def start_stream(self, content_type, split):
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        return ChunkedBody(self.wfile, split)

    def do_GET(self):
        parts = urlsplit(self.path)
        route_function = ROUTES.get(parts.path)
        try:
            if route_function is None:
                self.answer(404, loopback_server.unknown_route_text(ROUTES))
            else:
                route_function(self, Query(parts.query))
        except BadRequest as error:
            # Raised before anything was sent: every route checks its parameters first.
            self.answer(400, ("%s\n" % error).encode())
        except Dropped:
            self.close_connection = True
        except OSError as error:
            self.log("%s went away: %s" % (self.address_string(), error))
            self.close_connection = True


def main():
    loopback_server.run("Courier's streaming (SSE and line) server (see the module docstring).", Handler, log,
                        loopback_server.ThreadingHTTPServer)


if __name__ == "__main__":
    main()
