import CourierCore

extension QueryPair {
    /// `name=value` with name and value each escaped by ``PercentEscaping``, or the escaped name
    /// alone when there is no value.
    ///
    /// ```swift
    /// QueryPair(name: "user[name]", value: "a b").percentEscaped   // "user%5Bname%5D=a%20b"
    /// QueryPair(name: "flag", value: nil).percentEscaped           // "flag"
    /// ```
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
}
