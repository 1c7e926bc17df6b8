import CourierCore
import CourierXML
import FoundationEssentials
import Testing

@Suite struct DocumentTests {
    /// Item 63: AFNetworking's XMLDocument test.
    @Test func afNetworkingsDocument() throws {
        let document = try XMLDocument(data: Data(afDocument.utf8))
        #expect(document.root.name == "foo")
        #expect(document.root["attr1"] == "1")
        #expect(document.root["attr2"] == "2")
        #expect(document.root.elements.count == 1)
        #expect(document.root.firstElement(named: "bar")?.text == "someValue")
        #expect(document.version == "1.0")
        #expect(document.declaredEncoding == "UTF-8")
        #expect(document.root.description == #"<foo attr1="1" attr2="2"><bar>someValue</bar></foo>"#)
    }

    /// Item 63: `<foo` is an error.
    @Test func unfinishedStartTagIsAnError() {
        #expect(throws: XMLError.self) { try XMLDocument(data: Data("<foo".utf8)) }
    }

    @Test func namespacesAttributesAndContentKinds() throws {
        let xml = """
            <?xml version="1.0"?>
            <!-- before -->
            <feed xmlns="http://www.w3.org/2005/Atom" xmlns:m="urn:meta" m:version="2" lang="en">
              <title type="text">A &amp; B &lt;3 &#x263A;</title>
              <m:note><![CDATA[<raw> & ]]>tail<?pi some data?><!-- inside --></m:note>
              <entry quote="&quot;x&quot; &amp; y&#38;z"/>
            </feed>
            """
        let document = try XMLDocument(data: Data(xml.utf8))
        let root = document.root
        #expect(root.name == XMLName(localName: "feed", namespaceURI: "http://www.w3.org/2005/Atom"))
        #expect(root.name != "feed")
        #expect(root.namespaces == [
            XMLNamespace(prefix: nil, uri: "http://www.w3.org/2005/Atom"), XMLNamespace(prefix: "m", uri: "urn:meta"),
        ])
        #expect(root["m:version"] == "2")
        #expect(root.attribute(localName: "version", namespaceURI: "urn:meta") == "2")
        #expect(root.attribute(localName: "lang", namespaceURI: nil) == "en")

        let title = try #require(root.firstElement(named: "title"))
        #expect(title.text == "A & B <3 ☺")
        let note = try #require(root.firstElement(named: "m:note"))
        #expect(note.name.namespaceURI == "urn:meta")
        #expect(note.children == [
            .cdata("<raw> & "), .text("tail"), .processingInstruction(target: "pi", data: "some data"), .comment(" inside "),
        ])
        #expect(note.text == "<raw> & tail")
        #expect(root.firstElement(named: "entry")?["quote"] == #""x" & y&z"#)
        // White space between elements is kept as text.
        #expect(root.children.first == .text("\n  "))
        // Top-level nodes: the comment and the root.
        #expect(document.nodes.count == 2)
        #expect(document.nodes.first == .comment(" before "))
        #expect(document.declaredEncoding == nil)
    }

    @Test func descriptionEscapes() throws {
        let element = XMLElement(
            name: "a", attributes: [XMLAttribute(name: "q", value: "\"<&>\n")],
            children: [.text("x < y & z"), .cdata("a]]>b"), .element(XMLElement(name: "b"))]
        )
        #expect(element.description == #"<a q="&quot;&lt;&amp;&gt;&#10;">x &lt; y &amp; z<![CDATA[a]]]]><![CDATA[>b]]><b/></a>"#)
        // What it writes parses back to the same element.
        #expect(try XMLDocument(data: Data(element.description.utf8)).root == element)
    }

    @Test func documentTypeWithoutEntitiesIsAccepted() throws {
        let document = try XMLDocument(data: Data("<!DOCTYPE note [<!ELEMENT note (#PCDATA)>]><note>hi</note>".utf8))
        #expect(document.root.text == "hi")
    }

    @Test func contentTypeCharsetWinsOverTheDeclaration() throws {
        // ISO-8859-1 bytes for "été", in a document that claims UTF-8.
        let latin1 = Data(#"<?xml version="1.0" encoding="UTF-8"?><a>"#.utf8) + Data([0xE9, 0x74, 0xE9]) + Data("</a>".utf8)
        #expect(throws: XMLError.self) { try XMLDocument(data: latin1) }
        #expect(try XMLDocument(data: latin1, charset: "iso-8859-1").root.text == "été")
        // A declared encoding is honoured without a charset.
        let declared = Data(#"<?xml version="1.0" encoding="ISO-8859-1"?><a>"#.utf8) + Data([0xE9]) + Data("</a>".utf8)
        #expect(try XMLDocument(data: declared).root.text == "é")
    }

    @Test func utf16DocumentsAreDecoded() throws {
        var bytes: [UInt8] = [0xFF, 0xFE]
        for unit in "<a>é€</a>".utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        #expect(try XMLDocument(data: Data(bytes)).root.text == "é€")
    }

    @Test func parsesAStreamingBody() async throws {
        let body = chunkedBody(["<?xml version=\"1.0\"?><list>", "<item>1</it", "em><item>2</item></li", "st>"])
        let document = try await XMLDocument.parse(body)
        #expect(document.root.elements.map(\.text) == ["1", "2"])
    }

    @Test func streamingBodyOverTheBoundIsTooLarge() async throws {
        let body = chunkedBody(["<list>", String(repeating: "<item/>", count: 200), "</list>"])
        let error = try await #require(throws: XMLError.self) { try await XMLDocument.parse(body, maximumBodySize: 1000) }
        #expect(error.reason == .tooLarge)
        // A known length over the bound fails before reading.
        let known = Body(Data(count: 2000))
        #expect(try await #require(throws: XMLError.self) { try await XMLDocument.parse(known, maximumBodySize: 1000) }.reason == .tooLarge)
    }

    @Test func documentsAreSendableValues() async throws {
        let document = try XMLDocument(data: Data(afDocument.utf8))
        let results = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 {
                group.addTask { try document.xpath("string(/foo/bar)").string }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results == Array(repeating: "someValue", count: 8))
    }
}
