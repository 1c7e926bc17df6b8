import CourierXML
import FoundationEssentials
import Testing

@Suite struct XPathTests {
    let document: XMLDocument

    init() throws {
        document = try XMLDocument(data: Data("""
            <library xmlns:d="urn:dc">
              <book id="b1" year="1843"><title>Notes</title><d:creator>Ada</d:creator></book>
              <book id="b2" year="1936"><title>On Computable Numbers</title><d:creator>Alan</d:creator></book>
              <!-- end --><?done yes?>
            </library>
            """.utf8))
    }

    @Test func elementsInDocumentOrder() throws {
        let books = try document.xpath("//book").elements
        #expect(books.map { $0["id"] } == ["b1", "b2"])
        #expect(books.first?.firstElement(named: "title")?.text == "Notes")
        let nodes = try document.xpath("/library/book[@year > 1900]/title").nodes
        #expect(nodes.map(\.kind) == [.element])
        #expect(nodes.first?.name == "title")
        #expect(nodes.first?.stringValue == "On Computable Numbers")
        #expect(nodes.first?.element?.text == "On Computable Numbers")
    }

    @Test func stringsNumbersAndBooleans() throws {
        #expect(try document.xpath("count(//book)") == .number(2))
        #expect(try document.xpath("count(//book)").string == "2")
        #expect(try document.xpath("sum(//book/@year) div 2").number == 1889.5)
        #expect(try document.xpath("string(//book[2]/@id)") == .string("b2"))
        #expect(try document.xpath("//book[1]/title").string == "Notes")
        #expect(try document.xpath("boolean(//book[@id='b3'])") == .boolean(false))
        #expect(try document.xpath("//nothing").nodes.isEmpty)
        #expect(try document.xpath("//nothing").string == "")
    }

    @Test func attributesTextCommentsAndInstructions() throws {
        let attributes = try document.xpath("//book/@id").nodes
        #expect(attributes.map(\.kind) == [.attribute, .attribute])
        #expect(attributes.map(\.stringValue) == ["b1", "b2"])
        #expect(attributes.first?.name == "id")
        #expect(try document.xpath("//title/text()").nodes.map(\.stringValue) == ["Notes", "On Computable Numbers"])
        #expect(try document.xpath("//comment()").nodes.map(\.stringValue) == [" end "])
        let instruction = try #require(try document.xpath("//processing-instruction()").nodes.first)
        #expect(instruction.kind == .processingInstruction)
        #expect(instruction.name == "done")
        #expect(instruction.stringValue == "yes")
        let root = try #require(try document.xpath("/").nodes.first)
        #expect(root.kind == .document)
        #expect(root.element?.name == "library")
    }

    @Test func namespacePrefixesAreRegistered() throws {
        let creators = try document.xpath("//x:creator", namespaces: ["x": "urn:dc"])
        #expect(creators.nodes.map(\.stringValue) == ["Ada", "Alan"])
        #expect(creators.elements.first?.name == XMLName(localName: "creator", prefix: "d", namespaceURI: "urn:dc"))
        let unregistered = try #require(throws: XMLError.self) { try document.xpath("//y:creator") }
        #expect(unregistered.reason == .xpath)
        #expect(unregistered.message.hasPrefix("Undefined namespace prefix"))
    }

    @Test(arguments: ["//book[", "///", "count(", "//book[@id=']", "nosuchfunction()", "$undefined", ""])
    func badExpressionsAreTypedErrors(expression: String) throws {
        let error = try #require(throws: XMLError.self) { try document.xpath(expression) }
        #expect(error.reason == .xpath)
        #expect(error.message.contains(expression))
        #expect(error.description.hasPrefix("XPath error"))
    }

    @Test func operationLimitStopsRunawayExpressions() throws {
        let items = String(repeating: "<i><j/><j/></i>", count: 4000)
        let big = try XMLDocument(data: Data("<r>\(items)</r>".utf8))
        let error = try #require(throws: XMLError.self) {
            try big.xpath("count(//*[count(//*[count(//*) > 0]) > 0])")
        }
        #expect(error.reason == .xpath)
        #expect(error.message.hasPrefix("Operation limit exceeded"))
    }
}
