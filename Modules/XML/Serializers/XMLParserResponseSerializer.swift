import CourierCore
import CourierResponseSerialization
import FoundationEssentials

/// Validates a response and returns an ``XMLSAXParser`` over its body, not yet run:
/// AFNetworking's `AFXMLParserResponseSerializer`, which returned an unparsed `NSXMLParser`.
///
/// ```swift
/// let parser = try await session.get("xml").value(using: XMLParserResponseSerializer())
/// let events = try parser.events()
/// ```
///
/// Validation is AFNetworking's, as for ``XMLDocumentResponseSerializer``: status 200–299 and a
/// MIME type of exactly `application/xml` or `text/xml`; a wrong type stops with a
/// ``ResponseValidationError``; a status-only failure throws the ``ResponseValidationError`` with
/// the parser in `serializedValue`. Since nothing is parsed here, malformed XML surfaces when
/// the parser runs. To parse while the body arrives instead of buffering it, use ``XMLStream``.
public struct XMLParserResponseSerializer: ResponseSerializer {
    /// The status codes and MIME types accepted (200–299; `application/xml`, `text/xml`).
    public var validator: ResponseValidator
    /// What the parser will accept.
    public var options: XMLParseOptions
    /// The largest body accepted, in bytes (16 MiB by default).
    public var maximumBodySize: Int

    /// A serializer with AFNetworking's XML validation.
    public init(
        validator: ResponseValidator = XMLStream.defaultValidator, options: XMLParseOptions = XMLParseOptions(),
        maximumBodySize: Int = XMLDocument.defaultMaximumBodySize
    ) {
        self.validator = validator
        self.options = options
        self.maximumBodySize = maximumBodySize
    }

    /// The parser, or a validation error (see the type's documentation).
    public func serialize(_ response: DataResponse) throws -> XMLSAXParser {
        let statusError = try XMLResponseValidation.check(response, validator: validator, maximumBodySize: maximumBodySize)
        return try XMLResponseValidation.finish(statusError: statusError) { () throws(XMLError) in
            XMLSAXParser(data: response.data, options: options, charset: response.head.charset)
        }
    }
}
