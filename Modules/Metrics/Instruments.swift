import CoreMetrics
import CourierCore
import HTTPTypes

/// The metric objects of one configuration, made once per set of dimensions and kept: a call looks
/// them up instead of asking the factory again (a factory may allocate and register on every make).
final class Instruments: Sendable {
    static let requests = "http.client.requests"
    static let duration = "http.client.request.duration"
    static let requestBodySize = "http.client.request.body.size"
    static let responseBodySize = "http.client.response.body.size"
    static let activeRequests = "http.client.active_requests"

    /// The instruments of one outcome.
    struct Outcome: Sendable {
        let requests: Counter
        let duration: Timer
        let requestBodySize: Recorder
        let responseBodySize: Recorder
    }

    /// What a call is sent to: the dimensions of its in-flight meter, and the first three of every other.
    struct Target: Hashable, Sendable {
        let method: String
        let scheme: String
        let host: String

        var dimensions: [(String, String)] {
            [("http.request.method", method), ("url.scheme", scheme), ("server.address", host)]
        }
    }

    /// A target and how its call ended.
    private struct OutcomeKey: Hashable {
        let target: Target
        let statusClass: String
        let errorType: String?
    }

    private let factory: any MetricsFactory
    private let maximumHosts: Int
    private struct Tables {
        var hosts: Set<String> = []
        var outcomes: [OutcomeKey: Outcome] = [:]
        var active: [Target: Meter] = [:]
    }
    private let tables = Locked(Tables())

    init(factory: any MetricsFactory, maximumHosts: Int) {
        self.factory = factory
        self.maximumHosts = maximumHosts
    }

    /// The call's target: method, scheme and host (bounded).
    func target(of request: HTTPRequest) -> Target {
        let scheme = request.scheme ?? "http"
        let host = AuthorityParts(request.authority ?? "").map { String($0.host).lowercased() } ?? ""
        let knownHost = tables.withLock { tables -> String in
            if tables.hosts.contains(host) { return host }
            guard tables.hosts.count < maximumHosts else { return "_OTHER" }
            tables.hosts.insert(host)
            return host
        }
        return Target(method: TelemetryNames.method(request), scheme: scheme, host: knownHost)
    }

    func active(_ target: Target) -> Meter {
        tables.withLock { tables in
            if let meter = tables.active[target] { return meter }
            let meter = Meter(label: Self.activeRequests, dimensions: target.dimensions, factory: factory)
            tables.active[target] = meter
            return meter
        }
    }

    func outcome(_ target: Target, statusClass: String, errorType: String?) -> Outcome {
        let key = OutcomeKey(target: target, statusClass: statusClass, errorType: errorType)
        return tables.withLock { tables in
            if let outcome = tables.outcomes[key] { return outcome }
            var dimensions = target.dimensions
            dimensions.append(("http.response.status_class", statusClass))
            if let errorType { dimensions.append(("error.type", errorType)) }
            let outcome = Outcome(
                requests: Counter(label: Self.requests, dimensions: dimensions, factory: factory),
                duration: Timer(label: Self.duration, dimensions: dimensions, preferredDisplayUnit: .seconds, factory: factory),
                requestBodySize: Recorder(label: Self.requestBodySize, dimensions: dimensions, aggregate: true, factory: factory),
                responseBodySize: Recorder(label: Self.responseBodySize, dimensions: dimensions, aggregate: true, factory: factory)
            )
            tables.outcomes[key] = outcome
            return outcome
        }
    }

    /// `2xx` for 200…299 and so on; `none` when there was no answer.
    static func statusClass(_ status: Int?) -> String {
        guard let status, (100...599).contains(status) else { return "none" }
        return "\(status / 100)xx"
    }
}
