import CourierCore
import CourierResponseSerialization
import FoundationEssentials
import HTTPTypes

/// Streaming (SAX) parsing of a response while its body arrives, in constant memory.
///
/// ```swift
/// let response = try await session.send(HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:5000", path: "/xml"))
/// var titles: [String] = []
/// var inTitle = false
/// try await XMLStream.parse(response) { event in
///     switch event {
///     case .startElement(let name, _, _): inTitle = name == "title"
///     case .text(let text) where inTitle: titles.append(text)
///     default: break
///     }
/// }
/// ```
///
/// The response entry points validate the head first, before a byte of the body is read, with
/// AFNetworking's rules for its XML serializers: an acceptable status (200–299) and a MIME type
/// in ``acceptableContentTypes``. A failure throws the ``ResponseValidationError`` at once —
/// unlike the buffered serializers, a status failure does not parse the body (the events of an
/// error page are not what a streaming handler expects). A response that is empty, has the wrong
/// type and so carries no error (AFNetworking's "invalid, no error" case) produces no events.
public enum XMLStream {
    /// AFNetworking's XML types: `application/xml` and `text/xml`, exactly.
    public static let acceptableContentTypes: Set<String> = ["application/xml", "text/xml"]

    /// The default validator: status 200–299, ``acceptableContentTypes``.
    public static var defaultValidator: ResponseValidator {
        ResponseValidator(acceptableContentTypes: acceptableContentTypes)
    }

    /// The events of `body`, parsed while it arrives.
    ///
    /// - Parameters:
    ///   - charset: The `charset` of the body's `Content-Type`, which wins over the document's
    ///     declaration (RFC 7303); `nil` lets the document say.
    ///   - maximumBodySize: Bytes to accept at most; `nil` (the default) reads any size, in
    ///     constant memory.
    public static func events(
        in body: Body, options: XMLParseOptions = XMLParseOptions(), charset: String? = nil, maximumBodySize: Int? = nil
    ) -> XMLEventSequence {
        XMLEventSequence(body: body, options: options, charset: charset, maximumBodySize: maximumBodySize)
    }

    /// The events of a response's body, after validating its head (the `charset` of its
    /// `Content-Type` decodes the body).
    ///
    /// - Throws: ``ResponseValidationError`` when the status or the type is not acceptable;
    ///   its `body` is empty, since the body was not read.
    public static func events(
        in response: Response, validator: ResponseValidator = XMLStream.defaultValidator,
        options: XMLParseOptions = XMLParseOptions(), maximumBodySize: Int? = nil
    ) throws(ResponseValidationError) -> XMLEventSequence {
        let parses = try validateHead(of: response, with: validator)
        return XMLEventSequence(
            body: parses ? response.body : nil, options: options, charset: response.head.charset,
            maximumBodySize: maximumBodySize
        )
    }

    /// Parses a response's body while it arrives, calling `handler` with each event in order,
    /// after validating its head.
    ///
    /// `handler` runs on the caller's task, between reads of the body, never inside libxml2.
    /// Throwing from it stops the parse and is rethrown.
    /// - Throws: ``ResponseValidationError`` before reading; then ``XMLError``, the body's
    ///   error, or `handler`'s.
    public static func parse(
        _ response: Response, validator: ResponseValidator = XMLStream.defaultValidator,
        options: XMLParseOptions = XMLParseOptions(), maximumBodySize: Int? = nil,
        handler: (XMLEvent) throws -> Void
    ) async throws {
        guard try validateHead(of: response, with: validator) else { return }
        try await parse(
            response.body, options: options, charset: response.head.charset, maximumBodySize: maximumBodySize,
            handler: handler
        )
    }

    /// Parses `body` while it arrives, calling `handler` with each event in order.
    public static func parse(
        _ body: Body, options: XMLParseOptions = XMLParseOptions(), charset: String? = nil, maximumBodySize: Int? = nil,
        handler: (XMLEvent) throws -> Void
    ) async throws {
        let parser = try PushParser(mode: .events, options: options, charset: charset)
        try await parser.feed(body, maximumBodySize: maximumBodySize) { events in
            for event in events { try handler(event) }
        }
        try parser.finish()
        for event in parser.state.takeEvents() { try handler(event) }
    }

    /// Validates a head before its body is read. Returns `false` when there is nothing to parse
    /// and no error to report (an empty body of the wrong type).
    static func validateHead(of response: Response, with validator: ResponseValidator) throws(ResponseValidationError) -> Bool {
        // The body is not read: unless its length is known to be zero, it counts as content,
        // as it will be.
        let isEmpty = response.body.length == .known(0)
        let outcome = validator.validate(
            head: response.head, body: isEmpty ? Data() : Data([0]), url: response.request?.url?.absoluteString
        )
        switch outcome {
        case .valid:
            return true
        case .invalid(nil):
            return false
        case .invalid(var error?):
            // Do not report the stand-in byte as the body.
            error.body = Data()
            if var content = error.underlyingError as? ResponseValidationError {
                content.body = Data()
                error.underlyingError = content
            }
            throw error
        }
    }
}
