/// A request could not be built from what the caller gave: nothing was sent.
public struct InvalidRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    public struct Reason: Sendable, Hashable, CustomStringConvertible {
        let name: String
        /// The URL did not parse or lacks a scheme or host.
        public static let malformedURL = Reason(name: "malformed URL")
        /// The URL's scheme is not `http` or `https`.
        public static let unsupportedScheme = Reason(name: "unsupported URL scheme")
        /// A header name is not a valid token.
        public static let invalidHeaderName = Reason(name: "invalid header name")
        /// A header value holds CR, LF or NUL (header injection).
        public static let invalidHeaderValue = Reason(name: "invalid header value")
        /// The request's authority cannot be sent: empty, no host, user information (`user@host`),
        /// or characters an authority cannot hold.
        public static let invalidAuthority = Reason(name: "invalid authority")
        /// The request's path cannot be sent: it does not start with `/` (or is not `*` for
        /// OPTIONS), or holds spaces, controls or `#`.
        public static let invalidPath = Reason(name: "invalid path")
        /// A header the transport owns (`Content-Length`, `Transfer-Encoding`, `Connection`, `Upgrade`,
        /// `Host`) contradicts the request's body or target: sent as given it would frame the message
        /// differently from what the transport sends (request smuggling on a reused connection).
        public static let conflictingFramingHeader = Reason(name: "conflicting framing header")
        /// Parameters were given but the session has no request serializer.
        public static let noRequestSerializer = Reason(name: "no request serializer")
        /// The reason's name.
        public var description: String { name }
    }

    /// What was wrong.
    public var reason: Reason
    /// The offending input (a URL, a header name), quoted in messages.
    public var input: String
    /// More detail, when there is some.
    public var detail: String?

    /// An invalid-request error.
    public init(_ reason: Reason, input: String, detail: String? = nil) {
        self.reason = reason
        self.input = input
        self.detail = detail
    }

    /// e.g. `invalid header value: "X-A": the value contains CR, LF or NUL, which could inject headers`.
    public var description: String {
        var text = "\(reason): \"\(input)\""
        if let detail { text += ": \(detail)" }
        return text
    }
}
