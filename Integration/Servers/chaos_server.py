#!/usr/bin/env python3
"""Courier's chaos server: an HTTP/1.1 server that breaks responses the way real networks and broken servers do,
for the chaos tests (Integration/Tests/IntegrationTests/ChaosTests.swift). The fault server (fault_server.py)
has one route per fault at fixed sizes; this one cuts, resets, lies and stalls at chosen offsets so that tests
can sweep them. It runs on its own port, used by the chaos tests only, so a test can count its own connections.

Each connection serves one request and is closed (every answer says `Connection: close`), but for /extra-bytes
/answer-once and /content-length. The request head is
read first; a request body announced by Content-Length is read and dropped, except by /no-read, which never
reads it. Bodies are deterministic: `random.Random(seed).randbytes(size)` (seed 0 unless given).

Routes (GET, or any method; the answers are the same)
  /health                   200 "ok\\n": the readiness probe of Scripts/servers.sh, and the tests' good request.
  /compressed, /bomb        The compression server's routes and parameters (compression_server.py's docstring:
                            encoding, size, ratio, framing, seed, reset_at, corrupt_at, truncate...), served
                            here from the same cache so that the reset and corruption matrices run on this port.
                            One request per connection.
  /chunked?size=N&end=E&seed=S
                            200, `Transfer-Encoding: chunked`, N bytes (default 4096) in chunks of at most 1000
                            bytes, ending as E says, then the connection is closed (FIN):
      end=inside            the last chunk's size line announces it whole but only half of its bytes follow
      end=no-terminator     every chunk whole, no terminating 0-chunk
      end=no-final-crlf     the 0-chunk without the blank line after it ("0\\r\\n" and nothing more)
      end=complete          a correct body (the control case)
  /chunk-lie?lie=L&hold=H   200, chunked, a first chunk of 100 bytes (`a` * 100) whose size line lies, then the
                            rest of a correct body ("\\r\\n0\\r\\n\\r\\n"); then FIN, or with hold=1 the connection
                            is kept open (until the client closes it, at most 120 s) instead:
      lie=more              the size line says 0x1000 (4096): more bytes than follow
      lie=fewer             the size line says 0x10 (16): fewer than follow
      lie=nonhex            the size line is "zz"
      lie=huge              the size line is "ffffffffffffffff" (2^64 - 1: beyond a signed 64-bit count)
      lie=too-long          the size line is "1" followed by 16 zeros (17 hex digits)
      lie=max               the size line is "7fffffffffffffff" (2^63 - 1, the largest a 64-bit count takes)
      lie=negative          the size line is "-10"
  /close-after-head?framing=F&reset=R
                            A 200 head announcing 1000 bytes (framing=length, the default) or a chunked body
                            (framing=chunked), then the connection is closed before any body byte: a FIN, or
                            with reset=1 a TCP RST (SO_LINGER 0).
  /trickle?part=P&interval_ms=M&bytes=N
                            A slow server. part=body (the default): a 200 head at once with `Content-Length: N`
                            (default 60), then one byte (`*`) every M ms (default 1000). part=head: the same
                            answer, but its status line and headers (about 130 bytes, padded with an `X-Pad`
                            header to at least N bytes) also go out one byte every M ms. At most 3600 bytes;
                            the writes stop when the client goes away.
  /no-read?answer=A&hold_ms=M
                            Reads the request head and never a byte of its body. answer=none (the default):
                            answers nothing and keeps the socket open, unread, until the client closes it or M ms
                            pass (default 60000), then closes it. answer=413: at once a `413 Payload Too Large`
                            (with `Connection: close` and a short body), then closes the socket with the body
                            unread, which makes the kernel send a TCP RST (the request bytes it still holds are
                            discarded). answer=reset: no answer at all; after M ms (default 50) the same close
                            with the body unread, so the RST meets a client still sending (a server that went away).
  /endless?part=P&limit_mb=L
                            A response part that never ends, sent as fast as the client reads, until the client
                            goes away, L MiB were sent (default 1024) or 120 s passed:
      part=hints            `103 Early Hints` heads, one after another, never a final head
      part=fields           a 200 status line, then header fields (100-byte lines), never the blank line
      part=trailers         a chunked body ("hello") and its 0-chunk, then trailer fields (100-byte lines)
      part=few-trailers     the control: the same body with three trailer fields and the blank line after them
  /layers?count=N           200 with "layered\\n" * 16 compressed N times over (zlib, `Content-Encoding: deflate` N
                            times, in fields of at most 1,000), N from 0 to 5000 (default 6).
  /transfer-coding?te=T&content=C
                            200 with "transfer coded\\n" * 200 under `Transfer-Encoding: T`, T one of gzip,chunked (the
                            default), gzip, deflate,chunked, foo,chunked, chunked and chunked,chunked (chunked
                            twice, which HTTP/1.1 forbids), the codings applied in order
                            (deflate as zlib; foo leaves the bytes unchanged: a coding the client cannot know);
                            without chunked last the body ends with the connection. content=gzip compresses it first
                            and says so in `Content-Encoding`.
  /extra-bytes?kind=K&delay_ms=D&token=T
                            A connection kept open (the one route that does not close it), whose first answer
                            is followed, D ms later (default 50, at most 5000), by bytes no request asked for:
                            by then a client has read the answer whole and put the connection back for reuse.
                            Every later request on the connection gets an honest answer: 200, "honest\n", with
                            `X-Request-On-Connection: N` (2, 3, ...), until the client closes it. K:
      head-body             a 200 head announcing 5 bytes, as to a HEAD; then the 5 bytes "hello"
      204-body              a 204 head; then "hello"
      304-body              a 304 head with `Content-Length: 5`; then "hello"
      long-body             200 with `Content-Length: 5` and "hello"; then " world" past the length
      response              200 with "hello"; then a whole second response, 200 "INJECTED\n" with
                            `X-Injected: yes`, which a client that reuses the connection reads as the answer to
                            its next request
                            With group=G&group_size=N, no request of group G is answered before N of them have
                            arrived (at most 30 s): N requests at once then hold N connections.
  /answer-once?close=C      A connection kept open for one answer: 200 "once\n" (`Content-Length`, no `Connection:
                            close`), after which the next request on the connection is read whole (head and body)
                            and never answered: the connection is closed, with a FIN (close=fin, the default) or a
                            TCP RST (close=reset). What a client meets when a server closes an idle kept-alive
                            connection as the client sends on it (an idle timeout, a restart): it must send the
                            request again on a new connection. close=unread: the next request's head is read, its
                            body never; after hold_ms (default 50) the socket is closed with the body unread, so the
                            kernel's RST meets a client still sending a large body (its send fails, not a read).
  /extra-bytes-status?token=T
                            200 "sent\n" once the extra bytes of the /extra-bytes request with token T have been
                            written, else "waiting\n": a test asks (on another connection) before its next request.
  /content-length?case=C    A connection kept open: a 200 whose framing lines are case C's, then the 10 bytes
                            "helloWORLD" (so a client that frames 0, 5 or 10 bytes shows which); the next request
                            on the connection is answered by its own route (/content-length keeps it open again):
      two-lengths           `Content-Length: 5` and `Content-Length: 10`
      list-differ           `Content-Length: 5, 10`
      hex, plus, spaces     `Content-Length: 0x5`, `+5`, `5 5`
      negative, huge        `Content-Length: -5`, `99999999999999999999999` (past 2^63 - 1)
      folded                `Content-Length: 5` continued by a folded line ` 10`
      space-before-colon    `Content-Length : 10`
      te-space-before-colon `Transfer-Encoding : chunked` and `Content-Length: 10`
      te-and-length         `Transfer-Encoding: chunked` and `Content-Length: 10`, the body chunked
      te-http10             an `HTTP/1.0` head with `Transfer-Encoding: chunked` and `Connection: keep-alive`
      plain, list-same, two-same
                            the controls: `Content-Length: 10`; `10, 10`; two fields of `10`
  /switch-protocols         `101 Switching Protocols` (`Upgrade: websocket`) to a request that asked for no upgrade,
                            then bytes of another protocol, then the connection is closed.
  /redirect-raw?location=L  302 whose `Location` is L percent-decoded to bytes, as they are: a Latin-1 `%E9` is the
                            one byte E9, not UTF-8 (old servers send such bytes; httpbin percent-encodes them).
                            Each `location=` parameter is one `Location` field, in order.
  /echo-target...           200 with the request target as the server received it, byte for byte (any path that
                            starts so): where a client went.
  anything else             404 with a plain-text list of the routes; a bad parameter: 400.

What curl 7.88 (the command-line tool) reports for each is in Integration/Servers/README.md.

Usage: chaos_server.py [--host 127.0.0.1] --port PORT [--pid-file FILE] [--cache-dir DIR]
It listens on 127.0.0.1 only (any other --host is refused) and exits on SIGTERM or SIGINT.
"""

