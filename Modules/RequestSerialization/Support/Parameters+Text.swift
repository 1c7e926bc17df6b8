import CourierCore
import FoundationEssentials

extension Parameters {
    /// A scalar's text in a query (see ``QueryString``); empty for null and collections, which
    /// have none of their own.
    var queryText: String {
        switch self {
        case .bool(let value): return value ? "1" : "0"
        case .int(let value): return String(value)
        case .double(let value): return NumberDescription.of(value)
        case .string(let value): return value
        case .data(let value): return String(decoding: value, as: UTF8.self)
        case .null, .array, .set, .dictionary: return ""
        }
    }

    /// What kind of value this is, for messages: `an array`, `a string`…
    var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .int: return "an integer"
        case .double: return "a number"
        case .string: return "a string"
        case .data: return "data"
        case .array: return "an array"
        case .set: return "a set"
        case .dictionary: return "a dictionary"
        }
    }
}
