import CourierCore
@testable import CourierCurl
import FoundationEssentials
import HTTPTypes
import Testing

/// The decoders against bodies compressed by Python's zlib, brotli and zstandard
/// (`Fixtures/make-compressed-fixtures.py`), fed in pieces of every awkward size.
@Suite("Content decoding")
struct ContentDecodingTests {
    static let text = Data((0..<8000).map { "line \($0): courier decodes this\n" }.joined().utf8)
    static let hello = Data("hello, courier\n".utf8)

    /// A source that hands out `data` in pieces of `pieceSize` bytes.
    struct Pieces: AsyncSequence, Sendable {
        let data: Data
        let pieceSize: Int
        func makeAsyncIterator() -> AsyncStream<ArraySlice<UInt8>>.AsyncIterator {
            let bytes = [UInt8](data)
            let size = pieceSize
            return AsyncStream { continuation in
                var offset = 0
                while offset < bytes.count {
                    continuation.yield(bytes[offset..<Swift.min(offset + size, bytes.count)])
                    offset += size
                }
                continuation.finish()
            }.makeAsyncIterator()
        }
    }

    static func decode(
        _ data: Data,
        _ codings: [ContentCoding],
        pieceSize: Int = 1 << 20,
        limits: CurlTransport.Configuration.DecompressionLimits = .init()
    ) async throws -> Data {
        let body = DecodedResponseBody(source: Pieces(data: data, pieceSize: pieceSize), codings: .success(codings), limits: limits)
        var result = Data()
        for try await chunk in body {
            #expect(chunk.count <= DecodingStage.outputSize)
            result.append(contentsOf: chunk)
        }
        return result
    }

    static let cases: [(String, Data, [ContentCoding], Data)] = [
        ("gzip hello", CompressedFixtures.gzipHello, [.gzip], hello),
        ("gzip text", CompressedFixtures.gzipText, [.gzip], text),
        ("deflate (zlib) text", CompressedFixtures.zlibText, [.deflate], text),
        ("deflate (raw) text", CompressedFixtures.rawDeflateText, [.deflate], text),
        ("br hello", CompressedFixtures.brotliHello, [.brotli], hello),
        ("br text", CompressedFixtures.brotliText, [.brotli], text),
        ("zstd hello", CompressedFixtures.zstdHello, [.zstd], hello),
        ("zstd text", CompressedFixtures.zstdText, [.zstd], text),
        ("gzip, two members", CompressedFixtures.gzipTwoMembers, [.gzip], hello + text.prefix(1000)),
        ("zstd, two frames", CompressedFixtures.zstdTwoFrames, [.zstd], hello + text.prefix(1000)),
        ("gzip then br", CompressedFixtures.gzipThenBrotli, [.gzip, .brotli], text),
    ]

    @Test(arguments: [1, 2, 7, 1000, 65_536, 1 << 20])
    func everyCodingDecodesByteExactInAnyPieces(pieceSize: Int) async throws {
        for (name, compressed, codings, expected) in Self.cases {
            let decoded = try await Self.decode(compressed, codings, pieceSize: pieceSize)
            #expect(decoded == expected, "\(name) in pieces of \(pieceSize)")
        }
    }

    /// Found by the content-decoding fuzz target (Tests/Fuzz/Corpus/content-decoding/regression-gzip-trailer-cut-before-magic):
    /// once bytes after a gzip stream are found not to start a member, a later piece beginning with
    /// the gzip magic number is still trailer, however the body is cut.
    @Test func aTrailerStaysATrailerWhereverThePiecesEnd() async throws {
        var gzip = CompressedFixtures.gzipHello
        gzip.append(contentsOf: Array("AB".utf8))
        let cut = gzip.count
        gzip.append(CompressedFixtures.gzipHello)
        for pieceSize in [1, 2, cut, 1 << 20] {
            #expect(try await Self.decode(gzip, [.gzip], pieceSize: pieceSize) == Self.hello, "pieces of \(pieceSize)")
        }
    }

