/// How an ``EventSource`` reconnects and what it accepts.
///
/// ```swift
/// var configuration = EventSourceConfiguration()
/// configuration.reconnectionTime = .seconds(1)        // until the server sends `retry:`
/// configuration.maximumConsecutiveFailures = nil       // reconnect for as long as the caller iterates
/// for try await event in session.events("feed", configuration: configuration) { … }
/// ```
public struct EventSourceConfiguration: Sendable, Hashable {
    /// The wait before reconnecting, until the server sets its own with `retry:` (3 s, as browsers
    /// wait).
    public var reconnectionTime: Duration
    /// How many connections in a row may fail (a refused connection, a transfer cut, a stream that
    /// ended) without delivering an event before the sequence gives up with
    /// ``StreamError/Code/tooManyFailures``; `nil` reconnects for ever. Any event delivered starts the
    /// count again.
    public var maximumConsecutiveFailures: Int?
    /// The longest line accepted, in bytes.
    public var maximumLineLength: Int
    /// The most data one event may hold, in bytes.
    public var maximumEventSize: Int

    /// A configuration: 3 s between connections, giving up after 5 failures in a row, lines and
    /// events up to 1 MiB.
    public init(
        reconnectionTime: Duration = .seconds(3),
        maximumConsecutiveFailures: Int? = 5,
        maximumLineLength: Int = LineSequence.defaultMaximumLength,
        maximumEventSize: Int = LineSequence.defaultMaximumLength
    ) {
        self.reconnectionTime = reconnectionTime
        self.maximumConsecutiveFailures = maximumConsecutiveFailures
        self.maximumLineLength = maximumLineLength
        self.maximumEventSize = maximumEventSize
    }
}
