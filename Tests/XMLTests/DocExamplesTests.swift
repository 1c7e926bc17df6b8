import CourierCore
import CourierResponseSerialization
import CourierTesting
import CourierXML
import FoundationEssentials
import HTTPTypes
import Testing

/// The Swift examples of docs/xml.md, verbatim (Scripts/lib/check-doc-examples.py checks that each
/// one appears here), against a mock of httpbin's `/xml` and an XML error body.
@Suite struct DocExamplesTests {
    static let slideshow = """
        <?xml version='1.0' encoding='us-ascii'?>
        <!--  A SAMPLE set of slides  -->
        <slideshow title="Sample Slide Show" date="Date of publication" author="Yours Truly">
            <!-- TITLE SLIDE -->
            <slide type="all">
              <title>Wake up to WonderWidgets!</title>
            </slide>
            <!-- OVERVIEW -->
            <slide type="all">
                <title>Overview</title>
                <item>Why <em>WonderWidgets</em> are great</item>
                <item/>
                <item>Who <em>buys</em> WonderWidgets</item>
            </slide>
        </slideshow>
        """

    private let session = Session(
        configuration: SessionConfiguration(baseURL: URL(string: "http://127.0.0.1:18080")),
        transport: MockTransport { request in
            switch request.pathWithoutQuery {
            case "/xml":
                return MockResponse(headerFields: [.contentType: "application/xml"], body: .bytes(Data(Self.slideshow.utf8)))
            case "/status/418":
                return MockResponse(
                    status: .init(code: 418), headerFields: [.contentType: "application/xml"],
                    body: .bytes(Data("<error><code>teapot</code></error>".utf8))
                )
            default:
                return MockResponse(status: .notFound)
            }
        }
    )

    @Test func allowingAnExternalDTDReference() throws {
        var options = XMLParseOptions()
        options.allowsExternalDTDReference = true   // the DTD is never fetched
        let page = try XMLDocument(data: Data(#"<!DOCTYPE html SYSTEM "about:legacy-compat"><html><p>hi</p></html>"#.utf8), options: options)
        let paragraph = page.root.firstElement(named: "p")?.text   // "hi"
        #expect(paragraph == "hi")
    }

    @Test func domBasics() throws {
        let document = try XMLDocument(data: Data(#"<?xml version="1.0" encoding="UTF-8"?><foo attr1="1" attr2="2"><bar>someValue</bar></foo>"#.utf8))
        let root = document.root.name                           // "foo"
        let attribute = document.root["attr1"]                  // "1"
        let bar = document.root.firstElement(named: "bar")?.text // "someValue"
        #expect(root == "foo")
        #expect(attribute == "1")
        #expect(bar == "someValue")
    }

    @Test func xpathWithNamespaces() throws {
        let atom = ["a": "http://www.w3.org/2005/Atom"]
        let feed = try XMLDocument(data: Data(#"<feed xmlns="http://www.w3.org/2005/Atom"><entry><title>Hello</title></entry><entry><title>World</title></entry></feed>"#.utf8))
        let titles = try feed.xpath("//a:entry/a:title", namespaces: atom).nodes.map(\.stringValue)  // ["Hello", "World"]
        let count = try feed.xpath("count(//a:entry)", namespaces: atom).number                      // 2
        let first = try feed.xpath("//a:entry[1]", namespaces: atom).elements.first?.text            // "Hello"
        #expect(titles == ["Hello", "World"])
        #expect(count == 2)
        #expect(first == "Hello")
    }

    @Test func responseSerializers() async throws {
        let slideshow = try await session.get("xml").value(using: XMLDocumentResponseSerializer())
        let slides = try slideshow.xpath("//slide/title").nodes.map(\.stringValue)   // ["Wake up to WonderWidgets!", "Overview"]
        let parser = try await session.get("xml").value(using: XMLParserResponseSerializer())
        let eventCount = try parser.events().count                                  // every event, in order
        #expect(slides == ["Wake up to WonderWidgets!", "Overview"])
        #expect(eventCount > 20)
    }

    @Test func statusOnlyFailureCarriesTheDocument() async throws {
        var problemCode: String?
        do {
            _ = try await session.get("status/418").value(using: XMLDocumentResponseSerializer())
        } catch {
            let failure = error.underlyingError as? ResponseValidationError   // Request failed: I'm a teapot (418)
            let problem = failure?.serializedValue as? XMLDocument             // the parsed error body
            problemCode = problem?.root.firstElement(named: "code")?.text      // "teapot"
        }
        #expect(problemCode == "teapot")
    }

    @Test func streamingAResponse() async throws {
        let response = try await session.send(HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:18080", path: "/xml"))
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
        // titles == ["Wake up to WonderWidgets!", "Overview"]
        #expect(titles == ["Wake up to WonderWidgets!", "Overview"])
    }

    @Test func eventsAsAnAsyncSequence() async throws {
        let feed = try await session.send(HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:18080", path: "/xml"))
        var slideCount = 0
        for try await event in try XMLStream.events(in: feed) {
            if case .endElement(let name) = event, name.localName == "slide" { slideCount += 1 }
        }
        // slideCount == 2
        #expect(slideCount == 2)
    }

    @Test func feedingBytesYourself() throws {
        let incremental = try XMLEventParser()
        var events = try incremental.feed(Data("<list><item>a</it".utf8))   // start list, start item
        events += try incremental.feed(Data("em></list>".utf8))             // text "a", end item, end list
        events += try incremental.finish()
        #expect(events == [
            .startElement("list", attributes: [], namespaces: []), .startElement("item", attributes: [], namespaces: []),
            .text("a"), .endElement("item"), .endElement("list"),
        ])
    }

    @Test func errorsSayWhereAndWhy() throws {
        var caught: XMLError?
        do {
            _ = try XMLDocument(data: Data("<a>\n  <b></c>\n</a>".utf8))
        } catch {
            caught = error   // reason .malformed, line 2, column 10, code 76
        }
        // caught?.description == "XML malformed at line 2, column 10: Opening and ending tag mismatch: b line 2 and c"
        #expect(caught?.reason == .malformed)
        #expect(caught?.line == 2)
        #expect(caught?.column == 10)
        #expect(caught?.code == 76)
        #expect(caught?.description == "XML malformed at line 2, column 10: Opening and ending tag mismatch: b line 2 and c")
    }

    @Test func formatting() throws {
        let pretty = try XMLFormatter.format(Data("<a><b>text</b><c/></a>".utf8))
        // <?xml version="1.0" encoding="UTF-8"?>
        // <a>
        //   <b>text</b>
        //   <c/>
        // </a>
        #expect(pretty == "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<a>\n  <b>text</b>\n  <c/>\n</a>\n")
    }
}
