import Dispatch
import HTTPTypes

/// What a transport and the interceptors know about the task an exchange belongs to, and how
/// they report back to it.
///
/// The reporting methods feed the task's progress values and its ``EventListener``; call them
/// from any thread, in the order things happen.
public final class RequestContext: Sendable {
    /// The task.
    public let task: SessionTask
    /// Running, suspended or cancelled: a transport pauses and aborts by it.
    public var control: TransferControl { task.control }
    /// Time limits for the next exchange: the call's (its ``RequestOptions/timeouts`` or the
    /// session's), with the total limit shortened to what is left of the call's deadline. A
    /// transport reads it when an exchange starts, so a deadline needs nothing more of it.
    public var timeouts: Timeouts {
        guard let deadline else { return configuredTimeouts }
        var timeouts = configuredTimeouts
        // At least a millisecond: a limit of 0 means none to libcurl.
        let left = max(.milliseconds(1), deadline - ContinuousClock.now)
        timeouts.request = timeouts.request.map { min($0, left) } ?? left
        return timeouts
    }
    /// Evaluates the TLS server during the handshake; `nil` means the transport's own
    /// verification against the system's trust store.
    public let trustEvaluator: (any ServerTrustEvaluator)?
    /// The call's options (``RequestOptions/default`` when it gave none): interceptors read its
    /// ``RequestOptions/tags`` here.
    public let options: RequestOptions
    /// When the call's ``RequestOptions/deadline`` passes, if it has one.
    public let deadline: ContinuousClock.Instant?

    private let configuredTimeouts: Timeouts

    init(task: SessionTask, timeouts: Timeouts, trustEvaluator: (any ServerTrustEvaluator)?, options: RequestOptions = .default) {
        self.task = task
        self.configuredTimeouts = options.timeouts ?? timeouts
        self.trustEvaluator = trustEvaluator
        self.options = options
        self.deadline = options.deadline.map { ContinuousClock.now + $0 }
        task.exchangeBegan()
    }

    /// A context for an exchange outside any session, to unit-test an interceptor or a transport:
    /// its ``task`` is a task of its own, running, that belongs to no session (``SessionTask/sessionID``
    /// 0) and reports its events to `listener` (a ``RecordingEventListener`` from CourierTesting shows
    /// what a transport or an interceptor reported).
    ///
    /// - Parameters:
    ///   - request: The request the task is for (its ``SessionTask/originalRequest``).
    ///   - kind: What kind of task it stands for.
    ///   - timeouts: The limits a transport applies.
    ///   - trustEvaluator: The TLS evaluator a transport runs; `nil` for the system's verification.
    ///   - listener: Who hears the task's events while the context lives; nobody by default.
    ///   - options: The call's options (its deadline counts from now).
    public convenience init(
        request: HTTPRequest,
        kind: SessionTask.Kind = .data,
        timeouts: Timeouts = .default,
        trustEvaluator: (any ServerTrustEvaluator)? = nil,
        listener: (any EventListener)? = nil,
        options: RequestOptions = .default
    ) {
        let task = SessionTask(
            kind: kind, request: request, sessionID: 0, listener: listener ?? SilentEventListener(),
            callbackQueue: .global(), registry: nil
        )
        task.makeStandalone()
        self.init(task: task, timeouts: timeouts, trustEvaluator: trustEvaluator, options: options)
    }

    // The task keeps its listeners while a transport can still report through this context (a streamed
    // body's progress and metrics come after the task of `send` completed).
    deinit {
        task.exchangeEnded()
    }

    /// The request head went out (body may still be streaming).
    public func requestSent(_ request: HTTPRequest) {
        task.recordRequestSent(request)
    }

    /// The response head arrived.
    public func responseHeadReceived(_ response: HTTPResponse) {
        task.recordResponseHead(response, contentLength: response.headerFields.contentLength)
    }

    /// The response head arrived, for a transport that has read its `Content-Length` already (finding the field
    /// again cost CourierCurl a walk of the head per call).
    package func responseHeadReceived(_ response: HTTPResponse, contentLength: Int64?) {
        task.recordResponseHead(response, contentLength: contentLength)
    }

    /// Request body bytes were really sent.
    public func uploadProgress(_ progress: TransferProgress) {
        task.recordUploadProgress(progress)
    }

    /// Response body bytes were really received.
    public func downloadProgress(_ progress: TransferProgress) {
        task.recordDownloadProgress(progress)
    }

    /// The exchange was measured.
    public func metricsCollected(_ metrics: TransferMetrics) {
        task.recordMetrics(metrics)
    }

    func redirecting(from response: HTTPResponse, to request: HTTPRequest) {
        task.recordRedirect(from: response, to: request)
    }

    func retrying(attempt: Int, delay: Duration) {
        task.listener.retrying(task, attempt: attempt, delay: delay)
    }
}
