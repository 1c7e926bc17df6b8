import CCompression
import CourierCore
@testable import CourierCurl

/// The transport's content decoders (`DecodedResponseBody` over `DecodingStage`s, `makeContentDecoder`,
/// `DecompressionLimits`): a response body in one to three stacked codings (gzip, deflate, br, zstd), read
/// from a source that hands it over in fuzzed chunk sizes (empty chunks too).
///
/// For any bytes, the result is decoded bytes or a `TransportError` whose code is `.decodingFailed`,
/// `.truncatedBody` or `.decompressionLimitExceeded`, never a trap, a hang or an allocation past the limits;
/// no chunk handed out is empty or larger than the stage's 64 KiB buffer, and the bytes handed out never pass
/// `maximumSize`. Decoding does not depend on how the body is cut: read whole, it ends the same way (same
/// bytes, or the same error code after bytes that agree with the chunked read's as far as both go). A single
/// coding is also decoded by the bare decoder through an output buffer of 1 to 4,096 bytes, following the
/// documented stream rules (gzip members and zstd frames follow one another; other bytes after the end are
/// ignored; a body ending inside a stream is truncated): it must agree with the stage.
///
/// When the first byte asks for it, the payload is plaintext that the target encodes itself (zlib's deflate
/// for gzip and deflate, in zlib or raw form; zstd's compressor; Brotli as uncompressed meta-blocks of fuzzed
/// sizes), possibly as two gzip members or zstd frames, possibly with trailing bytes after a gzip, deflate or
/// br stream: then the decoded bytes must be the plaintext, whatever the chunking (or, when the plaintext is
/// over `maximumSize`, a limit error after a prefix of it).
enum ContentDecodingFuzz: FuzzTarget {
    static let name = "content-decoding"

    static func run(_ input: FuzzInput) {
        let flags = input.byte()
        let valid = flags & 1 != 0
        let trailing = flags & 2 != 0
        let concatenated = flags & 4 != 0
        let emptyChunks = flags & 8 != 0
        let useRatio = flags & 0x10 != 0
        let codings = (0..<input.int(in: 1...3)).map { _ in [ContentCoding.gzip, .deflate, .brotli, .zstd][input.int(in: 0...3)] }
        let sizes = (0..<3).map { _ in chunkSize(input.byte()) }
        let outputSize = [1, 2, 3, 7, 16, 64, 255, 4096][input.int(in: 0...7)]
        let cap = [1 << 20, 64 * 1024, 16 * Int(input.byte()), 256 * 1024][input.int(in: 0...3)]
        let level = Int32(input.int(in: 1...9))
        let metaBlock = 1 + Int(input.byte()) * 64
        let rawDeflate = input.bool()
        let payload = input.rest()

        let body: [UInt8]
        if valid {
            body = encode(payload, codings, level: level, metaBlock: metaBlock, rawDeflate: rawDeflate,
                          concatenated: concatenated, trailing: trailing)
        } else {
            body = payload
        }
        let sizeOnly = CurlTransport.Configuration.DecompressionLimits(maximumSize: Int64(cap), maximumRatio: nil)

        let chunked = decode(body, codings, sizes: sizes, emptyChunks: emptyChunks, limits: sizeOnly)
        let whole = decode(body, codings, sizes: [max(1, body.count)], emptyChunks: false, limits: sizeOnly)
        for outcome in [chunked, whole] { precondition(outcome.bytes.count <= cap, "\(outcome.bytes.count) bytes handed out past the \(cap)-byte limit") }
        agree(chunked, whole, "a chunked read and a whole one")

        if valid {
            if payload.count <= cap {
                precondition(chunked.error == nil, "a valid \(codings) body failed: \(String(describing: chunked.error))")
                precondition(chunked.bytes == payload, "a valid \(codings) body decoded to other bytes")
            } else {
                precondition(chunked.error == .decompressionLimitExceeded, "\(payload.count) bytes over a \(cap)-byte limit: \(String(describing: chunked.error))")
                precondition(payload.starts(with: chunked.bytes), "the bytes before the limit are not the plaintext's")
            }
        }

        if useRatio {
            let ratio = 1 + Int(flags >> 5)
            let above = Int64(metaBlock)
            let limits = CurlTransport.Configuration.DecompressionLimits(maximumSize: Int64(cap), maximumRatio: ratio, ratioAppliesAbove: above)
            let rationed = decode(body, codings, sizes: sizes, emptyChunks: emptyChunks, limits: limits)
            if rationed.error == .decompressionLimitExceeded {
                precondition(chunked.bytes.starts(with: rationed.bytes), "the bytes before the ratio limit are not the unlimited read's")
                // The chunk that passed the ratio came out of the read without it too (same chunks, same stages).
                precondition(chunked.error == .decompressionLimitExceeded || Int64(chunked.bytes.count) > above,
                             "the ratio limit fired though only \(chunked.bytes.count) bytes decode, not above \(above)")
            } else {
                precondition(rationed == chunked, "a ratio limit that never fired changed the outcome")
            }
        }

        if codings.count == 1 {
            let bare = bareDecode(body, codings[0], sizes: sizes, outputSize: outputSize, cap: cap)
            compare(bare: bare, stage: chunked, cap: cap)
        }
    }

