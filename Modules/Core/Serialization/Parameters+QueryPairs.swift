import FoundationEssentials

extension Parameters {
    /// The tree flattened to named texts by AFNetworking's rules (`AFQueryStringPairsFromDictionary`),
    /// unescaped; `nil` when the top level is not a dictionary, since then a value would have no name.
    ///
    /// ```swift
    /// (["user": ["name": "Ada"], "ids": [1, 2], "draft": nil] as Parameters).queryPairs()
    /// // draft, ids[]=1, ids[]=2, user[name]=Ada
    /// ```
    ///
    /// Query strings and form bodies (`CourierRequestSerialization`) escape these pairs, and multipart
    /// forms (`CourierMultipart`) make a part of each: one set of naming rules for all three.
    /// - Dictionary keys sort ascending by Swift's `<` (case-sensitive, digits as text); a nested
    ///   dictionary's values are named `key[sub]`; an array's elements `key[]` (or as `arrays` says), in
    ///   order; a set's elements `key`, sorted by their text (``setElementsInQueryOrder(_:arrays:booleans:)``).
    /// - `.null` has no value; a scalar's value is ``queryText(booleans:)``; an empty collection gives no pair.
    public func queryPairs(arrays: QueryPair.ArrayStyle = .brackets, booleans: QueryPair.BoolStyle = .numeric) -> [QueryPair]? {
        guard case .dictionary(let values) = self else { return nil }
        var pairs: [QueryPair] = []
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            value.appendQueryPairs(named: key, arrays: arrays, booleans: booleans, to: &pairs)
        }
        return pairs
    }

    /// A scalar's text in a query or form, booleans as `booleans` says: an integer in decimal, a double
    /// as `NSNumber` describes it (printf's `%.16g`: `2.0` → `2`, `0.1 + 0.2` → `0.3`), data as its UTF-8
    /// text; empty for null and collections, which have none of their own.
    public func queryText(booleans: QueryPair.BoolStyle = .numeric) -> String {
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

    /// A set's elements in query order: by their text, as AFNetworking sorts by `description`
    /// (`<null>` for null, a collection by its pairs as if it had an empty name).
    ///
    /// Elements of different kinds can share a text (`.null` and `.string("<null>")`, `.int(1)` and
    /// `.bool(true)`), and a set's iteration order changes from one process to the next, so ties go by
    /// kind: the same parameters always give the same query (found by the query-string fuzz target).
    public static func setElementsInQueryOrder(
        _ elements: Set<Parameters>, arrays: QueryPair.ArrayStyle = .brackets, booleans: QueryPair.BoolStyle = .numeric
    ) -> [Parameters] {
        elements
            .map { (sortKey: $0.setSortKey(arrays: arrays, booleans: booleans), rank: $0.kindRank, element: $0) }
            .sorted { ($0.sortKey, $0.rank) < ($1.sortKey, $1.rank) }
            .map(\.element)
    }

    /// Appends the pairs of this value under `name` (AFNetworking's `AFQueryStringPairsFromKeyAndValue`).
    private func appendQueryPairs(named name: String, arrays: QueryPair.ArrayStyle, booleans: QueryPair.BoolStyle, to pairs: inout [QueryPair]) {
        switch self {
        case .dictionary(let values):
            for (key, nested) in values.sorted(by: { $0.key < $1.key }) {
                nested.appendQueryPairs(named: name + "[" + key + "]", arrays: arrays, booleans: booleans, to: &pairs)
            }
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                let elementName: String
                switch arrays {
                case .brackets: elementName = name + "[]"
                case .noBrackets: elementName = name
                case .indexed: elementName = name + "[" + String(index) + "]"
                }
                element.appendQueryPairs(named: elementName, arrays: arrays, booleans: booleans, to: &pairs)
            }
        case .set(let elements):
            for element in Self.setElementsInQueryOrder(elements, arrays: arrays, booleans: booleans) {
                element.appendQueryPairs(named: name, arrays: arrays, booleans: booleans, to: &pairs)
            }
        case .null:
            pairs.append(QueryPair(name: name, value: nil))
        case .bool, .int, .double, .string, .data:
            pairs.append(QueryPair(name: name, value: queryText(booleans: booleans)))
        }
    }

    /// What kind of value this is, for the messages of the modules that serialize parameters:
    /// `an array`, `a string`…
    package var kindDescription: String {
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

    /// The order of kinds among set elements with the same text. Two elements of one kind with the same
    /// text render the same pairs, so their order does not show.
    private var kindRank: Int {
        switch self {
        case .null: return 0
        case .bool: return 1
        case .int: return 2
        case .double: return 3
        case .string: return 4
        case .data: return 5
        case .array: return 6
        case .set: return 7
        case .dictionary: return 8
        }
    }

    /// The text a set element sorts by: a scalar's own text, `<null>` for null (`NSNull`'s
    /// description), and a collection's unescaped pairs as if it had an empty name.
    private func setSortKey(arrays: QueryPair.ArrayStyle, booleans: QueryPair.BoolStyle) -> String {
        switch self {
        case .null:
            return "<null>"
        case .bool, .int, .double, .string, .data:
            return queryText(booleans: booleans)
        case .array, .set, .dictionary:
            var pairs: [QueryPair] = []
            appendQueryPairs(named: "", arrays: arrays, booleans: booleans, to: &pairs)
            return pairs.map(\.description).joined(separator: "&")
        }
    }
}
