import CourierCore
import CourierXML
import FoundationEssentials
import Testing

/// However a body is cut, a document in any encoding parses as it does whole: the same events, or an
/// error both ways. libxml2 2.9 decodes with three kinds of converter (its own, iconv, and ICU for names
/// only ICU knows, such as "x-sjis"), and ICU's lost characters at the ends of pushed chunks: the `xml`
/// fuzz target's long run found bytes that are not UTF-8 dropped without an error under
/// `encoding="UT-F-8"` when fed a byte at a time (docs/reliability.md, issue 12), and a valid character
/// cut by a chunk failed the document. Every case runs whole, at every two-piece cut, and a byte at a
/// time.
@Suite struct ChunkedEncodingTests {
    /// One document: an XML declaration naming `encoding`, then `content` (bytes in that encoding)
    /// inside a comment and as text, so both the comment and the character-data paths see it.
    struct Case: CustomTestStringConvertible, Sendable {
        let encoding: String
        let content: [UInt8]
        /// What `content` decodes to, or `nil` when it must fail.
        let text: String?

        var document: [UInt8] {
            Array("<?xml version=\"1.0\" encoding=\"\(encoding)\"?>\n<r><!-- a".utf8) + content + Array("b --><t>".utf8)
                + content + Array("</t></r>".utf8)
        }

        var testDescription: String {
            "\(encoding) \(content.map { String($0, radix: 16) }.joined(separator: " ")) \(text.map { "→ \($0)" } ?? "(invalid)")"
        }
    }

    static let cases: [Case] = [
        // libxml2's own converters.
        Case(encoding: "UTF-8", content: [0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80], text: "é€😀"),
        Case(encoding: "UTF-8", content: [0xE8], text: nil),
        Case(encoding: "UTF-8", content: [0xC3, 0x28], text: nil),
        Case(encoding: "ISO-8859-1", content: [0xE9, 0xFF], text: "éÿ"),
        // iconv.
        Case(encoding: "utf8", content: [0xC3, 0xA9, 0xE2, 0x82, 0xAC], text: "é€"),
        Case(encoding: "utf8", content: [0xE8], text: nil),
        Case(encoding: "SHIFT_JIS", content: [0x82, 0xA0, 0x93, 0xFA], text: "あ日"),
        Case(encoding: "SHIFT_JIS", content: [0x82], text: nil),
        Case(encoding: "EUC-JP", content: [0xA4, 0xA2, 0xC6, 0xFC], text: "あ日"),
        Case(encoding: "EUC-JP", content: [0xA4, 0x20], text: nil),
        Case(encoding: "ISO-2022-JP", content: [0x1B, 0x24, 0x42, 0x24, 0x22, 0x1B, 0x28, 0x42], text: "あ"),
        Case(encoding: "windows-1252", content: [0xE9, 0x80], text: "é€"),
        Case(encoding: "GB18030", content: [0xC4, 0xE3, 0x81, 0x30, 0x81, 0x30], text: "你\u{80}"),
        // ICU: names neither libxml2 nor iconv knows.
        Case(encoding: "UT-F-8", content: [0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80], text: "é€😀"),
        Case(encoding: "UT-F-8", content: [0xE8], text: nil),
        Case(encoding: "UT-F-8", content: [UInt8](repeating: 0xE8, count: 6), text: nil),
        Case(encoding: "x-sjis", content: [0x82, 0xA0, 0x93, 0xFA], text: "あ日"),
        Case(encoding: "x-sjis", content: [0x82], text: nil),
        Case(encoding: "x-euc-jp", content: [0xA4, 0xA2, 0xC6, 0xFC], text: "あ日"),
        Case(encoding: "x-euc-jp", content: [0xA4], text: nil),
        Case(encoding: "x-mac-roman", content: [0x8E, 0xDB], text: "é€"),
        Case(encoding: "hz-gb-2312", content: Array("~{Dc~}".utf8), text: "你"),
    ]

    static func push(_ pieces: [[UInt8]], charset: String? = nil) -> Result<[XMLEvent], XMLError> {
        do {
            let parser = try XMLEventParser(charset: charset)
            var events: [XMLEvent] = []
            for piece in pieces { events += try parser.feed(piece) }
            events += try parser.finish()
            return .success(events)
        } catch {
            return .failure(error)
        }
    }

