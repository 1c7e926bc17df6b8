internal import CCompression
import CourierCore

/// What one call of a ``ContentDecoder`` did.
struct DecodeStep: Equatable {
    /// Input bytes used.
    var consumed: Int
    /// Output bytes written.
    var produced: Int
    /// The compressed stream (or gzip member, or zstd frame) ended with this call.
    var streamEnded: Bool
}

/// Decodes one content coding from pieces of input into bounded pieces of output, so a body of
/// any ratio is decoded only as fast as its reader takes it. Implemented once per C library; the
/// pipeline (``DecodingStage``) does the buffering, the limits and the end-of-body checks.
protocol ContentDecoder: AnyObject {
    /// Decodes what it can of `input` into `output`. An empty `input` asks for output the decoder
    /// still holds (after a call that filled `output`).
    func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws -> DecodeStep
    /// Whether bytes that follow an ended stream begin another one this decoder continues with
    /// (a second gzip member); false means they are trailing bytes, ignored as libcurl and gunzip do.
    func startsAnotherStream(_ bytes: ArraySlice<UInt8>) -> Bool
}

extension ContentDecoder {
    func startsAnotherStream(_ bytes: ArraySlice<UInt8>) -> Bool { false }
}

/// Makes the decoder of a coding.
func makeContentDecoder(for coding: ContentCoding) throws -> any ContentDecoder {
    switch coding {
    case .gzip: return ZlibDecoder(format: .gzip)
    case .deflate: return ZlibDecoder(format: .deflate)
    case .brotli: return try BrotliDecoder()
    case .zstd: return try ZstdDecoder()
    }
}

func decodingError(_ coding: ContentCoding, _ detail: String) -> TransportError {
    TransportError(.decodingFailed, message: "the \(coding.name) response body is corrupt: \(detail)")
}

/// gzip and deflate, with zlib.
final class ZlibDecoder: ContentDecoder {
    enum Format { case gzip, deflate }

    private let format: Format
    private var stream = z_stream()
    private var initialized = false

    init(format: Format) { self.format = format }

    private var coding: ContentCoding { format == .gzip ? .gzip : .deflate }

    func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws -> DecodeStep {
        if !initialized {
            let windowBits: Int32
            switch format {
            case .gzip:
                windowBits = 15 + 16
            case .deflate:
                // RFC 9110's deflate is the zlib format; some servers send raw deflate instead. A zlib
                // header is two bytes: method 8, window ≤ 32 KiB, and a check that makes them a multiple of 31.
                guard input.count >= 2 else { return DecodeStep(consumed: 0, produced: 0, streamEnded: false) }
                let cmf = Int(input[0]), flags = Int(input[1])
                let isZlib = cmf & 0x0F == 8 && cmf >> 4 <= 7 && (cmf << 8 | flags) % 31 == 0
                windowBits = isZlib ? 15 : -15
            }
            guard ccompression_inflate_init(&stream, windowBits) == Z_OK else {
                throw TransportError(.other, message: "zlib could not start a decoder (out of memory?)")
            }
            initialized = true
        }
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(input.count)
        stream.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.avail_out = uInt(output.count)
        let result = inflate(&stream, Z_NO_FLUSH)
        let step = DecodeStep(
            consumed: input.count - Int(stream.avail_in),
            produced: output.count - Int(stream.avail_out),
            streamEnded: result == Z_STREAM_END
        )
        switch result {
        case Z_OK, Z_STREAM_END, Z_BUF_ERROR:
            if result == Z_STREAM_END { inflateReset(&stream) }
            return step
        default:
            let detail = stream.msg.map { String(cString: $0) } ?? "zlib error \(result)"
            throw decodingError(coding, detail)
        }
    }

    func startsAnotherStream(_ bytes: ArraySlice<UInt8>) -> Bool {
        // gunzip reads concatenated members as one body; anything else after the end is ignored.
        format == .gzip && bytes.count >= 2 && bytes[bytes.startIndex] == 0x1F && bytes[bytes.startIndex + 1] == 0x8B
    }

    deinit {
        if initialized { inflateEnd(&stream) }
    }
}

/// Brotli.
final class BrotliDecoder: ContentDecoder {
    private let state: OpaquePointer

    init() throws {
        guard let state = BrotliDecoderCreateInstance(nil, nil, nil) else {
            throw TransportError(.other, message: "brotli could not start a decoder (out of memory?)")
        }
        self.state = state
    }

    func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws -> DecodeStep {
        var availableIn = input.count
        var nextIn = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
        var availableOut = output.count
        var nextOut = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let result = BrotliDecoderDecompressStream(state, &availableIn, &nextIn, &availableOut, &nextOut, nil)
        let step = DecodeStep(
            consumed: input.count - availableIn,
            produced: output.count - availableOut,
            streamEnded: result == BROTLI_DECODER_RESULT_SUCCESS
        )
        if result == BROTLI_DECODER_RESULT_ERROR {
            throw decodingError(.brotli, String(cString: BrotliDecoderErrorString(BrotliDecoderGetErrorCode(state))))
        }
        return step
    }

