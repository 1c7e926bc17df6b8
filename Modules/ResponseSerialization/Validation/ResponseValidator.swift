import CourierCore
import FoundationEssentials
import HTTPTypes

/// AFNetworking's response validation (`AFHTTPResponseSerializer.validateResponse:data:error:`):
/// an acceptable status code and, when a set is given, an acceptable MIME type.
///
/// ```swift
/// var validator = ResponseValidator(acceptableContentTypes: ["application/json"])
/// validator.acceptableStatusCodes.insert(304)
/// switch validator.validate(response) { case .valid: …; case .invalid(let error): … }
/// ```
///
/// The rules, exactly AFNetworking's:
/// - the status code must be in ``acceptableStatusCodes`` (200–299 by default), else
///   ``ResponseValidationError/Reason/unacceptableStatusCode``;
/// - with ``acceptableContentTypes`` set, the MIME type (no parameters, lower case) must be in
///   it — unless the body is empty and there is no `Content-Type` at all. A mismatch with a
///   non-empty body is ``ResponseValidationError/Reason/unacceptableContentType``; a mismatch
///   with an empty body is invalid *without* an error (the serializer returns no value);
/// - when both fail, the status error carries the content-type error as its underlying error.
public struct ResponseValidator: Sendable, Hashable, Codable {
    /// Acceptable status codes; 200–299 by default.
    public var acceptableStatusCodes: Set<Int>
    /// Acceptable MIME types (lower case, no parameters); `nil` accepts any.
    public var acceptableContentTypes: Set<String>?

    /// A validator; the defaults are AFNetworking's `AFHTTPResponseSerializer`'s.
    public init(acceptableStatusCodes: Set<Int> = Set(200..<300), acceptableContentTypes: Set<String>? = nil) {
        self.acceptableStatusCodes = acceptableStatusCodes
        self.acceptableContentTypes = acceptableContentTypes.map { Set($0.map { $0.lowercased() }) }
    }

    /// What validation concluded.
    public enum Outcome: Sendable {
        /// Acceptable.
        case valid
        /// Not acceptable; `nil` when AFNetworking makes no error (a wrong type with an empty body).
        case invalid((ResponseValidationError)?)

        /// True for ``valid``.
        public var isValid: Bool {
            if case .valid = self { return true }
            return false
        }

        /// The error, when there is one.
        public var error: ResponseValidationError? {
            if case .invalid(let error) = self { return error }
            return nil
        }

        /// True when the content type is what failed: serializers then stop without reading
        /// the body (a status-only failure still reads it).
        public var rejectsContent: Bool {
            guard case .invalid(let error) = self else { return false }
            guard let error else { return true }
            if error.reason == .unacceptableContentType { return true }
            return (error.underlyingError as? ResponseValidationError)?.reason == .unacceptableContentType
        }
    }

    /// Validates `response`.
    public func validate(_ response: DataResponse) -> Outcome {
        validate(head: response.head, body: response.data, url: response.request.url?.absoluteString)
    }

    /// True when `types` holds `mime`; a type set after `init` (or decoded) may carry capitals.
    private static func contains(_ types: Set<String>, _ mime: String) -> Bool {
        types.contains(mime) || types.contains { $0.lowercased() == mime }
    }

    /// Validates a response head and its body.
    public func validate(head: HTTPResponse, body: Data, url: String?) -> Outcome {
        var contentError: ResponseValidationError?
        var valid = true
        if let acceptableContentTypes {
            let mime = head.mimeType
            let exempt = mime == nil && body.isEmpty
            if !exempt, !(mime.map { Self.contains(acceptableContentTypes, $0) } ?? false) {
                valid = false
                if !body.isEmpty {
                    contentError = ResponseValidationError(reason: .unacceptableContentType, url: url, response: head, body: body)
                }
            }
        }
        guard acceptableStatusCodes.contains(head.status.code) else {
            return .invalid(ResponseValidationError(
                reason: .unacceptableStatusCode, url: url, response: head, body: body, underlyingError: contentError
            ))
        }
        return valid ? .valid : .invalid(contentError)
    }
}
