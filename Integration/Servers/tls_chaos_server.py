#!/usr/bin/env python3
"""Courier's TLS chaos server: HTTP/2 over TLS (ALPN h2, with the `h2` package pinned in requirements.txt) that
ends streams and connections mid-response on purpose, and TLS listeners whose handshakes fail on purpose, for
the chaos tests (Integration/Tests/IntegrationTests/ChaosTests.swift).

HTTP/2 is served over TLS only (chain.pem and leaf.key, trusted through root.pem), never as h2c: libcurl 7.88
cannot reuse an h2c prior-knowledge connection (Integration/Servers/README.md, "Surprises"). A client that does
not offer h2 by ALPN gets an HTTP/1.1 `505 HTTP Version Not Supported`, but for the chaos server's /extra-bytes
and /extra-bytes-status (chaos_server.py), served here over TLS as there in cleartext, and /tls-close. Connections stay open between requests;
requests on one connection are answered one after the other, in the order they complete.

HTTP/2 routes (GET; the query parameters are optional)
  /health                   200 "ok\\n": the readiness probe of Scripts/servers.sh, and the tests' good request.
  /data?size=N&seed=S       200 with N bytes (default 65536, at most 64 MiB) and `content-length: N`: a complete
                            answer. Every body of this server is byte i = (i + S) mod 251 (S defaults to 0): a
                            client can check it without a hash, and a lost, repeated or misplaced frame shows,
                            since 251 (a prime) divides no frame size.
  /rst?code=C&after=K&size=N&seed=S
                            A 200 head announcing N bytes (default 65536), K of them (default 1000; -1: no
                            head at all), then RST_STREAM with error code C (default INTERNAL_ERROR; any name
                            of RFC 9113 section 7: NO_ERROR, PROTOCOL_ERROR, CANCEL, REFUSED_STREAM...). The
                            connection stays open and serves later requests.
  /goaway?last=L&after=K&size=N&code=C&seed=S
                            A 200 head announcing N bytes (default 65536) and K of them (default 1000; -1: no
                            head at all), then GOAWAY with error code C (default NO_ERROR) and
      last=below            last-stream-id below this stream (the stream before it, or 0): the server says it
                            never processed the request. Then the connection is closed (close_notify, FIN).
      last=stream           last-stream-id = this stream (a graceful shutdown): the rest of the body follows,
                            the stream ends normally, then the connection is closed. The request must succeed.
                            With once=KEY only the first request naming KEY meets the GOAWAY; later ones (a retry
                            on a new connection) get the whole body: a server that drained one connection. That
                            answer's `x-request-body-sha256` is the SHA-256 (hex) of the request body it read.
  /early-answer?status=S&then=T
                            A POST with a body, answered at its head: an S head (default 413) and a short body,
                            before the request body has come; then, as T says:
      then=reset            RST_STREAM NO_ERROR, RFC 9113 section 8.1's way to have the client stop sending
      then=read             the body read and dropped as it comes
      then=stop-reading     no more window for the stream: flow control holds the rest of the body for good
                            (the connection's window is still given back, so other streams go on)
  /fields?part=P&bytes=N&same=S
                            Header fields of about 100 bytes each, N bytes of them in all (default 1 MiB, at most
                            64 MiB), in one header block (HEADERS and as many CONTINUATION frames as it takes):
      part=trailers         a 200 head, the body "hello", then the fields as trailers, which end the stream
      part=head             the fields in the 200 head itself, then the body "hello"
      part=hints            N / 100 `103 Early Hints` heads of one `link` field each, then a 200 head and "hello"
                            Each field has a name of its own, so HPACK cannot shrink them; with same=1 they are
                            one field repeated, which HPACK sends as an index of a byte or two each.
  /bad-frame?kind=K&after=N&length=L&then=T&seed=S
                            A 200 head, N bytes of the body (default 1000), then a frame that breaks HTTP/2 for the
                            whole connection, written past the h2 state machine:
      kind=data-on-zero     a DATA frame on stream 0 (PROTOCOL_ERROR; the default)
      kind=window-overflow  two WINDOW_UPDATEs of 2^31 - 1 on the connection (FLOW_CONTROL_ERROR)
      kind=oversized        a DATA frame of 20,000 bytes, over the 16,384 the client allows (FRAME_SIZE_ERROR)
                            With length=1 the head has `content-length: N + 65536`; without it (0, the default)
                            it has none. The client answers with GOAWAY; then, as T says:
      then=close            the connection is closed once the client's GOAWAY has come (at most 5 s)
      then=hold             the connection stays open, read and dropped, until the client closes it (120 s)
  /continuations?frames=N&fill=B&end=E
                            A 200 head whose header block goes on in N CONTINUATION frames (default 10,000), each
                            with B bytes of header fields (default 0: empty frames), written past the h2 state
                            machine. E=0 (the default): no frame ends the block, and the connection is closed
                            after the last (a flood of CONTINUATION frames, as in CVE-2024-27316 and nghttp2's
                            CVE-2024-28182, where each frame costs the receiver but says nothing); E=1: the last
                            frame ends the block and the body "hello" follows (the control).
  /flood?kind=K&count=N&read=R
                            N frames (default 100,000, at most 2,000,000) that the client must acknowledge or
                            ignore, written past the h2 state machine as many as fill 16 KiB at a time (a TLS
                            record each); with R=1 (the default) the client's answers are read between writes,
                            with R=0 never, so a client's acknowledgements pile up once the socket buffers are
                            full. Then the answer: a 200 head, `content-length: 5` and "hello". The floods of RFC
                            9113 section 10.5 and of the 2019 HTTP/2 advisories, sent to a client:
      kind=ping             PING frames, each of which the client acknowledges (CVE-2019-9512; the default)
      kind=settings         empty SETTINGS frames, each acknowledged too (CVE-2019-9515)
      kind=priority         PRIORITY frames for streams nobody opened (CVE-2019-9513)
      kind=empty-data       after the head: DATA frames without a byte or END_STREAM on the stream (CVE-2019-9518)
      kind=reset-idle       N RST_STREAM frames for streams nobody opened: a connection error (PROTOCOL_ERROR,
                            RFC 9113 section 6.4), from the first
      kind=push             one PUSH_PROMISE, which a client that disabled push (libcurl does) must take as a
                            connection error (PROTOCOL_ERROR, RFC 9113 section 8.4); N is not used
  /max-streams?value=V&for=MS&close=C
                            A SETTINGS frame that sets SETTINGS_MAX_CONCURRENT_STREAMS to V (0 to 1,000), then the
                            answer "hello": the client has the setting before the answer ends. After MS milliseconds
                            (default 0: never) another sets it back to 100; after C milliseconds (default 0: never)
                            a GOAWAY (NO_ERROR) and close_notify end the connection. Until then it stays open, so the
                            client's next streams on it wait for a free one: with V=0, until the setting goes back.
  /handshake-fault?fault=F  200 with the port (as text) of a TLS listener on 127.0.0.1 (made once per fault)
                            whose every handshake fails as F says:
      alert-handshake-failure  a fatal handshake_failure alert in answer to the ClientHello (from OpenSSL's
                            server-name callback, so before any ServerHello)
      alert-internal-error  the same with internal_error
      close-after-hello     reads the ClientHello, then closes the TCP connection (FIN) without a byte
      reset-after-hello     reads the ClientHello, then resets the TCP connection (RST)
      partial-server-hello  reads the ClientHello, sends the first half of the ServerHello record (a real one,
                            made by OpenSSL), then closes (FIN)
      stall-after-hello     reads the ClientHello and then sends nothing until the client closes (at most
                            120 s): only the client's connect timeout ends it
  anything else             404 with a plain-text list of the routes; a bad parameter: 400.

HTTP/1.1 routes (a client that does not offer h2 by ALPN)
  /extra-bytes, /extra-bytes-status
                            the chaos server's (chaos_server.py), over TLS.
  /tls-close?framing=F&end=E&size=N&version=V&seed=S
                            One answer of N bytes (default 65536, the body as /data's), `Connection: close`, framed
                            as F says, then the connection ended as E says:
      framing=close         neither Content-Length nor Transfer-Encoding: the body ends with the connection (the
                            default)
      framing=length        Content-Length: N
      framing=chunked       Transfer-Encoding: chunked, with its last chunk
      framing=te-gzip       Transfer-Encoding: gzip, the body compressed: it, too, ends with the connection
      framing=no-content    a 204 without a body
      end=bare              the TCP connection closed (FIN) without TLS's close_notify, as an attacker on the path
                            could end it (the default)
      end=notify            close_notify first (waiting at most 1 s for the client's), then FIN
      end=reset             a TCP RST, without close_notify
                            version=1.0 sends an HTTP/1.0 status line; nonce=X adds `X-Nonce: X`, so that heads
                            differ. A HEAD gets the head alone.

What curl 7.88 (the command-line tool) reports for each is in Integration/Servers/README.md.

Usage: tls_chaos_server.py --port PORT --cert CHAIN.pem --key KEY.pem [--pid-file FILE]
It listens on 127.0.0.1 only and exits on SIGTERM or SIGINT.
"""

