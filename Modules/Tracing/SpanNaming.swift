import CourierCore
import HTTPTypes
import Synchronization
import Tracing

/// OpenTelemetry's HTTP client conventions (semantic conventions 1.2x, "HTTP spans"): span name and
/// attributes from a request, a response and an error.
enum SpanNaming {
    static func method(_ request: HTTPRequest) -> String { TelemetryNames.method(request) }

    static func name(of request: HTTPRequest) -> String { method(request) == "_OTHER" ? "HTTP" : method(request) }

    static func requestAttributes(_ request: HTTPRequest, recordsQueryValues: Bool) -> SpanAttributes {
        var attributes: SpanAttributes = [:]
        attributes["http.request.method"] = method(request)
        if method(request) == "_OTHER" { attributes["http.request.method_original"] = request.method.rawValue }
        let scheme = request.scheme ?? "http"
        attributes["url.scheme"] = scheme
        let parts = AuthorityParts(request.authority ?? "")
        let host = parts.map { String($0.host) } ?? ""
        let port = parts?.portNumber
        attributes["server.address"] = host
        attributes["server.port"] = port ?? (scheme == "https" ? 443 : 80)
        attributes["url.full"] = TelemetryNames.url(of: request, keepsQueryValues: recordsQueryValues)
        return attributes
    }

    static func record(_ response: Response, on span: any Span) {
        let status = response.head.status.code
        span.attributes["http.response.status_code"] = status
        if let version = response.metrics?.httpVersion {
            // "HTTP/1.1" → "1.1", "HTTP/2" → "2", as the convention spells it.
            span.attributes["network.protocol.version"] = version.hasPrefix("HTTP/") ? String(version.dropFirst(5)) : version
        }
        if status >= 400 {
            span.attributes["error.type"] = "\(status)"
            span.setStatus(SpanStatus(code: .error))
        }
    }

    static func record(_ error: any Error, on span: any Span) {
        span.recordError(error)
        let type: String
        if let courier = error as? CourierError {
            type = TelemetryNames.errorType(courier.kind)
            if let status = courier.response?.status.code { span.attributes["http.response.status_code"] = status }
        } else {
            type = String(describing: Swift.type(of: error))
        }
        span.attributes["error.type"] = type
        span.setStatus(SpanStatus(code: .error, message: "\(type)"))
    }
}

/// Counts the exchanges of one call: the call's span puts one in its context, each exchange takes a number.
final class ExchangeCounter: Sendable {
    private let count = Atomic<Int>(0)

    /// The exchange's number: 0 for the first, then 1, 2… (`http.request.resend_count`).
    func next() -> Int { count.add(1, ordering: .relaxed).oldValue }
}

enum ExchangeCounterKey: ServiceContextKey {
    typealias Value = ExchangeCounter
    static var nameOverride: String? { "courier.exchange-counter" }
}
