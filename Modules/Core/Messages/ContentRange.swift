/// A `Content-Range` value: `bytes 100-199/200`, `bytes 100-199/*` or `bytes */200`. What a resumed
/// download (``ResumeData``, `courier -c`) trusts before appending to a file.
package struct ContentRange: Equatable, Sendable {
    /// First byte of the part, when the response carries one.
    package var first: Int64?
    /// Last byte of the part, inclusive.
    package var last: Int64?
    /// The whole representation's length, when known.
    package var completeLength: Int64?

    package init(first: Int64?, last: Int64?, completeLength: Int64?) {
        self.first = first
        self.last = last
        self.completeLength = completeLength
    }

    /// Reads `value`; `nil` when it is not a valid byte range (RFC 9110 §14.4): numbers are digits only
    /// (no sign, no space), `first` ≤ `last`, and `last` is below the complete length when that is known. A
    /// resume appends at the offset the server names, so a range that cannot be true is refused rather
    /// than trusted (the content-range fuzz target found `bytes 1-1/1` and `bytes */-5` read as ranges).
    package init?(_ value: String) {
        guard value.hasPrefix("bytes ") else { return nil }
        let spec = value.dropFirst(6)
        guard let slash = spec.firstIndex(of: "/") else { return nil }
        let range = spec[..<slash]
        let length = spec[spec.index(after: slash)...]
        if length != "*" {
            guard let complete = Self.number(length) else { return nil }
            completeLength = complete
        }
        if range != "*" {
            guard let dash = range.firstIndex(of: "-"),
                  let first = Self.number(range[..<dash]),
                  let last = Self.number(range[range.index(after: dash)...]),
                  first <= last, last < (completeLength ?? .max)
            else { return nil }
            self.first = first
            self.last = last
        } else if completeLength == nil {
            return nil
        }
    }

    /// The value of a run of ASCII digits; `nil` for anything else (a sign, a space, nothing) or an overflow.
    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(text)
    }
}
