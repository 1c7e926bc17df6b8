import CourierCore
import CourierResponseSerialization
import CourierXML
import FoundationEssentials
import Testing

@Suite struct EventTests {
    private let document = """
        <?xml version="1.0"?><?style href="a.css"?><list xmlns="urn:l" xmlns:m="urn:m" m:n="2"><!--c--><item id="1" note="a&amp;b &lt; &#x41;">one &amp; <![CDATA[<two>]]></item><m:empty/>tail</list>
        """

    private var expected: [XMLEvent] {
        let list = XMLName(localName: "list", namespaceURI: "urn:l")
        let item = XMLName(localName: "item", namespaceURI: "urn:l")
        let empty = XMLName(localName: "empty", prefix: "m", namespaceURI: "urn:m")
        return [
            .processingInstruction(target: "style", data: #"href="a.css""#),
            .startElement(list, attributes: [XMLAttribute(name: XMLName(localName: "n", prefix: "m", namespaceURI: "urn:m"), value: "2")],
                          namespaces: [XMLNamespace(prefix: nil, uri: "urn:l"), XMLNamespace(prefix: "m", uri: "urn:m")]),
            .comment("c"),
            .startElement(item, attributes: [XMLAttribute(name: "id", value: "1"), XMLAttribute(name: "note", value: "a&b < A")], namespaces: []),
            .text("one & "),
            .cdata("<two>"),
            .endElement(item),
            .startElement(empty, attributes: [], namespaces: []),
            .endElement(empty),
            .text("tail"),
            .endElement(list),
        ]
    }

    @Test func eventsInDocumentOrder() throws {
        #expect(try XMLSAXParser(data: Data(document.utf8)).events() == expected)
    }

    @Test func chunkBoundariesDoNotChangeTheEvents() throws {
        let bytes = Array(document.utf8)
        for size in [1, 2, 3, 7, 64] {
            let parser = try XMLEventParser()
            var events: [XMLEvent] = []
            var offset = 0
            while offset < bytes.count {
                events += try parser.feed(bytes[offset..<min(bytes.count, offset + size)])
                offset += size
            }
            events += try parser.finish()
            #expect(events == expected, "chunks of \(size)")
        }
    }

    /// Found by the xml fuzz target (Tests/Fuzz/Corpus/xml/regression-attlist-default-in-events): the
    /// event parser reported the defaults an internal subset's <!ATTLIST> declares, which the document
    /// parser leaves out (DTD default attributes are never applied); one long default repeated on every
    /// element grew the events like an entity would.
    @Test func attributeDefaultsOfTheInternalSubsetAreNotApplied() throws {
        let xml = #"<!DOCTYPE r [<!ATTLIST e d CDATA "default" xmlns:p CDATA #FIXED "urn:p">]><r><e a="1"/><e/></r>"#
        let events = try XMLSAXParser(data: Data(xml.utf8)).events()
        let starts = events.compactMap { event -> [XMLAttribute]? in
            if case .startElement(let name, let attributes, _) = event, name.localName == "e" { return attributes }
            return nil
        }
        #expect(starts == [[XMLAttribute(name: "a", value: "1")], []])
        let document = try XMLDocument(data: Data(xml.utf8))
        #expect(document.root.elements.map(\.attributes) == starts)

        let bomb = "<!DOCTYPE r [<!ATTLIST e d CDATA \"" + String(repeating: "x", count: 10_000) + "\">]><r>"
            + String(repeating: "<e/>", count: 1_000) + "</r>"
        let amplified = try XMLSAXParser(data: Data(bomb.utf8)).events().reduce(0) { total, event in
            guard case .startElement(_, let attributes, _) = event else { return total }
            return total + attributes.reduce(0) { $0 + $1.value.utf8.count }
        }
        #expect(amplified == 0)
    }

    /// Found by the xml fuzz target (Tests/Fuzz/Corpus/xml/regression-bom-with-charset): told the charset,
    /// libxml2 takes a byte-order mark for a character and failed the document ("Document is empty"),
    /// whole or in chunks; a mark starting a body now decides the encoding.
    @Test func aByteOrderMarkWithACharset() throws {
        let utf16: [UInt8] = [0xFF, 0xFE] + Array("<a>é</a>".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        for charset in ["utf-8", "UTF-16"] {
            #expect(try XMLDocument(data: Data([0xEF, 0xBB, 0xBF] + Array("<a>é</a>".utf8)), charset: charset).root.text == "é")
            #expect(try XMLDocument(data: Data(utf16), charset: charset).root.text == "é")
        }
        #expect(try XMLDocument(data: Data(Array("<a>é</a>".utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }), charset: "UTF-16BE").root.text == "é")
        #expect(throws: XMLError.self) { try XMLDocument(data: Data("<a/>".utf8), charset: "x-no-such-charset") }
    }

    @Test func aByteOrderMarkSplitAcrossTheFirstChunks() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("<a>é</a>".utf8)
        for charset in [nil, "utf-8"] {
            for size in [1, 2, 3] {
                let parser = try XMLEventParser(charset: charset)
                var events: [XMLEvent] = []
                var offset = 0
                while offset < bytes.count {
                    events += try parser.feed(bytes[offset..<min(bytes.count, offset + size)])
                    offset += size
                }
                events += try parser.finish()
                #expect(events == [.startElement("a", attributes: [], namespaces: []), .text("é"), .endElement("a")],
                        "charset \(String(describing: charset)), chunks of \(size)")
            }
        }
        // A document shorter than the held bytes is still parsed at the end.
        let short = try XMLEventParser()
        #expect(try short.feed(Array("<a/".utf8)).isEmpty)
        #expect(try short.feed(Array(">".utf8)) + short.finish() == [.startElement("a", attributes: [], namespaces: []), .endElement("a")])
    }

