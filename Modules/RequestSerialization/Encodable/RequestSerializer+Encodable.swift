import CourierCore
import HTTPTypes

extension RequestSerializer {
    /// `request` serialized with the parameter tree of an `Encodable` value, for every serializer:
    /// a query or a form body (``HTTPRequestSerializer``), JSON (``JSONRequestSerializer``), a
    /// property list (``PropertyListRequestSerializer``), or your own.
    ///
    /// ```swift
    /// struct NewUser: Encodable { let name: String; let admin: Bool }
    /// let serialized = try JSONRequestSerializer().serialize(request, encodable: NewUser(name: "Ada", admin: false))
    /// // body {"admin":false,"name":"Ada"}
    /// ```
    ///
    /// Session calls take ``CourierCore/Parameters``: pass
    /// `try ParametersEncoder().encode(value)` as their `parameters`.
    ///
    /// - Throws: what ``ParametersEncoder/encode(_:)`` throws, then the serializer's error.
    public func serialize<Value: Encodable>(
        _ request: HTTPRequest,
        encodable value: Value,
        encoder: ParametersEncoder = ParametersEncoder()
    ) throws -> SerializedRequest {
        try serialize(request, parameters: encoder.encode(value))
    }
}
