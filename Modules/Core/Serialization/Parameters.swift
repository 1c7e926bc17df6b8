import FoundationEssentials

/// A tree of request parameters, written with literals:
///
/// ```swift
/// let parameters: Parameters = ["user": ["name": "Ada", "tags": ["a", "b"]], "page": 2, "draft": nil]
/// ```
/// Request serializers turn it into a query string, a form body, JSON or a property list, each
/// by its own rules (AFNetworking's in `CourierRequestSerialization`).
public indirect enum Parameters: Sendable {
    /// No value (`NSNull`): a query key without `=`, JSON `null`.
    case null
    /// A boolean.
    case bool(Bool)
    /// An integer.
    case int(Int)
    /// A floating-point number.
    case double(Double)
    /// A string.
    case string(String)
    /// Raw bytes (a multipart part, base64 in JSON).
    case data(Data)
    /// An ordered list.
    case array([Parameters])
    /// An unordered collection of distinct values.
    case set(Set<Parameters>)
    /// Named values.
    case dictionary([String: Parameters])
}

extension Parameters: Hashable {
    /// Structural equality; doubles compare by bit pattern, so `.double(.nan)` equals itself and
    /// a `Set<Parameters>` never holds two NaNs.
    public static func == (lhs: Parameters, rhs: Parameters) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.int(a), .int(b)): return a == b
        case let (.double(a), .double(b)): return a.bitPattern == b.bitPattern || a == b
        case let (.string(a), .string(b)): return a == b
        case let (.data(a), .data(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.set(a), .set(b)): return a == b
        case let (.dictionary(a), .dictionary(b)): return a == b
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(1); hasher.combine(value)
        case .int(let value): hasher.combine(2); hasher.combine(value)
        case .double(let value): hasher.combine(3); hasher.combine(value == 0 ? 0 : value.bitPattern)
        case .string(let value): hasher.combine(4); hasher.combine(value)
        case .data(let value): hasher.combine(5); hasher.combine(value)
        case .array(let value): hasher.combine(6); hasher.combine(value)
        case .set(let value): hasher.combine(7); hasher.combine(value)
        case .dictionary(let value): hasher.combine(8); hasher.combine(value)
        }
    }
}

extension Parameters: ExpressibleByNilLiteral {
    public init(nilLiteral: ()) { self = .null }
}

extension Parameters: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension Parameters: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int) { self = .int(value) }
}

extension Parameters: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension Parameters: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}

extension Parameters: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: Parameters...) { self = .array(elements) }
}

extension Parameters: ExpressibleByDictionaryLiteral {
    /// A dictionary literal; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, Parameters)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension Parameters {
    /// True for an empty array, set or dictionary.
    public var isEmptyCollection: Bool {
        switch self {
        case .array(let values): return values.isEmpty
        case .set(let values): return values.isEmpty
        case .dictionary(let values): return values.isEmpty
        default: return false
        }
    }
}
