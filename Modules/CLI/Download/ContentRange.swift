/// A `Content-Range` value: `bytes 100-199/200`, `bytes 100-199/*` or `bytes */200`.
struct ContentRange: Equatable {
    /// First byte of the part, when the response carries one.
    var first: Int64?
    /// Last byte of the part, inclusive.
    var last: Int64?
    /// The whole representation's length, when known.
    var completeLength: Int64?

    init(first: Int64?, last: Int64?, completeLength: Int64?) {
        self.first = first
        self.last = last
        self.completeLength = completeLength
    }

    /// Reads `value`; `nil` when it is not a byte range.
    init?(_ value: String) {
        guard value.hasPrefix("bytes ") else { return nil }
        let spec = value.dropFirst(6)
        guard let slash = spec.firstIndex(of: "/") else { return nil }
        let range = spec[..<slash]
        let length = spec[spec.index(after: slash)...]
        if length != "*" {
            guard let complete = Int64(length) else { return nil }
            completeLength = complete
        }
        if range != "*" {
            let bounds = range.split(separator: "-", maxSplits: 1)
            guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first <= last else { return nil }
            self.first = first
            self.last = last
        } else if completeLength == nil {
            return nil
        }
    }
}
