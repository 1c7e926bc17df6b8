import CourierCore
import HTTPTypes

/// What the transport checks before curl sees a request: a target curl would read differently from
/// how Courier reads it, and headers that frame the message, which belong to the transport.
///
/// Why here and not in Core: these are rules of the wire, and a transport is what writes it. curl
/// itself accepts all of these: an empty authority, `user@host` (it sends the credentials), a path
/// without `/` (it takes part of it as the host), a `Content-Length` or `Transfer-Encoding` that
/// disagrees with the body it sends.
enum RequestValidation {
    /// Checks the request's authority and path.
    /// - Throws: ``CourierCore/InvalidRequestError`` naming the part.
    static func checkTarget(_ request: HTTPRequest, authority: String, path: String) throws {
        if isPlainTarget(authority: authority, path: path) { return }
        try checkTargetRuleByRule(request, authority: authority, path: path)
    }

    /// Whether the target is one every rule of ``checkTarget(_:authority:path:)`` accepts, in the shape nearly
    /// every request has (`host` or `host:port`, no user information, no brackets; a path of visible bytes
    /// without `#`), found in one pass over each part's bytes. False sends the target through the full check,
    /// which decides and names what is wrong: this only spares a valid target its parsing, which cost every
    /// small call about 3,000 instructions.
    static func isPlainTarget(authority: String, path: String) -> Bool {
        let plainAuthority = authority.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard let first = bytes.first, first != UInt8(ascii: ":") else { return false }
            var colon: Int? = nil
            for (offset, byte) in bytes.enumerated() {
                if isForbiddenInAuthority(byte) || byte == UInt8(ascii: "@") || byte == UInt8(ascii: "[") { return false }
                if byte == UInt8(ascii: ":") {
                    guard colon == nil else { return false }
                    colon = offset
                }
            }
            // The port: empty (as the full check allows), or a number from 0 to 65535.
            guard let colon, colon + 1 < bytes.count else { return true }
            return AuthorityParts.portNumber(digits: UnsafeBufferPointer(rebasing: bytes[(colon + 1)...])) != nil
        }
        guard plainAuthority == true else { return false }
        let plainPath = path.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard bytes.first == UInt8(ascii: "/") else { return false }
            return !bytes.contains(where: isForbiddenInPath)
        }
        return plainPath == true
    }

    /// The full check, each rule in turn, with the error that names the first broken one.
    static func checkTargetRuleByRule(_ request: HTTPRequest, authority: String, path: String) throws {
        func authorityError(_ detail: String) -> InvalidRequestError {
            InvalidRequestError(.invalidAuthority, input: authority, detail: detail)
        }
        guard !authority.isEmpty else { throw authorityError("the request has no authority (host), so there is nothing to connect to or to check a certificate against") }
        if authority.utf8.contains(where: isForbiddenInAuthority) {
            throw authorityError("it holds characters an authority cannot (/, ?, #, \\, spaces or controls)")
        }
        guard let parts = AuthorityParts(authority) else {
            throw authorityError("an IPv6 address must be in brackets, and only a port may follow them")
        }
        if parts.userInformation != nil {
            throw authorityError("user information in the authority is refused (curl would send it as credentials); use an Authorization header")
        }
        guard !parts.host.isEmpty else { throw authorityError("the authority has no host") }
        if let port = parts.port, !port.isEmpty, parts.portNumber == nil {
            throw authorityError("the port \"\(port)\" is not a number from 0 to 65535 (an IPv6 address goes in brackets)")
        }
        if path == "*" {
            guard request.method == .options else {
                throw InvalidRequestError(.invalidPath, input: path, detail: "the target * is for OPTIONS only")
            }
            return
        }
        guard path.utf8.first == UInt8(ascii: "/") else {
            throw InvalidRequestError(.invalidPath, input: path, detail: "the path must start with / (curl would read what precedes the first / as part of the host)")
        }
        if path.utf8.contains(where: isForbiddenInPath) {
            throw InvalidRequestError(.invalidPath, input: path, detail: "the path holds spaces, control characters or #; percent-encode them")
        }
    }

    /// `Host` (HTTPTypes keeps it out of `HTTPField.Name`'s constants: HTTP/2 carries it as `:authority`).
    private static let hostField = HTTPField.Name("Host")!

    /// A byte no authority may hold: a space or control, DEL, or a delimiter that would end it (`/`, `?`, `#`, `\`).
    static func isForbiddenInAuthority(_ byte: UInt8) -> Bool {
        byte <= 0x20 || byte == 0x7F || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?")
            || byte == UInt8(ascii: "#") || byte == UInt8(ascii: "\\")
    }

    /// A byte no path may hold as it is: a space or control, DEL, or `#` (which would start a fragment curl
    /// does not send).
    static func isForbiddenInPath(_ byte: UInt8) -> Bool {
        byte <= 0x20 || byte == 0x7F || byte == UInt8(ascii: "#")
    }

    /// The header fields to send: the request's own when none frames the message; otherwise without
    /// the framing headers that agree with the body and target (the transport writes its own).
    ///
    /// - `Content-Length`: must equal the body's known length (0 without a body).
    /// - `Transfer-Encoding`: only `chunked`, only for a body of unknown length (curl sends it so).
    /// - `Connection`: only `close` and `keep-alive` (any other token names hop-by-hop headers or asks
    ///   for an upgrade); kept.
    /// - `Upgrade`: refused: the transport cannot switch protocols.
    /// - `Host`: must equal the authority (without case).
    /// - Throws: ``CourierCore/InvalidRequestError`` with `.conflictingFramingHeader`.
    static func headerFields(of request: HTTPRequest, authority: String, body: Body?) throws -> HTTPFields? {
        var strip = false
        for field in request.headerFields {
            switch field.name {
            case .contentLength, .transferEncoding, hostField, .connection, .upgrade:
                strip = try check(field, authority: authority, body: body) || strip
            default:
                continue
            }
        }
        guard strip else { return nil }
        var fields = request.headerFields
        fields[.contentLength] = nil
        fields[.transferEncoding] = nil
        fields[hostField] = nil
        return fields
    }

    /// Checks one framing field; true when it agrees and is to be left to the transport.
    private static func check(_ field: HTTPField, authority: String, body: Body?) throws -> Bool {
        func conflict(_ detail: String) -> InvalidRequestError {
            InvalidRequestError(.conflictingFramingHeader, input: "\(field.name.rawName): \(field.value)", detail: detail)
        }
        let value = field.value.trimmingOptionalWhitespace()
        switch field.name {
        case .contentLength:
            let expected: Int64?
            if let body { if case .known(let count) = body.length { expected = count } else { expected = nil } } else { expected = 0 }
            guard let expected else {
                throw conflict("the body's length is unknown, so the transport sends it chunked; drop Content-Length or give the body its length")
            }
            guard let given = Int64(value), given == expected else {
                throw conflict("the body is \(expected) bytes; the transport sets Content-Length itself")
            }
            return true
        case .transferEncoding:
            guard value.lowercased() == "chunked", let body, body.length == .unknown else {
                throw conflict("the transport chooses the body's framing (chunked only for a body of unknown length); drop Transfer-Encoding")
            }
            return true
        case hostField:
            guard value.lowercased() == authority.lowercased() else {
                throw conflict("Host must name the request's authority \"\(authority)\"; change the URL instead")
            }
            return true
        case .connection:
            for token in value.split(separator: ",") {
                let name = token.trimmingOptionalWhitespace().lowercased()
                guard name == "close" || name == "keep-alive" else {
                    throw conflict("only close and keep-alive are allowed: other tokens make proxies drop headers or ask to switch protocols")
                }
            }
            return false
        case .upgrade:
            throw conflict("the transport cannot switch protocols (WebSocket, h2c); remove Upgrade")
        default:
            return false
        }
    }
}
