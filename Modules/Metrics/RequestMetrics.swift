public import CoreMetrics
import CourierCore
import HTTPTypes

/// Measures a session's calls with swift-metrics, named after OpenTelemetry's HTTP client metrics:
///
/// | metric | kind | what |
/// |---|---|---|
/// | `http.client.requests` | counter | calls ended |
/// | `http.client.request.duration` | timer | from a call's start to its end (for `data(for:)`, the body read) |
/// | `http.client.request.body.size` | recorder | bytes of request body sent, over the call's exchanges |
/// | `http.client.response.body.size` | recorder | bytes of response body received (decoded) |
/// | `http.client.active_requests` | meter | calls started and not yet ended |
///
/// Dimensions: `http.request.method` (a method OpenTelemetry does not name becomes `_OTHER`),
/// `url.scheme`, `server.address`, and, on the first four, `http.response.status_class` (`2xx`…`5xx`, or
/// `none` when the call failed without an answer) and `error.type` for a failed call. Their cardinality
/// is bounded: the first ``maximumHosts`` hosts keep their names and later ones share `_OTHER`.
///
/// Install it with one line, ``CourierCore/SessionConfiguration/addMetrics(_:)``:
///
/// ```swift
/// var configuration = SessionConfiguration()
/// configuration.addMetrics(RequestMetrics())   // the factory bootstrapped in MetricsSystem
/// ```
public struct RequestMetrics: Sendable {
    /// Where metrics go; `nil` uses `MetricsSystem.factory` (read when the session is configured).
    public var factory: (any MetricsFactory)?
    /// How many distinct `server.address` values are kept before later hosts become `_OTHER`.
    public var maximumHosts: Int

    /// Metrics to `factory` (the bootstrapped one by default), with at most `maximumHosts` host names.
    public init(factory: (any MetricsFactory)? = nil, maximumHosts: Int = 32) {
        self.factory = factory
        self.maximumHosts = max(0, maximumHosts)
    }
}

extension SessionConfiguration {
    /// Measures every call of the session as `metrics` says (a listener per task, all sharing one set
    /// of instruments). Keeps the listeners already configured.
    public mutating func addMetrics(_ metrics: RequestMetrics) {
        let instruments = Instruments(factory: metrics.factory ?? MetricsSystem.factory, maximumHosts: metrics.maximumHosts)
        addEventListenerFactory { request in MetricsEventListener(instruments: instruments, request: request) }
    }
}
