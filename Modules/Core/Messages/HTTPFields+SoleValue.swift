import HTTPTypes

extension HTTPFields {
    /// The value of the only field named `name`: nil when there is none, or more than one.
    ///
    /// For the transport's hot path. The subscript joins every value of a name with ", ", which builds a
    /// string on each lookup; a length or a coding read from two joined fields would be refused anyway.
    package func soleValue(_ name: HTTPField.Name) -> String? {
        var found: String?
        for field in self where field.name.matches(name) {
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

extension HTTPField.Name {
    /// `self == other`, with the lengths of the two canonical names compared first. A head's loop looking for one
    /// name meets mostly names of other lengths, and `String`'s equality takes its slow path whenever one of the
    /// two is longer than a small string's 15 bytes (`content-encoding` is 16), so the length settles most.
    @inlinable
    package func matches(_ other: HTTPField.Name) -> Bool {
        canonicalName.utf8.count == other.canonicalName.utf8.count && self == other
    }
}
