import HTTPTypes

extension HTTPFields {
    /// The value of the only field named `name`: nil when there is none, or more than one.
    ///
    /// For the transport's hot path. The subscript joins every value of a name with ", ", which builds a
    /// string on each lookup; a length or a coding read from two joined fields would be refused anyway.
    package func soleValue(_ name: HTTPField.Name) -> String? {
        var found: String?
        for field in self where field.name == name {
            guard found == nil else { return nil }
            found = field.value
        }
        return found
    }

    /// `Content-Length` as a number, when there is one such field and it holds one.
    package var contentLength: Int64? {
        soleValue(.contentLength).flatMap { Int64($0) }
    }
}
