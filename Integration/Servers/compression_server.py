#!/usr/bin/env python3
"""Courier's compression server: HTTP/1.1 (stdlib plus brotlicffi and zstandard from requirements.txt) serving
compressed bodies of known content, for the decoding test matrix.

Connections are kept alive: each serves requests until the client closes it, sends `Connection: close`, speaks
HTTP/1.0, or stays idle for 120 s. Every body is generated once, streamed through the compressors to a file in
the cache directory (never held in memory), and from then on streamed from that file in 64 KiB writes. The
first request for a body waits for its generation (times below); a HEAD request warms the cache the same way.

Routes (GET or HEAD; other methods get 405)
  /health                   200 "ok\\n": the readiness probe of Scripts/servers.sh.
  /compressed?encoding=E&size=N&ratio=R&framing=F&seed=S
                            200 with N decoded bytes encoded with E. Parameters (all optional; any other one
                            is refused with 400):
      encoding  gzip (the default), deflate (zlib-wrapped, as RFC 9110 says), deflate-raw (raw deflate sent as
                `Content-Encoding: deflate`, as some broken servers do), br, zstd, identity (no
                Content-Encoding header at all), or a comma-separated list of up to 4 of them (not identity),
                e.g. `gzip,br`: applied in the listed order, announced as `Content-Encoding: gzip, br`.
                Levels: gzip/deflate 6, brotli quality 4 (window 2^22, flushed every 4 MiB of input), zstd 3
                with its content checksum.
      size      decoded bytes: 0 to 1 GiB, with an optional suffix k, m or g (powers of 1024): 64k, 256m, 1g.
                Default 64k.
      ratio     1 (the default): random bytes, incompressible. 2 to 10000: random bytes mixed with runs of
                zeros, runs of one byte and a repeated phrase of a few words, in proportions aimed at a
                compression ratio (decoded / encoded) of about R; see the table below.
      framing   length (the default, Content-Length) or chunked (Transfer-Encoding: chunked, chunk sizes
                drawn uniformly from 1 to 65536 bytes by a generator seeded with the seed).
      seed      0 (the default) to 2^63-1: the data is deterministic in (seed, ratio, size): random.Random(seed)
                draws it, so it is the same on every machine.
      delay_ms  waits M ms (0 to 60000) before each write of the body: each 64 KiB with length framing, each
                chunk with chunked framing. A slow server.
      stall_after, stall_ms
                once K body bytes (0 to 2^40) are sent, waits M ms (0 to 60000) once before the next write: a
                body that stops arriving mid-way (K counts whole writes: the stall comes at the first write
                boundary at or past K).
      reset_at  after K body bytes (0 = right after the head; chunk framing not counted; K beyond the body = all of
                it, without the terminating chunk) closes with SO_LINGER 0: a TCP RST. The client may see fewer
                than K bytes (the RST discards what it has not read yet).
      truncate  1: the encoded body without its last 16 bytes (`truncate_bytes=K` for another count, 1 or more):
                for gzip the 8-byte trailer and the end of the deflate data. Content-Length (or the chunks and
                their terminating chunk) and X-Encoded-Length describe what is sent, so the framing is valid
                and only the decoder can notice.
      corrupt   1: the byte in the middle of what is sent (offset X-Encoded-Length // 2, also in the header
                X-Corrupted-Offset) is flipped (XOR 0xFF). gzip (CRC-32), deflate (Adler-32) and zstd (content
                checksum) always detect it; br and deflate-raw have no checksum, and a flip may only change the
                decoded bytes (curl 7.88 reports nothing for either at ratio 18): compare with X-Decoded-SHA256.
      corrupt_at
                K: the byte at offset K of what is sent (0 <= K < X-Encoded-Length) is flipped instead of the middle
                one (implies corrupt=1; X-Corrupted-Offset says K): for a matrix of offsets drawn from a seed. An
                offset past the end is refused with 400, so a test never believes it corrupted a body it did not.
                truncate, corrupt, delay_ms and reset_at are applied while sending; they never change the cache.
  /bomb?encoding=E&size=N   N decoded zero bytes compressed as tightly as possible: gzip/deflate/deflate-raw level 9
                            (memLevel 9), brotli quality 11 (window 2^24, no flushes), zstd level 19. A
                            decompression bomb. size defaults to 1g and goes up to 16g; encoding (default gzip)
                            takes the lists above; framing, delay_ms, reset_at, truncate, corrupt and corrupt_at work as
                            above.
  anything else             404 with a plain-text list of the routes.

Headers of /compressed and /bomb: Content-Type: application/octet-stream, Content-Encoding (not for identity),
X-Decoded-Length: N, X-Decoded-SHA256: hex SHA-256 of the decoded bytes, X-Encoded-Length: the bytes of encoded
body sent (after truncation), X-Cache: hit or miss (miss: this request generated the body), Content-Length or
Transfer-Encoding: chunked.

Achieved ratios (decoded / encoded; seed 0; measured here, the same for both framings):

    ratio  size    gzip   deflate  deflate-raw  br      zstd    gzip,br  identity
    1      any     1.00   1.00     1.00         1.00    1.00    1.00     1
    18     64k     16.1   16.1     16.1         17.1    17.2    16.4     1
    18     1m      16.8   16.8     16.8         17.9    17.9    17.3     1
    18     16m     17.8   17.8     17.8         19.1    18.9    18.5     1
    18     256m    18.2   18.2     18.2         19.5    19.4    19.0     1
    1000   64k     259    272      279          482     496     308      1
    1000   1m      586    590      592          1584    1456    1257     1
    1000   16m     600    601      601          1663    1464    1424     1
    1000   256m    581    581      581          1590    1412    1380     1
    (ratio 2: 1.42 at 64k, 2.1 from 1m up; at 16m, ratio 100: gzip 85, br 112, zstd 108; ratio 10000:
    gzip 987, br 27594, zstd 15709)

  Deflate cannot pass about 1030:1 even on zeros, so ratio 1000 aims at the geometric mean of deflate and
  brotli/zstd. A 64 KiB body holds only a few segments (the first one random), hence its lower ratios.
Generation (2 cores, the other one busy with a build; fsync included) of 256 MiB, ratio 1: gzip, deflate and
deflate-raw 8 s, gzip,br 10 s, br 3.2 s, zstd 1.8 s, identity 1.7 s; ratio 18: 0.5 (zstd) to 2 s (gzip); ratio
1000: 0.3 to 1.5 s; 16 MiB and smaller: at most 0.7 s. Bombs of 1 GiB: gzip 6.3 s (1042069 bytes), br 27 s
(841 bytes), zstd 2.3 s (32789 bytes: zstd's blocks hold at most 128 KiB), gzip,br 6.5 s (161 bytes).

Cache: --cache-dir (default $COURIER_STATE_DIR/compressed, else a directory in the system's temporary
directory); one NAME.bin (the encoded body) and NAME.json (lengths, hashes, generation time) per body, written
to temporary files and renamed, so a body is generated once per machine and a crash leaves nothing half-made
(its temporary files are removed at the next start). Delete the directory to free the space: a 1 GiB ratio 1
body takes 1 GiB per encoding.

Usage: compression_server.py [--host 127.0.0.1] --port PORT [--pid-file FILE] [--cache-dir DIR]
It listens on 127.0.0.1 only (any other --host is refused) and exits on SIGTERM or SIGINT.
"""

