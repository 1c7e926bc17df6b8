/// A parsed JSON document: what ``JSONResponseSerializer`` returns (AFNetworking returned
/// `NSDictionary`/`NSArray`; this is the Sendable, value-typed equivalent).
///
/// ```swift
/// let value = try await session.get("json").value(using: JSONResponseSerializer())
/// if case .string(let title)? = value?["slideshow"]?["title"] { print(title) }
/// ```
///
/// Integers that fit in `Int` stay exact (`.int`); other numbers are `.double`. Object keys keep
/// no order (JSON gives them none).
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number without fraction or exponent that fits in `Int`.
    case int(Int)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object.
    case object([String: JSONValue])

    /// The member named `key` of an object; `nil` for a missing key or a non-object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The element at `index` of an array; `nil` out of bounds or for a non-array.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let elements) = self, elements.indices.contains(index) { return elements[index] }
        return nil
    }

    /// The string, for a `.string`.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number as a `Double`, for `.int` and `.double`.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    /// The integer, for an `.int` (or a `.double` with an exact integer value).
    public var intValue: Int? {
        switch self {
        case .int(let value): return value
        case .double(let value): return Int(exactly: value)
        default: return nil
        }
    }

    /// The boolean, for a `.bool`.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// True for `.null`.
    public var isNull: Bool { self == .null }

    /// The value without null object members and null array elements, recursively
    /// (AFNetworking's `AFJSONObjectByRemovingKeysWithNullValues`).
    public func removingNulls() -> JSONValue {
        switch self {
        case .array(let elements):
            return .array(elements.compactMap { $0.isNull ? nil : $0.removingNulls() })
        case .object(let members):
            var kept: [String: JSONValue] = [:]
            kept.reserveCapacity(members.count)
            for (key, value) in members where !value.isNull { kept[key] = value.removingNulls() }
            return .object(kept)
        default:
            return self
        }
    }
}