    /// Found by the xml fuzz target (Tests/Fuzz/Corpus/xml/doctype-system-literal-with-gt-valid): libxml2 2.9
    /// takes any `>` for the end of a document type declaration, so a body cut after a `>` inside a quoted
    /// literal (or a comment of the internal subset) failed ("Unfinished System or Public ID") a document that
    /// parses whole. The prolog now reaches libxml2 in one piece, whatever the cuts.
    @Test func aDocumentTypeDeclarationCutAnywhere() throws {
        let documents = [
            #"<?xml version="1.0"?><!DOCTYPE plist PUBLIC "-//A//B" "http://x/y>z.dtd"><plist><a/></plist>"#,
            #"<!DOCTYPE r [ <!-- it's a ]> trap --> <!ELEMENT r ANY> <!ATTLIST r b CDATA "]>'"> ]><r>t</r>"#,
        ]
        var options = XMLParseOptions()
        options.allowsExternalDTDReference = true  // named, never loaded
        for text in documents {
            let whole = try XMLSAXParser(data: Data(text.utf8), options: options).events()
            #expect(whole.count >= 3, "\(whole)")
            let utf16 = [UInt8]([0xFF, 0xFE]) + Array(text.utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
            for bytes in [Array(text.utf8), utf16] {
                for cut in 1..<bytes.count {
                    let parser = try XMLEventParser(options: options)
                    let events = try parser.feed(bytes[..<cut]) + parser.feed(bytes[cut...]) + parser.finish()
                    #expect(events == whole, "cut at \(cut) of \(bytes.count)")
                }
                let bytewise = try XMLEventParser(options: options)
                var events: [XMLEvent] = []
                for byte in bytes { events += try bytewise.feed([byte]) }
                #expect(try events + bytewise.finish() == whole)
            }
        }
    }

    /// Found by the xml fuzz target (Tests/Fuzz/Corpus/xml/empty-cdata-section): an empty CDATA section was no
    /// event, while the document keeps it as an empty CDATA node, so the two disagreed about `x<![CDATA[]]>tail`.
    /// It is `.cdata("")` now, joined with CDATA next to it as the document joins them, however the bytes are cut.
    @Test func anEmptyCDATASectionIsAnEvent() throws {
        let start = XMLEvent.startElement("a", attributes: [], namespaces: []), end = XMLEvent.endElement("a")
        let cases: [(String, [XMLEvent], [XMLNode])] = [
            ("<a>x<![CDATA[]]>tail</a>", [start, .text("x"), .cdata(""), .text("tail"), end], [.text("x"), .cdata(""), .text("tail")]),
            ("<a><![CDATA[]]></a>", [start, .cdata(""), end], [.cdata("")]),
            ("<a><![CDATA[]]><![CDATA[y]]><![CDATA[]]></a>", [start, .cdata("y"), end], [.cdata("y")]),
            ("<a>&#38;<![CDATA[]]><b/></a>", [start, .text("&"), .cdata(""), .startElement("b", attributes: [], namespaces: []), .endElement("b"), end],
             [.text("&"), .cdata(""), .element(XMLElement(name: "b"))]),
        ]
        for (text, expected, children) in cases {
            let bytes = Array(text.utf8)
            #expect(try XMLSAXParser(data: Data(bytes)).events() == expected, "\(text)")
            #expect(try XMLDocument(data: Data(bytes)).root.children == children, "\(text)")
            for cut in 1..<bytes.count {
                let parser = try XMLEventParser()
                let events = try parser.feed(bytes[..<cut]) + parser.feed(bytes[cut...]) + parser.finish()
                #expect(events == expected, "\(text) cut at \(cut)")
            }
            let bytewise = try XMLEventParser()
            var events: [XMLEvent] = []
            for byte in bytes { events += try bytewise.feed([byte]) }
            #expect(try events + bytewise.finish() == expected, "\(text) a byte at a time")
        }
    }

    @Test func multiByteCharactersSplitAcrossChunks() throws {
        let parser = try XMLEventParser()
        var events = try parser.feed(Data("<a>".utf8) + Data([0xE2, 0x82]))
        events += try parser.feed(Data([0xAC]) + Data("😀</a>".utf8))
        events += try parser.finish()
        #expect(events == [.startElement("a", attributes: [], namespaces: []), .text("€😀"), .endElement("a")])
    }

    @Test func longTextArrivesInBoundedPieces() throws {
        let text = String(repeating: "0123456789", count: 20_000)
        let events = try XMLSAXParser(data: Data("<a>\(text)</a>".utf8)).events()
        let pieces = events.compactMap { event -> String? in if case .text(let text) = event { return text } else { return nil } }
        #expect(pieces.count == 4)
        #expect(pieces.allSatisfy { $0.utf8.count <= 64 * 1024 })
        #expect(pieces.joined() == text)
    }

    @Test func handlerReceivesEventsAndCanStop() throws {
        struct Enough: Error {}
        var seen: [XMLEvent] = []
        #expect(throws: Enough.self) {
            try XMLSAXParser(data: Data(document.utf8)).parse { event in
                seen.append(event)
                if case .comment = event { throw Enough() }
            }
        }
        #expect(seen == Array(expected.prefix(3)))
    }

