import CourierCore

/// `Content-Range` (`ContentRange`, what `courier -c` trusts to resume a download): a value is read only
/// when it is valid by RFC 9110 §14.4 — digits only, first ≤ last, and last below the complete length when
/// that is known — because a resume appends at the offset the server names. A sign or a space in a number is refused.
enum ContentRangeFuzz: FuzzTarget {
    static let name = "content-range"

    static func run(_ input: FuzzInput) {
        let text = String(decoding: input.rest(), as: UTF8.self)
        guard let range = ContentRange(text) else { return }
        if let first = range.first, let last = range.last {
            precondition(first >= 0 && first <= last, "range \(first)-\(last) read from \(text.debugDescription)")
            if let complete = range.completeLength {
                precondition(last < complete, "last byte \(last) not below the length \(complete) in \(text.debugDescription)")
            }
        } else {
            precondition(range.first == nil && range.last == nil, "half a range from \(text.debugDescription)")
            precondition(range.completeLength != nil, "neither range nor length from \(text.debugDescription)")
        }
        if let complete = range.completeLength { precondition(complete >= 0, "negative length from \(text.debugDescription)") }
        precondition(text.utf8.dropFirst(6).allSatisfy { (0x30...0x39).contains($0) || $0 == 0x2D || $0 == 0x2F || $0 == 0x2A },
                     "\(text.debugDescription) was read though it holds more than digits, '-', '/' and '*'")
    }
}
