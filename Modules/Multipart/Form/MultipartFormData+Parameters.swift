import CourierCore
import CourierRequestSerialization
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
    /// query text (`true` → `1`).
    ///
    /// - Throws: ``RequestSerializationError`` when the top level is not a dictionary.
    public mutating func appendParameters(_ parameters: Parameters) throws(RequestSerializationError) {
        guard case .dictionary(let values) = parameters else {
            // The query rules name the problem in the same words for forms.
            _ = try QueryString.pairs(from: parameters)
            return
        }
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            try appendParameter(named: key, value)
        }
    }

    private mutating func appendParameter(named name: String, _ value: Parameters) throws(RequestSerializationError) {
        switch value {
        case .dictionary(let values):
            for (key, nested) in values.sorted(by: { $0.key < $1.key }) {
                try appendParameter(named: name + "[" + key + "]", nested)
            }
        case .array(let elements):
            for element in elements {
                try appendParameter(named: name + "[]", element)
            }
        case .set:
            // A set's order and naming are the query string's; its elements are never raw data.
            for pair in try QueryString.pairs(from: [name: value]) {
                append(pair.value ?? "", name: pair.name)
            }
        case .data(let data):
            append(data, name: name)
        case .null:
            append(Data(), name: name)
        case .bool, .int, .double, .string:
            let text = try QueryString.pairs(from: [name: value]).first?.value ?? ""
            append(text, name: name)
        }
    }
}
