/// An XML body could not be turned into events or a document, or an XPath expression failed.
///
/// A struct with a ``Reason`` rather than an enum, so new reasons never break a `switch`. Where
/// libxml2 found the problem, ``line``, ``column``, ``code`` and its ``message`` say where and
/// what; Courier's own refusals (an entity declaration, an external DTD, a body over its bound)
/// say so in ``message``.
///
/// ```swift
/// do { _ = try XMLDocument(data: Data("<foo".utf8)) }
/// catch let error as XMLError {
///     print(error.reason)   // truncated
///     print(error)          // XML truncated at line 1, column 5: Couldn't find end of Start Tag foo
/// }
/// ```
public struct XMLError: Error, Sendable, CustomStringConvertible {
    /// Why the XML was refused.
    public struct Reason: Sendable, Hashable, CustomStringConvertible {
        let name: String

        /// The bytes are not well-formed XML (or not namespace-well-formed).
        public static let malformed = Reason(name: "malformed")
        /// The document ended before it was complete: an element, tag, comment or section left
        /// open at the end of the body.
        public static let truncated = Reason(name: "truncated")
        /// The body holds no XML at all (nothing, or only white space).
        public static let empty = Reason(name: "empty")
        /// The bytes are not in the encoding the document (or the `charset` of its
        /// `Content-Type`) declares, or that encoding is unknown.
        public static let encoding = Reason(name: "encoding")
        /// The document declares an entity (`<!ENTITY …>`, general or parameter). Courier never
        /// expands declared entities: this is what stops "billion laughs" and quadratic blow-up.
        public static let entityDeclarationRefused = Reason(name: "entity declaration refused")
        /// The document names an external resource: an external entity (`SYSTEM`/`PUBLIC`), an
        /// external DTD, or a reference to an entity only such a resource could declare. Nothing
        /// is ever loaded: this is what stops XXE.
        public static let externalEntityRefused = Reason(name: "external entity refused")
        /// The body is larger than the bound it was read with, or the document exceeds one of
        /// libxml2's limits (nesting depth, name or text length).
        public static let tooLarge = Reason(name: "too large")
        /// An XPath expression is invalid or failed to evaluate.
        public static let xpath = Reason(name: "xpath")

        /// The reason's name.
        public var description: String { name }
    }

    /// Why.
    public var reason: Reason
    /// What happened, in libxml2's words when libxml2 found it.
    public var message: String
    /// The 1-based line where the problem was found, when known.
    public var line: Int?
    /// The 1-based column where the problem was found, when known (for XPath: the offset in the
    /// expression).
    public var column: Int?
    /// libxml2's error code (`xmlParserErrors` or `xmlXPathError`), when libxml2 raised it.
    public var code: Int?
    /// A validation failure that also happened, e.g. the status error of a 404 whose body did not
    /// parse (AFNetworking reports the parse error with the validation error beneath it).
    public var underlyingError: (any Error)?

    /// An error.
    public init(
        reason: Reason, message: String, line: Int? = nil, column: Int? = nil, code: Int? = nil,
        underlyingError: (any Error)? = nil
    ) {
        self.reason = reason
        self.message = message
        self.line = line
        self.column = column
        self.code = code
        self.underlyingError = underlyingError
    }

    /// A body larger than `limit` bytes.
    static func tooLarge(limit: Int) -> XMLError {
        XMLError(reason: .tooLarge, message: "the body is larger than the \(limit)-byte limit it was read with")
    }

    /// e.g. `XML malformed at line 1, column 8: Opening and ending tag mismatch: a line 1 and b`.
    public var description: String {
        var text = reason == .xpath ? "XPath error" : "XML \(reason)"
        if let line {
            text += " at line \(line)"
            if let column { text += ", column \(column)" }
        } else if let column {
            text += " at offset \(column)"
        }
        return text + ": " + message
    }
}
