import CourierCore
import FoundationEssentials

extension MultipartFormData {
    /// Adds one text part per value of `parameters`, named and ordered as in a query string but
    /// not percent-escaped (`user[name]`, `ids[]`), as AFNetworking does before the parts a
    /// request's builder adds.
    ///
    /// ```swift
    /// try form.appendParameters(["user": ["name": "Ada"], "tags": ["a", "b"], "draft": nil])
    /// // parts: draft (empty), tags[] = a, tags[] = b, user[name] = Ada
    /// ```
    ///
    /// `.data` values are sent as raw bytes, `.null` as an empty part, other scalars as their
    /// query text (`true` → `1`); names and order are Core's ``CourierCore/Parameters/queryPairs(arrays:booleans:)``.
    ///
    /// - Throws: ``MultipartError`` (``MultipartError/Reason/parametersNotDictionary``) when the top
    ///   level is not a dictionary: every part needs a name.
    public mutating func appendParameters(_ parameters: Parameters) throws(MultipartError) {
        guard case .dictionary(let values) = parameters else {
            throw MultipartError(
                .parametersNotDictionary,
                detail: "every part of a form is named, so the top level must be a dictionary, not \(parameters.kindDescription); wrap the value in one, e.g. [\"items\": …]"
            )
        }
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            appendParameter(named: key, value)
        }
    }

    private mutating func appendParameter(named name: String, _ value: Parameters) {
        switch value {
        case .dictionary(let values):
            for (key, nested) in values.sorted(by: { $0.key < $1.key }) {
                appendParameter(named: name + "[" + key + "]", nested)
            }
        case .array(let elements):
            for element in elements {
                appendParameter(named: name + "[]", element)
            }
        case .set:
            // A set's order and naming are the query string's; its elements are never raw data.
            for pair in (Parameters.dictionary([name: value]).queryPairs() ?? []) {
                append(pair.value ?? "", name: pair.name)
            }
        case .data(let data):
            append(data, name: name)
        case .null:
            append(Data(), name: name)
        case .bool, .int, .double, .string:
            append(value.queryText(), name: name)
        }
    }
}
