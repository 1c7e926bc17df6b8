// The decoders behind HTTP's content codings (gzip and deflate from zlib, br from brotli, zstd),
// for CourierCurl, which decodes response bodies itself so it can bound the memory a paused
// transfer holds (see docs/curl-transport.md). Swift cannot call zlib's `inflateInit2`, a
// function-like macro, so it gets a typed wrapper here. Only CourierCurl imports this module,
// with `internal import`.
#ifndef COURIER_CCOMPRESSION_SHIM_H
#define COURIER_CCOMPRESSION_SHIM_H

#include <zlib.h>
#include <brotli/decode.h>
#include <zstd.h>

/// `inflateInit2` (a macro in zlib.h): 15 + 16 for gzip, 15 for zlib, -15 for raw deflate.
static inline int ccompression_inflate_init(z_stream *stream, int window_bits) {
    return inflateInit2(stream, window_bits);
}

#endif
