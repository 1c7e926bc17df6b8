import CourierCore
import CourierResponseSerialization
import FoundationEssentials

/// Validates a response and parses its body into an ``XMLDocument``: AFNetworking's
/// `AFXMLDocumentResponseSerializer`, on libxml2.
///
/// ```swift
/// let document = try await session.get("xml").value(using: XMLDocumentResponseSerializer())
/// let titles = try document.xpath("//slide/title").nodes.map(\.stringValue)
/// ```
///
/// AFNetworking's rules: status 200–299 and a MIME type of exactly `application/xml` or
/// `text/xml` (`application/atom+xml`, `nonstandard/xml`… are refused with a
/// ``ResponseValidationError``; change ``validator`` to accept them). A wrong type stops before
/// parsing. A status-only failure still parses: the ``ResponseValidationError`` thrown carries
/// the document in `serializedValue`, or, when the body does not parse, the ``XMLError`` thrown
/// carries the validation error as `underlyingError`. Bodies over ``maximumBodySize`` fail with
/// ``XMLError/Reason/tooLarge``. Implement ``ResponseSerializer`` yourself rather than use this
/// type when you need something other than a document, e.g. a `Decodable` mapping.
public struct XMLDocumentResponseSerializer: ResponseSerializer {
    /// The status codes and MIME types accepted (200–299; `application/xml`, `text/xml`).
    public var validator: ResponseValidator
    /// What the parser accepts.
    public var options: XMLParseOptions
    /// The largest body parsed, in bytes (``XMLDocument/defaultMaximumBodySize``, 16 MiB).
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

    /// The document, or an error (see the type's documentation).
    public func serialize(_ response: DataResponse) throws -> XMLDocument {
        let statusError = try XMLResponseValidation.check(response, validator: validator, maximumBodySize: maximumBodySize)
        return try XMLResponseValidation.finish(statusError: statusError) { () throws(XMLError) in
            try XMLDocument(data: response.data, options: options, charset: response.head.charset)
        }
    }
}
