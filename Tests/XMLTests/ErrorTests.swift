import CourierCore
import CourierXML
import FoundationEssentials
import CourierTesting
import Testing

/// Malformed, truncated, empty, wrongly encoded and oversized input ends in a typed error with
/// libxml2's position and words, never a crash.
@Suite struct ErrorTests {
    private func error(_ xml: String) throws -> XMLError {
        try error(Data(xml.utf8))
    }

    private func error(_ data: Data, charset: String? = nil) throws -> XMLError {
        let dom = try #require(throws: XMLError.self) { try XMLDocument(data: data, charset: charset) }
        let sax = try #require(throws: XMLError.self) { try XMLSAXParser(data: data, charset: charset).events() }
        #expect(dom.reason == sax.reason)
        #expect(dom.line == sax.line)
        #expect(dom.column == sax.column)
        #expect(dom.message == sax.message)
        return dom
    }

    @Test func malformedWithLineAndColumn() throws {
        let mismatch = try error("<a>\n  <b></c>\n</a>")
        #expect(mismatch.reason == .malformed)
        #expect(mismatch.line == 2)
        #expect(mismatch.column == 10)
        #expect(mismatch.message == "Opening and ending tag mismatch: b line 2 and c")
        #expect(mismatch.code == 76)
        #expect(mismatch.description == "XML malformed at line 2, column 10: Opening and ending tag mismatch: b line 2 and c")

        #expect(try error("<a/><b/>").message == "Extra content at the end of the document")
        #expect(try error("<a>&</a>").reason == .malformed)
        #expect(try error("<a x=\"1\" x=\"2\"/>").message == "Attribute x redefined")
        #expect(try error("<a>&undefined;</a>").message == "Entity 'undefined' not defined")
        #expect(try error("<a>\u{01}</a>").reason == .malformed)
        #expect(try error("<x:a/>").reason == .malformed)   // undeclared prefix: not namespace-well-formed
        #expect(try error("text").reason == .malformed)
    }

    @Test(arguments: [
        ("<foo", "Couldn't find end of Start Tag foo"),
        ("<foo><bar>text", "Premature end of data in tag bar"),
        ("<foo attr=\"1", "AttValue: \" or ' expected"),
        ("<foo></fo", "expected '>'"),
        ("<foo><!-- abc", "Comment not terminated"),
        ("<foo><![CDATA[ abc", "Premature end of data in tag foo"),
        ("<?xml version=\"1.0\"", "Blank needed here"),
        ("<foo>\n\n", "Premature end of data in tag foo"),
    ])
    func truncatedDocuments(xml: String, message: String) throws {
        let truncated = try error(xml)
        #expect(truncated.reason == .truncated)
        #expect(truncated.message.hasPrefix(String(message.prefix(10))), "\(truncated.message)")
        #expect(truncated.line != nil)
    }

    @Test func emptyDocuments() throws {
        for xml in ["", "   \n\t", "\u{FEFF}"] {
            let empty = try error(xml)
            #expect(empty.reason == .empty)
            #expect(empty.message == "Document is empty")
        }
    }

