@testable import CourierXML
import Testing

/// The encoding name Courier reads from a declaration before libxml2 sees the document, to decide
/// whether it decodes the document itself.
@Suite struct XMLDeclarationTests {
    @Test(arguments: [
        (#"<?xml version="1.0" encoding="x-sjis"?>"#, "x-sjis"),
        (#"<?xml version='1.0' encoding='UT-F-8' standalone='yes'?><r/>"#, "UT-F-8"),
        ("<?xml\tversion=\"1.0\"\nencoding = \"hz-gb-2312\" ?>", "hz-gb-2312"),
        (#"<?xml version="1.0"?><r encoding="x-sjis"/>"#, nil),
        (#"<?xml version="1.0" encoding="x-sjis""#, nil),
        (#"<?xml version="1.0" encoding="1abc"?>"#, nil),
        (#"<?xml version="1.0" encoding=""?>"#, nil),
        (#"<?xml version="1.0" xencoding="x-sjis"?>"#, nil),
        (#" <?xml version="1.0" encoding="x-sjis"?>"#, nil),
        (#"<?xml-stylesheet encoding="x-sjis"?>"#, nil),
        (#"<?xml version="1.0" encoding="x-sjis?>"#, nil),
    ] as [(String, String?)])
    func theEncodingNameIsReadFromACompleteDeclarationOnly(text: String, name: String?) {
        #expect(XMLDeclaration.encoding(in: Array(text.utf8)) == name)
    }
}
