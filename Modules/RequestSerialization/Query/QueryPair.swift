/// One `name=value` item of a query string or form body, before escaping
/// (AFNetworking's `AFQueryStringPair`).
///
/// ```swift
/// QueryPair(name: "user[name]", value: "a b").percentEscaped   // "user%5Bname%5D=a%20b"
/// QueryPair(name: "flag", value: nil).percentEscaped           // "flag"
/// ```
public struct QueryPair: Sendable, Hashable, CustomStringConvertible {
    /// The flattened name, e.g. `user[name]` or `ids[]`, not escaped.
    public var name: String
    /// The value as text, not escaped; `nil` for a ``CourierCore/Parameters/null`` value, which
    /// renders as the name alone.
    public var value: String?

    /// A pair.
    public init(name: String, value: String?) {
        self.name = name
        self.value = value
    }

    /// `name=value` with name and value each escaped by ``PercentEscaping``, or the escaped name
    /// alone when there is no value.
    public var percentEscaped: String {
        percentEscaped(spaces: .percentEscaped)
    }

    /// ``percentEscaped`` with spaces written as `spaces` says (`+` or `%20`).
    public func percentEscaped(spaces: QueryString.Options.SpaceStyle) -> String {
        var output: [UInt8] = []
        let plus = spaces == .plus
        PercentEscaping.append(escaping: name, to: &output, spacesAsPlus: plus)
        if let value {
            output.append(UInt8(ascii: "="))
            PercentEscaping.append(escaping: value, to: &output, spacesAsPlus: plus)
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The unescaped `name=value`, for reading.
    public var description: String {
        guard let value else { return name }
        return name + "=" + value
    }
}
