import CourierCore
import HTTPTypes
import Logging
import Synchronization

/// Writes the lines of one call (``RequestLogging`` says which): heads at `debug` as they cross the
/// wire, and one line when the call ends. A session makes one per task.
final class LoggingEventListener: EventListener {
    private let logging: RequestLogging
    private let redaction: Redaction
    private let record = Mutex(CallRecord())

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
            metadata: metadata(task, ["http.request.header": .array(redaction.fields(request.headerFields).map { .string($0) })])
        )
    }

    func responseHeadReceived(_ task: SessionTask, response: HTTPResponse) {
        guard logger.logLevel <= .debug else { return }
        logger.debug(
            "\(response.status.code) \(response.status.reasonPhrase)",
            metadata: metadata(task, ["http.response.header": .array(redaction.fields(response.headerFields).map { .string($0) })])
        )
    }

    func metricsCollected(_ task: SessionTask, metrics: TransferMetrics) {
        record.withLock { $0.measured(metrics) }
    }

    func redirecting(_ task: SessionTask, response: HTTPResponse, to request: HTTPRequest) {
        record.withLock { $0.redirected() }
        logger.debug("redirect \(response.status.code) to \(redaction.url(of: request))", metadata: metadata(task))
    }

    func retrying(_ task: SessionTask, attempt: Int, delay: Duration) {
        record.withLock { $0.retried() }
        logger.debug("retry \(attempt) in \(CallRecord.milliseconds(delay)) ms", metadata: metadata(task))
    }

    func taskCompleted(_ task: SessionTask, response: HTTPResponse) {
        let level = logging.summaryLevel
        guard logger.logLevel <= level else { return }
        let record = record.withLock { $0 }
        let duration = record.duration(until: .now)
        var fields = summary(task, record, duration: duration)
        fields["http.response.status_code"] = "\(response.status.code)"
        logger.log(
            level: level,
            "\(task.originalRequest.method) \(redaction.url(of: task.originalRequest)) \(response.status.code) in \(CallRecord.milliseconds(duration)) ms",
            metadata: fields
        )
    }

    func taskFailed(_ task: SessionTask, error: CourierError) {
        // A cancelled call is the caller's choice, not a fault: it stays at the summary level.
        let level: Logger.Level = error.isCancellation ? logging.summaryLevel : error.response == nil ? .error : .warning
        guard logger.logLevel <= level else { return }
        let record = record.withLock { $0 }
        let duration = record.duration(until: .now)
        var fields = summary(task, record, duration: duration)
        fields["error.type"] = "\(String(error.kind.description.map { $0 == " " ? "_" : $0 }))"
        fields["courier.error.stage"] = "\(error.stage)"
        if let status = error.response?.status.code { fields["http.response.status_code"] = "\(status)" }
        let outcome = error.isCancellation ? "cancelled" : "failed at \(error.stage): \(error.kind)"
        logger.log(
            level: level,
            "\(task.originalRequest.method) \(redaction.url(of: task.originalRequest)) \(outcome) after \(CallRecord.milliseconds(duration)) ms",
            error: error,
            metadata: fields
        )
    }

    private func summary(_ task: SessionTask, _ record: CallRecord, duration: Duration) -> Logger.Metadata {
        var fields = metadata(task, [
            "http.request.method": "\(task.originalRequest.method)",
            "url.full": "\(redaction.url(of: task.originalRequest))",
            "courier.duration_ms": "\(CallRecord.milliseconds(duration))",
            "courier.redirects": "\(record.redirects)",
            "courier.retries": "\(record.retries)",
        ])
        if record.exchangesMeasured > 0 {
            fields["http.request.body.size"] = "\(record.bytesSent)"
            fields["http.response.body.size"] = "\(record.bytesReceived)"
        }
        if let reused = record.reusedConnection { fields["courier.connection_reused"] = "\(reused)" }
        if let version = record.httpVersion { fields["network.protocol.version"] = "\(version)" }
        return fields
    }

    private func metadata(_ task: SessionTask, _ extra: Logger.Metadata = [:]) -> Logger.Metadata {
        var fields = extra
        fields["courier.request_id"] = "\(RequestID(task))"
        return fields
    }
}
