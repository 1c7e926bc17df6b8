import CourierCore

/// An `Encodable` value straight to query-string text (`application/x-www-form-urlencoded`):
/// ``ParametersEncoder`` then ``QueryString``, for when you build the URL or body yourself.
///
/// ```swift
/// struct Filter: Encodable { let status: String; let ids: [Int] }
/// let query = try FormEncoder().encode(Filter(status: "open now", ids: [3, 4]))
/// // "ids%5B%5D=3&ids%5B%5D=4&status=open%20now"
/// ```
public struct FormEncoder: Sendable {
    /// Turns the value into a parameter tree.
    public var parametersEncoder: ParametersEncoder
    /// How arrays, booleans and spaces are written.
    public var queryOptions: QueryString.Options

    /// An encoder; the defaults are AFNetworking's query rules and ``ParametersEncoder``'s.
    public init(parametersEncoder: ParametersEncoder = ParametersEncoder(), queryOptions: QueryString.Options = .default) {
        self.parametersEncoder = parametersEncoder
        self.queryOptions = queryOptions
    }

    /// The query string of `value`, whose top level must be keyed (a struct, a class, a
    /// `[String: …]` dictionary).
    ///
    /// - Throws: what ``ParametersEncoder/encode(_:)`` throws, or
    ///   ``RequestSerializationError/Reason/parametersNotDictionary`` for any other top level.
    public func encode<Value: Encodable>(_ value: Value) throws -> String {
        try QueryString.encode(parametersEncoder.encode(value), options: queryOptions)
    }
}
