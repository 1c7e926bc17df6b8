/// A request authority split as RFC 3986 §3.2 does: user information, host (an IPv6 address without
/// its brackets) and port. The one parser behind the transport's target check and the trust hook's
/// host name, so the host a certificate is judged against is the host the check let through.
struct AuthorityParts {
    /// What precedes the last `@`, if anything does.
    let userInformation: Substring?
    let host: Substring
    /// What follows the host's `:`; empty for `host:`.
    let port: Substring?

    /// `nil` when the brackets of an IPv6 address do not close, or something other than a port follows them.
    init?(_ authority: String) {
        var rest = Substring(authority)
        if let at = rest.lastIndex(of: "@") {
            userInformation = rest[..<at]
            rest = rest[rest.index(after: at)...]
        } else {
            userInformation = nil
        }
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { return nil }
            port = after.isEmpty ? nil : after.dropFirst()
        } else if let colon = rest.firstIndex(of: ":") {
            host = rest[..<colon]
            port = rest[rest.index(after: colon)...]
        } else {
            host = rest
            port = nil
        }
    }
}

extension StringProtocol {
    /// Without the spaces and tabs around it (HTTP's optional whitespace).
    func trimmingOptionalWhitespace() -> SubSequence {
        var slice = self[...]
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return slice
    }
}
