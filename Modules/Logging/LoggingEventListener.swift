import CourierCore
import HTTPTypes
import Logging

/// Writes the lines of one call (``RequestLogging`` says which): heads at `debug` as they cross the
/// wire, and one line when the call ends. A session makes one per task.
final class LoggingEventListener: EventListener {
    private let logging: RequestLogging
    private let redaction: Redaction
    private let record = Locked(CallRecord())
    /// Given, so swift-log does not derive it from the file's id on every line (a string split per line).
    static let source = "CourierLogging"

    init(logging: RequestLogging) {
        self.logging = logging
        self.redaction = logging.redaction
    }

    private var logger: Logger { logging.logger }

    func taskResumed(_ task: SessionTask) {
        record.withLock { $0.resumed(at: .now) }
    }

    func requestSent(_ task: SessionTask, request: HTTPRequest) {
        guard logger.logLevel <= .debug else { return }
        logger.debug(
            "\(request.method) \(redaction.url(of: request))",
            metadata: metadata(task, ["http.request.header": .array(redaction.fields(request.headerFields).map { .string($0) })]),
            source: Self.source
        )
    }

    func responseHeadReceived(_ task: SessionTask, response: HTTPResponse) {
        guard logger.logLevel <= .debug else { return }
        logger.debug(
            "\(response.status.code) \(LogText.escaped(response.status.reasonPhrase))",
            metadata: metadata(task, ["http.response.header": .array(redaction.fields(response.headerFields).map { .string($0) })]),
            source: Self.source
        )
    }

    func metricsCollected(_ task: SessionTask, metrics: TransferMetrics) {
        record.withLock { $0.measured(metrics) }
    }

    func redirecting(_ task: SessionTask, response: HTTPResponse, to request: HTTPRequest) {
        record.withLock { $0.redirected() }
        logger.debug("redirect \(response.status.code) to \(redaction.url(of: request))", metadata: metadata(task), source: Self.source)
    }

    func retrying(_ task: SessionTask, attempt: Int, delay: Duration) {
        record.withLock { $0.retried() }
        logger.debug("retry \(attempt) in \(CallRecord.milliseconds(delay)) ms", metadata: metadata(task), source: Self.source)
    }

    func taskCompleted(_ task: SessionTask, response: HTTPResponse) {
        let level = logging.summaryLevel
        guard logger.logLevel <= level else { return }
        let summary = Summary(task, record.withLock { $0 }, redaction: redaction, status: response.status.code)
        logger.log(level: level, "\(summary.opening) \(response.status.code) in \(summary.milliseconds) ms", metadata: summary.metadata, source: Self.source)
    }

    func taskFailed(_ task: SessionTask, error: CourierError) {
        // A cancelled call is the caller's choice, not a fault: it stays at the summary level.
        let level: Logger.Level = error.isCancellation ? logging.summaryLevel : error.response == nil ? .error : .warning
        guard logger.logLevel <= level else { return }
        var summary = Summary(task, record.withLock { $0 }, redaction: redaction, status: error.response?.status.code, extra: 2)
        summary.metadata["error.type"] = "\(TelemetryNames.errorType(error.kind))"
        summary.metadata["courier.error.stage"] = "\(error.stage)"
        let outcome = error.isCancellation ? "cancelled" : "failed at \(error.stage): \(error.kind)"
        logger.log(level: level, "\(summary.opening) \(outcome) after \(summary.milliseconds) ms", error: error, metadata: summary.metadata, source: Self.source)
    }

    /// What the line that ends a call says, built once: the URL and the duration serve the message and the
    /// metadata both. Numbers go in as numbers (`stringConvertible`), so a handler that does not print them
    /// costs no string for each; the dictionary is made large enough at once.
    private struct Summary {
        let opening: String
        let milliseconds: String
        var metadata: Logger.Metadata

        init(_ task: SessionTask, _ record: CallRecord, redaction: Redaction, status: Int?, extra: Int = 0) {
            let request = task.originalRequest
            let url = redaction.url(of: request)
            milliseconds = CallRecord.milliseconds(record.duration(until: .now))
            opening = "\(request.method) \(url)"
            var fields = Logger.Metadata(minimumCapacity: 11 + extra)
            fields["courier.request_id"] = .stringConvertible(RequestID(task))
            fields["http.request.method"] = .stringConvertible(request.method)
            fields["url.full"] = .string(url)
            fields["courier.duration_ms"] = .string(milliseconds)
            fields["courier.redirects"] = .stringConvertible(record.redirects)
            fields["courier.retries"] = .stringConvertible(record.retries)
            if let status { fields["http.response.status_code"] = .stringConvertible(status) }
            if record.exchangesMeasured > 0 {
                fields["http.request.body.size"] = .stringConvertible(record.bytesSent)
                fields["http.response.body.size"] = .stringConvertible(record.bytesReceived)
            }
            if let reused = record.reusedConnection { fields["courier.connection_reused"] = .stringConvertible(reused) }
            if let version = record.httpVersion { fields["network.protocol.version"] = .string(version) }
            metadata = fields
        }
    }

    private func metadata(_ task: SessionTask, _ extra: Logger.Metadata = [:]) -> Logger.Metadata {
        var fields = extra
        fields["courier.request_id"] = .stringConvertible(RequestID(task))
        return fields
    }
}
