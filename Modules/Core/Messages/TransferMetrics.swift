/// Timings and sizes of one network exchange, as the transport measured them.
///
/// Every duration is measured from the start of the exchange; a phase that did not happen
/// (no DNS lookup for an IP address, no TLS for `http`, a reused connection) is `nil`. Durations are
/// kept to the nanosecond (libcurl measures microseconds), and within ±292 years.
public struct TransferMetrics: Sendable, Hashable {
    /// Name resolution finished.
    public var domainLookup: Duration? {
        get { Self.duration(domainLookupNanoseconds) }
        set { domainLookupNanoseconds = Self.nanoseconds(newValue) }
    }
    /// The TCP (or Unix socket) connection was established.
    public var connect: Duration? {
        get { Self.duration(connectNanoseconds) }
        set { connectNanoseconds = Self.nanoseconds(newValue) }
    }
    /// The TLS handshake finished.
    public var secureConnection: Duration? {
        get { Self.duration(secureConnectionNanoseconds) }
        set { secureConnectionNanoseconds = Self.nanoseconds(newValue) }
    }
    /// The request was fully sent and the transfer was about to wait for the response.
    public var requestSent: Duration? {
        get { Self.duration(requestSentNanoseconds) }
        set { requestSentNanoseconds = Self.nanoseconds(newValue) }
    }
    /// The first byte of the response arrived.
    public var firstByte: Duration? {
        get { Self.duration(firstByteNanoseconds) }
        set { firstByteNanoseconds = Self.nanoseconds(newValue) }
    }
    /// The exchange ended.
    public var total: Duration? {
        get { Self.duration(totalNanoseconds) }
        set { totalNanoseconds = Self.nanoseconds(newValue) }
    }
    // The durations as nanoseconds, `absent` for nil: 8 bytes each instead of an optional `Duration`'s 24 with its
    // padding. Metrics travel inside every `Response` and `DataResponse`, which a call holds in its async frames
    // (taken from the task's allocator on every call): the struct was 193 bytes, most of a `Response`'s 248. Declared
    // before the fields that follow the public durations, so that the one-byte `reusedConnection` comes last.
    private var domainLookupNanoseconds: Int64
    private var connectNanoseconds: Int64
    private var secureConnectionNanoseconds: Int64
    private var requestSentNanoseconds: Int64
    private var firstByteNanoseconds: Int64
    private var totalNanoseconds: Int64

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
        self.domainLookupNanoseconds = Self.nanoseconds(domainLookup)
        self.connectNanoseconds = Self.nanoseconds(connect)
        self.secureConnectionNanoseconds = Self.nanoseconds(secureConnection)
        self.requestSentNanoseconds = Self.nanoseconds(requestSent)
        self.firstByteNanoseconds = Self.nanoseconds(firstByte)
        self.totalNanoseconds = Self.nanoseconds(total)
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.httpVersion = httpVersion
        self.remoteAddress = remoteAddress
        self.reusedConnection = reusedConnection
    }

    /// Durations in microseconds, for a transport that measures in them (libcurl): the same metrics as the public
    /// initializer's, without taking each duration apart from `Duration`'s 128-bit attoseconds (600 instructions
    /// a call). A nil or negative count is a phase that did not happen.
    package init(
        microseconds: (domainLookup: Int64?, connect: Int64?, secureConnection: Int64?, requestSent: Int64?, firstByte: Int64?, total: Int64?),
        bytesSent: Int64,
        bytesReceived: Int64,
        httpVersion: String?,
        remoteAddress: String?,
        reusedConnection: Bool?
    ) {
        func nanoseconds(_ micros: Int64?) -> Int64 {
            guard let micros, micros >= 0 else { return Self.absent }
            let (product, overflow) = micros.multipliedReportingOverflow(by: 1_000)
            return overflow ? .max : product
        }
        self.init(
            bytesSent: bytesSent, bytesReceived: bytesReceived, httpVersion: httpVersion, remoteAddress: remoteAddress,
            reusedConnection: reusedConnection
        )
        domainLookupNanoseconds = nanoseconds(microseconds.domainLookup)
        connectNanoseconds = nanoseconds(microseconds.connect)
        secureConnectionNanoseconds = nanoseconds(microseconds.secureConnection)
        requestSentNanoseconds = nanoseconds(microseconds.requestSent)
        firstByteNanoseconds = nanoseconds(microseconds.firstByte)
        totalNanoseconds = nanoseconds(microseconds.total)
    }

    /// The stored value of a duration that is not there.
    private static let absent = Int64.min

    /// `duration` in whole nanoseconds (toward zero), held within what an `Int64` holds besides `absent`.
    static func nanoseconds(_ duration: Duration?) -> Int64 {
        guard let duration else { return absent }
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (sum, carry) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        guard !overflow, !carry, sum != absent else { return seconds < 0 ? absent + 1 : .max }
        return sum
    }

    private static func duration(_ nanoseconds: Int64) -> Duration? {
        nanoseconds == absent ? nil : .nanoseconds(nanoseconds)
    }
}
