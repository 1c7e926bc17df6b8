import CourierXML
import FoundationEssentials
import Testing

/// Courier does not validate: a document that breaks only a validity constraint of its internal subset is
/// well-formed and parses, as events and as a document alike. libxml2's tree builder reported some of these
/// (an element declared twice, two ID attributes for one element, a notation declared twice, a duplicate
/// `xml:id`), which the event parser never sees, so the two disagreed (found by the `xml` fuzz target's long
/// run). What libxml2 holds against a namespace-aware document (an `<!ATTLIST>` naming `xmlns:1p`) fails both.
@Suite struct ValidityTests {
    @Test(arguments: [
        #"<!DOCTYPE r [<!ATTLIST r a ID #IMPLIED b ID #IMPLIED>]><r/>"#,
        #"<!DOCTYPE r [<!ATTLIST r xml:id CDATA #IMPLIED>]><r/>"#,
        #"<!DOCTYPE r [<!ELEMENT r ANY><!ELEMENT r ANY>]><r/>"#,
        #"<!DOCTYPE r [<!ATTLIST r a (x|x) #IMPLIED>]><r/>"#,
        #"<!DOCTYPE r [<!NOTATION n SYSTEM "x"><!NOTATION n SYSTEM "y">]><r/>"#,
        #"<r><a xml:id="x"/><b xml:id="x"/><c xml:id="1x"/></r>"#,
        #"<!DOCTYPE r [<!ELEMENT r (a)>]><r>text</r>"#,
    ])
    func aValidityErrorFailsNeitherWay(_ text: String) throws {
        let events = try XMLSAXParser(data: Data(text.utf8)).events()
        let document = try XMLDocument(data: Data(text.utf8))
        #expect(events.contains(.startElement(XMLName(localName: document.root.name.localName), attributes: [], namespaces: []))
            || document.root.name.localName == "r")
    }

    @Test func anAttributeListNamingANonNamespaceNameFailsBothWays() {
        let text = #"<!DOCTYPE r [<!ATTLIST r xmlns:1p CDATA #FIXED "p">]><r/>"#
        let events = #expect(throws: XMLError.self) { try XMLSAXParser(data: Data(text.utf8)).events() }
        let document = #expect(throws: XMLError.self) { try XMLDocument(data: Data(text.utf8)) }
        #expect(events?.reason == .malformed && document?.reason == .malformed)
        #expect(events?.message == document?.message)
    }
}
