/// Validates a buffered response and turns it into a value: JSON, `Decodable`, a string…
///
/// Throw to fail the call; the error reaches the caller as a ``CourierError`` at stage
/// ``CourierError/Stage/responseSerialization`` with the request, response and body attached.
///
/// ```swift
/// struct Lines: ResponseSerializer {
///     func serialize(_ response: DataResponse) throws -> [String] {
///         guard (200..<300).contains(response.status.code) else { throw MyStatusError(response.status) }
///         return response.text.split(separator: "\n").map(String.init)
///     }
/// }
/// let lines = try await session.get("log").value(using: Lines())
/// ```
public protocol ResponseSerializer<Value>: Sendable {
    /// What the serializer produces.
    associatedtype Value: Sendable
    /// The value for `response`, or an error.
    func serialize(_ response: DataResponse) throws -> Value
}
