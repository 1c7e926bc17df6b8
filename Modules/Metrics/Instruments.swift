import CoreMetrics
import CourierCore
import HTTPTypes
import Synchronization

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

    private let factory: any MetricsFactory
    private let maximumHosts: Int
    private struct Tables {
        var hosts: Set<String> = []
        var outcomes: [[String]: Outcome] = [:]
        var active: [[String]: Meter] = [:]
    }
    private let tables = Mutex(Tables())

    init(factory: any MetricsFactory, maximumHosts: Int) {
        self.factory = factory
        self.maximumHosts = maximumHosts
    }

    /// The call's target dimensions: method, scheme and host (bounded).
    func target(of request: HTTPRequest) -> [(String, String)] {
        let scheme = request.scheme ?? "http"
        let host = AuthorityParts(request.authority ?? "").map { String($0.host).lowercased() } ?? ""
        let knownHost = tables.withLock { tables -> String in
            if tables.hosts.contains(host) { return host }
            guard tables.hosts.count < maximumHosts else { return "_OTHER" }
            tables.hosts.insert(host)
            return host
        }
        return [("http.request.method", Self.method(request)), ("url.scheme", scheme), ("server.address", knownHost)]
    }

    func active(_ target: [(String, String)]) -> Meter {
        let key = target.map { "\($0.0)=\($0.1)" }
        return tables.withLock { tables in
            if let meter = tables.active[key] { return meter }
            let meter = Meter(label: Self.activeRequests, dimensions: target, factory: factory)
            tables.active[key] = meter
            return meter
        }
    }

    func outcome(_ dimensions: [(String, String)]) -> Outcome {
        let key = dimensions.map { "\($0.0)=\($0.1)" }
        return tables.withLock { tables in
            if let outcome = tables.outcomes[key] { return outcome }
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

    static let knownMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH", "QUERY"]

    static func method(_ request: HTTPRequest) -> String {
        knownMethods.contains(request.method.rawValue) ? request.method.rawValue : "_OTHER"
    }

    /// `2xx` for 200…299 and so on; `none` when there was no answer.
    static func statusClass(_ status: Int?) -> String {
        guard let status, (100...599).contains(status) else { return "none" }
        return "\(status / 100)xx"
    }
}
