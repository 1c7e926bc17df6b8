/// A network exchange failed below HTTP: connecting, TLS, sending or receiving.
///
/// A struct with a code rather than an enum, so transports can add codes without breaking users.
/// Transports built on a C library keep its own code and message in ``underlyingCode`` and
/// ``message`` (e.g. curl's `CURLE_*`).
public struct TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        let name: String
        /// A code with this name, for transports that need their own.
        public init(_ name: String) { self.name = name }

        /// A connect, total, idle or low-speed timeout fired.
        public static let timedOut = Code("timed out")
        /// The host name did not resolve.
        public static let nameResolution = Code("could not resolve host")
        /// The connection was refused or could not be made.
        public static let cannotConnect = Code("could not connect")
        /// The connection was reset or closed mid-exchange.
        public static let connectionLost = Code("connection lost")
        /// The proxy would not open a tunnel to the server: it answered the `CONNECT` with a status the message
        /// names, other than 2xx, 502, 503 and 504. 407 asks for the proxy's credentials (in the proxy URL,
        /// `http://user:password@proxy:3128`); 403 and the like are the proxy's policy, 501 a proxy that makes no
        /// tunnels. A SOCKS proxy that rejected the credentials (or wanted some), or would not connect to the
        /// server by its rules. Not worth a retry as it is. (A 502, 503 or 504, or a SOCKS proxy that could not
        /// reach the server, is ``cannotConnect``.)
        public static let proxyRefused = Code("proxy refused the tunnel")
        /// The TLS handshake failed or the peer was not trusted.
        public static let tlsFailure = Code("TLS failure")
        /// The peer sent something that is not HTTP (bad status line, header block too large…).
        public static let malformedResponse = Code("malformed response")
        /// The body ended before its announced length.
        public static let truncatedBody = Code("truncated body")
        /// Sending the request body failed.
        public static let sendFailed = Code("send failed")
        /// Receiving the response failed.
        public static let receiveFailed = Code("receive failed")
        /// A compressed response body could not be decoded (corrupt data, an unknown coding).
        public static let decodingFailed = Code("content decoding failed")
        /// A compressed response body decodes to more than the transport's limits allow: a
        /// decompression bomb, or a body larger than the caller accepts.
        public static let decompressionLimitExceeded = Code("decompression limit exceeded")
        /// The transport was shut down while the request was in flight, or before it started.
        public static let shutDown = Code("transport shut down")
        /// The transport does not support what the request asked for.
        public static let unsupported = Code("unsupported")
        /// Anything else.
        public static let other = Code("transport failure")

        /// The code's name.
        public var description: String { name }
    }

    /// The kind of failure.
    public var code: Code
    /// A human-readable explanation.
    public var message: String
    /// The underlying library's own code, e.g. curl's `CURLcode`.
    public var underlyingCode: Int?

    /// A transport error.
    public init(_ code: Code, message: String, underlyingCode: Int? = nil) {
        self.code = code
        self.message = message
        self.underlyingCode = underlyingCode
    }

    /// e.g. `timed out: operation timed out after 1000 ms (code 28)`.
    public var description: String {
        var text = "\(code): \(message)"
        if let underlyingCode { text += " (code \(underlyingCode))" }
        return text
    }
}
