import CoreMetrics
import CourierCore
import CourierLogging
import CourierMetrics
import CourierTracing
import Logging
import Tracing
import Foundation

/// What `COURIER_BENCH_OBSERVE` adds to the session, to measure what observing costs per request:
/// `logging` (a line per call at info, rendered by a handler as a real one would, then dropped),
/// `logging-unrendered` (the same line built by Courier and handed to a handler that drops it: Courier's
/// share of the cost, without the logging backend's), `tracing`
/// (spans with a no-op tracer, the cost of the instrumentation itself), `metrics` (swift-metrics' no-op
/// factory), `all` (the three), or nothing.
enum Observation: String {
    case none, logging, loggingUnrendered = "logging-unrendered", tracing, metrics, all

    static var fromEnvironment: Observation {
        Observation(rawValue: ProcessInfo.processInfo.environment["COURIER_BENCH_OBSERVE"] ?? "none") ?? .none
    }

    /// The client's name in the results, e.g. `courier+logging`.
    var clientName: String { self == .none ? "courier" : "courier+\(rawValue)" }

    func install(into configuration: inout SessionConfiguration) {
        if self == .loggingUnrendered {
            var logger = Logger(label: "courier-bench", factory: { _ in RenderingLogHandler(renders: false) })
            logger.logLevel = .info
            configuration.addLogging(RequestLogging(logger: logger))
        }
        if self == .logging || self == .all {
            var logger = Logger(label: "courier-bench", factory: { _ in RenderingLogHandler(renders: true) })
            logger.logLevel = .info
            configuration.addLogging(RequestLogging(logger: logger))
        }
        if self == .tracing || self == .all {
            configuration.addTracing(RequestTracing(tracer: NoOpTracer()))
        }
        if self == .metrics || self == .all {
            configuration.addMetrics(RequestMetrics(factory: NOOPMetricsHandler.instance))
        }
    }
}

/// Formats each line the way swift-log's stream handler does (time stamp, level, metadata, message)
/// and throws it away: the cost of a real handler without the cost of a terminal or a file.
struct RenderingLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info
    let renders: Bool

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        guard renders else { return withExtendedLifetime(event) {} }
        var fields = metadata
        if let extra = event.metadata { fields.merge(extra) { $1 } }
        let rendered = fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let line = "\(ContinuousClock.now) \(event.level) courier-bench: \(rendered) [\(event.source)] \(event.message)"
        withExtendedLifetime(line) {}
    }
}
