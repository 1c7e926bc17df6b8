import CourierCore
import FoundationEssentials

/// Turns any `Encodable` value into a ``CourierCore/Parameters`` tree, so every request serializer
/// can send it: as a query, a form body, JSON or a property list.
///
/// ```swift
/// struct Search: Encodable { let query: String; let page: Int; let tags: [String] }
/// let parameters = try ParametersEncoder().encode(Search(query: "a b", page: 2, tags: ["x"]))
/// // ["query": "a b", "page": 2, "tags": ["x"]]
/// let task = try session.get("search", parameters: parameters)
/// ```
///
/// Session calls take `Parameters?`, so encode at the call site:
/// `try session.post("users", parameters: ParametersEncoder().encode(user))`.
///
/// The tree mirrors what the type encodes:
/// - Keyed containers (structs, classes) become `.dictionary`, unkeyed ones (arrays, sets of
///   values) `.array`, single values their scalar. Enums with raw values encode their raw value.
/// - `Bool` → `.bool`; every integer type → `.int`; `Double` → `.double`; `Float` → `.double` of
///   its shortest text, so `Float(0.1)` is `0.1`, not `0.10000000149011612`. NaN and infinities
///   pass through: a query writes `nan`, JSON refuses them.
/// - A `nil` optional property is left out (the compiler's `encodeIfPresent`); an explicit
///   `encodeNil()` writes `.null` (a query key without `=`, JSON `null`).
/// - `Date`, `Data`, `Decimal` and key names follow the strategies; `URL` becomes its
///   `absoluteString`.
///
/// Errors: an integer beyond `Int`'s range (a `UInt64` above `Int.max`, an `Int128`) throws
/// `EncodingError.invalidValue` with its coding path, rather than silently becoming text or a
/// rounded double: send it as a `String` if the server expects it. Asking one encoder for two
/// kinds of container, or encoding a single value twice, throws the same error (where
/// `JSONEncoder` would stop the program). Errors thrown by the value's own `encode(to:)` or by
/// a custom strategy reach the caller unchanged.
public struct ParametersEncoder: Sendable {
    /// How dates are written; ``DateEncodingStrategy/iso8601`` by default.
    public var dateEncodingStrategy: DateEncodingStrategy
    /// How `Data` is written; ``DataEncodingStrategy/base64`` by default.
    public var dataEncodingStrategy: DataEncodingStrategy
    /// How property names are written; ``KeyEncodingStrategy/useDefaultKeys`` by default.
    public var keyEncodingStrategy: KeyEncodingStrategy
    /// How a `Decimal` is written; ``DecimalEncodingStrategy/double`` by default.
    public var decimalEncodingStrategy: DecimalEncodingStrategy
    /// Handed to every `encode(to:)` as `encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// An encoder; the defaults suit most servers.
    public init(
        dateEncodingStrategy: DateEncodingStrategy = .iso8601,
        dataEncodingStrategy: DataEncodingStrategy = .base64,
        keyEncodingStrategy: KeyEncodingStrategy = .useDefaultKeys,
        decimalEncodingStrategy: DecimalEncodingStrategy = .double,
        userInfo: [CodingUserInfoKey: any Sendable] = [:]
    ) {
        self.dateEncodingStrategy = dateEncodingStrategy
        self.dataEncodingStrategy = dataEncodingStrategy
        self.keyEncodingStrategy = keyEncodingStrategy
        self.decimalEncodingStrategy = decimalEncodingStrategy
        self.userInfo = userInfo
    }

    /// The parameter tree of `value`.
    ///
    /// - Throws: `EncodingError.invalidValue` for what ``CourierCore/Parameters`` cannot hold (see
    ///   the type's documentation), or the error the value or a custom strategy throws.
    public func encode<Value: Encodable>(_ value: Value) throws -> Parameters {
        let context = EncodingContext(options: self)
        let result = try context.box(value, at: [])
        if let error = context.firstError { throw error }
        return result
    }
}