    /// A chunk size from one byte: mostly small, sometimes large.
    static func chunkSize(_ byte: UInt8) -> Int {
        byte < 200 ? 1 + Int(byte) % 32 : 1 + (Int(byte) - 200) * 1200
    }

    // MARK: The pipeline

    /// How a read ended: the bytes handed out, and the error code if it failed.
    struct Outcome: Equatable, Sendable {
        var bytes: [UInt8]
        var error: TransportError.Code?
    }

    /// Reads `body` through `DecodedResponseBody`, as the transport does.
    static func decode(
        _ body: [UInt8], _ codings: [ContentCoding], sizes: [Int], emptyChunks: Bool,
        limits: CurlTransport.Configuration.DecompressionLimits
    ) -> Outcome {
        runBlocking {
            let source = Chunks(bytes: body, sizes: sizes, emptyChunks: emptyChunks)
            let decoded = DecodedResponseBody(source: source, codings: .success(codings), limits: limits)
            var bytes: [UInt8] = []
            do {
                for try await chunk in decoded {
                    precondition(!chunk.isEmpty && chunk.count <= DecodingStage.outputSize, "a chunk of \(chunk.count) bytes")
                    bytes += chunk
                }
                return Outcome(bytes: bytes, error: nil)
            } catch let error as TransportError {
                precondition([.decodingFailed, .truncatedBody, .decompressionLimitExceeded].contains(error.code), "error \(error)")
                return Outcome(bytes: bytes, error: error.code)
            } catch {
                fatalError("an untyped error: \(error)")
            }
        }
    }

    /// A body handed over in chunks of the given sizes, in turn (and an empty chunk before each when asked).
    struct Chunks: AsyncSequence, Sendable {
        typealias Element = ArraySlice<UInt8>
        let bytes: [UInt8]
        let sizes: [Int]
        let emptyChunks: Bool

        func makeAsyncIterator() -> Iterator { Iterator(chunks: self) }

        struct Iterator: AsyncIteratorProtocol {
            typealias Failure = Never
            let chunks: Chunks
            var offset = 0
            var turn = 0
            var empty = true

            mutating func next() async -> ArraySlice<UInt8>? {
                guard offset < chunks.bytes.count else { return nil }
                if chunks.emptyChunks {
                    empty.toggle()
                    if empty { return [] }
                }
                let end = Swift.min(chunks.bytes.count, offset + chunks.sizes[turn % chunks.sizes.count])
                turn += 1
                defer { offset = end }
                return chunks.bytes[offset..<end]
            }
        }
    }

    // MARK: The bare decoder

    /// How the bare decoder's read ended.
    enum BareEnd: Equatable { case complete, truncated, failed, capped }

