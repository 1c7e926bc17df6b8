/// An element of a parsed ``XMLDocument``: a plain value, independent of libxml2 and of the
/// document it came from.
///
/// ```swift
/// let document = try XMLDocument(data: Data(#"<foo attr1="1"><bar>someValue</bar></foo>"#.utf8))
/// document.root.name                               // foo
/// document.root["attr1"]                           // "1"
/// document.root.firstElement(named: "bar")?.text   // "someValue"
/// ```
public struct XMLElement: Sendable, Hashable, CustomStringConvertible {
    /// The element's name (local name, prefix, namespace URI).
    public var name: XMLName
    /// Its attributes in document order, namespace declarations excluded.
    public var attributes: [XMLAttribute]
    /// The namespace declarations made on this element.
    public var namespaces: [XMLNamespace]
    /// Its content in document order.
    public var children: [XMLNode]

    /// An element.
    public init(
        name: XMLName, attributes: [XMLAttribute] = [], namespaces: [XMLNamespace] = [], children: [XMLNode] = []
    ) {
        self.name = name
        self.attributes = attributes
        self.namespaces = namespaces
        self.children = children
    }

    /// The value of the attribute written with this qualified name (`id`, `xml:lang`), if any.
    public subscript(attributeName: String) -> String? {
        attributes.first { $0.name.qualifiedName == attributeName }?.value
    }

    /// The value of the attribute with this local name in this namespace (`nil`: no namespace).
    public func attribute(localName: String, namespaceURI: String?) -> String? {
        attributes.first { $0.name.localName == localName && $0.name.namespaceURI == namespaceURI }?.value
    }

    /// The child elements, in order.
    public var elements: [XMLElement] {
        children.compactMap(\.element)
    }

    /// The child elements written with this qualified name.
    public func elements(named qualifiedName: String) -> [XMLElement] {
        elements.filter { $0.name.qualifiedName == qualifiedName }
    }

    /// The first child element written with this qualified name.
    public func firstElement(named qualifiedName: String) -> XMLElement? {
        for case .element(let element) in children where element.name.qualifiedName == qualifiedName {
            return element
        }
        return nil
    }

    /// All the character data inside the element, descendants included, in document order (the
    /// DOM's `textContent`, XPath's string value).
    public var text: String {
        if children.count == 1, case .text(let text) = children[0] { return text }
        var text = ""
        appendText(to: &text)
        return text
    }

    private func appendText(to text: inout String) {
        for child in children {
            switch child {
            case .element(let element): element.appendText(to: &text)
            case .text(let characters), .cdata(let characters): text += characters
            case .comment, .processingInstruction: break
            }
        }
    }

    /// The element as XML, e.g. `<foo attr1="1"><bar>someValue</bar></foo>`.
    public var description: String {
        var output = ""
        XMLWriter.write(.element(self), to: &output)
        return output
    }
}
