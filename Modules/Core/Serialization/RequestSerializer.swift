import HTTPTypes

/// Turns a request and its parameters into the request to send and its body: where query
/// strings, form bodies, JSON and multipart are made.
///
/// A session applies its serializer after its own and the call's header fields, so a serializer
/// sets a header (e.g. `Content-Type`) only when the request lacks it.
///
/// ```swift
/// struct RawJSON: RequestSerializer {
///     func serialize(_ request: HTTPRequest, parameters: Parameters?) throws -> SerializedRequest {
///         var request = request
///         if request.headerFields[.contentType] == nil { request.headerFields[.contentType] = "application/json" }
///         return SerializedRequest(request: request, body: Body(#"{"hello":"world"}"#))
///     }
/// }
/// ```
public protocol RequestSerializer: Sendable {
    /// The request to send and its body. Throw to abort the call; the error reaches the caller
    /// as a ``CourierError`` at stage ``CourierError/Stage/requestSerialization``.
    func serialize(_ request: HTTPRequest, parameters: Parameters?) throws -> SerializedRequest
}

/// A request ready for the chain.
public struct SerializedRequest: Sendable {
    /// The request head.
    public var request: HTTPRequest
    /// Its body, or `nil` for none.
    public var body: Body?

    /// A serialized request.
    public init(request: HTTPRequest, body: Body?) {
        self.request = request
        self.body = body
    }
}
