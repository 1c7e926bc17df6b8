import Courier
import CourierResponseSerialization
import CourierXML
import Foundation
import Testing

/// Checklist D items 62–63 against httpbin's `/xml` (a slideshow served as `application/xml`),
/// buffered and streamed.
@Suite("XML") struct XMLTests {
    /// Item 62: the parser serializer accepts `/xml` and returns a parser that parses without error.
    @Test func parserSerializerParsesHttpbinsXML() async throws {
        let parser = try await session().get("xml").value(using: XMLParserResponseSerializer())
        let events = try parser.events()
        #expect(events.first == .comment("  A SAMPLE set of slides  "))
        let starts = events.compactMap { event -> String? in
            if case .startElement(let name, _, _) = event { return name.localName } else { return nil }
        }
        #expect(starts.first == "slideshow")
        #expect(starts.filter { $0 == "slide" }.count == 2)
    }

    /// Item 63: the document serializer gives the slideshow, with XPath over it.
    @Test func documentSerializerParsesHttpbinsXML() async throws {
        let document = try await session().get("xml").value(using: XMLDocumentResponseSerializer())
        #expect(document.root.name == "slideshow")
        #expect(document.root["title"] == "Sample Slide Show")
        #expect(document.root.elements(named: "slide").count == 2)
        #expect(try document.xpath("count(//slide)").number == 2)
        #expect(try document.xpath("//slide/title").nodes.map(\.stringValue) == ["Wake up to WonderWidgets!", "Overview"])
        #expect(try document.xpath("string(//item/em)").string == "WonderWidgets")
    }

    /// The same document streamed: events while the body arrives, the head validated first.
    @Test func streamingHttpbinsXML() async throws {
        let response = try await session().send(HTTPRequest(method: .get, url: try #require(URL(string: Servers.httpbin + "/xml"))))
        var titles: [String] = []
        var inTitle = false
        try await XMLStream.parse(response) { event in
            switch event {
            case .startElement(let name, _, _): inTitle = name == "title"
            case .text(let text) where inTitle: titles.append(text)
            case .endElement: inTitle = false
            default: break
            }
        }
        #expect(titles == ["Wake up to WonderWidgets!", "Overview"])

        let again = try await session().send(HTTPRequest(method: .get, url: try #require(URL(string: Servers.httpbin + "/xml"))))
        var count = 0
        for try await _ in try XMLStream.events(in: again) { count += 1 }
        #expect(count > 20)
    }

    /// Items 62–63: `application/json` is not an XML type, for every entry point.
    @Test func jsonIsAnUnacceptableContentType() async throws {
        for serializerUse in 0..<2 {
            let error = try await #require(throws: CourierError.self) {
                if serializerUse == 0 {
                    _ = try await session().get("json").value(using: XMLDocumentResponseSerializer())
                } else {
                    _ = try await session().get("json").value(using: XMLParserResponseSerializer())
                }
            }
            #expect(error.stage == .responseSerialization)
            let validation = try #require(error.underlyingError as? ResponseValidationError)
            #expect(validation.reason == .unacceptableContentType)
            #expect(validation.description == "Request failed: unacceptable content-type: application/json")
        }
        let response = try await session().send(HTTPRequest(method: .get, url: try #require(URL(string: Servers.httpbin + "/json"))))
        let streamed = try await #require(throws: ResponseValidationError.self) {
            try await XMLStream.parse(response) { _ in }
        }
        #expect(streamed.reason == .unacceptableContentType)
    }

    /// A 404 with an empty `text/html` body: the status error; the document serializer still
    /// tries the (empty) body, as AFNetworking does, and says there was no document.
    @Test func notFoundIsAStatusError() async throws {
        let error = try await #require(throws: CourierError.self) {
            _ = try await session().get("status/404").value(using: XMLDocumentResponseSerializer())
        }
        let xml = try #require(error.underlyingError as? XMLError)
        #expect(xml.reason == .empty)
        let status = try #require(xml.underlyingError as? ResponseValidationError)
        #expect(status.description == "Request failed: not found (404)")

        let parserError = try await #require(throws: CourierError.self) {
            _ = try await session().get("status/404").value(using: XMLParserResponseSerializer())
        }
        #expect((parserError.underlyingError as? ResponseValidationError)?.reason == .unacceptableStatusCode)
    }
}
