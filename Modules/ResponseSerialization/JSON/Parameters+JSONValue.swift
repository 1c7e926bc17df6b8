import CourierCore

extension Parameters {
    /// The request-side tree of a parsed JSON value: what `courier` sends for a `name:=json` item, and
    /// what a response read by ``JSONResponseSerializer`` becomes when it is sent on.
    package init(_ value: JSONValue) {
        switch value {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .int(let number): self = .int(number)
        case .double(let number): self = .double(number)
        case .string(let text): self = .string(text)
        case .array(let elements): self = .array(elements.map(Parameters.init))
        case .object(let members): self = .dictionary(members.mapValues(Parameters.init))
        }
    }
}
