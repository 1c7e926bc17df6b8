/// A request authority split as RFC 3986 §3.2 does: user information, host (an IPv6 address without
/// its brackets) and port. The one parser behind the transport's target check, the trust hook's host name and
/// the cookie jar's request host, so the host a certificate is judged against, and the host cookies go to, is
/// the host the check let through.
package struct AuthorityParts {
    /// What precedes the last `@`, if anything does.
    package let userInformation: Substring?
    package let host: Substring
    /// What follows the host's `:`; empty for `host:`.
    package let port: Substring?

    /// `nil` when the brackets of an IPv6 address do not close, or something other than a port follows them.
    /// Byte-wise: it runs for every request, and `Character` searches cost a grapheme walk each.
    package init?(_ authority: String) {
        let at = authority.utf8.lastIndex(of: UInt8(ascii: "@"))
        userInformation = at.map { authority[..<$0] }
        let rest = at.map { authority[authority.utf8.index(after: $0)...] } ?? authority[...]
        if rest.utf8.first == UInt8(ascii: "[") {
            guard let close = rest.utf8.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            host = rest[rest.utf8.index(after: rest.startIndex)..<close]
            let after = rest[rest.utf8.index(after: close)...]
            guard after.isEmpty || after.utf8.first == UInt8(ascii: ":") else { return nil }
            port = after.isEmpty ? nil : after[after.utf8.index(after: after.startIndex)...]
        } else if let colon = rest.utf8.firstIndex(of: UInt8(ascii: ":")) {
            host = rest[..<colon]
            port = rest[rest.utf8.index(after: colon)...]
        } else {
            host = rest
            port = nil
        }
    }

    /// The port as a number, when it is one from 0 to 65535 (`nil` for none, empty or anything else).
    package var portNumber: Int? {
        guard var port else { return nil }
        return port.withUTF8 { Self.portNumber(digits: $0) }
    }

    /// The number that `digits` (a port's bytes, after the `:`) name, when they are one to five ASCII digits
    /// naming 0 to 65535; `nil` otherwise. The one port rule, shared with the transport's shortcut for plain
    /// targets, so the two cannot disagree on what a port is. Not generic: called from another module, a generic
    /// function is not specialized, and looked up type metadata at every call (Callgrind: 10,000 instructions more
    /// per request).
    package static func portNumber(digits: UnsafeBufferPointer<UInt8>) -> Int? {
        guard !digits.isEmpty, digits.count <= 5 else { return nil }
        var number = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            number = number * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return number <= 65_535 ? number : nil
    }
}

extension StringProtocol {
    /// Without the spaces and tabs around it (HTTP's optional whitespace).
    package func trimmingOptionalWhitespace() -> SubSequence {
        var slice = self[...]
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return slice
    }
}
