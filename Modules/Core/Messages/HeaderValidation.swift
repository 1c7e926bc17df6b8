import HTTPTypes

extension HTTPField {
    /// A field from raw strings, refusing what `HTTPField` would silently rewrite: a name that is
    /// not a token, a value holding CR, LF or NUL (header injection).
    public static func validated(name: String, value: String) throws(InvalidRequestError) -> HTTPField {
        guard let fieldName = HTTPField.Name(name) else {
            throw InvalidRequestError(.invalidHeaderName, input: name, detail: "a header name must be a non-empty token (letters, digits and !#$%&'*+-.^_`|~)")
        }
        guard !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) else {
            throw InvalidRequestError(.invalidHeaderValue, input: name, detail: "the value contains CR, LF or NUL, which could inject headers")
        }
        guard HTTPField.isValidValue(value) else {
            throw InvalidRequestError(.invalidHeaderValue, input: name, detail: "the value has control characters or leading or trailing white space")
        }
        return HTTPField(name: fieldName, value: value)
    }
}

extension HTTPFields {
    /// Fields from raw name–value pairs, in order, each checked by
    /// ``HTTPTypes/HTTPField/validated(name:value:)``.
    public init(validating pairs: some Sequence<(String, String)>) throws(InvalidRequestError) {
        self.init()
        for (name, value) in pairs {
            append(try HTTPField.validated(name: name, value: value))
        }
    }

    /// These fields with every field of `overrides` replacing same-named ones.
    func overridden(by overrides: HTTPFields) -> HTTPFields {
        guard !overrides.isEmpty else { return self }
        var merged = self
        var replaced = Set<HTTPField.Name>()
        for field in overrides where replaced.insert(field.name).inserted {
            merged[values: field.name] = overrides[values: field.name]
        }
        return merged
    }
}
