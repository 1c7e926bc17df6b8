/// One `name=value` item of a query string or form body, before escaping
/// (AFNetworking's `AFQueryStringPair`), as ``Parameters/queryPairs(arrays:booleans:)`` flattens a tree.
///
/// ```swift
/// QueryPair(name: "user[name]", value: "a b").description   // "user[name]=a b"
/// QueryPair(name: "flag", value: nil).description           // "flag"
/// ```
/// `CourierRequestSerialization` adds `percentEscaped`, the pair as a query string writes it.
public struct QueryPair: Sendable, Hashable, CustomStringConvertible {
    /// How each element of an array is named when a tree is flattened.
    public enum ArrayStyle: Sendable, Hashable {
        /// `key[]` for every element, in order (AFNetworking's rule).
        case brackets
        /// The bare `key` for every element, in order: `key=a&key=b`.
        case noBrackets
        /// `key[0]`, `key[1]`, … so a server can rebuild positions and nested arrays.
        case indexed
    }

    /// How a boolean reads when a tree is flattened.
    public enum BoolStyle: Sendable, Hashable {
        /// `1` and `0`, as `NSNumber` describes `YES` and `NO` (AFNetworking's rule).
        case numeric
        /// `true` and `false`.
        case literal
    }

    /// The flattened name, e.g. `user[name]` or `ids[]`, not escaped.
    public var name: String
    /// The value as text, not escaped; `nil` for a ``Parameters/null`` value, which
    /// renders as the name alone.
    public var value: String?

    /// A pair.
    public init(name: String, value: String?) {
        self.name = name
        self.value = value
    }

    /// The unescaped `name=value`, for reading.
    public var description: String {
        guard let value else { return name }
        return name + "=" + value
    }
}
