import CourierCore
import CourierResponseSerialization
import CourierXML
import FoundationEssentials
import Testing

@Suite struct SerializerTests {
    /// Items 62–63: AFNetworking's XML types, exactly.
    @Test func acceptableContentTypesAreApplicationAndTextXML() throws {
        #expect(XMLStream.acceptableContentTypes == ["application/xml", "text/xml"])
        #expect(XMLDocumentResponseSerializer().validator.acceptableContentTypes == ["application/xml", "text/xml"])
        #expect(XMLParserResponseSerializer().validator.acceptableContentTypes == ["application/xml", "text/xml"])
        #expect(XMLDocumentResponseSerializer().validator.acceptableStatusCodes == Set(200..<300))
        for type in ["application/xml", "text/xml", "text/xml; charset=utf-8", "Application/XML"] {
            #expect(throws: Never.self) { try XMLDocumentResponseSerializer().serialize(response(contentType: type, body: afDocument)) }
            #expect(throws: Never.self) { try XMLParserResponseSerializer().serialize(response(contentType: type, body: afDocument)) }
        }
        for type in ["nonstandard/xml", "application/atom+xml", "application/json", "text/html"] {
            let error = try #require(throws: ResponseValidationError.self) {
                try XMLDocumentResponseSerializer().serialize(response(contentType: type, body: afDocument))
            }
            #expect(error.reason == .unacceptableContentType)
            #expect(error.description == "Request failed: unacceptable content-type: \(type)")
            #expect(throws: ResponseValidationError.self) {
                try XMLParserResponseSerializer().serialize(response(contentType: type, body: afDocument))
            }
        }
    }

    /// Item 63 through the serializer.
    @Test func documentSerializer() throws {
        let document = try XMLDocumentResponseSerializer().serialize(response(body: afDocument))
        #expect(document.root.name == "foo")
        #expect(document.root["attr1"] == "1")
        #expect(document.root.firstElement(named: "bar")?.text == "someValue")
        let error = try #require(throws: XMLError.self) { try XMLDocumentResponseSerializer().serialize(response(body: "<foo")) }
        #expect(error.reason == .truncated)
        #expect(error.line == 1)
        #expect(error.column == 5)
    }

    /// Item 62: the parser serializer returns a parser that has not parsed yet.
    @Test func parserSerializerReturnsAnUnparsedParser() throws {
        let parser = try XMLParserResponseSerializer().serialize(response(contentType: "text/xml", body: afDocument))
        #expect(try parser.events().first == .startElement(
            "foo", attributes: [XMLAttribute(name: "attr1", value: "1"), XMLAttribute(name: "attr2", value: "2")], namespaces: []
        ))
        // Malformed XML surfaces when it runs, as with NSXMLParser.
        let malformed = try XMLParserResponseSerializer().serialize(response(body: "<foo"))
        #expect(throws: XMLError.self) { try malformed.events() }
    }

    /// A status-only failure still parses, and the error carries the value (behaviour-spec §3.7).
    @Test func statusOnlyFailureCarriesTheParsedValue() throws {
        let problem = #"<error><code>42</code></error>"#
        let error = try #require(throws: ResponseValidationError.self) {
            try XMLDocumentResponseSerializer().serialize(response(404, body: problem))
        }
        #expect(error.reason == .unacceptableStatusCode)
        #expect(error.underlyingError == nil)
        let document = try #require(error.serializedValue as? XMLDocument)
        #expect(document.root.firstElement(named: "code")?.text == "42")

        let parserError = try #require(throws: ResponseValidationError.self) {
            try XMLParserResponseSerializer().serialize(response(500, body: problem))
        }
        #expect(try (parserError.serializedValue as? XMLSAXParser)?.events().count == 5)

        // A status failure whose body does not parse: the XML error, the status error beneath.
        let both = try #require(throws: XMLError.self) { try XMLDocumentResponseSerializer().serialize(response(500, body: "<oops")) }
        #expect((both.underlyingError as? ResponseValidationError)?.reason == .unacceptableStatusCode)
    }

    /// Both checks failing: the status error, with the content-type error beneath, and no parse.
    @Test func statusAndTypeFailing() throws {
        let error = try #require(throws: ResponseValidationError.self) {
            try XMLDocumentResponseSerializer().serialize(response(404, contentType: "text/html", body: "<p>"))
        }
        #expect(error.reason == .unacceptableStatusCode)
        #expect((error.underlyingError as? ResponseValidationError)?.reason == .unacceptableContentType)
        #expect(error.serializedValue == nil)
    }

    @Test func emptyBodies() throws {
        // No type and no body is valid, but there is no document.
        #expect(try #require(throws: XMLError.self) { try XMLDocumentResponseSerializer().serialize(response(contentType: nil)) }.reason == .empty)
        // A wrong type with no body: AFNetworking's "invalid without an error"; still no document.
        #expect(try #require(throws: XMLError.self) {
            try XMLDocumentResponseSerializer().serialize(response(204, contentType: "text/html"))
        }.reason == .empty)
    }

    @Test func oversizedBodies() throws {
        var serializer = XMLDocumentResponseSerializer()
        serializer.maximumBodySize = 100
        let big = "<a>" + String(repeating: "x", count: 200) + "</a>"
        let error = try #require(throws: XMLError.self) { try serializer.serialize(response(body: big)) }
        #expect(error.reason == .tooLarge)
        var parser = XMLParserResponseSerializer()
        parser.maximumBodySize = 100
        #expect(throws: XMLError.self) { try parser.serialize(response(body: big)) }
        #expect(XMLDocumentResponseSerializer().maximumBodySize == 16 * 1024 * 1024)
    }

    @Test func charsetOfTheContentTypeIsUsed() throws {
        let latin1 = Data("<a>".utf8) + Data([0xE9]) + Data("</a>".utf8)
        let document = try XMLDocumentResponseSerializer().serialize(response(contentType: "text/xml; charset=iso-8859-1", data: latin1))
        #expect(document.root.text == "é")
        #expect(try #require(throws: XMLError.self) {
            try XMLDocumentResponseSerializer().serialize(response(contentType: "text/xml", data: latin1))
        }.reason == .encoding)
    }

    @Test func customValidator() throws {
        var serializer = XMLDocumentResponseSerializer()
        serializer.validator.acceptableContentTypes?.insert("application/atom+xml")
        #expect(try serializer.serialize(response(contentType: "application/atom+xml", body: "<feed/>")).root.name == "feed")
    }
}
