import CourierCore

/// What one call did, gathered from its events for the line that ends it: when it started, how many
/// exchanges, redirects and retries it took, and what its exchanges measured. A value, so the rules
/// are tested without a session.
struct CallRecord: Sendable {
    private(set) var started: ContinuousClock.Instant?
    private(set) var redirects = 0
    private(set) var retries = 0
    private(set) var bytesSent: Int64 = 0
    private(set) var bytesReceived: Int64 = 0
    private(set) var exchangesMeasured = 0
    private(set) var reusedConnection: Bool?
    private(set) var httpVersion: String?

    /// The task ran; only its first start counts (a suspended task resumes again).
    mutating func resumed(at now: ContinuousClock.Instant) {
        if started == nil { started = now }
    }

    mutating func redirected() { redirects += 1 }
    mutating func retried() { retries += 1 }

    /// One exchange's figures: sizes add up over the call, the connection and version are the last exchange's.
    mutating func measured(_ metrics: TransferMetrics) {
        exchangesMeasured += 1
        bytesSent += metrics.bytesSent
        bytesReceived += metrics.bytesReceived
        reusedConnection = metrics.reusedConnection ?? reusedConnection
        httpVersion = metrics.httpVersion ?? httpVersion
    }

    /// The time from the first start to `now`; zero for a task that never started.
    func duration(until now: ContinuousClock.Instant) -> Duration {
        started.map { now - $0 } ?? .zero
    }

    /// Milliseconds with a tenth, e.g. `12.3`, for messages and metadata.
    static func milliseconds(_ duration: Duration) -> String {
        // Saturating: a duration past what an `Int` of tenths of milliseconds holds (about 29 million years) trapped.
        let exact = (Double(duration.components.seconds) * 1e4 + Double(duration.components.attoseconds) / 1e14).rounded()
        let tenths = exact >= 9e18 ? 9_000_000_000_000_000_000 : exact <= -9e18 ? -9_000_000_000_000_000_000 : Int(exact)
        return "\(tenths / 10).\(tenths % 10)"
    }
}
