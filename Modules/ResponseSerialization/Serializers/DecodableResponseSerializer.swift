import CourierCore
import FoundationEssentials
import HTTPTypes

/// A decoder of `Decodable` values from bytes: `JSONDecoder`, `PropertyListDecoder`, or your own.
public protocol DataDecoder: Sendable {
    /// Decodes a `T` from `data`.
    func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T
}

extension JSONDecoder: DataDecoder {}
extension PropertyListDecoder: DataDecoder {}

/// A type whose value stands for an empty body, so a `HEAD`, `204` or `205` response decodes
/// without bytes.
public protocol EmptyResponse {
    /// The value of an empty body.
    static func emptyValue() -> Self
}

/// The value of a response that carries nothing.
///
/// ```swift
/// let _: Empty = try await session.delete("items/1").value(using: DecodableResponseSerializer<Empty>())
/// ```
public struct Empty: Codable, Sendable, Hashable, EmptyResponse {
    /// The empty value.
    public static let value = Empty()
    /// The empty value.
    public static func emptyValue() -> Empty { value }
}

/// Validates, then decodes a `Decodable` value from the body with any ``DataDecoder``
/// (`JSONDecoder` by default).
///
/// ```swift
/// struct Slideshow: Decodable, Sendable { var title: String }
/// struct Document: Decodable, Sendable { var slideshow: Slideshow }
/// let document = try await session.get("json").value(using: DecodableResponseSerializer<Document>())
/// ```
///
/// - Acceptable types: the JSON serializer's, unless the ``validator`` says otherwise (set it to
///   `["application/x-plist"]` with a `PropertyListDecoder`).
/// - An empty body is a value only where ``emptyResponsePolicy`` expects one (`HEAD`, 204, 205)
///   and `Value` is an ``EmptyResponse`` (or an optional); anywhere else it is
///   ``ResponseSerializationError/Reason/emptyBody``.
/// - A decoding failure is ``ResponseSerializationError/Reason/decodingFailed`` naming the coding
///   path and the decoder's reason.
public struct DecodableResponseSerializer<Value: Decodable & Sendable>: ResponseSerializer {
    /// Decodes the body.
    public var decoder: any DataDecoder
    /// Status codes and content types that pass.
    public var validator: ResponseValidator
    /// Where an empty body is an answer.
    public var emptyResponsePolicy: EmptyResponsePolicy
    /// The largest body decoded.
    public var maximumBodySize: Int
    /// Runs on the body before decoding.
    public var dataPreprocessor: (any DataPreprocessor)?

    /// A serializer decoding JSON by default.
    public init(
        decoder: any DataDecoder = JSONDecoder(),
        validator: ResponseValidator = ResponseValidator(acceptableContentTypes: JSONResponseSerializer.defaultContentTypes),
        emptyResponsePolicy: EmptyResponsePolicy = EmptyResponsePolicy(),
        maximumBodySize: Int = Self.defaultMaximumBodySize,
        dataPreprocessor: (any DataPreprocessor)? = nil
    ) {
        self.decoder = decoder
        self.validator = validator
        self.emptyResponsePolicy = emptyResponsePolicy
        self.maximumBodySize = maximumBodySize
        self.dataPreprocessor = dataPreprocessor
    }

    /// The decoded value.
    public func serialize(_ response: DataResponse) throws -> Value {
        let expectsEmpty = emptyResponsePolicy.allowsEmptyBody(method: response.request.method, status: response.status.code)
        return try SerializationPipeline(validator: validator, maximumBodySize: maximumBodySize, preprocessor: dataPreprocessor)
            // A wrong type on an empty body that may be empty (HEAD, 204, 205) is no error, as in AFNetworking.
            .run(response, refused: expectsEmpty ? Self.emptyValue() : nil) { data throws(ResponseSerializationError) -> Value in
                if data.isEmpty {
                    if expectsEmpty, let empty = Self.emptyValue() { return empty }
                    throw ResponseSerializationError(
                        .emptyBody,
                        detail: expectsEmpty
                            ? "the body is empty and \(Value.self) has no empty value; make it an EmptyResponse, an Optional, or decode Empty"
                            : "the body is empty; only HEAD, 204 and 205 responses may be (see EmptyResponsePolicy)"
                    )
                }
                do {
                    return try decoder.decode(Value.self, from: data)
                } catch {
                    throw Self.decodingFailure(error)
                }
            }
    }

    private static func emptyValue() -> Value? {
        if let empty = Value.self as? any EmptyResponse.Type { return empty.emptyValue() as? Value }
        if let optional = Value.self as? any ExpressibleByNilLiteral.Type { return optional.init(nilLiteral: ()) as? Value }
        return nil
    }

    private static func decodingFailure(_ error: any Error) -> ResponseSerializationError {
        guard let decoding = error as? DecodingError else {
            return ResponseSerializationError(.decodingFailed, detail: "\(error)", underlyingError: error)
        }
        let context: DecodingError.Context
        switch decoding {
        case .typeMismatch(_, let found), .valueNotFound(_, let found), .keyNotFound(_, let found), .dataCorrupted(let found):
            context = found
        @unknown default:
            return ResponseSerializationError(.decodingFailed, detail: "\(error)", underlyingError: error)
        }
        let path = context.codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
        var detail = "\(Value.self)\(path.isEmpty ? "" : " at \(path)"): \(context.debugDescription)"
        if let underlying = context.underlyingError { detail += " (\(underlying))" }
        return ResponseSerializationError(.decodingFailed, detail: detail, underlyingError: error)
    }
}
