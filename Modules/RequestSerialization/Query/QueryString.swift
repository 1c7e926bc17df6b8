import CourierCore
import FoundationEssentials

/// AFNetworking's query strings and form bodies from a ``CourierCore/Parameters`` tree
/// (`AFQueryStringFromParameters`).
///
/// ```swift
/// try QueryString.encode(["user": ["name": "a b", "tags": ["x", "y"]], "page": 2])
/// // "page=2&user%5Bname%5D=a%20b&user%5Btags%5D%5B%5D=x&user%5Btags%5D%5B%5D=y"
/// ```
///
/// The rules:
/// - Dictionary keys are sorted ascending by Swift's `<` on the key strings: case-sensitive,
///   uppercase first (`B` < `a`), digits as text (`10` < `9`). For ASCII keys this is the order of
///   AFNetworking's `compare:`.
/// - A nested dictionary's values are named `key[sub]` (recursively `a[b][c]`); an array's
///   elements are each named `key[]`, in order; a set's elements are each named `key` (no
///   brackets), sorted by their text (a nested collection in a set sorts by its rendered pairs).
/// - The whole name and the value are each escaped by ``PercentEscaping`` after the name is
///   built, so brackets appear as `%5B`/`%5D`; pairs are joined with `&`.
/// - ``CourierCore/Parameters/null`` renders the name alone, without `=`; an empty array, set or
///   dictionary renders nothing.
/// - Scalars render as `NSNumber`'s `description` would: `.bool(true)` → `1`, `.bool(false)` → `0`,
///   `.int` in decimal, `.double` as printf's `%.16g` (integral values without a fraction:
///   `2.0` → `2`, `1.5` → `1.5`, `0.1 + 0.2` → `0.3`, `1e16` → `1e+16`; `nan`, `inf`, `-inf`),
///   `.string` as it is, `.data` as its UTF-8 text (invalid bytes become U+FFFD).
/// - The top level must be a dictionary, so every value has a name: anything else throws
///   ``RequestSerializationError/Reason/parametersNotDictionary`` instead of AFNetworking's
///   `(null)`-named pairs. Wrap a list in a dictionary to send it: `["ids": [1, 2]]`.
public enum QueryString {
    /// The query string for `parameters`, e.g. `a=1&b%5B%5D=2`; empty when they hold no value.
    ///
    /// - Throws: ``RequestSerializationError/Reason/parametersNotDictionary`` when the top level
    ///   is not a dictionary.
    public static func encode(_ parameters: Parameters) throws(RequestSerializationError) -> String {
        let pairs = try pairs(from: parameters)
        var output: [UInt8] = []
        output.reserveCapacity(pairs.count * 16)
        for (index, pair) in pairs.enumerated() {
            if index > 0 { output.append(UInt8(ascii: "&")) }
            pair.append(to: &output)
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The unescaped name–value pairs for `parameters`, in query order.
    ///
    /// - Throws: ``RequestSerializationError/Reason/parametersNotDictionary`` when the top level
    ///   is not a dictionary.
    public static func pairs(from parameters: Parameters) throws(RequestSerializationError) -> [QueryPair] {
        guard case .dictionary(let values) = parameters else {
            throw RequestSerializationError(
                .parametersNotDictionary, location: "parameters",
                detail: "a query string or form body names every value, so the top level must be a dictionary, not \(parameters.kindDescription); wrap the value in one, e.g. [\"items\": …]"
            )
        }
        var pairs: [QueryPair] = []
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            appendPairs(named: key, for: value, to: &pairs)
        }
        return pairs
    }

    /// Appends the pairs of `value` under `name` (AFNetworking's `AFQueryStringPairsFromKeyAndValue`).
    private static func appendPairs(named name: String, for value: Parameters, to pairs: inout [QueryPair]) {
        switch value {
        case .dictionary(let values):
            for (key, nested) in values.sorted(by: { $0.key < $1.key }) {
                appendPairs(named: name + "[" + key + "]", for: nested, to: &pairs)
            }
        case .array(let elements):
            let elementName = name + "[]"
            for element in elements {
                appendPairs(named: elementName, for: element, to: &pairs)
            }
        case .set(let elements):
            let sorted = elements
                .map { (sortKey: setSortKey(of: $0), element: $0) }
                .sorted { $0.sortKey < $1.sortKey }
            for entry in sorted {
                appendPairs(named: name, for: entry.element, to: &pairs)
            }
        case .null:
            pairs.append(QueryPair(name: name, value: nil))
        case .bool, .int, .double, .string, .data:
            pairs.append(QueryPair(name: name, value: value.queryText))
        }
    }

    /// The text a set element sorts by: a scalar's own text, `<null>` for null (`NSNull`'s
    /// description), and a collection's unescaped pairs as if it had an empty name.
    private static func setSortKey(of element: Parameters) -> String {
        switch element {
        case .null:
            return "<null>"
        case .bool, .int, .double, .string, .data:
            return element.queryText
        case .array, .set, .dictionary:
            var pairs: [QueryPair] = []
            appendPairs(named: "", for: element, to: &pairs)
            return pairs.map(\.description).joined(separator: "&")
        }
    }
}
