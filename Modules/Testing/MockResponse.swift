import CourierCore
import FoundationEssentials
import HTTPTypes

/// What a ``MockTransport`` answers: a head, a body delivered as scripted, an optional delay
/// before the head, or a failure.
///
/// ```swift
/// MockResponse.json(#"{"ok":true}"#)
/// MockResponse.redirect(.found, to: "/elsewhere")
/// MockResponse.text("slow", delay: .seconds(2))
/// MockResponse.chunks(Array(repeating: Data(count: 1024), count: 8), interval: .milliseconds(50))
/// MockResponse.failure(TransportError(.connectionLost, message: "reset by peer"))
/// ```
public struct MockResponse: Sendable {
    /// How the body is delivered.
    public enum BodyScript: Sendable {
        /// All at once.
        case bytes(Data)
        /// Piece by piece, `interval` apart, reporting download progress after each.
        case chunks([Data], interval: Duration)
    }

    /// The status.
    public var status: HTTPResponse.Status
    /// The header fields. `Content-Length` is added to a `.bytes` body unless present; a
    /// `.chunks` body arrives like chunked transfer encoding, without one unless you add it.
    public var headerFields: HTTPFields
    /// The body.
    public var body: BodyScript
    /// Time before the head (and the failure) arrives; a longer one than the request timeout
    /// fails with ``TransportError/Code/timedOut`` at the timeout.
    public var delay: Duration
    /// Thrown after `delay` instead of answering.
    public var failure: (any Error)?
    /// Thrown after the body's chunks, as a connection dropped mid-body would.
    public var bodyFailure: (any Error)?
    /// Reported when the body ends; a plausible default is made when `nil`.
    public var metrics: TransferMetrics?

    /// A response.
    public init(
        status: HTTPResponse.Status = .ok,
        headerFields: HTTPFields = [:],
        body: BodyScript = .bytes(Data()),
        delay: Duration = .zero,
        failure: (any Error)? = nil,
        bodyFailure: (any Error)? = nil,
        metrics: TransferMetrics? = nil
    ) {
        self.status = status
        self.headerFields = headerFields
        self.body = body
        self.delay = delay
        self.failure = failure
        self.bodyFailure = bodyFailure
        self.metrics = metrics
    }

    /// A `text/plain` response.
    public static func text(_ text: String, status: HTTPResponse.Status = .ok, delay: Duration = .zero) -> MockResponse {
        MockResponse(status: status, headerFields: [.contentType: "text/plain; charset=utf-8"], body: .bytes(Data(text.utf8)), delay: delay)
    }

    /// An `application/json` response.
    public static func json(_ json: String, status: HTTPResponse.Status = .ok, delay: Duration = .zero) -> MockResponse {
        MockResponse(status: status, headerFields: [.contentType: "application/json"], body: .bytes(Data(json.utf8)), delay: delay)
    }

    /// A response with this status and no body.
    public static func status(_ status: HTTPResponse.Status, headerFields: HTTPFields = [:]) -> MockResponse {
        MockResponse(status: status, headerFields: headerFields)
    }

    /// A redirect to `location` (absolute or relative).
    public static func redirect(_ status: HTTPResponse.Status = .found, to location: String) -> MockResponse {
        MockResponse(status: status, headerFields: [.location: location])
    }

    /// A body sent in pieces, `interval` apart.
    public static func chunks(_ chunks: [Data], interval: Duration = .zero, status: HTTPResponse.Status = .ok) -> MockResponse {
        MockResponse(status: status, headerFields: [.contentType: "application/octet-stream"], body: .chunks(chunks, interval: interval))
    }

    /// A failure after `delay`.
    public static func failure(_ error: any Error, after delay: Duration = .zero) -> MockResponse {
        MockResponse(delay: delay, failure: error)
    }

    var chunks: [Data] {
        switch body {
        case .bytes(let data): return data.isEmpty ? [] : [data]
        case .chunks(let chunks, _): return chunks
        }
    }

    var interval: Duration {
        if case .chunks(_, let interval) = body { return interval }
        return .zero
    }
}

/// A request as a ``MockTransport`` received it, body read.
public struct MockRequest: Sendable {
    /// The head.
    public var head: HTTPRequest
    /// The body bytes, or `nil` when the request had no body.
    public var body: Data?

    /// The method.
    public var method: HTTPRequest.Method { head.method }
    /// The path with its query, e.g. `/get?a=1`.
    public var path: String { head.path ?? "" }
    /// The path without its query.
    public var pathWithoutQuery: String { String(path.prefix { $0 != "?" }) }
    /// The query, without `?`, or `nil`.
    public var query: String? {
        guard let mark = path.firstIndex(of: "?") else { return nil }
        return String(path[path.index(after: mark)...])
    }
    /// The full URL.
    public var url: URL? { head.url }
    /// The body as UTF-8 text.
    public var text: String? { body.map { String(decoding: $0, as: UTF8.self) } }
}
