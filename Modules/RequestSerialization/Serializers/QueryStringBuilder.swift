import CourierCore

/// A custom query-string builder for a serializer (AFNetworking's `queryStringSerialization` block).
///
/// It gets the parameters as they were given, any shape, and returns the text to use as the
/// query (URI methods) or the form body (other methods), escaped as it needs. An error it throws
/// aborts serialization and reaches the caller unchanged (wrapped by the session in a
/// ``CourierCore/CourierError`` at stage `requestSerialization`).
///
/// ```swift
/// var serializer = HTTPRequestSerializer()
/// serializer.queryStringBuilder = { parameters in
///     guard case .dictionary(let values) = parameters else { throw MyError.unexpectedShape }
///     return values.keys.sorted().joined(separator: "+")
/// }
/// ```
public typealias QueryStringBuilder = @Sendable (Parameters) throws -> String