    /// One coding decoded by its `ContentDecoder` alone through an `outputSize`-byte buffer, following the
    /// documented stream rules; stops once more than `cap` bytes came out.
    static func bareDecode(_ body: [UInt8], _ coding: ContentCoding, sizes: [Int], outputSize: Int, cap: Int) -> ([UInt8], BareEnd) {
        let decoder = try! makeContentDecoder(for: coding)
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: outputSize, alignment: 16)
        defer { output.deallocate() }
        var decoded: [UInt8] = []
        var pending: [UInt8] = []
        var offset = 0, turn = 0
        var betweenStreams = true, sawInput = false, outputFull = false
        func pull() -> Bool {
            guard offset < body.count else { return false }
            let end = min(body.count, offset + sizes[turn % sizes.count])
            turn += 1
            pending += body[offset..<end]
            offset = end
            return true
        }
        // Every turn consumes, produces, pulls a chunk or ends; a decoder that does none of these is stuck.
        var turns = 0
        let maximumTurns = 4 * (body.count + cap + sizes.count) + 64
        while true {
            turns += 1
            precondition(turns <= maximumTurns, "the \(coding.name) decoder made no progress")
            if pending.isEmpty, !outputFull {
                if pull() { continue }
                return (decoded, betweenStreams ? .complete : .truncated)
            }
            if betweenStreams, sawInput, !pending.isEmpty {
                if pending.count < 2, pull() { continue }
                // Not another stream: this and every later byte is a trailer.
                if !decoder.startsAnotherStream(pending[...]) { return (decoded, .complete) }
            }
            let step: DecodeStep
            do {
                step = try pending.withUnsafeBytes { try decoder.decode($0, into: output) }
            } catch let error as TransportError {
                precondition(error.code == .decodingFailed, "the bare \(coding.name) decoder threw \(error)")
                return (decoded, .failed)
            } catch {
                fatalError("the bare \(coding.name) decoder threw \(error)")
            }
            precondition(step.consumed >= 0 && step.consumed <= pending.count && step.produced >= 0 && step.produced <= outputSize,
                         "a step of \(step) from \(pending.count) bytes into \(outputSize)")
            if step.consumed > 0 || step.produced > 0 { sawInput = true; betweenStreams = false }
            decoded += UnsafeRawBufferPointer(rebasing: output[0..<step.produced])
            if decoded.count > cap { return (decoded, .capped) }
            pending.removeFirst(step.consumed)
            if step.streamEnded { betweenStreams = true }
            outputFull = step.produced == outputSize
            if step.consumed == 0, step.produced == 0, !step.streamEnded, !outputFull {
                if pull() { continue }
                // Bytes left that the decoder cannot use at the end of the body began a stream that never ended.
                return (decoded, betweenStreams && pending.isEmpty ? .complete : .truncated)
            }
        }
    }

    /// The bare decoder and the stage must end alike.
    static func compare(bare: ([UInt8], BareEnd), stage: Outcome, cap: Int) {
        let (bytes, end) = bare
        switch (end, stage.error) {
        case (.complete, nil):
            precondition(bytes == stage.bytes, "the bare decoder and the stage decode to different bytes")
        case (.capped, .decompressionLimitExceeded?), (.capped, .decodingFailed?):
            // The stage drops the output of a call that also meets corrupt bytes; the bare decoder's smaller
            // calls hand those bytes out first, and can pass the limit with them.
            precondition(isPrefix(bytes, stage.bytes), "the bare decoder and the stage disagree before the limit")
        case (.truncated, .truncatedBody?), (.failed, .decodingFailed?):
            precondition(isPrefix(bytes, stage.bytes), "the bare decoder and the stage disagree before the \(end) end")
        default:
            fatalError("the bare decoder ends \(end) after \(bytes.count) bytes, the stage with \(String(describing: stage.error)) after \(stage.bytes.count)")
        }
    }

    /// Two reads of the same body end alike: the same bytes, or the same error after bytes that agree as far as
    /// both go. One exception: a read whose decoder met corrupt bytes in the same call that would have taken it
    /// past the size limit fails as corrupt, where a read cut elsewhere handed those bytes out first and failed
    /// on the limit; both are failures after agreeing bytes.
    static func agree(_ a: Outcome, _ b: Outcome, _ what: String) {
        if a.error == b.error {
            if a.error == nil { precondition(a.bytes == b.bytes, "\(what) decode to different bytes") }
            else { precondition(isPrefix(a.bytes, b.bytes), "\(what) disagree before their error") }
            return
        }
        precondition(Set([a.error, b.error]) == [.decompressionLimitExceeded, .decodingFailed],
                     "\(what) end differently: \(String(describing: a.error)) after \(a.bytes.count) bytes, \(String(describing: b.error)) after \(b.bytes.count)")
        precondition(isPrefix(a.bytes, b.bytes), "\(what) disagree before their errors")
    }

    static func isPrefix(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count <= b.count ? b.starts(with: a) : a.starts(with: b)
    }

    // MARK: Encoders for valid bodies

    /// `plaintext` with `codings` applied in order (the last is the one on the wire).
    static func encode(
        _ plaintext: [UInt8], _ codings: [ContentCoding], level: Int32, metaBlock: Int, rawDeflate: Bool,
        concatenated: Bool, trailing: Bool
    ) -> [UInt8] {
        var bytes = plaintext
        for (index, coding) in codings.enumerated() {
            let outermost = index == codings.count - 1
            func one(_ data: [UInt8]) -> [UInt8] {
                switch coding {
                case .gzip: return deflate(data, windowBits: 15 + 16, level: level)
                case .deflate: return deflate(data, windowBits: rawDeflate ? -15 : 15, level: level)
                case .brotli: return brotliUncompressed(data, metaBlock: metaBlock)
                case .zstd: return zstd(data, level: min(level, 3))
                }
            }
            if outermost, concatenated, coding == .gzip || coding == .zstd {
                let cut = bytes.count / 2
                bytes = one(Array(bytes[..<cut])) + one(Array(bytes[cut...]))
            } else {
                bytes = one(bytes)
            }
            if outermost, trailing, coding != .zstd {
                // Bytes after the end that do not start a gzip member (its magic number is 1F 8B), so all
                // of them are ignored, though a cut after "AB" makes the rest look like one.
                bytes += Array("AB".utf8) + [0x1F, 0x8B, 0x08, 0x00] + Array("trailer".utf8)
            }
        }
        return bytes
    }

    /// zlib's deflate: gzip (window bits 31), zlib (15) or raw deflate (−15).
    static func deflate(_ data: [UInt8], windowBits: Int32, level: Int32) -> [UInt8] {
        var stream = z_stream()
        guard deflateInit2_(&stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            fatalError("deflateInit2 failed")
        }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(data.count))) + 64)
        var input = data
        let result = input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = source.baseAddress
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = uInt(target.count)
                return CCompression.deflate(&stream, Z_FINISH)
            }
        }
        precondition(result == Z_STREAM_END, "deflate returned \(result)")
        return Array(output.prefix(Int(stream.total_out)))
    }

    static func zstd(_ data: [UInt8], level: Int32) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: ZSTD_compressBound(data.count))
        let written = output.withUnsafeMutableBytes { target in
            data.withUnsafeBytes { ZSTD_compress(target.baseAddress, target.count, $0.baseAddress, $0.count, level) }
        }
        precondition(ZSTD_isError(written) == 0, "ZSTD_compress failed")
        return Array(output.prefix(written))
    }

    /// A Brotli stream of uncompressed meta-blocks of `metaBlock` bytes (RFC 7932 §9.2), then an empty last one.
    static func brotliUncompressed(_ data: [UInt8], metaBlock: Int) -> [UInt8] {
        var writer = BitWriter()
        writer.write(0, bits: 1)                              // WBITS = 16
        var offset = 0
        while offset < data.count {
            let length = min(metaBlock, 65_536, data.count - offset)
            writer.write(0, bits: 1)                          // ISLAST = 0
            writer.write(0, bits: 2)                          // MNIBBLES = 4
            writer.write(UInt32(length - 1), bits: 16)        // MLEN − 1
            writer.write(1, bits: 1)                          // ISUNCOMPRESSED
            writer.alignToByte()
            writer.bytes += data[offset..<(offset + length)]
            offset += length
        }
        writer.write(1, bits: 1)                              // ISLAST
        writer.write(1, bits: 1)                              // ISLASTEMPTY
        writer.alignToByte()
        return writer.bytes
    }

    /// Bits packed from the least significant end of each byte, as Brotli reads them.
    struct BitWriter {
        var bytes: [UInt8] = []
        var used = 8

        mutating func write(_ value: UInt32, bits: Int) {
            for bit in 0..<bits {
                if used == 8 { bytes.append(0); used = 0 }
                bytes[bytes.count - 1] |= UInt8((value >> UInt32(bit)) & 1) << UInt8(used)
                used += 1
            }
        }

        mutating func alignToByte() { used = 8 }
    }
}
