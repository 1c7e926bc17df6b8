import FoundationEssentials

/// A parsed property list: what ``PropertyListResponseSerializer`` returns.
public enum PropertyListValue: Sendable, Hashable {
    /// `<true/>` or `<false/>`.
    case bool(Bool)
    /// `<integer>`.
    case int(Int)
    /// `<real>`.
    case double(Double)
    /// `<string>`.
    case string(String)
    /// `<date>`.
    case date(Date)
    /// `<data>`.
    case data(Data)
    /// `<array>`.
    case array([PropertyListValue])
    /// `<dict>`.
    case dictionary([String: PropertyListValue])

    /// The value for `key` of a dictionary.
    public subscript(key: String) -> PropertyListValue? {
        if case .dictionary(let values) = self { return values[key] }
        return nil
    }

    /// The string, for a `.string`.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }
}

extension PropertyListValue: Decodable {
    /// Reads whichever kind the property list holds at this place.
    public init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: AnyKey.self) {
            var values: [String: PropertyListValue] = [:]
            for key in container.allKeys { values[key.stringValue] = try container.decode(PropertyListValue.self, forKey: key) }
            self = .dictionary(values)
            return
        }
        if var container = try? decoder.unkeyedContainer() {
            var values: [PropertyListValue] = []
            while !container.isAtEnd { values.append(try container.decode(PropertyListValue.self)) }
            self = .array(values)
            return
        }
        let single = try decoder.singleValueContainer()
        if let value = try? single.decode(Bool.self) { self = .bool(value) }
        else if let value = try? single.decode(Int.self) { self = .int(value) }
        else if let value = try? single.decode(Double.self) { self = .double(value) }
        else if let value = try? single.decode(Date.self) { self = .date(value) }
        else if let value = try? single.decode(Data.self) { self = .data(value) }
        else { self = .string(try single.decode(String.self)) }
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
