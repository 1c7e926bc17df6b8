/// The name of an element or an attribute: its local part, the prefix it was written with, and
/// the namespace URI that prefix (or the default namespace) is bound to.
///
/// A string literal is a name without prefix or namespace, so `element.name == "foo"` reads
/// naturally for documents that use no namespaces:
///
/// ```swift
/// let name = XMLName(localName: "feed", namespaceURI: "http://www.w3.org/2005/Atom")
/// name.qualifiedName   // "feed"
/// name == "feed"       // false: the literal has no namespace
/// ```
public struct XMLName: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The part after the colon (`b` in `a:b`), or the whole name without a prefix.
    public var localName: String
    /// The prefix the document used (`a` in `a:b`), if any.
    public var prefix: String?
    /// The namespace URI the name is in, if any.
    public var namespaceURI: String?

    /// A name.
    public init(localName: String, prefix: String? = nil, namespaceURI: String? = nil) {
        self.localName = localName
        self.prefix = prefix
        self.namespaceURI = namespaceURI
    }

    /// A name without prefix or namespace.
    public init(stringLiteral value: String) {
        self.init(localName: value)
    }

    /// The name as written: `prefix:localName`, or `localName`.
    public var qualifiedName: String {
        guard let prefix, !prefix.isEmpty else { return localName }
        return prefix + ":" + localName
    }

    /// The qualified name.
    public var description: String { qualifiedName }
}

/// An attribute of an element.
public struct XMLAttribute: Sendable, Hashable, CustomStringConvertible {
    /// Its name.
    public var name: XMLName
    /// Its value, with character and predefined entity references replaced.
    public var value: String

    /// An attribute.
    public init(name: XMLName, value: String) {
        self.name = name
        self.value = value
    }

    /// `name="value"` (the value as is, not escaped).
    public var description: String { "\(name)=\"\(value)\"" }
}

/// A namespace declaration (`xmlns="…"` or `xmlns:p="…"`) made on an element.
public struct XMLNamespace: Sendable, Hashable, CustomStringConvertible {
    /// The prefix it binds; `nil` for the default namespace.
    public var prefix: String?
    /// The namespace URI.
    public var uri: String

    /// A declaration.
    public init(prefix: String?, uri: String) {
        self.prefix = prefix
        self.uri = uri
    }

    /// `xmlns:prefix="uri"` or `xmlns="uri"`.
    public var description: String {
        (prefix.map { "xmlns:\($0)" } ?? "xmlns") + "=\"\(uri)\""
    }
}