    /// Found by the content-decoding fuzz target in a long run (Tests/Fuzz/Corpus/content-decoding/regression-zstd-declared-size-empty-block):
    /// a zstd frame declaring 31 bytes of content whose only block is empty failed when it came whole, and
    /// decoded to nothing when cut (libzstd 1.5 checks the declared size only on a frame it has at once).
    @Test func aZstdFrameShorterThanItDeclaresFailsHoweverItIsCut() async throws {
        let frame = Data([0x28, 0xB5, 0x2F, 0xFD, 0x20, 0x1F, 0x01, 0x00, 0x00])
        for pieceSize in [1, 2, 4, 5, 1 << 20] {
            await #expect(throws: TransportError.self, "pieces of \(pieceSize)") { try await Self.decode(frame, [.zstd], pieceSize: pieceSize) }
        }
        // A frame that holds what it declares, in any pieces, still decodes (the fixtures declare their sizes).
        for pieceSize in [1, 3, 1 << 20] {
            #expect(try await Self.decode(CompressedFixtures.zstdTwoFrames, [.zstd], pieceSize: pieceSize) == Self.hello + Self.text.prefix(1000))
        }
    }

    /// Found by the content-decoding fuzz target in a long run (Tests/Fuzz/Corpus/content-decoding/regression-zstd-legacy-frame):
    /// `26 B5 2F FD` is the magic number of a pre-1.0 zstd frame, which libzstd took when the frame header came
    /// in one piece (then: truncated) and refused as "Unknown frame descriptor" when cut shorter. Only RFC 8878
    /// frames are the HTTP coding, so it fails as corrupt however it is cut, first or after a good frame.
    @Test func aLegacyZstdFrameIsCorruptHoweverItIsCut() async throws {
        let legacy = Data([0x26, 0xB5, 0x2F, 0xFD, 0x00])
        for body in [legacy, CompressedFixtures.zstdHello + legacy] {
            for pieceSize in [1, 2, 3, 4, 5, 1 << 20] {
                do {
                    _ = try await Self.decode(body, [.zstd], pieceSize: pieceSize)
                    Issue.record("a legacy frame decoded, \(body.count) bytes in pieces of \(pieceSize)")
                } catch let error as TransportError {
                    #expect(error.code == .decodingFailed, "pieces of \(pieceSize): \(error)")
                }
            }
        }
    }

    /// A skippable frame (`5x 2A 4D 18`, a 4-byte size, then that many bytes) before a frame is skipped in any pieces.
    @Test func aSkippableFrameIsSkippedHoweverItIsCut() async throws {
        let skippable = Data([0x5A, 0x2A, 0x4D, 0x18, 0x03, 0x00, 0x00, 0x00, 0x01, 0x02, 0x03])
        for pieceSize in [1, 2, 3, 5, 1 << 20] {
            #expect(try await Self.decode(skippable + CompressedFixtures.zstdHello, [.zstd], pieceSize: pieceSize) == Self.hello)
            #expect(try await Self.decode(CompressedFixtures.zstdHello + skippable, [.zstd], pieceSize: pieceSize) == Self.hello)
        }
        #expect(ZstdDecoder.mayBeginFrame([0x28, 0xB5, 0x2F, 0xFD]) && ZstdDecoder.mayBeginFrame([0x5F, 0x2A]))
        #expect(!ZstdDecoder.mayBeginFrame([0x26, 0xB5]) && !ZstdDecoder.mayBeginFrame([0x60]) && !ZstdDecoder.mayBeginFrame([0x28, 0xB5, 0x2F, 0xFE]))
    }

    @Test func bytesAfterTheEndAreIgnoredAsLibcurlDoes() async throws {
        var gzip = CompressedFixtures.gzipHello
        gzip.append(contentsOf: Array("trailing".utf8))
        #expect(try await Self.decode(gzip, [.gzip]) == Self.hello)
        var brotli = CompressedFixtures.brotliHello
        brotli.append(contentsOf: [0, 1, 2])
        #expect(try await Self.decode(brotli, [.brotli]) == Self.hello)
    }