import gzip
import hashlib
import select
import socket
import socketserver
import ssl
import struct
import threading
import time
from collections import deque
from urllib.parse import urlsplit

import h2.config
import h2.connection
import h2.events
import h2.exceptions
from h2.errors import ErrorCodes
from h2.settings import SettingCodes
from hyperframe.frame import ContinuationFrame, DataFrame, GoAwayFrame, HeadersFrame

import chaos_server
import loopback_server
from loopback_server import BadRequest

MAX_DATA = 64 << 20
MAX_FIELDS = 64 << 20
IDLE_TIMEOUT = 120.0
HOLD_LIMIT = 120.0


log = loopback_server.logger("tls_chaos_server")


class Query(loopback_server.Query):
    """loopback_server's checked parameters, and an HTTP/2 error code by its name (RFC 9113 section 7)."""

    def error_code(self, name, default):
        return ErrorCodes[self.choice(name, default, tuple(ErrorCodes.__members__))]


class StreamGone(Exception):
    """The client reset the stream being answered."""


class Exchange:
    """One HTTP/2 connection: the h2 state machine, the socket, and the requests waiting for an answer."""

    def __init__(self, tls):
        self.tls = tls
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        self.requests = {}   # stream id -> headers, until the request ends
        self.ready = deque()  # (stream id, headers) of whole requests
        self.reset_streams = set()
        self.unread = set()   # streams whose request body is left unread (/early-answer?then=stop-reading)
        self.body_digests = {}  # stream id -> SHA-256 of the request body read so far
        self.timers = []      # (monotonic time, function) to run from the connection's loop (/max-streams)
        self.closed = False

    def flush(self):
        data = self.conn.data_to_send()
        if data:
            self.tls.sendall(data)

    def run_due_timers(self):
        self.timers.sort(key=lambda timer: timer[0])
        while self.timers and self.timers[0][0] <= time.monotonic():
            self.timers.pop(0)[1]()

    def pump(self):
        """Runs the timers that are due, then reads once from the socket (waiting no longer than the next timer) and
        handles what came. Returns False when the client closed, or a timer closed the connection."""
        if self.timers:
            self.run_due_timers()
            if self.closed:
                return False
        if self.timers:
            before = self.tls.gettimeout()
            wait = min(self.timers[0][0] - time.monotonic(), IDLE_TIMEOUT)
            self.tls.settimeout(max(0.0, wait))
            try:
                data = self.tls.recv(65536)
            except (socket.timeout, ssl.SSLWantReadError):
                data = None
            self.tls.settimeout(before)
            if data is None:
                self.run_due_timers()  # may close the connection
                return not self.closed
        else:
            data = self.tls.recv(65536)
        if not data:
            self.closed = True
            return False
        for event in self.conn.receive_data(data):
            if isinstance(event, h2.events.RequestReceived):
                self.requests[event.stream_id] = dict(event.headers)
                if event.stream_ended is not None:
                    self.ready.append((event.stream_id, self.requests.pop(event.stream_id)))
                elif urlsplit(self.requests[event.stream_id].get(":path", "")).path in EARLY_ROUTES:
                    # Answered at its head, before its body has come (and perhaps before it ever does).
                    self.ready.append((event.stream_id, self.requests.pop(event.stream_id)))
            elif isinstance(event, h2.events.StreamEnded):
                if event.stream_id in self.requests:
                    self.ready.append((event.stream_id, self.requests.pop(event.stream_id)))
            elif isinstance(event, h2.events.DataReceived):
                # A stream in `unread` gets no more window: its sender is stopped by flow control. The
                # connection's window is given back all the same, so other streams go on.
                if event.stream_id in self.unread:
                    # An empty DATA frame (the one that ends a body, say) gives nothing back, and h2 refuses a 0.
                    if event.flow_controlled_length:
                        self.conn.increment_flow_control_window(event.flow_controlled_length)
                else:
                    self.body_digests.setdefault(event.stream_id, hashlib.sha256()).update(event.data)
                    self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamReset):
                self.reset_streams.add(event.stream_id)
            elif isinstance(event, h2.events.ConnectionTerminated):
                self.closed = True
        self.flush()
        return not self.closed

    def pump_waiting(self):
        """Handles what the client has sent so far without waiting for more. Returns False when the client closed."""
        while self.tls.pending() or select.select([self.tls], [], [], 0)[0]:
            if not self.pump():
                return False
        return True

    def send_head(self, stream_id, status, headers, end_stream=False):
        self.conn.send_headers(stream_id, [(":status", str(status))] + headers, end_stream=end_stream)
        self.flush()

    def send_body(self, stream_id, data, end_stream):
        """Sends `data` as flow control allows, reading WINDOW_UPDATEs as it goes."""
        view = memoryview(data)
        while view:
            if stream_id in self.reset_streams:
                raise StreamGone()
            window = min(self.conn.local_flow_control_window(stream_id), self.conn.max_outbound_frame_size)
            if window <= 0:
                if not self.pump():
                    raise StreamGone()
                continue
            self.conn.send_data(stream_id, view[:window].tobytes())
            view = view[window:]
            self.flush()
        if end_stream:
            self.conn.end_stream(stream_id)
            self.flush()

    def send_goaway(self, last_stream_id, code):
        """A GOAWAY written past the h2 state machine, which would refuse to send anything after its own: a
        graceful GOAWAY is followed by the rest of the answer."""
        frame = GoAwayFrame(0)
        frame.last_stream_id = last_stream_id
        frame.error_code = int(code)
        self.flush()
        self.tls.sendall(frame.serialize())

    def close(self):
        """close_notify (waiting at most 1 s for the client's), then FIN."""
        try:
            self.tls.settimeout(1.0)
            self.tls.unwrap().close()
        except (OSError, ValueError):
            loopback_server.close_quietly(self.tls)
        self.closed = True