    @Test func eventsBeforeAnErrorAreDelivered() async throws {
        var seen: [XMLEvent] = []
        let error = try #require(throws: XMLError.self) {
            try XMLSAXParser(data: Data("<a><b>x</b><c></a>".utf8)).parse { seen.append($0) }
        }
        #expect(error.reason == .malformed)
        #expect(seen == [
            .startElement("a", attributes: [], namespaces: []), .startElement("b", attributes: [], namespaces: []),
            .text("x"), .endElement("b"), .startElement("c", attributes: [], namespaces: []),
        ])
        var streamed: [XMLEvent] = []
        await #expect(throws: XMLError.self) {
            for try await event in XMLStream.events(in: chunkedBody(["<a><b>x</b>", "<c></a>"])) { streamed.append(event) }
        }
        #expect(streamed == seen)
    }

    @Test func asyncSequenceOverABody() async throws {
        let bytes = Array(document.utf8)
        let chunks = stride(from: 0, to: bytes.count, by: 5).map { String(decoding: bytes[$0..<min(bytes.count, $0 + 5)], as: UTF8.self) }
        var events: [XMLEvent] = []
        for try await event in XMLStream.events(in: Body(Data(bytes))) { events.append(event) }
        #expect(events == expected)
        // Chunks split anywhere (even inside a multi-byte sequence: the split above is by byte).
        let (body, writer) = Body.makeStream()
        for index in stride(from: 0, to: bytes.count, by: 5) { writer.yield(ArraySlice(bytes[index..<min(bytes.count, index + 5)])) }
        writer.finish()
        events = []
        for try await event in XMLStream.events(in: body) { events.append(event) }
        #expect(events == expected)
        #expect(chunks.count > 10)
    }

    @Test func streamingAResponseValidatesTheHeadFirst() async throws {
        var events: [XMLEvent] = []
        try await XMLStream.parse(streamingResponse(contentType: "text/xml; charset=utf-8", body: chunkedBody(["<a>", "hi</a>"]))) {
            events.append($0)
        }
        #expect(events == [.startElement("a", attributes: [], namespaces: []), .text("hi"), .endElement("a")])

        // A wrong type: refused before a byte is read (the body would throw if read).
        struct Untouched: Error {}
        let poisoned = Body(ThrowingChunks(), length: .unknown, iterationBehavior: .single)
        let wrongType = try await #require(throws: ResponseValidationError.self) {
            try await XMLStream.parse(streamingResponse(contentType: "application/json", body: poisoned)) { _ in }
        }
        #expect(wrongType.reason == .unacceptableContentType)
        #expect(wrongType.body.isEmpty)
        // A bad status: refused before reading too (no events of an error page).
        let notFound = try await #require(throws: ResponseValidationError.self) {
            try await XMLStream.parse(streamingResponse(404, body: poisoned)) { _ in }
        }
        #expect(notFound.reason == .unacceptableStatusCode)
        #expect(notFound.description == "Request failed: not found (404)")
        #expect(notFound.url == "http://mock.test/feed")
        #expect(throws: ResponseValidationError.self) { try XMLStream.events(in: streamingResponse(500, body: poisoned)) }
        // Empty with a wrong type: AFNetworking's "invalid, no error": nothing to parse.
        var none: [XMLEvent] = []
        for try await event in try XMLStream.events(in: streamingResponse(contentType: "text/html", body: .empty)) { none.append(event) }
        #expect(none.isEmpty)
        // The charset of the Content-Type decodes the body.
        let latin1 = Body(Data("<a>".utf8) + Data([0xE9]) + Data("</a>".utf8))
        var text: [XMLEvent] = []
        for try await event in try XMLStream.events(in: streamingResponse(contentType: "application/xml; charset=ISO-8859-1", body: latin1)) {
            text.append(event)
        }
        #expect(text.contains(.text("é")))
    }
}

/// Chunks that fail when read: proves a body was not read.
struct ThrowingChunks: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    struct AsyncIterator: AsyncIteratorProtocol {
        mutating func next() async throws -> ArraySlice<UInt8>? {
            Issue.record("the body was read")
            throw CancellationError()
        }
    }
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }
}