    /// Found by the xml fuzz target (Tests/Fuzz/Corpus/xml/regression-utf16-newlines-empty-or-malformed):
    /// in UTF-16, "\n\n" is U+0A0A, not white space, so a document starting with it is malformed
    /// however its bytes arrive; fed a byte at a time it used to be called empty.
    @Test func blankBytesOfAWiderEncodingAreNotAnEmptyDocument() throws {
        let bytes: [UInt8] = Array("\n\n=>\n".utf8)
        #expect(try error(Data(bytes), charset: "UTF-16").reason == .malformed)
        let parser = try XMLEventParser(charset: "UTF-16")
        let bytewise = try #require(throws: XMLError.self) {
            for byte in bytes { _ = try parser.feed([byte]) }
            _ = try parser.finish()
        }
        #expect(bytewise.reason == .malformed)
        // UTF-16 white space alone is not called empty (its byte-order mark and NULs count as
        // content), but it ends the same way however it is cut.
        let spaces: [UInt8] = [0xFF, 0xFE, 0x20, 0x00, 0x0A, 0x00]
        let whole = try error(Data(spaces))
        let cut = try XMLEventParser()
        let pieces = try #require(throws: XMLError.self) {
            for byte in spaces { _ = try cut.feed([byte]) }
            _ = try cut.finish()
        }
        #expect(pieces.reason == whole.reason)
        // A byte-order mark and white space is empty however it is cut, a charset given or not
        // (Tests/Fuzz/Corpus/xml/regression-bom-cut-empty-or-malformed).
        for charset in [nil, "utf-8"] {
            let bom: [UInt8] = [0xEF, 0xBB, 0xBF, 0x20, 0x20]
            let parser = try XMLEventParser(charset: charset)
            let bytewise = try #require(throws: XMLError.self) {
                for byte in bom { _ = try parser.feed([byte]) }
                _ = try parser.finish()
            }
            #expect(bytewise.reason == .empty)
            #expect(try error(Data(bom), charset: charset).reason == .empty)
        }
    }

    @Test func wrongEncodings() throws {
        // Latin-1 bytes in a document that says UTF-8.
        let latin1 = Data(#"<?xml version="1.0" encoding="UTF-8"?><a>"#.utf8) + Data([0xE9, 0x74, 0xE9]) + Data("</a>".utf8)
        let invalid = try error(latin1)
        #expect(invalid.reason == .encoding)
        #expect(invalid.message.hasPrefix("Input is not proper UTF-8"))
        #expect(invalid.line == 1)
        // Invalid UTF-8 without a declaration.
        #expect(try error(Data([0x3C, 0x61, 0x3E, 0xFF, 0xFE, 0x3C, 0x2F, 0x61, 0x3E])).reason == .encoding)
        // A declaration the bytes contradict.
        let labelled = try error(#"<?xml version="1.0" encoding="UTF-16"?><a>x</a>"#)
        #expect(labelled.reason == .encoding)
        #expect(labelled.message == "Document labelled UTF-16 but has UTF-8 content")
        // An encoding nobody knows, declared or sent as the charset.
        #expect(try error(#"<?xml version="1.0" encoding="x-no-such-encoding"?><a/>"#).reason == .encoding)
        let charset = try #require(throws: XMLError.self) { try XMLDocument(data: Data("<a/>".utf8), charset: "x-no-such-encoding") }
        #expect(charset.reason == .encoding)
        // UTF-8 sent as charset=utf-8 but holding Latin-1 bytes.
        #expect(try error(Data("<a>".utf8) + Data([0xE9]) + Data("</a>".utf8), charset: "utf-8").reason == .encoding)
    }

    @Test func libxml2LimitsAreTooLarge() throws {
        let deep = String(repeating: "<d>", count: 300) + String(repeating: "</d>", count: 300)
        let depth = try error(deep)
        #expect(depth.reason == .tooLarge)
        #expect(depth.message.contains("XML_PARSE_HUGE"))
        let longName = "<" + String(repeating: "n", count: 60_000) + "/>"
        #expect([.malformed, .tooLarge].contains(try error(longName).reason))
    }

    /// libxml2 holds back an unfinished tag until its end arrives, up to 10 MB
    /// (XML_MAX_LOOKUP_LIMIT); a start tag longer than that is refused, in bounded memory.
    @Test func hugeStartTagIsRefused() async throws {
        let (body, writer) = Body.makeStream()
        writer.yield(Data("<a b=\"".utf8))
        for _ in 0..<200 { writer.yield(Data(repeating: UInt8(ascii: "x"), count: 64 * 1024)) }
        writer.yield(Data("\"/>".utf8))
        writer.finish()
        let error = try await #require(throws: XMLError.self) {
            for try await _ in XMLStream.events(in: body) {}
        }
        #expect(error.reason == .tooLarge, "\(error)")
    }

    @Test func everyPrefixOfADocumentFailsCleanlyOrParses() throws {
        let xml = Array("""
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE r [<!ELEMENT r ANY>]>
            <r xmlns:p="urn:p" a='1' p:b="&amp;&#233;"><!-- c --><?pi d?><![CDATA[<x>]]>é€😀<p:e/></r>
            """.utf8)
        for end in 0...xml.count {
            let prefix = Data(xml[0..<end])
            do {
                _ = try XMLDocument(data: prefix)
                #expect(end == xml.count)
            } catch {
                #expect(end < xml.count)
                #expect([.truncated, .empty, .encoding, .malformed].contains(error.reason), "\(end): \(error)")
            }
        }
    }

    @Test func randomBytesNeverCrash() throws {
        var generator = SplitMix64(seed: 0xC0FFEE)
        let alphabet = Array("<>/=\"'&;!?[]-abcxyz: \n#é\u{0}".utf8)
        for _ in 0..<2000 {
            let count = Int(generator.next() % 64)
            let bytes = (0..<count).map { _ in
                generator.next() % 8 == 0 ? UInt8(truncatingIfNeeded: generator.next()) : alphabet[Int(generator.next() % UInt64(alphabet.count))]
            }
            _ = try? XMLDocument(data: Data("<r>".utf8) + Data(bytes) + Data("</r>".utf8))
            _ = try? XMLSAXParser(data: Data(bytes)).events()
        }
    }

    @Test func oversizedBodiesAreRefusedBeforeParsing() async throws {
        let body = Body(Data(String(repeating: "<a/>", count: 10).utf8))
        let error = try await #require(throws: XMLError.self) {
            for try await _ in XMLStream.events(in: body, maximumBodySize: 16) {}
        }
        #expect(error.reason == .tooLarge)
        #expect(error.message == "the body is larger than the 16-byte limit it was read with")
    }

    @Test func bodyErrorsPassThroughTheStream() async throws {
        struct Reset: Error {}
        let (body, writer) = Body.makeStream()
        writer.yield(Data("<list><item>1</item><item>".utf8))
        writer.finish(throwing: Reset())
        var events: [XMLEvent] = []
        await #expect(throws: Reset.self) {
            for try await event in XMLStream.events(in: body) { events.append(event) }
        }
        #expect(events.count == 5)   // start list, start item, text, end item, start item
    }
}
