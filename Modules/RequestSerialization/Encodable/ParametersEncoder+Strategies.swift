import CourierCore
import FoundationEssentials

extension ParametersEncoder {
    /// How a `Date` becomes a parameter.
    ///
    /// AFNetworking has no rule for dates (it would send `NSDate`'s `description`, text meant for
    /// people, e.g. `2024-01-02 03:04:05 +0000`), so the default is ISO 8601, which every server
    /// framework parses.
    public enum DateEncodingStrategy: Sendable {
        /// ISO 8601 in UTC without fractional seconds, e.g. `.string("2023-11-14T22:13:20Z")`, as
        /// `JSONEncoder`'s `.iso8601` writes it. The default.
        case iso8601
        /// Seconds since 1970-01-01 UTC as a number, e.g. `.double(1700000000)`.
        case secondsSince1970
        /// Milliseconds since 1970-01-01 UTC as a number, e.g. `.double(1700000000000)`.
        case millisecondsSince1970
        /// Whatever `Date`'s own `encode(to:)` writes: seconds since 2001-01-01 as a number.
        case deferredToDate
        /// Your closure's value, e.g. `.custom { .string($0.formatted(.iso8601.year().month().day())) }`.
        /// What it throws reaches the caller of ``ParametersEncoder/encode(_:)`` unchanged.
        case custom(@Sendable (Date) throws -> Parameters)
    }

    /// How `Data` becomes a parameter.
    public enum DataEncodingStrategy: Sendable {
        /// A base64 string (`.string("aGkh")`), readable in a query and in JSON. The default.
        case base64
        /// ``CourierCore/Parameters/data(_:)`` itself: a query writes its UTF-8 text, JSON a
        /// base64 string, a property list `<data>`.
        case raw
        /// Your closure's value. What it throws reaches the caller unchanged.
        case custom(@Sendable (Data) throws -> Parameters)
    }

    /// How property names (coding keys) become parameter names.
    ///
    /// The strategy applies to the keys of keyed containers, i.e. to property names. The keys of
    /// a `[String: Value]` dictionary are data, not names, and stay as they are (`JSONEncoder`
    /// converts them too, which surprises people).
    public enum KeyEncodingStrategy: Sendable {
        /// Each key as the type declares it. The default.
        case useDefaultKeys
        /// `camelCase` to `snake_case`, splitting before each capital and keeping runs of capitals
        /// together: `userID` → `user_id`, `myURLValue` → `my_url_value`.
        case convertToSnakeCase
        /// Your closure's name for each key.
        case custom(@Sendable (String) -> String)
    }

    /// How a `Decimal` becomes a parameter: ``CourierCore/Parameters`` has no decimal case.
    public enum DecimalEncodingStrategy: Sendable {
        /// A `.double` (a JSON number, `12.34` in a query). The default. Exact up to 15
        /// significant digits; beyond, rounded to the nearest double.
        case double
        /// `.string(decimal.description)`, exact at any length (a JSON string).
        case string
    }
}