PERIOD = bytes(range(251))


def body_bytes(query, default_size):
    """Byte i is (i + seed) mod 251 (see the docstring)."""
    size = query.integer("size", default_size, 0, MAX_DATA)
    start = query.integer("seed", 0, 0, 1 << 62) % 251
    return (PERIOD * (size // 251 + 2))[start:start + size]


def octet_head(length):
    return [("content-type", "application/octet-stream"), ("content-length", str(length))]


ROUTES, route = loopback_server.route_table()


@route("/health")
def health(exchange, stream_id, query):
    exchange.send_head(stream_id, 200, [("content-type", "text/plain"), ("content-length", "3")])
    exchange.send_body(stream_id, b"ok\n", True)


@route("/data")
def data(exchange, stream_id, query):
    body = body_bytes(query, 65536)
    exchange.send_head(stream_id, 200, octet_head(len(body)), end_stream=not body)
    if body:
        exchange.send_body(stream_id, body, True)


def answer_until_fault(exchange, stream_id, query):
    """What /rst and /goaway send before their fault: the head announcing the whole body and its first `after`
    bytes, the stream left open (nothing at all when after is -1). Returns (body, after) for the rest."""
    body = body_bytes(query, 65536)
    after = query.integer("after", 1000, -1, len(body))
    if after >= 0:
        exchange.send_head(stream_id, 200, octet_head(len(body)))
        exchange.send_body(stream_id, body[:after], False)
    return body, after


@route("/rst")
def rst(exchange, stream_id, query):
    code = query.error_code("code", "INTERNAL_ERROR")
    answer_until_fault(exchange, stream_id, query)
    exchange.conn.reset_stream(stream_id, error_code=code)
    exchange.flush()


GOAWAY_KEYS_SEEN = set()
GOAWAY_KEYS_LOCK = threading.Lock()


@route("/goaway")
def goaway(exchange, stream_id, query):
    last = query.choice("last", "below", ("below", "stream"))
    code = query.error_code("code", "NO_ERROR")
    once = query.values.get("once", [""])[0]
    if once:
        with GOAWAY_KEYS_LOCK:
            seen = once in GOAWAY_KEYS_SEEN
            GOAWAY_KEYS_SEEN.add(once)
        if seen:
            body = body_bytes(query, 65536)
            digest = exchange.body_digests.pop(stream_id, hashlib.sha256()).hexdigest()
            exchange.send_head(stream_id, 200, octet_head(len(body)) + [("x-request-body-sha256", digest)])
            exchange.send_body(stream_id, body, True)
            return
    body, after = answer_until_fault(exchange, stream_id, query)
    if last == "below":
        # Client streams are odd: the one before this is stream_id - 2 (0 for the first).
        exchange.send_goaway(max(0, stream_id - 2), code)
        exchange.close()
        return
    exchange.send_goaway(stream_id, code)
    if after < 0:
        exchange.send_head(stream_id, 200, octet_head(len(body)))
    exchange.send_body(stream_id, body[max(after, 0):], True)
    exchange.close()


@route("/early-answer")
def early_answer(exchange, stream_id, query):
    """Answers an upload at its head, before its body, as a server refusing it (413) or one that needs none."""
    status = query.integer("status", 413, 200, 599)
    then = query.choice("then", "reset", ("reset", "read", "stop-reading"))
    text = b"answered before the body\n"
    if then == "stop-reading":
        exchange.unread.add(stream_id)
    exchange.send_head(stream_id, status, [("content-type", "text/plain"), ("content-length", str(len(text)))])
    exchange.send_body(stream_id, text, True)
    if then == "reset":
        # RFC 9113 section 8.1: a server that answered before the request ended may send RST_STREAM with
        # NO_ERROR to have the client stop sending; the client must not discard the answer for it.
        exchange.conn.reset_stream(stream_id, error_code=ErrorCodes.NO_ERROR)
        exchange.flush()


EARLY_ROUTES = {"/early-answer"}


@route("/fields")
def fields(exchange, stream_id, query):
    part = query.choice("part", "trailers", ("trailers", "head", "hints"))
    total = query.integer("bytes", 1 << 20, 0, MAX_FIELDS)
    same = query.integer("same", 0, 0, 1)
    count = total // 100
    many = [("x-field", "f" * 92) if same else ("x-field-%08d" % index, "f" * 83) for index in range(count)]
    if part == "hints":
        for index in range(count):
            exchange.conn.send_headers(stream_id, [(":status", "103"), ("link", "</s%08d.css>; rel=preload" % index + "h" * 60)])
            if index % 64 == 0:
                exchange.flush()
        exchange.send_head(stream_id, 200, [("content-type", "text/plain"), ("content-length", "5")])
        exchange.send_body(stream_id, b"hello", True)
        return
    if part == "head":
        exchange.send_head(stream_id, 200, [("content-type", "text/plain"), ("content-length", "5")] + many)
        exchange.send_body(stream_id, b"hello", True)
        return
    exchange.send_head(stream_id, 200, [("content-type", "text/plain")])
    exchange.send_body(stream_id, b"hello", False)
    exchange.conn.send_headers(stream_id, many, end_stream=True)
    exchange.flush()


def raw_frame(kind, flags, stream_id, payload):
    """An HTTP/2 frame (RFC 9113 section 4.1) as bytes, whatever it says."""
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream_id) + payload


@route("/bad-frame")
def bad_frame(exchange, stream_id, query):
    kind = query.choice("kind", "data-on-zero", ("data-on-zero", "window-overflow", "oversized"))
    after = query.integer("after", 1000, 0, MAX_DATA)
    length = query.integer("length", 0, 0, 1)
    then = query.choice("then", "close", ("close", "hold"))
    body = body_bytes(Query("size=%d&seed=%d" % (after, query.integer("seed", 0, 0, 1 << 62))), 0)
    head = [("content-type", "application/octet-stream")]
    if length:
        head.append(("content-length", str(after + 65536)))
    exchange.send_head(stream_id, 200, head)
    exchange.send_body(stream_id, body, False)
    # By hand: hyperframe refuses to make the first two, and would cap the third.
    if kind == "data-on-zero":
        fault = raw_frame(0x0, 0, 0, b"stray")
    elif kind == "window-overflow":
        fault = raw_frame(0x8, 0, 0, struct.pack(">I", (1 << 31) - 1)) * 2
    else:
        fault = raw_frame(0x0, 0, stream_id, b"x" * 20000)
    exchange.flush()
    exchange.tls.sendall(fault)
    if then == "hold":
        loopback_server.hold_open(exchange.tls, HOLD_LIMIT)
    else:
        exchange.tls.settimeout(5.0)
        try:
            while exchange.pump():
                pass  # Until the client's GOAWAY (ConnectionTerminated) or its close.
        except (OSError, h2.exceptions.ProtocolError):
            pass
    exchange.close()


@route("/continuations")
def continuations(exchange, stream_id, query):
    frames = query.integer("frames", 10000, 0, 1000000)
    fill = query.integer("fill", 0, 0, 16000)
    end = query.integer("end", 0, 0, 1)
    # Literal fields without indexing (RFC 7541 section 6.2.2) of about 100 bytes each, so the HPACK decoder's
    # table is left as the h2 state machine knows it; 0x88 is the static table's `:status: 200`.
    field = b"\x00\x07x-flood\x5a" + b"f" * 90
    block = (field * (fill // len(field) + 1))[:fill] if fill else b""
    block = block[:len(block) - len(block) % len(field)]
    exchange.flush()
    head = HeadersFrame(stream_id)
    head.data = b"\x88"
    if frames == 0 and end:
        head.flags.add("END_HEADERS")
    out = [head.serialize()]
    for index in range(frames):
        frame = ContinuationFrame(stream_id)
        frame.data = block
        if end and index == frames - 1:
            frame.flags.add("END_HEADERS")
        out.append(frame.serialize())
        if len(out) >= 256:
            exchange.tls.sendall(b"".join(out))
            out = []
    if end:
        body = DataFrame(stream_id)
        body.data = b"hello"
        body.flags.add("END_STREAM")
        out.append(body.serialize())
    if out:
        exchange.tls.sendall(b"".join(out))
    if not end:
        exchange.close()


FLOOD_KINDS = ("ping", "settings", "priority", "empty-data", "reset-idle", "push")


@route("/flood")
def flood(exchange, stream_id, query):
    kind = query.choice("kind", "ping", FLOOD_KINDS)
    count = query.integer("count", 100000, 0, 2000000)
    read = query.integer("read", 1, 0, 1)
    if kind == "push":
        # Promised stream 2, its request `:method: GET`, `:scheme: https`, `:path: /` (static table 2, 7, 4) and
        # `:authority: localhost` (a literal with the static table's name 1).
        block = bytes([0x82, 0x87, 0x84, 0x41, 0x09]) + b"localhost"
        frames = [raw_frame(0x5, 0x4, stream_id, struct.pack(">I", 2) + block)]
    elif kind == "ping":
        frames = (raw_frame(0x6, 0, 0, struct.pack(">Q", index)) for index in range(count))
    elif kind == "settings":
        frames = (raw_frame(0x4, 0, 0, b"") for _ in range(count))
    elif kind == "priority":
        # Stream ids the client never used (even: the server's own, never promised), each depending on stream 0.
        frames = (raw_frame(0x2, 0, 2 * index + 1000, struct.pack(">IB", 0, 15)) for index in range(count))
    elif kind == "reset-idle":
        frames = (raw_frame(0x3, 0, 2 * index + 1001, struct.pack(">I", 0)) for index in range(count))
    else:
        exchange.send_head(stream_id, 200, [("content-type", "text/plain"), ("content-length", "5")])
        frames = (raw_frame(0x0, 0, stream_id, b"") for _ in range(count))
    exchange.flush()
    batch, size = [], 0
    for frame in frames:
        batch.append(frame)
        size += len(frame)
        if size + len(frame) > 16384:
            exchange.tls.sendall(b"".join(batch))
            batch, size = [], 0
            # Reading the client's acknowledgements keeps both ways moving, as a flooding server that wants its
            # flood to land would; without it they wait in the socket buffers, and then in the client.
            if read and not exchange.pump_waiting():
                raise StreamGone()
    if batch:
        exchange.tls.sendall(b"".join(batch))
    if stream_id in exchange.reset_streams:
        raise StreamGone()
    if kind != "empty-data":
        exchange.send_head(stream_id, 200, [("content-type", "text/plain"), ("content-length", "5")])
    exchange.send_body(stream_id, b"hello", True)


@route("/max-streams")
def max_streams(exchange, stream_id, query):
    value = query.integer("value", 0, 0, 1000)
    restore = query.integer("for", 0, 0, 600000)
    close = query.integer("close", 0, 0, 600000)
    exchange.conn.update_settings({SettingCodes.MAX_CONCURRENT_STREAMS: value})
    exchange.flush()
    if restore:
        def back():
            exchange.conn.update_settings({SettingCodes.MAX_CONCURRENT_STREAMS: 100})
            exchange.flush()
        exchange.timers.append((time.monotonic() + restore / 1000.0, back))
    if close:
        def end():
            exchange.send_goaway(exchange.conn.highest_inbound_stream_id, ErrorCodes.NO_ERROR)
            exchange.close()
        exchange.timers.append((time.monotonic() + close / 1000.0, end))
    exchange.send_head(stream_id, 200, [("content-type", "text/plain"), ("content-length", "5")])
    exchange.send_body(stream_id, b"hello", True)


@route("/handshake-fault")
def handshake_fault(exchange, stream_id, query):
    fault = query.choice("fault", "alert-handshake-failure", tuple(HANDSHAKE_FAULTS))
    port = b"%d\n" % HandshakeFaultListener.port_for(fault)
    exchange.send_head(stream_id, 200, [("content-type", "text/plain"), ("content-length", str(len(port)))])
    exchange.send_body(stream_id, port, True)


def not_found(exchange, stream_id, query):
    listing = loopback_server.unknown_route_text(ROUTES)
    exchange.send_head(stream_id, 404, [("content-type", "text/plain"), ("content-length", str(len(listing)))])
    exchange.send_body(stream_id, listing, True)


def answer(exchange, stream_id, headers):
    parts = urlsplit(headers.get(":path", "/"))
    try:
        ROUTES.get(parts.path, not_found)(exchange, stream_id, Query(parts.query))
    except BadRequest as error:
        text = ("%s\n" % error).encode()
        exchange.send_head(stream_id, 400, [("content-type", "text/plain"), ("content-length", str(len(text)))])
        exchange.send_body(stream_id, text, True)
    except StreamGone:
        pass  # The client reset the stream: nothing more to send on it.


# --- TLS handshake faults -----------------------------------------------------------------------------------

def read_client_hello(sock):
    """Reads one TLS record (the ClientHello) from a raw socket; returns it, or None when the client closed."""
    data = b""
    while len(data) < 5 or len(data) < 5 + struct.unpack("!H", data[3:5])[0]:
        chunk = sock.recv(65536)
        if not chunk:
            return None
        data += chunk
    return data


def alert_fault(description):
    def run(listener, sock):
        tls = listener.alert_contexts[description].wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
        try:
            tls.do_handshake()
        except (ssl.SSLError, OSError):
            pass  # Expected: the callback's alert ended the handshake.
        finally:
            tls.close()
    return run


def close_after_hello(listener, sock):
    read_client_hello(sock)
    sock.close()


def reset_after_hello(listener, sock):
    read_client_hello(sock)
    loopback_server.close_with_reset(sock)


def partial_server_hello(listener, sock):
    hello = read_client_hello(sock)
    if hello is None:
        return
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    machine = listener.context.wrap_bio(incoming, outgoing, server_side=True)
    incoming.write(hello)
    try:
        machine.do_handshake()
    except ssl.SSLWantReadError:
        pass  # It has written its flight and waits for the client's: what we want.
    flight = outgoing.read()
    first_record = flight[:5 + struct.unpack("!H", flight[3:5])[0]]
    sock.sendall(first_record[:len(first_record) // 2])
    sock.close()


def stall_after_hello(listener, sock):
    read_client_hello(sock)
    loopback_server.hold_open(sock, HOLD_LIMIT)
    sock.close()


HANDSHAKE_FAULTS = {
    "alert-handshake-failure": alert_fault(ssl.ALERT_DESCRIPTION_HANDSHAKE_FAILURE),
    "alert-internal-error": alert_fault(ssl.ALERT_DESCRIPTION_INTERNAL_ERROR),
    "close-after-hello": close_after_hello,
    "reset-after-hello": reset_after_hello,
    "partial-server-hello": partial_server_hello,
    "stall-after-hello": stall_after_hello,
}


class HandshakeFaultListener:
    """A listener on 127.0.0.1 (a port the kernel picks) whose connections all run one handshake fault."""

    CERT = None
    KEY = None
    _lock = threading.Lock()
    _listeners = {}

    @classmethod
    def port_for(cls, fault):
        with cls._lock:
            if fault not in cls._listeners:
                cls._listeners[fault] = cls(fault)
            return cls._listeners[fault].port

    def __init__(self, fault):
        self.run = HANDSHAKE_FAULTS[fault]
        self.context = loopback_server.tls_context(self.CERT, self.KEY, ["h2", "http/1.1"])
        self.alert_contexts = {}
        for description in (ssl.ALERT_DESCRIPTION_HANDSHAKE_FAILURE, ssl.ALERT_DESCRIPTION_INTERNAL_ERROR):
            context = loopback_server.tls_context(self.CERT, self.KEY, ["h2", "http/1.1"])
            # OpenSSL calls the server-name callback for every ClientHello (with None when it names no
            # server); returning an alert description aborts the handshake with that fatal alert.
            context.sni_callback = lambda tls, name, ctx, description=description: description
            self.alert_contexts[description] = context
        self.listener = loopback_server.ephemeral_listener(64)
        self.port = self.listener.getsockname()[1]
        log("handshake fault %s on 127.0.0.1:%d" % (fault, self.port))
        loopback_server.start_thread(self.accept_loop)

    def accept_loop(self):
        while True:
            sock, _ = self.listener.accept()
            sock.settimeout(10.0)
            loopback_server.start_thread(self.serve, sock)

    def serve(self, sock):
        try:
            self.run(self, sock)
        except OSError:
            pass
        finally:
            loopback_server.close_quietly(sock)


def answer_http1(tls):
    """HTTP/1.1 (no ALPN h2): the chaos server's /extra-bytes and /extra-bytes-status over TLS, a 505 for the rest."""
    request = loopback_server.read_request_head(tls)
    if request is None:
        return
    method, target, headers, rest = request
    parts = urlsplit(target)
    route = HTTP1_ROUTES.get(parts.path)
    if route is None:
        tls.sendall(loopback_server.plain_response("505 HTTP Version Not Supported",
                                                   b"this server speaks HTTP/2 only (ALPN h2)\n"))
        return
    try:
        chaos_server.drain_body(tls, headers, rest)
        route(tls, method, parts.query)
    except BadRequest as error:
        tls.sendall(loopback_server.plain_response("400 Bad Request", ("%s\n" % error).encode()))


def tls_close(tls, method, query_text):
    """/tls-close: one HTTP/1 answer framed as `framing` says, then the connection ended as `end` says."""
    query = loopback_server.Query(query_text)
    framing = query.choice("framing", "close", ("close", "length", "chunked", "te-gzip", "no-content"))
    end = query.choice("end", "bare", ("notify", "bare", "reset"))
    version = query.choice("version", "1.1", ("1.0", "1.1"))
    size = query.integer("size", 65536, 0, 64 * 1024 * 1024)
    seed = query.integer("seed", 0, 0, 250)
    body = bytes((i + seed) % 251 for i in range(size))
    status, fields = "200 OK", [("Content-Type", "application/octet-stream")]
    nonce = query.values.get("nonce", [""])[0]
    if nonce:
        fields.append(("X-Nonce", nonce))
    if framing == "length":
        fields.append(("Content-Length", str(size)))
    elif framing == "chunked":
        fields.append(("Transfer-Encoding", "chunked"))
        body = (b"%x\r\n" % size + body + b"\r\n" if size else b"") + b"0\r\n\r\n"
    elif framing == "te-gzip":
        fields.append(("Transfer-Encoding", "gzip"))
        body = gzip.compress(body)
    elif framing == "no-content":
        status, body = "204 No Content", b""
    head = loopback_server.head_bytes(status, fields + [("Connection", "close")])
    if version == "1.0":
        head = b"HTTP/1.0" + head[len(b"HTTP/1.1"):]
    tls.sendall(head + (body if method != "HEAD" else b""))
    if end == "notify":
        try:
            tls.settimeout(1.0)
            tls.unwrap().close()
        except (OSError, ValueError):
            pass
    elif end == "reset":
        loopback_server.close_with_reset(tls)
    # bare: the handler's close ends the TCP connection without close_notify (Python's SSLSocket.close sends none).


HTTP1_ROUTES = {"/extra-bytes": chaos_server.extra_bytes, "/extra-bytes-status": chaos_server.extra_bytes_status,
                "/tls-close": tls_close}


# --- the HTTP/2 listener --------------------------------------------------------------------------------------

class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        raw = self.request
        loopback_server.prepare_connection(raw, IDLE_TIMEOUT)
        try:
            tls = self.server.context.wrap_socket(raw, server_side=True)
        except (ssl.SSLError, OSError):
            return  # A client that gave up on the handshake (or refused our certificate).
        try:
            if tls.selected_alpn_protocol() != "h2":
                answer_http1(tls)
                return
            exchange = Exchange(tls)
            exchange.conn.initiate_connection()
            exchange.flush()
            while not exchange.closed:
                while exchange.ready and not exchange.closed:
                    answer(exchange, *exchange.ready.popleft())
                if exchange.closed or not exchange.pump():
                    break
        except (OSError, h2.exceptions.ProtocolError, ssl.SSLError):
            pass  # The client went away or broke the protocol: the connection is over.
        finally:
            loopback_server.close_quietly(tls)


def main():
    parsed = loopback_server.arguments("Courier's TLS chaos server (see the module docstring).",
                                       loopback_server.tls_arguments)
    HandshakeFaultListener.CERT, HandshakeFaultListener.KEY = parsed.cert, parsed.key
    server = loopback_server.listen(Handler, parsed)
    server.context = loopback_server.tls_context(parsed.cert, parsed.key, ["h2", "http/1.1"])
    loopback_server.serve(server, parsed, log)


if __name__ == "__main__":
    main()