import random
import socket
import threading
import gzip
import time
import zlib
from urllib.parse import unquote_to_bytes, urlsplit

import compression_server
import loopback_server
from loopback_server import BadRequest, Query, head_bytes, plain_response

MAX_TRICKLE = 3600
HOLD_LIMIT = 120.0
CHUNK = 1000


log = loopback_server.logger("chaos_server")


def drain_body(sock, headers, already):
    """Reads and drops a Content-Length request body (chunked request bodies are not expected here)."""
    try:
        remaining = int(headers.get("content-length", "0") or "0") - len(already)
    except ValueError:
        raise BadRequest("bad Content-Length")
    loopback_server.discard_body(sock, remaining)


def chunked_head():
    return head_bytes("200 OK", [
        ("Content-Type", "application/octet-stream"),
        ("Transfer-Encoding", "chunked"),
        ("Connection", "close"),
    ])


ROUTES, route = loopback_server.route_table()


@route("/health")
def health(sock, method, query_text):
    sock.sendall(plain_response("200 OK", b"ok\n"))


@route("/compressed")
@route("/bomb")
def compressed(sock, method, query_text, path=None):
    # keep_alive False: the compression server's code then says `Connection: close`, and returning closes
    # the socket (a FIN) unless reset_at already reset it.
    try:
        compression_server.ROUTES[path](sock, method, query_text, False)
    except compression_server.HTTPError as error:
        sock.sendall(plain_response(error.status, ("%s\n" % error).encode()))


