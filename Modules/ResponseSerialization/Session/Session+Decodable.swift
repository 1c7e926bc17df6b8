import CourierCore
import FoundationEssentials
import HTTPTypes

/// One-line typed calls: a request built as the session builds them (base URL, headers, request
/// serializer), sent in the caller's Swift task, validated (a status in 200..<300; with a
/// `JSONDecoder`, a JSON content type) and decoded.
///
/// ```swift
/// struct User: Codable, Sendable { var id: Int; var name: String }
/// let user = try await api.get("users/1", as: User.self)
/// let created = try await api.post("users", json: User(id: 0, name: "Ada"), as: User.self)
/// let quick = try await api.get("users/1", options: RequestOptions(deadline: .seconds(2)), as: User.self)
/// ```
/// A failure is a ``CourierError``: ask its ``CourierError/kind`` (``CourierError/Kind/unacceptableStatus``
/// with ``CourierError/unacceptableStatus``, ``CourierError/Kind/serializationFailed`` for a body that does
/// not decode, …). For other validation or an empty-body policy, call
/// `value(_:_:parameters:headers:options:using:)` with a ``DecodableResponseSerializer`` of your own.
extension Session {
    /// `GET path`, its parameters serialized by the session's request serializer, decoded as `Value`.
    public func get<Value: Decodable & Sendable>(
        _ path: String,
        parameters: Parameters? = nil,
        headers: HTTPFields = [:],
        options: RequestOptions = .default,
        as type: Value.Type,
        decoder: any DataDecoder = JSONDecoder()
    ) async throws(CourierError) -> Value {
        try await value(.get, path, parameters: parameters, headers: headers, options: options, using: Self.serializer(Value.self, decoder))
    }

    /// `DELETE path`, decoded as `Value` (``Empty`` for a `204`).
    public func delete<Value: Decodable & Sendable>(
        _ path: String,
        parameters: Parameters? = nil,
        headers: HTTPFields = [:],
        options: RequestOptions = .default,
        as type: Value.Type,
        decoder: any DataDecoder = JSONDecoder()
    ) async throws(CourierError) -> Value {
        try await value(.delete, path, parameters: parameters, headers: headers, options: options, using: Self.serializer(Value.self, decoder))
    }

    /// `POST path` with `payload` encoded by `encoder` as its JSON body, the answer decoded as `Value`.
    public func post<Payload: Encodable, Value: Decodable & Sendable>(
        _ path: String,
        json payload: Payload,
        encoder: JSONEncoder = JSONEncoder(),
        headers: HTTPFields = [:],
        options: RequestOptions = .default,
        as type: Value.Type,
        decoder: any DataDecoder = JSONDecoder()
    ) async throws(CourierError) -> Value {
        try await call(.post, path, json: payload, encoder: encoder, headers: headers, options: options, decoder: decoder)
    }

    /// `PUT path` with `payload` encoded by `encoder` as its JSON body, the answer decoded as `Value`.
    public func put<Payload: Encodable, Value: Decodable & Sendable>(
        _ path: String,
        json payload: Payload,
        encoder: JSONEncoder = JSONEncoder(),
        headers: HTTPFields = [:],
        options: RequestOptions = .default,
        as type: Value.Type,
        decoder: any DataDecoder = JSONDecoder()
    ) async throws(CourierError) -> Value {
        try await call(.put, path, json: payload, encoder: encoder, headers: headers, options: options, decoder: decoder)
    }

    /// `PATCH path` with `payload` encoded by `encoder` as its JSON body, the answer decoded as `Value`.
    public func patch<Payload: Encodable, Value: Decodable & Sendable>(
        _ path: String,
        json payload: Payload,
        encoder: JSONEncoder = JSONEncoder(),
        headers: HTTPFields = [:],
        options: RequestOptions = .default,
        as type: Value.Type,
        decoder: any DataDecoder = JSONDecoder()
    ) async throws(CourierError) -> Value {
        try await call(.patch, path, json: payload, encoder: encoder, headers: headers, options: options, decoder: decoder)
    }

    private func call<Payload: Encodable, Value: Decodable & Sendable>(
        _ method: HTTPRequest.Method, _ path: String, json payload: Payload, encoder: JSONEncoder,
        headers: HTTPFields, options: RequestOptions, decoder: any DataDecoder
    ) async throws(CourierError) -> Value {
        let body: Data
        do {
            body = try encoder.encode(payload)
        } catch {
            throw CourierError(
                stage: .requestSerialization, request: try? makeRequest(method, path, headers: headers),
                underlyingError: RequestBodyEncodingError(type: "\(Payload.self)", reason: "\(error)")
            )
        }
        let response = try await data(method, path, body: Body(body), contentType: "application/json", headers: headers, options: options)
        return try value(of: response, using: Self.serializer(Value.self, decoder))
    }

    /// The typed calls' serializer: JSON content types only when the decoder reads JSON.
    static func serializer<Value: Decodable & Sendable>(_ type: Value.Type, _ decoder: any DataDecoder) -> DecodableResponseSerializer<Value> {
        let contentTypes = decoder is JSONDecoder ? JSONResponseSerializer.defaultContentTypes : nil
        return DecodableResponseSerializer(decoder: decoder, validator: ResponseValidator(acceptableContentTypes: contentTypes))
    }
}

extension DataTask {
    /// The response validated and decoded as `Value`, as the session's typed calls do it: for those
    /// who want a handle (progress, suspend, cancel, completion handlers) and a typed result.
    ///
    /// ```swift
    /// let task = try api.get("users/1").onDownloadProgress { print($0.fractionCompleted) }
    /// let user = try await task.value(as: User.self)
    /// ```
    public func value<Value: Decodable & Sendable>(
        as type: Value.Type,
        decoder: any DataDecoder = JSONDecoder()
    ) async throws(CourierError) -> Value {
        try await value(using: Session.serializer(Value.self, decoder))
    }
}

/// An `Encodable` payload its `JSONEncoder` refused (a non-finite `Double`, an encoder's own
/// failure); nothing was sent. Its ``CourierError/kind`` is ``CourierError/Kind/invalidRequest``.
public struct RequestBodyEncodingError: Error, Sendable, CustomStringConvertible {
    /// The payload's type.
    public var type: String
    /// What the encoder said.
    public var reason: String

    /// An encoding error.
    public init(type: String, reason: String) {
        self.type = type
        self.reason = reason
    }

    /// A sentence a user can act on.
    public var description: String { "the \(type) body could not be encoded as JSON: \(reason)" }
}
