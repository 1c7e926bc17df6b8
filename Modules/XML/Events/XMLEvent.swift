/// One step of a streaming (SAX) parse, in document order.
///
/// XML 1.0 fixes the kinds of content a document holds, so this is an enum. Character data is
/// gathered: consecutive character data (text, or CDATA) arrives as one event, except that a
/// run longer than 64 KiB is split into several consecutive events, so memory stays bounded.
/// Entity and character references arrive already replaced (`&amp;` → `&`).
///
/// ```swift
/// for try await event in XMLStream.events(in: response.body) {
///     if case .startElement(let name, let attributes, _) = event, name == "item" {
///         print(attributes.first { $0.name == "id" }?.value ?? "")
///     }
/// }
/// ```
public enum XMLEvent: Sendable, Hashable {
    /// An element starts: its name, attributes (in document order, without namespace
    /// declarations) and the namespace declarations it makes.
    case startElement(XMLName, attributes: [XMLAttribute], namespaces: [XMLNamespace])
    /// An element ends (also reported for an empty element, right after its start).
    case endElement(XMLName)
    /// Character data outside CDATA sections, white space included.
    case text(String)
    /// The content of CDATA sections.
    case cdata(String)
    /// A comment's content, without `<!--` and `-->`.
    case comment(String)
    /// A processing instruction (`<?target data?>`); the XML declaration is not one.
    case processingInstruction(target: String, data: String?)
}
