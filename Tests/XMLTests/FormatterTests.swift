import CourierXML
import FoundationEssentials
import Testing

@Suite struct FormatterTests {
    @Test func indentsLikeXmllintFormat() throws {
        let formatted = try XMLFormatter.format(Data(#"<a x="1"><b>text</b>  <c/><d><e>é</e></d></a>"#.utf8))
        #expect(formatted == """
            <?xml version="1.0" encoding="UTF-8"?>
            <a x="1">
              <b>text</b>
              <c/>
              <d>
                <e>é</e>
              </d>
            </a>

            """)
    }

    @Test func mixedContentIsKept() throws {
        let formatted = try XMLFormatter.format(Data("<p>Hello <b>big</b> world</p>".utf8))
        #expect(formatted.hasSuffix("<p>Hello <b>big</b> world</p>\n"))
    }

    @Test func refusesWhatEveryParserRefuses() {
        #expect(throws: XMLError.self) { try XMLFormatter.format(Data("<a>".utf8)) }
        #expect(throws: XMLError.self) { try XMLFormatter.format(Data("<!DOCTYPE a [<!ENTITY e 'x'>]><a>&e;</a>".utf8)) }
    }
}
