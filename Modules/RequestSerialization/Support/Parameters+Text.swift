import CourierCore
import FoundationEssentials

extension Parameters {
    /// A scalar's text in a query (see ``QueryString``), booleans written as `booleans` says;
    /// empty for null and collections, which have none of their own.
    func queryText(booleans: QueryString.Options.BoolStyle) -> String {
        switch self {
        case .bool(let value):
            switch booleans {
            case .numeric: return value ? "1" : "0"
            case .literal: return value ? "true" : "false"
            }
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
