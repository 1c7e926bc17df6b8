import FoundationEssentials

/// A tree of request parameters, written with literals:
///
/// ```swift
/// let parameters: Parameters = ["user": ["name": "Ada", "tags": ["a", "b"]], "page": 2, "draft": nil]
/// ```
/// Request serializers turn it into a query string, a form body, JSON or a property list, each
/// by its own rules (AFNetworking's in `CourierRequestSerialization`).
public indirect enum Parameters: Sendable, Hashable {
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