import hashlib
import json
import math
import os
import random
import re
import socket
import socketserver
import tempfile
import threading
import time
import zlib
from urllib.parse import parse_qs, urlsplit

import brotlicffi as brotli
import zstandard

import loopback_server
from loopback_server import head_bytes

MAX_HEAD = 64 * 1024
IDLE_TIMEOUT = 120.0
WRITE_SIZE = 64 * 1024
PIECE = 1 << 20  # decoded bytes handed to the compressors at a time (about)
GENERATOR_VERSION = 1  # part of every cache name: change it when the data or the encoders change
MAX_SIZE = 1 << 30
MAX_BOMB_SIZE = 16 << 30
MAX_RATIO = 10_000
MAX_STACK = 4
DEFAULT_TRUNCATE_BYTES = 16
CACHE_DIR = None  # set by open_cache()

ENCODINGS = ("gzip", "deflate", "deflate-raw", "br", "zstd", "identity")


log = loopback_server.logger("compression_server")


class HTTPError(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def bad_request(message):
    return HTTPError("400 Bad Request", message)


# --- the decoded data ---------------------------------------------------------------------------------

VOCABULARY = (b"courier", b"stream", b"decode", b"chunk", b"window", b"header", b"body", b"frame", b"gzip",
              b"brotli", b"zstd", b"deflate", b"client", b"server", b"length", b"socket", b"buffer",
              b"request", b"response", b"linux", b"swift", b"encoding", b"transfer", b"content")

# Mean length of a (random segment, filler segment) pair.
PAIR_LENGTH = 16 * 1024
# What deflate (level 6) reaches on each kind of filler alone, measured in segments of about 16 KiB: zeros,
# a run of one byte, a repeated phrase. brotli and zstd reach far more on all three.
DEFLATE_ZEROS, DEFLATE_BYTE_RUN, DEFLATE_PHRASE = 1027.0, 900.0, 300.0


def filler_shares(ratio):
    """(byte run, phrase) shares of the filler; zeros take the rest. Up to ratio 100 a mix (40 % zeros, 20 %
    runs of one byte, 40 % phrases); above it mostly zeros, which deflate compresses best."""
    weight = min(1.0, 100.0 / ratio)
    return 0.2 * weight, 0.4 * weight


def random_fraction(ratio):
    """The share of random (incompressible) bytes for a target ratio R. With a share f, brotli and zstd reach
    about 1/f, deflate about 1/(f + 1/Z) where Z is its ratio on the filler alone; f = 1/(cR) with
    c = (R/Z + sqrt((R/Z)^2 + 4)) / 2 puts R at the geometric mean of the two (c is about 1 for R << Z).
    The factor 0.93 makes up for what the segments' boundaries cost (measured)."""
    byte_run, phrase = filler_shares(ratio)
    zeros = 1.0 - byte_run - phrase
    filler_ratio = 1.0 / (zeros / DEFLATE_ZEROS + byte_run / DEFLATE_BYTE_RUN + phrase / DEFLATE_PHRASE)
    q = ratio / filler_ratio
    c = (q + math.sqrt(q * q + 4.0)) / 2.0
    return 0.93 / (ratio * c)


def filler(rng, length, shares):
    byte_run, phrase = shares
    kind = rng.random()
    if kind < byte_run:
        return bytes((rng.randrange(256),)) * length
    if kind < byte_run + phrase:
        words = b" ".join(rng.choice(VOCABULARY) for _ in range(rng.randint(1, 4))) + b"\n"
        return (words * (length // len(words) + 1))[:length]
    return bytes(length)


def decoded_pieces(size, ratio, seed):
    """Yields the decoded body in pieces of about PIECE bytes (never all of it at once)."""
    rng = random.Random(seed)
    remaining = size
    if ratio == 1:
        while remaining > 0:
            count = min(PIECE, remaining)
            yield rng.randbytes(count)
            remaining -= count
        return
    share = random_fraction(ratio)
    shares = filler_shares(ratio)
    random_mean = max(64.0, PAIR_LENGTH * share)
    # At most 2 MiB on average (4 MiB at most) so that no segment is big in memory; it bounds only ratios
    # above about 10000, which deflate cannot reach anyway.
    filler_mean = min(2.0 * PIECE, random_mean * (1.0 - share) / share)
    random_high = max(1, int(2 * random_mean) - 1)
    filler_high = max(1, int(2 * filler_mean) - 1)
    buffer = bytearray()
    while remaining > 0:
        count = min(remaining, rng.randint(1, random_high))
        buffer += rng.randbytes(count)
        remaining -= count
        if remaining > 0:
            count = min(remaining, rng.randint(1, filler_high))
            buffer += filler(rng, count, shares)
            remaining -= count
        if len(buffer) >= PIECE or remaining == 0:
            yield bytes(buffer)
            buffer.clear()


def zero_pieces(size):
    zeros = bytes(4 << 20)
    remaining = size
    while remaining > 0:
        count = min(len(zeros), remaining)
        yield zeros if count == len(zeros) else zeros[:count]
        remaining -= count


# --- encoders: compress(data) -> bytes, finish() -> bytes -------------------------------------------------

class ZlibEncoder:
    def __init__(self, wbits, level, mem_level=8):
        self.stream = zlib.compressobj(level, zlib.DEFLATED, wbits, mem_level)
        self.compress = self.stream.compress
        self.finish = self.stream.flush


class BrotliEncoder:
    """brotlicffi's Compressor.process makes one BrotliEncoderCompressStream call with an output buffer of
    1.25 × the input and asserts that it took all the input, which fails once the encoder has buffered more
    than that (with random data at quality 4, at 8 MiB). Flushing after every `flush_every` bytes of input
    keeps what it holds below that; bombs (zeros: tiny output) are not flushed, to stay as small as possible."""

    def __init__(self, quality, lgwin, flush_every):
        self.stream = brotli.Compressor(quality=quality, lgwin=lgwin)
        self.flush_every = flush_every
        self.pending = bytearray()

    def compress(self, data):
        if not self.flush_every:
            return self.stream.process(data)
        self.pending += data
        out = []
        while len(self.pending) >= self.flush_every:
            piece = bytes(self.pending[:self.flush_every])
            del self.pending[:self.flush_every]
            out.append(self.stream.process(piece))
            out.append(self.stream.flush())
        return b"".join(out)

    def finish(self):
        out = []
        if self.pending:
            out.append(self.stream.process(bytes(self.pending)))
            self.pending.clear()
        out.append(self.stream.finish())
        return b"".join(out)


class ZstdEncoder:
    def __init__(self, level):
        self.stream = zstandard.ZstdCompressor(level=level, write_checksum=True).compressobj()
        self.compress = self.stream.compress
        self.finish = self.stream.flush


class IdentityEncoder:
    def compress(self, data):
        return data

    def finish(self):
        return b""


def make_encoder(name, bomb):
    if name == "gzip":
        return ZlibEncoder(31, 9, 9) if bomb else ZlibEncoder(31, 6)
    if name == "deflate":
        return ZlibEncoder(15, 9, 9) if bomb else ZlibEncoder(15, 6)
    if name == "deflate-raw":
        return ZlibEncoder(-15, 9, 9) if bomb else ZlibEncoder(-15, 6)
    if name == "br":
        return BrotliEncoder(11, 24, 0) if bomb else BrotliEncoder(4, 22, 4 << 20)
    if name == "zstd":
        return ZstdEncoder(19 if bomb else 3)
    return IdentityEncoder()


def content_encoding(encodings):
    """The header value, or None for identity."""
    names = ["deflate" if name == "deflate-raw" else name for name in encodings if name != "identity"]
    return ", ".join(names) or None


# --- the cache --------------------------------------------------------------------------------------------

GENERATION_LOCKS = {}
GENERATION_LOCKS_LOCK = threading.Lock()


def generation_lock(name):
    with GENERATION_LOCKS_LOCK:
        return GENERATION_LOCKS.setdefault(name, threading.Lock())


def read_meta(name):
    try:
        with open(os.path.join(CACHE_DIR, name + ".json")) as file:
            meta = json.load(file)
        if os.path.getsize(os.path.join(CACHE_DIR, name + ".bin")) == meta["encoded_length"]:
            return meta
    except (OSError, ValueError, KeyError):
        pass
    return None


def write_atomically(path, write):
    temporary = "%s.%d.%d.tmp" % (path, os.getpid(), threading.get_ident())
    try:
        with open(temporary, "wb") as file:
            write(file)
            file.flush()
            os.fsync(file.fileno())
        os.rename(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def generate(name, pieces, encoders):
    """Streams `pieces` through the encoder chain into NAME.bin, hashing both sides; writes NAME.json."""
    started = time.monotonic()
    decoded = hashlib.sha256()
    encoded = hashlib.sha256()
    counts = {"decoded": 0, "encoded": 0}

    def through(data, index=0):
        for encoder in encoders[index:]:
            data = encoder.compress(data)
        return data

    def write_body(file):
        def emit(data):
            if data:
                encoded.update(data)
                counts["encoded"] += len(data)
                file.write(data)

        for piece in pieces:
            decoded.update(piece)
            counts["decoded"] += len(piece)
            emit(through(piece))
        # Finish each encoder in turn, passing what it flushes through the ones after it.
        for index, encoder in enumerate(encoders):
            emit(through(encoder.finish(), index + 1))

    write_atomically(os.path.join(CACHE_DIR, name + ".bin"), write_body)
    seconds = time.monotonic() - started
    meta = {
        "decoded_length": counts["decoded"],
        "decoded_sha256": decoded.hexdigest(),
        "encoded_length": counts["encoded"],
        "encoded_sha256": encoded.hexdigest(),
        "generation_seconds": round(seconds, 3),
    }
    text = json.dumps(meta, indent=1).encode()
    write_atomically(os.path.join(CACHE_DIR, name + ".json"), lambda file: file.write(text))
    ratio = meta["decoded_length"] / meta["encoded_length"] if meta["encoded_length"] else 0.0
    log("generated %s: %d -> %d bytes (ratio %.2f) in %.2f s" % (
        name, meta["decoded_length"], meta["encoded_length"], ratio, seconds))
    return meta


def cached(name, make_pieces, encodings, bomb):
    """(meta, generated_now) of the body NAME, generating it once (one thread per name generates; the
    others wait for it)."""
    meta = read_meta(name)
    if meta:
        return meta, False
    with generation_lock(name):
        meta = read_meta(name)
        if meta:
            return meta, False
        return generate(name, make_pieces(), [make_encoder(e, bomb) for e in encodings]), True


def remove_stale_temporaries():
    """Removes temporary files whose writer (a pid of a compression server) no longer runs."""
    for entry in os.listdir(CACHE_DIR):
        match = re.fullmatch(r".*\.(\d+)\.\d+\.tmp", entry)
        if not match:
            continue
        pid = int(match.group(1))
        if pid != os.getpid() and os.path.exists("/proc/%d" % pid):
            continue
        try:
            os.unlink(os.path.join(CACHE_DIR, entry))
            log("removed the stale %s" % entry)
        except OSError:
            pass


# --- HTTP -------------------------------------------------------------------------------------------------

class Connection:
    """A client connection with a read buffer, so that pipelined requests are not lost."""

    def __init__(self, sock):
        self.sock = sock
        self.buffer = b""

    def read_request(self):
        """(method, target, version, headers) of the next request, its Content-Length body discarded, or None
        when the client closed (or stayed idle too long) between requests."""
        while b"\r\n\r\n" not in self.buffer:
            if len(self.buffer) > MAX_HEAD:
                raise bad_request("request head too large")
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                return None
            if not chunk:
                return None
            self.buffer += chunk
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        method, target, version, headers = loopback_server.parse_request_head(head, bad_request)
        if "transfer-encoding" in headers:
            raise bad_request("request bodies must have a Content-Length")
        try:
            remaining = int(headers.get("content-length", "0") or "0")
        except ValueError:
            raise bad_request("bad Content-Length")
        while remaining > 0:
            if not self.buffer:
                self.buffer = self.sock.recv(65536)
                if not self.buffer:
                    return None
            taken = min(remaining, len(self.buffer))
            self.buffer = self.buffer[taken:]
            remaining -= taken
        return method, target, version, headers


def send_simple(sock, method, status, body, keep_alive, content_type="text/plain"):
    headers = [("Content-Type", content_type), ("Content-Length", str(len(body)))]
    if not keep_alive:
        headers.append(("Connection", "close"))
    sock.sendall(head_bytes(status, headers) + (b"" if method == "HEAD" else body))


class Query:
    def __init__(self, text, allowed):
        self.values = parse_qs(text, keep_blank_values=True)
        unknown = sorted(set(self.values) - set(allowed))
        if unknown:
            raise bad_request("unknown parameter %s; this route takes %s" % (", ".join(unknown), ", ".join(allowed)))

    def text(self, name, default):
        values = self.values.get(name)
        if not values:
            return default
        if len(values) > 1:
            raise bad_request("%s given more than once" % name)
        return values[0]

    def integer(self, name, default, low, high):
        text = self.text(name, None)
        if text is None:
            return default
        if not re.fullmatch(r"[0-9]+", text):
            raise bad_request("%s must be an integer" % name)
        value = int(text)
        if not low <= value <= high:
            raise bad_request("%s must be in %d...%d" % (name, low, high))
        return value

    def size(self, name, default, high):
        text = self.text(name, default).strip().lower()
        match = re.fullmatch(r"([0-9]+)([kmg]?)", text)
        if not match:
            raise bad_request("%s must be a byte count with an optional k, m or g suffix (64k, 256m)" % name)
        value = int(match.group(1)) << {"": 0, "k": 10, "m": 20, "g": 30}[match.group(2)]
        if value > high:
            raise bad_request("%s must be at most %d bytes" % (name, high))
        return value

    def encodings(self):
        names = [name.strip() for name in self.text("encoding", "gzip").split(",")]
        for name in names:
            if name not in ENCODINGS:
                raise bad_request("encoding %r is not one of %s" % (name, ", ".join(ENCODINGS)))
        if len(names) > 1 and "identity" in names:
            raise bad_request("identity cannot be part of a list of encodings")
        if len(names) > MAX_STACK:
            raise bad_request("at most %d stacked encodings" % MAX_STACK)
        return names


COMMON_PARAMETERS = ("encoding", "size", "framing", "seed", "delay_ms", "reset_at", "truncate",
                     "truncate_bytes", "corrupt", "corrupt_at", "stall_after", "stall_ms")


class Sending:
    """How a body goes out: the parameters that never change the cache, checked before any generation."""

    def __init__(self, query, seed):
        self.framing = query.text("framing", "length")
        if self.framing not in ("length", "chunked"):
            raise bad_request("framing must be length or chunked")
        self.delay = query.integer("delay_ms", 0, 0, 60_000) / 1000.0
        self.truncate = query.integer("truncate", 0, 0, 1)
        self.truncate_bytes = query.integer("truncate_bytes", DEFAULT_TRUNCATE_BYTES, 1, 1 << 40)
        if "truncate_bytes" in query.values and not self.truncate:
            raise bad_request("truncate_bytes needs truncate=1")
        self.corrupt = query.integer("corrupt", 0, 0, 1)
        self.corrupt_at = query.integer("corrupt_at", -1, 0, 1 << 40)
        if self.corrupt_at >= 0:
            self.corrupt = 1
        self.reset_at = query.integer("reset_at", -1, 0, 1 << 40)
        self.stall_after = query.integer("stall_after", -1, 0, 1 << 40)
        self.stall = query.integer("stall_ms", 0, 0, 60_000) / 1000.0
        self.seed = seed


def send_body(sock, method, sending, meta, name, encodings, generated, keep_alive):
    """Sends the cached body NAME as `sending` says. Returns whether the connection stays usable."""
    encoded_length = meta["encoded_length"]
    sent_length = max(0, encoded_length - sending.truncate_bytes) if sending.truncate else encoded_length
    reset_at = min(sending.reset_at, sent_length)
    corrupt_offset = -1
    if sending.corrupt:
        if sent_length == 0:
            raise bad_request("an empty body has no byte to corrupt")
        corrupt_offset = sent_length // 2 if sending.corrupt_at < 0 else sending.corrupt_at
        if corrupt_offset >= sent_length:
            raise bad_request("corrupt_at must be below the %d bytes sent" % sent_length)

    headers = [("Content-Type", "application/octet-stream")]
    coding = content_encoding(encodings)
    if coding:
        headers.append(("Content-Encoding", coding))
    headers += [
        ("X-Decoded-Length", str(meta["decoded_length"])),
        ("X-Decoded-SHA256", meta["decoded_sha256"]),
        ("X-Encoded-Length", str(sent_length)),
        ("X-Cache", "miss" if generated else "hit"),
    ]
    if sending.corrupt:
        headers.append(("X-Corrupted-Offset", str(corrupt_offset)))
    if sending.framing == "length":
        headers.append(("Content-Length", str(sent_length)))
    else:
        headers.append(("Transfer-Encoding", "chunked"))
    if not keep_alive:
        headers.append(("Connection", "close"))
    sock.sendall(head_bytes("200 OK", headers))
    if method == "HEAD":
        return keep_alive
    if reset_at == 0:
        loopback_server.close_with_reset(sock)
        return False

    chunked = sending.framing == "chunked"
    chunk_sizes = random.Random("chunks-%d" % sending.seed)
    limit = sent_length if reset_at < 0 else reset_at
    offset = 0
    stalled = False
    with open(os.path.join(CACHE_DIR, name + ".bin"), "rb") as file:
        while offset < limit:
            # A chunk's size line announces all of it even when a reset cuts it short.
            size = min(chunk_sizes.randint(1, 65536) if chunked else WRITE_SIZE, sent_length - offset)
            data = file.read(size)
            if len(data) != size:
                raise RuntimeError("the cache file %s.bin is shorter than its metadata says" % name)
            if offset <= corrupt_offset < offset + size:
                flipped = bytearray(data)
                flipped[corrupt_offset - offset] ^= 0xFF
                data = bytes(flipped)
            if sending.delay:
                time.sleep(sending.delay)
            if not stalled and 0 <= sending.stall_after <= offset:
                stalled = True
                time.sleep(sending.stall)
            cut = min(size, limit - offset)
            if chunked:
                sock.sendall(b"%x\r\n" % size + data[:cut] + (b"\r\n" if cut == size else b""))
            else:
                sock.sendall(data[:cut])
            offset += cut
    if reset_at >= 0:
        loopback_server.close_with_reset(sock)
        return False
    if chunked:
        sock.sendall(b"0\r\n\r\n")
    return keep_alive


def body_name(kind, encodings, size, ratio, seed):
    return "v%d-%s-%s-%d-r%d-s%d" % (GENERATOR_VERSION, kind, "+".join(encodings), size, ratio, seed)


ROUTES, route = loopback_server.route_table()


@route("/health")
def health(sock, method, query_text, keep_alive):
    send_simple(sock, method, "200 OK", b"ok\n", keep_alive)
    return keep_alive


@route("/compressed")
def compressed(sock, method, query_text, keep_alive):
    query = Query(query_text, COMMON_PARAMETERS + ("ratio",))
    encodings = query.encodings()
    size = query.size("size", "64k", MAX_SIZE)
    ratio = query.integer("ratio", 1, 1, MAX_RATIO)
    seed = query.integer("seed", 0, 0, (1 << 63) - 1)
    sending = Sending(query, seed)  # every parameter is checked before a long generation
    name = body_name("compressed", encodings, size, ratio, seed)
    meta, generated = cached(name, lambda: decoded_pieces(size, ratio, seed), encodings, bomb=False)
    return send_body(sock, method, sending, meta, name, encodings, generated, keep_alive)


@route("/bomb")
def bomb(sock, method, query_text, keep_alive):
    query = Query(query_text, COMMON_PARAMETERS)
    encodings = query.encodings()
    size = query.size("size", "1g", MAX_BOMB_SIZE)
    seed = query.integer("seed", 0, 0, (1 << 63) - 1)  # only for the chunk sizes
    sending = Sending(query, seed)
    name = body_name("bomb", encodings, size, 0, 0)
    meta, generated = cached(name, lambda: zero_pieces(size), encodings, bomb=True)
    return send_body(sock, method, sending, meta, name, encodings, generated, keep_alive)


def not_found(sock, method, query_text, keep_alive):
    send_simple(sock, method, "404 Not Found", loopback_server.unknown_route_text(ROUTES), keep_alive)
    return keep_alive


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        sock = self.request
        loopback_server.prepare_connection(sock, IDLE_TIMEOUT)
        connection = Connection(sock)
        keep_alive = True
        try:
            while keep_alive:
                request = connection.read_request()
                if request is None:
                    return
                method, target, version, headers = request
                connection_tokens = [t.strip().lower() for t in headers.get("connection", "").split(",")]
                keep_alive = version == "HTTP/1.1" and "close" not in connection_tokens
                parts = urlsplit(target)
                try:
                    if method not in ("GET", "HEAD"):
                        raise HTTPError("405 Method Not Allowed", "GET or HEAD only")
                    keep_alive = ROUTES.get(parts.path, not_found)(sock, method, parts.query, keep_alive)
                except HTTPError as error:
                    # Raised before anything of the response went out, with the request read whole.
                    send_simple(sock, method, error.status, ("%s\n" % error).encode(), keep_alive)
        except HTTPError as error:
            # A request head that could not be parsed: the stream is lost, so answer and close.
            try:
                send_simple(sock, "GET", error.status, ("%s\n" % error).encode(), False)
            except OSError:
                pass
        except OSError:
            pass  # The client went away (or the send timed out): nothing to do.
        except Exception as error:  # a bug or a failed generation: say so rather than hang up silently
            log("error: %r" % error)
            try:
                send_simple(sock, "GET", "500 Internal Server Error", ("%r\n" % error).encode(), False)
            except OSError:
                pass


def default_cache_dir():
    state = os.environ.get("COURIER_STATE_DIR")
    if state:
        return os.path.join(state, "compressed")
    return os.path.join(tempfile.gettempdir(), "courier-compressed-%d" % os.getuid())


def cache_dir_argument(parser):
    """--cache-dir, of this server and of the chaos server, which serves the same bodies from the same cache."""
    parser.add_argument("--cache-dir", default=None,
                        help="where generated bodies are kept (default $COURIER_STATE_DIR/compressed)")


def open_cache(path):
    """Makes `path` (--cache-dir; None for the default) the cache of generated bodies, creating it if needed."""
    global CACHE_DIR
    CACHE_DIR = os.path.abspath(path or default_cache_dir())
    os.makedirs(CACHE_DIR, exist_ok=True)


def main():
    parsed = loopback_server.arguments("Courier's compression server (see the module docstring).",
                                       cache_dir_argument)
    open_cache(parsed.cache_dir)
    remove_stale_temporaries()
    log("cache in %s" % CACHE_DIR)
    loopback_server.serve(loopback_server.listen(Handler, parsed), parsed, log)


if __name__ == "__main__":
    main()