@route("/chunked")
def chunked(sock, method, query_text):
    query = Query(query_text)
    size = query.integer("size", 4096, 1, 1 << 24)
    end = query.choice("end", "inside", ("inside", "no-terminator", "no-final-crlf", "complete"))
    body = random.Random(query.integer("seed", 0, 0, 1 << 62)).randbytes(size)
    out = [chunked_head()]
    pieces = [body[offset:offset + CHUNK] for offset in range(0, size, CHUNK)]
    for index, piece in enumerate(pieces):
        if end == "inside" and index == len(pieces) - 1:
            out.append(b"%x\r\n" % len(piece) + piece[:max(1, len(piece) // 2)])
            break
        out.append(b"%x\r\n" % len(piece) + piece + b"\r\n")
    if end == "no-final-crlf":
        out.append(b"0\r\n")
    elif end == "complete":
        out.append(b"0\r\n\r\n")
    sock.sendall(b"".join(out))


LIES = {
    "more": b"1000",
    "fewer": b"10",
    "nonhex": b"zz",
    "huge": b"ffffffffffffffff",
    "too-long": b"1" + b"0" * 16,
    "max": b"7fffffffffffffff",
    "negative": b"-10",
}


@route("/chunk-lie")
def chunk_lie(sock, method, query_text):
    query = Query(query_text)
    lie = query.choice("lie", "more", tuple(LIES))
    keep = query.integer("hold", 0, 0, 1)
    sock.sendall(chunked_head() + LIES[lie] + b"\r\n" + b"a" * 100 + b"\r\n0\r\n\r\n")
    if keep:
        loopback_server.hold_open(sock, HOLD_LIMIT)


@route("/close-after-head")
def close_after_head(sock, method, query_text):
    query = Query(query_text)
    framing = query.choice("framing", "length", ("length", "chunked"))
    abort = query.integer("reset", 0, 0, 1)
    if framing == "length":
        sock.sendall(head_bytes("200 OK", [
            ("Content-Type", "application/octet-stream"),
            ("Content-Length", "1000"),
            ("Connection", "close"),
        ]))
    else:
        sock.sendall(chunked_head())
    if abort:
        loopback_server.close_with_reset(sock)


@route("/trickle")
def trickle(sock, method, query_text):
    query = Query(query_text)
    part = query.choice("part", "body", ("body", "head"))
    interval = query.integer("interval_ms", 1000, 0, 60_000) / 1000.0
    count = query.integer("bytes", 60, 0, MAX_TRICKLE)
    headers = [
        ("Content-Type", "application/octet-stream"),
        ("Content-Length", str(count)),
        ("Connection", "close"),
    ]
    head = head_bytes("200 OK", headers)
    if part == "head":
        if len(head) < count:
            head = head_bytes("200 OK", headers + [("X-Pad", "p" * (count - len(head) - 9))])
        for index in range(len(head)):
            sock.sendall(head[index:index + 1])
            time.sleep(interval)
        sock.sendall(b"*" * count)
        return
    sock.sendall(head)
    for _ in range(count):
        time.sleep(interval)
        sock.sendall(b"*")


@route("/no-read")
def no_read(sock, method, query_text):
    query = Query(query_text)
    answer = query.choice("answer", "none", ("none", "413", "reset"))
    hold_ms = query.integer("hold_ms", 60_000, 0, int(HOLD_LIMIT * 1000))
    if answer in ("413", "reset"):
        if answer == "413":
            sock.sendall(plain_response("413 Payload Too Large", b"too large\n"))
        else:
            # Let the client's upload get going, so that the reset meets it writing.
            time.sleep(hold_ms / 1000.0 if "hold_ms" in query.values else 0.05)
        # close() with unread bytes in the receive queue: the kernel answers with an RST (RFC 2525, 2.17).
        sock.close()
        return
    # Not a single recv: the client's bytes pile up in the socket buffers until its writes block.
    deadline = time.monotonic() + hold_ms / 1000.0
    while time.monotonic() < deadline:
        time.sleep(0.1)
        try:
            # MSG_PEEK reads nothing, so the body stays unread; it only notices a client that closed.
            if sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b"":
                return
        except BlockingIOError:
            continue
        except OSError:
            return


ENDLESS_LINES = {
    # A 103 Early Hints head after another, never the final one.
    "hints": (b"", b"HTTP/1.1 103 Early Hints\r\nLink: </" + b"h" * 64 + b".css>; rel=preload\r\n\r\n"),
    # A 200 status line, then header fields without end.
    "fields": (b"HTTP/1.1 200 OK\r\n", b"X-Field: " + b"f" * 88 + b"\r\n"),
    # A whole chunked body ("hello"), then trailer fields without end.
    "trailers": (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Trailer\r\nConnection: close\r\n\r\n"
                 b"5\r\nhello\r\n0\r\n", b"X-Trailer: " + b"t" * 86 + b"\r\n"),
}


@route("/endless")
def endless(sock, method, query_text):
    query = Query(query_text)
    part = query.choice("part", "trailers", tuple(ENDLESS_LINES) + ("few-trailers",))
    limit = query.integer("limit_mb", 1024, 1, 4096) << 20
    if part == "few-trailers":
        # The control: a chunked body with three short trailer fields, then the blank line that ends them.
        prefix, line = ENDLESS_LINES["trailers"]
        sock.sendall(prefix + line * 3 + b"\r\n")
        return
    prefix, line = ENDLESS_LINES[part]
    block = line * (65536 // len(line))
    deadline = time.monotonic() + HOLD_LIMIT
    try:
        sock.sendall(prefix)
        sent = 0
        while sent < limit and time.monotonic() < deadline:
            sock.sendall(block)
            sent += len(block)
    except OSError:
        return  # The client gave up: what the route is for.


@route("/layers")
def layers(sock, method, query_text):
    query = Query(query_text)
    count = query.integer("count", 6, 0, 5000)
    body = b"layered\n" * 16
    for _ in range(count):
        body = zlib.compress(body, 1)
    # At most 1,000 codings a field (8 KB), as many fields as it takes: libcurl refuses a field over 100 KiB.
    fields = [("Content-Encoding", ", ".join(["deflate"] * min(1000, count - start))) for start in range(0, count, 1000)]
    sock.sendall(head_bytes("200 OK", [
        ("Content-Type", "text/plain"),
        ("Content-Length", str(len(body))),
        ("Connection", "close"),
    ] + fields) + body)


def transfer_coded(body, names):
    """`body` with the codings `names` applied in order: gzip, deflate (zlib), chunked; any other name leaves the
    bytes as they are (a coding the client cannot know)."""
    for name in names:
        if name == "gzip":
            body = gzip.compress(body, mtime=0)
        elif name == "deflate":
            body = zlib.compress(body)
        elif name == "chunked":
            body = b"".join(b"%x\r\n" % len(body[i:i + CHUNK]) + body[i:i + CHUNK] + b"\r\n"
                            for i in range(0, len(body), CHUNK)) + b"0\r\n\r\n"
    return body


TRANSFER_CODINGS = ("gzip,chunked", "gzip", "deflate,chunked", "foo,chunked", "chunked", "chunked,chunked")


@route("/transfer-coding")
def transfer_coding(sock, method, query_text):
    query = Query(query_text)
    chosen = query.choice("te", "gzip,chunked", TRANSFER_CODINGS)
    transfer = chosen.split(",")
    content = query.choice("content", "none", ("none", "gzip"))
    body = b"transfer coded\n" * 200
    headers = [("Content-Type", "text/plain"), ("Connection", "close")]
    if content == "gzip":
        body = gzip.compress(body, mtime=0)
        headers.append(("Content-Encoding", "gzip"))
    headers.append(("Transfer-Encoding", ", ".join(transfer)))
    sock.sendall(head_bytes("200 OK", headers) + transfer_coded(body, transfer))


EXTRA_BYTES = {
    "head-body": (head_bytes("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "5")]), b"hello"),
    "204-body": (head_bytes("204 No Content", []), b"hello"),
    "304-body": (head_bytes("304 Not Modified", [("Content-Length", "5")]), b"hello"),
    "long-body": (head_bytes("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "5")]) + b"hello",
                  b" world"),
    "response": (head_bytes("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "5")]) + b"hello",
                 head_bytes("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "9"),
                                       ("X-Injected", "yes")]) + b"INJECTED\n"),
}
EXTRA_SENT = set()
EXTRA_LOCK = threading.Lock()
EXTRA_GROUPS = {}
EXTRA_GROUPS_CHANGED = threading.Condition()


@route("/extra-bytes")
def extra_bytes(sock, method, query_text):
    query = Query(query_text)
    answer, extra = EXTRA_BYTES[query.choice("kind", "response", tuple(EXTRA_BYTES))]
    delay = query.integer("delay_ms", 50, 0, 5000) / 1000.0
    token = query.values.get("token", [""])[0]
    group, size = query.values.get("group", [""])[0], query.integer("group_size", 1, 1, 64)
    if group:
        # Nobody is answered before the whole group has arrived, so no request of it can reuse another's connection.
        with EXTRA_GROUPS_CHANGED:
            EXTRA_GROUPS[group] = EXTRA_GROUPS.get(group, 0) + 1
            EXTRA_GROUPS_CHANGED.notify_all()
            EXTRA_GROUPS_CHANGED.wait_for(lambda: EXTRA_GROUPS[group] >= size, timeout=30)
    sock.sendall(answer)
    time.sleep(delay)
    sock.sendall(extra)
    with EXTRA_LOCK:
        EXTRA_SENT.add(token)
    count = 1
    while True:
        request = loopback_server.read_request_head(sock)
        if request is None:
            return
        _method, _target, headers, rest = request
        drain_body(sock, headers, rest)
        count += 1
        sock.sendall(head_bytes("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "7"),
                                           ("X-Request-On-Connection", str(count))]) + b"honest\n")


@route("/answer-once")
def answer_once(sock, method, query_text):
    query = Query(query_text)
    close = query.choice("close", "fin", ("fin", "reset", "unread"))
    hold_ms = query.integer("hold_ms", 50, 0, 5000)
    sock.sendall(head_bytes("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "5")]) + b"once\n")
    request = loopback_server.read_request_head(sock)
    if request is None:
        return
    if close == "unread":
        # Let the client's upload get going, then close with its body unread: the kernel's RST meets it sending.
        time.sleep(hold_ms / 1000.0)
        sock.close()
        return
    _method, _target, headers, rest = request
    drain_body(sock, headers, rest)  # read whole, so that a FIN is a FIN and not the kernel's RST for unread bytes
    if close == "reset":
        loopback_server.close_with_reset(sock)


CONTENT_LENGTH_CASES = {
    "two-lengths": [b"Content-Length: 5", b"Content-Length: 10"],
    "list-differ": [b"Content-Length: 5, 10"],
    "hex": [b"Content-Length: 0x5"],
    "plus": [b"Content-Length: +5"],
    "spaces": [b"Content-Length: 5 5"],
    "negative": [b"Content-Length: -5"],
    "huge": [b"Content-Length: 99999999999999999999999"],
    "folded": [b"Content-Length: 5", b" 10"],
    "space-before-colon": [b"Content-Length : 10"],
    "te-space-before-colon": [b"Transfer-Encoding : chunked", b"Content-Length: 10"],
    "te-and-length": [b"Transfer-Encoding: chunked", b"Content-Length: 10"],
    "te-http10": [b"Transfer-Encoding: chunked", b"Connection: keep-alive"],
    "plain": [b"Content-Length: 10"],
    "list-same": [b"Content-Length: 10, 10"],
    "two-same": [b"Content-Length: 10", b"Content-Length: 10"],
}


@route("/content-length")
def content_length(sock, method, query_text):
    lines = CONTENT_LENGTH_CASES[Query(query_text).choice("case", "plain", tuple(CONTENT_LENGTH_CASES))]
    # Written by hand: head_bytes would write one Content-Length of its own making.
    # te-and-length: the body chunked, so that the length frames it otherwise (its first 10 bytes, the rest a
    # response to a client that framed by it).
    body = b"a\r\nhelloWORLD\r\n0\r\n\r\n" if lines[0].startswith(b"Transfer-Encoding: ") else b"helloWORLD"
    # te-http10: an HTTP/1.0 head (kept alive) with a transfer coding, which HTTP/1.0 does not have.
    version = b"HTTP/1.0" if Query(query_text).values.get("case") == ["te-http10"] else b"HTTP/1.1"
    sock.sendall(version + b" 200 OK\r\nContent-Type: text/plain\r\n" + b"".join(line + b"\r\n" for line in lines)
                 + b"\r\n" + body)
    # The next request on the connection, if the client framed the body as the server did and kept it: answered by
    # its own route, as a new connection's first request would be.
    request = loopback_server.read_request_head(sock)
    if request is None:
        return
    next_method, target, headers, rest = request
    drain_body(sock, headers, rest)
    dispatch(sock, next_method, target)


@route("/switch-protocols")
def switch_protocols(sock, method, query_text):
    # To any request: none asked for an upgrade (RFC 9110 section 15.2.2 forbids the switch then).
    sock.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
                 b"\x81\x05hello, in another protocol")


@route("/extra-bytes-status")
def extra_bytes_status(sock, method, query_text):
    token = Query(query_text).values.get("token", [""])[0]
    with EXTRA_LOCK:
        sent = token in EXTRA_SENT
    sock.sendall(plain_response("200 OK", b"sent\n" if sent else b"waiting\n"))


@route("/redirect-raw")
def redirect_raw(sock, method, query_text):
    # Read from the raw query: parse_qs would decode the escapes as UTF-8 and replace the bytes that are not.
    raws = [part[len("location="):] for part in query_text.split("&") if part.startswith("location=")] or ["/"]
    locations = [unquote_to_bytes(raw) for raw in raws]
    if any(b"\r" in location or b"\n" in location for location in locations):
        raise BadRequest("location must not hold CR or LF")
    fields = b"".join(b"Location: " + location + b"\r\n" for location in locations)
    sock.sendall(b"HTTP/1.1 302 Found\r\n" + fields + b"Content-Length: 0\r\nConnection: close\r\n\r\n")


def echo_target(sock, target):
    raw = target.encode("latin-1")
    sock.sendall(head_bytes("200 OK", [("Content-Type", "application/octet-stream"), ("Content-Length", str(len(raw))),
                                       ("Connection", "close")]) + raw)


READS_BODY = {"/no-read": False}


def not_found(sock, method, query_text):
    sock.sendall(plain_response("404 Not Found", loopback_server.unknown_route_text(ROUTES)))


class Handler(loopback_server.OneRequestHandler):
    timeout = HOLD_LIMIT

    def answer(self, sock, method, target, headers, rest):
        if READS_BODY.get(urlsplit(target).path, True):
            drain_body(sock, headers, rest)
        dispatch(sock, method, target)


def dispatch(sock, method, target):
    """Answers a request whose body has been dealt with, by the route its target names."""
    parts = urlsplit(target)
    if parts.path.startswith("/echo-target"):
        echo_target(sock, target)
        return
    handler = ROUTES.get(parts.path, not_found)
    if handler is compressed:
        compressed(sock, method, parts.query, parts.path)
    else:
        handler(sock, method, parts.query)


def main():
    parsed = loopback_server.arguments("Courier's chaos server (see the module docstring).",
                                       compression_server.cache_dir_argument)
    compression_server.open_cache(parsed.cache_dir)
    loopback_server.serve(loopback_server.listen(Handler, parsed), parsed, log)


if __name__ == "__main__":
    main()
