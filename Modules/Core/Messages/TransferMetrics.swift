/// Timings and sizes of one network exchange, as the transport measured them.
///
/// Every duration is measured from the start of the exchange; a phase that did not happen
/// (no DNS lookup for an IP address, no TLS for `http`, a reused connection) is `nil`.
public struct TransferMetrics: Sendable, Hashable {
    /// Name resolution finished.
    public var domainLookup: Duration?
    /// The TCP (or Unix socket) connection was established.
    public var connect: Duration?
    /// The TLS handshake finished.
    public var secureConnection: Duration?
    /// The request was fully sent and the transfer was about to wait for the response.
    public var requestSent: Duration?
    /// The first byte of the response arrived.
    public var firstByte: Duration?
    /// The exchange ended.
    public var total: Duration?
    /// Bytes of request body sent.
    public var bytesSent: Int64
    /// Bytes of response body received (after decompression).
    public var bytesReceived: Int64
    /// The HTTP version spoken, e.g. `HTTP/1.1` or `HTTP/2`.
    public var httpVersion: String?
    /// The peer's address and port, e.g. `127.0.0.1:8080`.
    public var remoteAddress: String?
    /// Whether an existing connection was reused.
    public var reusedConnection: Bool?

    /// Metrics with every field given; unknown ones stay `nil`.
    public init(
        domainLookup: Duration? = nil,
        connect: Duration? = nil,
        secureConnection: Duration? = nil,
        requestSent: Duration? = nil,
        firstByte: Duration? = nil,
        total: Duration? = nil,
        bytesSent: Int64 = 0,
        bytesReceived: Int64 = 0,
        httpVersion: String? = nil,
        remoteAddress: String? = nil,
        reusedConnection: Bool? = nil
    ) {
        self.domainLookup = domainLookup
        self.connect = connect
        self.secureConnection = secureConnection
        self.requestSent = requestSent
        self.firstByte = firstByte
        self.total = total
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.httpVersion = httpVersion
        self.remoteAddress = remoteAddress
        self.reusedConnection = reusedConnection
    }
}
