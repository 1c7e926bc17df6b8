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
/// - ``Options`` change three of these rules when a server expects otherwise: arrays as `key` or
///   `key[0]`, booleans as `true`/`false`, spaces as `+`. The defaults are the rules above.
/// - The top level must be a dictionary, so every value has a name: anything else throws
///   ``RequestSerializationError/Reason/parametersNotDictionary`` instead of AFNetworking's
///   `(null)`-named pairs. Wrap a list in a dictionary to send it: `["ids": [1, 2]]`.
public enum QueryString {
    /// The query string for `parameters`, e.g. `a=1&b%5B%5D=2`; empty when they hold no value.
    ///
    /// Writes straight into one growing UTF-8 buffer: names are escaped once per level and
    /// shared by every value below it, so no pair or name string is built per value.
    ///
    /// - Throws: ``RequestSerializationError/Reason/parametersNotDictionary`` when the top level
    ///   is not a dictionary.
    public static func encode(
        _ parameters: Parameters, options: Options = .default
    ) throws(RequestSerializationError) -> String {
        let values = try topLevel(of: parameters)
        var writer = QueryWriter(options: options)
        writer.writeTopLevel(values)
        return writer.result
    }

    /// The unescaped name–value pairs for `parameters`, in query order, with array names and
    /// boolean text as `options` say (``Options/spaces`` applies only when a pair is escaped):
    /// ``CourierCore/Parameters/queryPairs(arrays:booleans:)``, which multipart forms share.
    ///
    /// - Throws: ``RequestSerializationError/Reason/parametersNotDictionary`` when the top level
    ///   is not a dictionary.
    public static func pairs(
        from parameters: Parameters, options: Options = .default
    ) throws(RequestSerializationError) -> [QueryPair] {
        _ = try topLevel(of: parameters)
        return parameters.queryPairs(arrays: options.arrays, booleans: options.booleans) ?? []
    }

    /// The top-level dictionary of `parameters`.
    private static func topLevel(of parameters: Parameters) throws(RequestSerializationError) -> [String: Parameters] {
        guard case .dictionary(let values) = parameters else {
            throw RequestSerializationError(
                .parametersNotDictionary, location: "parameters",
                detail: "a query string or form body names every value, so the top level must be a dictionary, not \(parameters.kindDescription); wrap the value in one, e.g. [\"items\": …]"
            )
        }
        return values
    }
}
