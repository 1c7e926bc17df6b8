/// What an XPath expression evaluated to.
///
/// ```swift
/// let value = try document.xpath("/foo/bar")
/// value.nodes.first?.element?.text   // "someValue"
/// try document.xpath("count(//bar)").number   // 1.0
/// try document.xpath("string(/foo/@attr1)").string   // "1"
/// ```
public enum XPathValue: Sendable, Hashable {
    /// A node-set, in document order.
    case nodes([XPathNode])
    /// A string.
    case string(String)
    /// A number.
    case number(Double)
    /// A boolean.
    case boolean(Bool)

    /// The nodes of a node-set; empty for the other kinds.
    public var nodes: [XPathNode] {
        if case .nodes(let nodes) = self { return nodes }
        return []
    }

    /// The elements of a node-set, in document order.
    public var elements: [XMLElement] {
        nodes.compactMap(\.element)
    }

    /// The value converted as XPath's `string()` does: a node-set gives its first node's string
    /// value (empty when empty), a number its shortest decimal form (`1`, `0.5`, `NaN`).
    public var string: String {
        switch self {
        case .nodes(let nodes): return nodes.first?.stringValue ?? ""
        case .string(let string): return string
        case .boolean(let value): return value ? "true" : "false"
        case .number(let number):
            if number.isNaN { return "NaN" }
            if number.isInfinite { return number < 0 ? "-Infinity" : "Infinity" }
            if number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
            return String(number)
        }
    }

    /// The number, when the expression evaluated to one.
    public var number: Double? {
        if case .number(let number) = self { return number }
        return nil
    }

    /// The boolean, when the expression evaluated to one.
    public var boolean: Bool? {
        if case .boolean(let value) = self { return value }
        return nil
    }
}

/// One node of an XPath node-set.
public struct XPathNode: Sendable, Hashable {
    /// What kind of node it is.
    public enum Kind: Sendable, Hashable {
        /// The document node (`/`); ``XPathNode/element`` is the root element.
        case document
        /// An element.
        case element
        /// An attribute.
        case attribute
        /// Text.
        case text
        /// A CDATA section.
        case cdata
        /// A comment.
        case comment
        /// A processing instruction; ``XPathNode/name`` is its target.
        case processingInstruction
        /// A namespace node; ``XPathNode/name`` holds the prefix as its local name.
        case namespace
    }

    /// Its kind.
    public var kind: Kind
    /// The name of an element, attribute, processing instruction or namespace node.
    public var name: XMLName?
    /// The element (for ``Kind/element``; the root element for ``Kind/document``).
    public var element: XMLElement?
    /// XPath's string value: an element's text, an attribute's value, a text node's characters,
    /// a namespace node's URI.
    public var stringValue: String

    /// A node.
    public init(kind: Kind, name: XMLName? = nil, element: XMLElement? = nil, stringValue: String) {
        self.kind = kind
        self.name = name
        self.element = element
        self.stringValue = stringValue
    }
}