    deinit { BrotliDecoderDestroyInstance(state) }
}

/// Zstandard. Frames that follow one another decode as one body, as the format says.
final class ZstdDecoder: ContentDecoder {
    /// 8 MiB, the window RFC 9659 requires HTTP senders to stay within: a frame that asks for more
    /// (zstd allows up to 128 MiB by default) is refused instead of allocated.
    static let windowLogMaximum: Int32 = 23

    private let stream: OpaquePointer

    init() throws {
        guard let stream = ZSTD_createDStream() else {
            throw TransportError(.other, message: "zstd could not start a decoder (out of memory?)")
        }
        self.stream = stream
        ZSTD_DCtx_setParameter(stream, ZSTD_d_windowLogMax, Self.windowLogMaximum)
    }

    /// The current frame's first bytes, kept until its header says its content size.
    private var frameHead: [UInt8] = []
    /// The content size the current frame's header declares, once read (`nil`: not read yet or
    /// not declared).
    private var declaredSize: UInt64?
    private var headerRead = false
    /// Bytes the current frame has produced.
    private var frameProduced: UInt64 = 0
    /// The longest frame header (`ZSTD_FRAMEHEADERSIZE_MAX`).
    private static let longestHeader = 18

    func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws -> DecodeStep {
        if frameHead.count < Self.magicSize {
            let start = frameHead + input.prefix(Self.magicSize - frameHead.count)
            guard Self.mayBeginFrame(start) else {
                let hex = start.map { ($0 < 0x10 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined(separator: " ")
                throw decodingError(.zstd, "a frame starts with \(hex), not the magic number of a zstd frame (RFC 8878) or a skippable one")
            }
        }
        var inBuffer = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
        var outBuffer = ZSTD_outBuffer(dst: output.baseAddress, size: output.count, pos: 0)
        let result = ZSTD_decompressStream(stream, &outBuffer, &inBuffer)
        if ZSTD_isError(result) != 0 {
            throw decodingError(.zstd, String(cString: ZSTD_getErrorName(result)))
        }
        frameProduced += UInt64(outBuffer.pos)
        if !headerRead { readHeader(UnsafeRawBufferPointer(rebasing: input[..<inBuffer.pos])) }
        if result == 0 {
            // libzstd 1.5 checks a frame's declared content size when it has the whole frame at once
            // ("Data corruption detected"), but not when the frame came in pieces and its last block is
            // empty: the same body decoded or failed by how it was cut (found by the content-decoding
            // fuzz target). The check is made here, for every cut.
            if let declaredSize, declaredSize != frameProduced {
                throw decodingError(.zstd, "the frame declares \(declaredSize) bytes and holds \(frameProduced)")
            }
            frameHead.removeAll(keepingCapacity: true)
            declaredSize = nil
            headerRead = false
            frameProduced = 0
        }
        return DecodeStep(consumed: inBuffer.pos, produced: outBuffer.pos, streamEnded: result == 0)
    }

    /// The bytes of a frame's magic number.
    private static let magicSize = 4

    /// Whether `bytes`, the first bytes of a frame, can start a zstd frame (`28 B5 2F FD`) or a
    /// skippable frame (`5x 2A 4D 18`), the two kinds RFC 8878 defines. libzstd also decodes the
    /// pre-1.0 "legacy" formats, but only when its input holds a whole frame header at once: cut
    /// shorter, the same frame is "Unknown frame descriptor" (found by the content-decoding fuzz
    /// target). They are not the HTTP `zstd` coding (RFC 9659), so Courier refuses them however
    /// the body is cut.
    static func mayBeginFrame(_ bytes: [UInt8]) -> Bool {
        let frame: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]
        let skippable: [UInt8] = [0x50, 0x2A, 0x4D, 0x18]
        let isFrame = zip(bytes, frame).allSatisfy { $0 == $1 }
        let isSkippable = bytes.indices.allSatisfy { index in
            index == 0 ? bytes[0] & 0xF0 == skippable[0] : bytes[index] == skippable[index]
        }
        return isFrame || isSkippable
    }

    /// Adds the frame's consumed bytes to its head until `ZSTD_getFrameContentSize` can read it.
    private func readHeader(_ consumed: UnsafeRawBufferPointer) {
        frameHead += consumed.prefix(Self.longestHeader - frameHead.count)
        let size = frameHead.withUnsafeBytes { ZSTD_getFrameContentSize($0.baseAddress, $0.count) }
        if size == ZSTD_CONTENTSIZE_ERROR {
            // Too few bytes yet; past the longest header, a bad header is libzstd's to refuse.
            headerRead = frameHead.count >= Self.longestHeader
        } else {
            headerRead = true
            declaredSize = size == ZSTD_CONTENTSIZE_UNKNOWN ? nil : size
        }
    }

    func startsAnotherStream(_ bytes: ArraySlice<UInt8>) -> Bool { true }

    deinit { ZSTD_freeDStream(stream) }
}
