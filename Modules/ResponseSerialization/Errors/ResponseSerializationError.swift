import CourierCore
import FoundationEssentials

/// A response body could not be turned into a value: malformed JSON or property list, a text
/// encoding that does not fit, an unrecognized image, an empty or oversized body.
///
/// A struct with a reason rather than an enum, so new reasons never break a `switch`. The message
/// says where the parser stopped when it knows (`line 3, column 14`). A validation failure found
/// along the way (AFNetworking put it under the parse error) is ``validationError``.
///
/// ```swift
/// catch let error as CourierError {
///     if let failure = error.underlyingError as? ResponseSerializationError, failure.reason == .invalidJSON {
///         print(failure)   // invalid JSON at line 1, column 2: an object key must be a string
///     }
/// }
/// ```
public struct ResponseSerializationError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Reason: Sendable, Hashable, CustomStringConvertible {
        let name: String
        /// The body is not JSON (AFNetworking: the `NSJSONSerialization` error).
        public static let invalidJSON = Reason(name: "invalid JSON")
        /// The body is not a property list.
        public static let invalidPropertyList = Reason(name: "invalid property list")
        /// A `Decodable` value could not be decoded from the body.
        public static let decodingFailed = Reason(name: "decoding failed")
        /// The bytes are not text in the response's (or the forced) encoding.
        public static let invalidEncoding = Reason(name: "invalid text encoding")
        /// The response names a charset Courier cannot decode.
        public static let unsupportedEncoding = Reason(name: "unsupported text encoding")
        /// The body is not an image of a known format, or its header is cut short.
        public static let unrecognizedImage = Reason(name: "unrecognized image")
        /// The body is empty where a value was required.
        public static let emptyBody = Reason(name: "empty body")
        /// The body is larger than the serializer's bound.
        public static let tooLarge = Reason(name: "body too large")
        /// The data preprocessor failed.
        public static let preprocessingFailed = Reason(name: "preprocessing failed")

        /// The reason's name.
        public var description: String { name }
    }

    /// What went wrong.
    public var reason: Reason
    /// What the parser or the check said.
    public var detail: String
    /// The line of the failure (1-based), when the parser gives one.
    public var line: Int?
    /// The column of the failure (1-based, in bytes), when the parser gives one.
    public var column: Int?
    /// The byte offset of the failure, when known.
    public var offset: Int?
    /// The error the parser or decoder threw, if any.
    public var underlyingError: (any Error)?
    /// A validation failure found before parsing (a status outside the acceptable set), kept
    /// as AFNetworking kept it under the parse error.
    public var validationError: ResponseValidationError?

    /// A serialization error.
    public init(
        _ reason: Reason, detail: String, line: Int? = nil, column: Int? = nil, offset: Int? = nil,
        underlyingError: (any Error)? = nil, validationError: ResponseValidationError? = nil
    ) {
        self.reason = reason
        self.detail = detail
        self.line = line
        self.column = column
        self.offset = offset
        self.underlyingError = underlyingError
        self.validationError = validationError
    }

    /// e.g. `invalid JSON at line 1, column 2: an object key must be a string`.
    public var description: String {
        var text = reason.description
        if let line, let column {
            text += " at line \(line), column \(column)"
        } else if let offset {
            text += " at byte \(offset)"
        }
        text += ": " + detail
        if let validationError { text += " (and \(validationError))" }
        return text
    }
}

extension ResponseSerializationError: CourierErrorKindProviding {
    /// The kind of the ``validationError`` when the response had already failed validation (a 404 whose
    /// body did not decode either is first an unacceptable status); otherwise ``CourierError/Kind/tooLarge``
    /// for a body past the bound, ``CourierError/Kind/serializationFailed`` for the rest.
    public var courierErrorKind: CourierError.Kind {
        if let validationError { return validationError.courierErrorKind }
        return reason == .tooLarge ? .tooLarge : .serializationFailed
    }
}