    /// Whether two outcomes agree: the same events, or both an error.
    static func agree(_ one: Result<[XMLEvent], XMLError>, _ other: Result<[XMLEvent], XMLError>) -> Bool {
        switch (one, other) {
        case (.success(let a), .success(let b)): a == b
        case (.failure, .failure): true
        default: false
        }
    }

    static func describe(_ outcome: Result<[XMLEvent], XMLError>) -> String {
        switch outcome {
        case .success(let events): "\(events)"
        case .failure(let error): "\(error)"
        }
    }

    @Test(arguments: cases) func wholeTheDocumentDecodesOrFails(_ test: Case) throws {
        let whole = Self.push([test.document])
        if let text = test.text {
            let events = try whole.get()
            #expect(events.contains(.comment(" a\(text)b ")))
            #expect(events.contains(.text(text)))
        } else {
            let error = #expect(throws: XMLError.self) { try whole.get() }
            #expect(error?.reason == .encoding, "\(String(describing: error))")
            if test.encoding == "SHIFT_JIS" {
                // A converter's failure names the encoding, which libxml2's own message does not.
                #expect(error?.message == "bytes that are not valid SHIFT_JIS: input conversion failed due to input error, bytes 0x82 0x3C 0x2F 0x74")
            }
        }
        #expect(Self.agree(whole, Result { () throws(XMLError) in try XMLSAXParser(data: Data(test.document)).events() }))
    }

    @Test(arguments: cases) func everyTwoPieceCutAgreesWithTheWhole(_ test: Case) {
        let document = test.document
        let whole = Self.push([document])
        for cut in 0...document.count {
            let cutUp = Self.push([Array(document[..<cut]), Array(document[cut...])])
            #expect(Self.agree(cutUp, whole), "cut at \(cut): \(Self.describe(cutUp)), whole: \(Self.describe(whole))")
        }
    }

    @Test(arguments: cases) func aByteAtATimeAgreesWithTheWhole(_ test: Case) {
        let whole = Self.push([test.document])
        let byBytes = Self.push(test.document.map { [$0] })
        #expect(Self.agree(byBytes, whole), "a byte at a time: \(Self.describe(byBytes)), whole: \(Self.describe(whole))")
    }

    /// The charset of a `Content-Type` picks the converter before any byte arrives.
    @Test func aCharsetOnlyICUKnowsDecodesAByteAtATime() throws {
        let document: [UInt8] = Array("<r>".utf8) + [0xE2, 0x82, 0xAC] + Array("</r>".utf8)
        let events = try Self.push(document.map { [$0] }, charset: "UT-F-8").get()
        #expect(events.contains(.text("€")))
        let invalid: [UInt8] = Array("<r>".utf8) + [0xE2] + Array("</r>".utf8)
        #expect(throws: XMLError.self) { try Self.push(invalid.map { [$0] }, charset: "UT-F-8").get() }
    }

    /// A document larger than the 64 KiB pieces libxml2 is fed, with a character across the first piece's end:
    /// whole bodies are fed in pieces too.
    @Test func aCharacterAcrossAPieceBoundaryOfALargeDocumentDecodes() throws {
        let head = Array("<?xml version=\"1.0\" encoding=\"UT-F-8\"?><r>".utf8)
        let filler = [UInt8](repeating: 0x41, count: 65_536 - head.count - 1)
        let document = head + filler + [0xE2, 0x82, 0xAC] + Array("</r>".utf8)
        let parsed = try XMLDocument(data: Data(document))
        #expect(parsed.root.text.hasSuffix("A€"))
        var text = ""
        try XMLSAXParser(data: Data(document)).parse { if case .text(let run) = $0 { text += run } }
        #expect(text.hasSuffix("A€"))
    }

    /// The fuzz finding as it was found: `XMLDocument.parse` of a body that arrives a byte at a time.
    @Test func theFuzzFindingFailsFromABodyABytePerChunk() async throws {
        let document = Case(encoding: "UT-F-8", content: [UInt8](repeating: 0xE8, count: 6), text: nil).document
        let stream = AsyncStream<ArraySlice<UInt8>> { continuation in
            for byte in document { continuation.yield([byte]) }
            continuation.finish()
        }
        let body = Body(stream, length: .unknown, iterationBehavior: .single)
        await #expect(throws: XMLError.self) { try await XMLDocument.parse(body) }
    }
}