    @Test(arguments: [
        CompressedFixtures.gzipText, CompressedFixtures.zlibText, CompressedFixtures.brotliText, CompressedFixtures.zstdText,
    ])
    func aTruncatedStreamIsATypedError(compressed: Data) async throws {
        let coding: ContentCoding = compressed == CompressedFixtures.gzipText ? .gzip
            : compressed == CompressedFixtures.zlibText ? .deflate
            : compressed == CompressedFixtures.brotliText ? .brotli : .zstd
        for cut in [1, 8, compressed.count / 2] {
            let error = await #expect(throws: TransportError.self) {
                _ = try await Self.decode(compressed.prefix(compressed.count - cut), [coding], pieceSize: 4096)
            }
            #expect(error?.code == .truncatedBody, "\(coding) cut by \(cut): \(String(describing: error))")
        }
    }

    @Test func corruptDataIsATypedError() async throws {
        for (compressed, coding) in [
            (CompressedFixtures.gzipText, ContentCoding.gzip), (CompressedFixtures.brotliText, .brotli),
            (CompressedFixtures.zstdText, .zstd), (CompressedFixtures.zlibText, .deflate),
        ] {
            var corrupt = compressed
            for index in stride(from: 10, to: corrupt.count, by: 97) { corrupt[index] ^= 0x5A }
            let error = await #expect(throws: TransportError.self) { _ = try await Self.decode(corrupt, [coding]) }
            #expect(error?.code == .decodingFailed || error?.code == .truncatedBody, "\(coding): \(String(describing: error))")
        }
        let error = await #expect(throws: TransportError.self) { _ = try await Self.decode(Data("not gzip".utf8), [.gzip]) }
        #expect(error?.code == .decodingFailed)
    }

    @Test func anEmptyBodyDecodesToNothing() async throws {
        for coding in [ContentCoding.gzip, .deflate, .brotli, .zstd] {
            #expect(try await Self.decode(Data(), [coding]).isEmpty)
        }
    }

    @Test func aZstdFrameAskingForMoreThanAnEightMiBWindowIsRefused() async throws {
        let error = await #expect(throws: TransportError.self) {
            _ = try await Self.decode(CompressedFixtures.zstdHugeWindow, [.zstd])
        }
        #expect(error?.code == .decodingFailed)
    }

    @Test(arguments: [
        (CompressedFixtures.gzipZeros, ContentCoding.gzip), (CompressedFixtures.brotliZeros, .brotli),
        (CompressedFixtures.zstdZeros, .zstd),
    ])
    func bombsStopAtTheRatioAndTheSizeLimit(compressed: Data, coding: ContentCoding) async throws {
        // 4 MiB of zeros: gzip about 1,000:1 passes the default; brotli and zstd (far above 2,048:1) do not.
        if coding == .gzip {
            #expect(try await Self.decode(compressed, [coding]).count == 4 << 20)
        } else {
            let error = await #expect(throws: TransportError.self) { _ = try await Self.decode(compressed, [coding]) }
            #expect(error?.code == .decompressionLimitExceeded)
            #expect(try await Self.decode(compressed, [coding], limits: .none).count == 4 << 20)
        }
        let sized = CurlTransport.Configuration.DecompressionLimits(maximumSize: 1 << 20, maximumRatio: nil)
        let error = await #expect(throws: TransportError.self) { _ = try await Self.decode(compressed, [coding], limits: sized) }
        #expect(error?.code == .decompressionLimitExceeded)
        #expect(error?.message.contains("maximumSize") == true)
    }

    /// Limits at the ends of their ranges: a ratio of `Int.max` (a way to write "no limit") lets any body through, where
    /// its product with the bytes received overflowed and trapped once 2 bytes had come; a negative one refuses every
    /// body past `ratioAppliesAbove`, as any ratio refuses a body above it.
    @Test func ratioLimitsAtTheEndsOfTheirRange() throws {
        var unlimited = DecompressionMeter(limits: .init(maximumSize: nil, maximumRatio: .max, ratioAppliesAbove: 0))
        unlimited.received(2)
        try unlimited.decoded(Int(Int32.max))
        try unlimited.decoded(Int(Int32.max))
        var negative = DecompressionMeter(limits: .init(maximumSize: .min, maximumRatio: -1, ratioAppliesAbove: 0))
        negative.received(1)
        #expect(throws: TransportError.self) { try negative.decoded(1) }
        var negativeRatio = DecompressionMeter(limits: .init(maximumSize: nil, maximumRatio: .min, ratioAppliesAbove: 0))
        negativeRatio.received(1)
        #expect(throws: TransportError.self) { try negativeRatio.decoded(1) }
    }

    @Test func smallBodiesPassTheRatioCheckWhateverTheirRatio() async throws {
        let strict = CurlTransport.Configuration.DecompressionLimits(maximumSize: nil, maximumRatio: 2, ratioAppliesAbove: 1 << 20)
        #expect(try await Self.decode(CompressedFixtures.gzipText, [.gzip], limits: strict) == Self.text)
    }

    @Test func codingsAreReadFromEveryFieldInOrder() throws {
        var head = HTTPResponse(status: .ok)
        head.headerFields.append(HTTPField(name: .contentEncoding, value: "gzip, identity"))
        head.headerFields.append(HTTPField(name: .contentEncoding, value: " BR ,x-gzip"))
        #expect(try ContentCoding.codings(of: head) == [.gzip, .brotli, .gzip])
        #expect(try ContentCoding.codings(of: HTTPResponse(status: .ok)) == [])
        var unknown = HTTPResponse(status: .ok)
        unknown.headerFields[.contentEncoding] = "compress"
        let error = #expect(throws: TransportError.self) { try ContentCoding.codings(of: unknown) }
        #expect(error?.code == .decodingFailed)
    }

    /// Transfer codings (but `chunked`, which libcurl undoes) follow the content codings, since a server applies
    /// them last; they are undone even when content codings are kept; one Courier cannot decode fails the body.
    @Test func transferCodingsFollowTheContentCodings() throws {
        var head = HTTPResponse(status: .ok)
        head.headerFields.append(HTTPField(name: .contentEncoding, value: "br"))
        head.headerFields.append(HTTPField(name: .transferEncoding, value: "gzip, chunked"))
        #expect(try ContentCoding.codings(of: head) == [.brotli, .gzip])
        #expect(try ContentCoding.codings(of: head, includingContent: false) == [.gzip])
        var plain = HTTPResponse(status: .ok)
        plain.headerFields[.transferEncoding] = "chunked"
        #expect(ContentCoding.decoding(plain) == nil)
        var unknown = HTTPResponse(status: .ok)
        unknown.headerFields[.transferEncoding] = "foo, chunked"
        for includingContent in [true, false] {
            let error = #expect(throws: TransportError.self) { try ContentCoding.codings(of: unknown, includingContent: includingContent) }
            #expect(error?.code == .decodingFailed)
            #expect(error?.message.contains("Transfer-Encoding") == true)
        }
        // chunked twice in one field: libcurl undoes one, and the other's framing would stay in the body.
        for value in ["chunked, chunked", "chunked,Chunked", "gzip, chunked, chunked"] {
            var twice = HTTPResponse(status: .ok)
            twice.headerFields.append(HTTPField(name: .transferEncoding, value: value))
            let error = #expect(throws: TransportError.self) { try ContentCoding.codings(of: twice, includingContent: false) }
            #expect(error?.code == .malformedResponse, "\(value)")
        }
        // Two fields of chunked: a header copied twice, the body chunked once, as libcurl and browsers take it.
        var copied = HTTPResponse(status: .ok)
        copied.headerFields.append(HTTPField(name: .transferEncoding, value: "chunked"))
        copied.headerFields.append(HTTPField(name: .transferEncoding, value: "chunked"))
        #expect(try ContentCoding.codings(of: copied) == [])
        var stacked = HTTPResponse(status: .ok)
        stacked.headerFields.append(HTTPField(name: .contentEncoding, value: "gzip, br, zstd"))
        stacked.headerFields.append(HTTPField(name: .transferEncoding, value: "gzip, deflate, gzip, chunked"))
        #expect(throws: TransportError.self) { try ContentCoding.codings(of: stacked) }   // six in all
    }

    /// A decoder per coding, each byte through all of them: a head naming thousands cost gigabytes. Five pass
    /// (libcurl's bound too), with `identity` entries not counted; a sixth in any field fails the body typed.
    @Test func atMostFiveCodingsAreDecoded() throws {
        var five = HTTPResponse(status: .ok)
        five.headerFields.append(HTTPField(name: .contentEncoding, value: "gzip, identity, br, identity"))
        five.headerFields.append(HTTPField(name: .contentEncoding, value: "zstd, deflate, gzip, identity"))
        #expect(try ContentCoding.codings(of: five) == [.gzip, .brotli, .zstd, .deflate, .gzip])
        for values in [["gzip, gzip, gzip, gzip, gzip, gzip"], ["gzip, br, zstd", "deflate, gzip", "br"], [Array(repeating: "zstd", count: 40_000).joined(separator: ",")]] {
            var head = HTTPResponse(status: .ok)
            for value in values { head.headerFields.append(HTTPField(name: .contentEncoding, value: value)) }
            let error = #expect(throws: TransportError.self) { try ContentCoding.codings(of: head) }
            #expect(error?.code == .decodingFailed)
            #expect(error?.message.contains("more than 5 codings") == true)
            #expect(ContentCoding.decoding(head).map { (try? $0.get()) == nil } == true)
        }
    }

    @Test func anUnknownCodingFailsTheFirstRead() async throws {
        let failure = TransportError(.decodingFailed, message: "unknown")
        let body = DecodedResponseBody(source: Pieces(data: Self.hello, pieceSize: 4), codings: .failure(failure), limits: .init())
        var iterator = body.makeAsyncIterator()
        var failures = 0
        for _ in 0..<2 {   // stays failed
            do { _ = try await iterator.next() } catch is TransportError { failures += 1 }
        }
        #expect(failures == 2)
    }
}
