@testable import CourierCLI
import Testing

@Suite("XML pretty-printing")
struct XMLOutputTests {
    private func pretty(_ xml: String, charset: String? = nil) -> String? {
        XMLPrettyPrinter.format(Array(xml.utf8), charset: charset).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func indentsLikeXmllintFormat() {
        #expect(pretty(#"<?xml version="1.0"?><slideshow title="Demo"><slide type="all"><title>Wake up</title></slide><!-- c --><slide/></slideshow>"#) == """
            <?xml version="1.0" encoding="UTF-8"?>
            <slideshow title="Demo">
              <slide type="all">
                <title>Wake up</title>
              </slide>
              <!-- c -->
              <slide/>
            </slideshow>

            """)
    }

    @Test func reindentsAlreadyIndentedDocuments() {
        #expect(pretty("<a>\n        <b>x</b>\n</a>\n") == "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<a>\n  <b>x</b>\n</a>\n")
    }

    @Test func charsetOfTheContentTypeDecodesTheBody() throws {
        let latin1: [UInt8] = Array("<a>".utf8) + [0xE9] + Array("</a>".utf8)
        let formatted = try #require(XMLPrettyPrinter.format(latin1, charset: "iso-8859-1"))
        #expect(String(decoding: formatted, as: UTF8.self).hasSuffix("<a>é</a>\n"))
    }

    @Test func whatIsNotAcceptableXMLIsPrintedAsIs() {
        #expect(pretty("<a><b></a>") == nil)
        #expect(pretty("{\"json\":true}") == nil)
        #expect(pretty("") == nil)
        #expect(pretty("<!DOCTYPE a [<!ENTITY e \"x\">]><a>&e;</a>") == nil)
    }

    @Test func xmlContentTypes() {
        #expect(ContentType.isXML("application/xml"))
        #expect(ContentType.isXML("text/xml; charset=utf-8"))
        #expect(ContentType.isXML("application/atom+xml"))
        #expect(ContentType.isXML("image/svg+xml"))
        #expect(!ContentType.isXML("text/html"))
        #expect(!ContentType.isXML(nil))
        #expect(ContentType.charset("text/xml; charset=\"ISO-8859-1\"") == "iso-8859-1")
        #expect(ContentType.charset("text/xml") == nil)
    }

    @Test func prettyPrinterIsChosenByContentType() {
        #expect(BodyPrinter.prettyPrinter(for: "application/json") != nil)
        #expect(BodyPrinter.prettyPrinter(for: "application/xml") != nil)
        #expect(BodyPrinter.prettyPrinter(for: "text/plain") == nil)
        let xml = BodyPrinter.prettyPrinter(for: "text/xml")
        #expect(xml?(Array("<a><b/></a>".utf8)).map { String(decoding: $0, as: UTF8.self) }
            == "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<a>\n  <b/>\n</a>\n")
    }
}
