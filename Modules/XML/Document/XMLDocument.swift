import CourierCore
import FoundationEssentials
internal import CLibXML2

/// A parsed XML document (DOM) with XPath queries: CourierXML's `AFXMLDocumentResponseSerializer`.
///
/// ```swift
/// let document = try XMLDocument(data: Data(#"<foo attr1="1"><bar>someValue</bar></foo>"#.utf8))
/// document.root.name                           // foo
/// try document.xpath("/foo/bar").string        // "someValue"
/// ```
///
/// Parsing is safe by default: entity declarations, external entities and external DTDs are
/// refused with an ``XMLError`` (no entity is ever expanded, nothing is ever loaded, nothing
/// touches the network), and libxml2's size limits stay on. See ``XMLParseOptions`` and
/// docs/xml.md.
///
/// **Representation.** The document is both a tree of Swift values (``root``, ``nodes``: plain
/// `Sendable` structs you can keep, compare and pass around after the document is gone) and the
/// libxml2 tree they were copied from, kept only to answer ``xpath(_:namespaces:)`` with
/// libxml2's complete XPath 1.0. The libxml2 tree lives behind a lock, since libxml2 objects are
/// not safe to share across threads (queries on one document run one at a time), and is freed
/// with the document. A pure Swift tree
/// alone would need an XPath engine of its own; libxml2 objects alone would make every element
/// a handle that needs a lock to read.
///
/// **Linking.** `CourierXML` is deliberately not part of the `Courier` umbrella: only programs
/// that depend on the `CourierXML` product link libxml2 (`Scripts/linkage-test.sh` checks it).
public final class XMLDocument: Sendable {
    /// The most bytes ``parse(_:options:charset:maximumBodySize:)`` and
    /// ``XMLDocumentResponseSerializer`` read by default: 16 MiB. A DOM holds several times its
    /// document's size; stream bigger documents with ``XMLStream``.
    public static let defaultMaximumBodySize = 16 * 1024 * 1024

    /// The root element.
    public let root: XMLElement
    /// The top-level nodes in order: comments and processing instructions around the root, and
    /// the root itself.
    public let nodes: [XMLNode]
    /// The `version` of the XML declaration (`1.0` when there is none).
    public let version: String?
    /// The `encoding` the XML declaration names, if any (the text itself is always decoded).
    public let declaredEncoding: String?

    private let tree: Locked<OwnedDocument>
    /// Every element, indexed by the number stored in its libxml2 node (see ``TreeConversion``).
    private let elements: [XMLElement]

    /// Parses a whole document held in memory.
    ///
    /// - Parameters:
    ///   - data: The document's bytes.
    ///   - options: What to accept; the defaults refuse everything external.
    ///   - charset: The `charset` of the body's `Content-Type`, which wins over the document's
    ///     own declaration (RFC 7303); `nil` lets the document say.
    /// - Throws: ``XMLError``: malformed, truncated, empty, encoding, a refused entity or DTD…
    public convenience init(data: Data, options: XMLParseOptions = XMLParseOptions(), charset: String? = nil) throws(XMLError) {
        let parser = try PushParser(mode: .tree(keepsBlankText: true), options: options, charset: charset)
        try parser.feed(data)
        try parser.finish()
        try self.init(taking: parser)
    }

    /// Parses a document while its body arrives (a DOM still needs the whole document in memory
    /// at the end, so the body is bounded).
    ///
    /// - Throws: ``XMLError`` (reason ``XMLError/Reason/tooLarge`` past `maximumBodySize`), or
    ///   the body's own error.
    public static func parse(
        _ body: Body, options: XMLParseOptions = XMLParseOptions(), charset: String? = nil,
        maximumBodySize: Int = XMLDocument.defaultMaximumBodySize
    ) async throws -> XMLDocument {
        let parser = try PushParser(mode: .tree(keepsBlankText: true), options: options, charset: charset)
        try await parser.feed(body, maximumBodySize: maximumBodySize) { _ in }
        try parser.finish()
        return try XMLDocument(taking: parser)
    }

    private init(taking parser: PushParser) throws(XMLError) {
        guard let pointer = parser.takeDocument() else {
            throw XMLError(reason: .empty, message: "Document is empty")
        }
        let document = OwnedDocument(pointer: pointer)
        var conversion = TreeConversion()
        let nodes = conversion.convertSiblings(from: pointer.pointee.children)
        guard let root = nodes.lazy.compactMap(\.element).first else {
            throw XMLError(reason: .empty, message: "Document has no root element")
        }
        self.nodes = nodes
        self.root = root
        self.elements = conversion.elements
        version = TreeConversion.string(pointer.pointee.version)
        declaredEncoding = TreeConversion.string(pointer.pointee.encoding)
        tree = Locked(document)
    }

    /// Evaluates an XPath 1.0 expression against the document.
    ///
    /// ```swift
    /// try document.xpath("//bar").elements.first?.text                  // "someValue"
    /// try document.xpath("count(/foo/*)").number                         // 1
    /// try document.xpath("//a:entry", namespaces: ["a": "http://www.w3.org/2005/Atom"])
    /// ```
    /// - Parameters:
    ///   - expression: The expression; the context node is the document.
    ///   - namespaces: Prefixes the expression uses, mapped to namespace URIs (XPath has no
    ///     default namespace: an element in a namespace needs a prefix here).
    /// - Throws: ``XMLError`` with reason ``XMLError/Reason/xpath``: libxml2's message (e.g.
    ///   `Invalid expression`, `Undefined namespace prefix`) and, in ``XMLError/column``, where in
    ///   the expression it stopped. An evaluation is bounded to
    ///   ``xpathOperationLimit`` steps, so a pathological expression fails instead of spinning.
    public func xpath(_ expression: String, namespaces: [String: String] = [:]) throws(XMLError) -> XPathValue {
        let elements = self.elements
        let result = tree.withLock { document in
            Result { () throws(XMLError) in
                try XPathEvaluation.evaluate(expression, namespaces: namespaces, in: document.pointer, elements: elements)
            }
        }
        return try result.get()
    }

    /// How many steps one XPath evaluation may take (libxml2's `opLimit`): 100 million.
    public static let xpathOperationLimit = 100_000_000
}
