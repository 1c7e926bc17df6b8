import CourierCore
import FoundationEssentials
import HTTPTypes

/// A response failed validation: its status code or its content type was not acceptable
/// (AFNetworking's `com.alamofire.error.serialization.response` codes -1011 and -1016).
///
/// The failing URL, the response head and the body travel with it. When both checks fail, the
/// status error is the one thrown and the content-type error is its ``underlyingError``, as in
/// AFNetworking. When only the status failed, the serializer still reads the body:
/// ``serializedValue`` holds what it made (e.g. the JSON of a 404 problem report).
///
/// ```swift
/// catch let error as CourierError {
///     if let failure = error.underlyingError as? ResponseValidationError, failure.reason == .unacceptableStatusCode {
///         print(failure)                       // Request failed: not found (404)
///         print(failure.serializedValue ?? "") // the parsed error body, when there was one
///     }
/// }
/// ```
public struct ResponseValidationError: Error, Sendable, CustomStringConvertible {
    /// What was not acceptable.
    public struct Reason: Sendable, Hashable, CustomStringConvertible {
        let name: String
        /// The status code is outside the acceptable set (AFNetworking -1011).
        public static let unacceptableStatusCode = Reason(name: "unacceptable status code")
        /// The MIME type is outside the acceptable set, or missing with a non-empty body
        /// (AFNetworking -1016).
        public static let unacceptableContentType = Reason(name: "unacceptable content type")
        /// The reason's name.
        public var description: String { name }
    }

    /// What was not acceptable.
    public var reason: Reason
    /// The response's URL, when known.
    public var url: String?
    /// The response head.
    public var response: HTTPResponse
    /// The body as received.
    public var body: Data
    /// The content-type failure beneath a status failure, when both checks failed.
    public var underlyingError: (any Error)?
    /// What the serializer made of the body despite a status failure; `nil` otherwise.
    public var serializedValue: (any Sendable)?

    /// A validation error.
    public init(
        reason: Reason, url: String?, response: HTTPResponse, body: Data,
        underlyingError: (any Error)? = nil, serializedValue: (any Sendable)? = nil
    ) {
        self.reason = reason
        self.url = url
        self.response = response
        self.body = body
        self.underlyingError = underlyingError
        self.serializedValue = serializedValue
    }

    /// The status code.
    public var statusCode: Int { response.status.code }

    /// The MIME type the response declared, if any.
    public var mimeType: String? { response.mimeType }

    /// AFNetworking's wording: `Request failed: not found (404)` or
    /// `Request failed: unacceptable content-type: text/html`.
    public var description: String {
        switch reason {
        case .unacceptableContentType:
            return "Request failed: unacceptable content-type: \(mimeType ?? "none")"
        default:
            return "Request failed: \(StatusDescription.phrase(for: statusCode)) (\(statusCode))"
        }
    }
}

extension ResponseValidationError: CourierErrorKindProviding {
    /// ``CourierError/Kind/unacceptableStatus`` or ``CourierError/Kind/unacceptableContentType``.
    public var courierErrorKind: CourierError.Kind {
        reason == .unacceptableStatusCode ? .unacceptableStatus : .unacceptableContentType
    }
}
