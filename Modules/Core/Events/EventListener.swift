import FoundationEssentials
import HTTPTypes

/// Observes the lifecycle of every task a session runs: what AFNetworking learned by swizzling
/// `resume` and `suspend`, and more.
///
/// Every method does nothing by default; implement the ones you need. For one task, events nest
/// like this (brackets repeat per redirect hop or retry):
///
/// ```text
/// taskCreated
/// taskResumed ─┬─ [requestSent → uploadProgress* → responseHeadReceived → downloadProgress*
///              │    → metricsCollected → (redirecting | retrying)]
///              ├─ taskSuspended / taskResumed (any number, in pairs)
///              ├─ taskCancelled (at most once)
///              └─ taskCompleted | taskFailed (exactly once, last)
/// ```
/// A task cancelled before it was resumed reports `taskCreated`, `taskCancelled`, `taskFailed`.
/// A download reports `downloadMoved` before `taskCompleted`.
///
/// ## Rules for implementers (as okhttp's)
/// - Be fast: events are delivered synchronously on the thread where they happen, possibly the
///   transport's I/O thread.
/// - Do not throw, block, or call back into the session; hop to your own queue for slow work.
/// - Listeners compose in order with `+`; ``SessionConfiguration/eventListenerFactory`` gives one per task.
///
/// ```swift
/// struct Timer: EventListener {
///     func taskCompleted(_ task: SessionTask, response: HTTPResponse) {
///         print(task.id, response.status, task.metrics?.total ?? .zero)
///     }
/// }
/// ```
public protocol EventListener: Sendable {
    /// The task exists (state `.suspended`).
    func taskCreated(_ task: SessionTask)
    /// The task started or continued running (only when it was not running).
    func taskResumed(_ task: SessionTask)
    /// The task was suspended (only when it was running).
    func taskSuspended(_ task: SessionTask)
    /// `cancel()` was called, or the awaiting Swift task was cancelled, or the session was invalidated.
    func taskCancelled(_ task: SessionTask)
    /// A request head went to the transport: once per exchange, redirects and retries included.
    func requestSent(_ task: SessionTask, request: HTTPRequest)
    /// A response head arrived: once per exchange.
    func responseHeadReceived(_ task: SessionTask, response: HTTPResponse)
    /// Request body bytes were sent.
    func uploadProgress(_ task: SessionTask, progress: TransferProgress)
    /// Response body bytes were received.
    func downloadProgress(_ task: SessionTask, progress: TransferProgress)
    /// The transport measured an exchange.
    func metricsCollected(_ task: SessionTask, metrics: TransferMetrics)
    /// The redirect stage is following `response` to `request`.
    func redirecting(_ task: SessionTask, response: HTTPResponse, to request: HTTPRequest)
    /// The retry stage is sending the request again: `attempt` is the number of the next try.
    func retrying(_ task: SessionTask, attempt: Int, delay: Duration)
    /// A download's file reached its destination.
    func downloadMoved(_ task: SessionTask, to fileURL: URL)
    /// The task finished with a response (whatever its status).
    func taskCompleted(_ task: SessionTask, response: HTTPResponse)
    /// The task failed; cancellation ends here too, with ``CourierError/isCancellation``.
    func taskFailed(_ task: SessionTask, error: CourierError)
}

extension EventListener {
    public func taskCreated(_ task: SessionTask) {}
    public func taskResumed(_ task: SessionTask) {}
    public func taskSuspended(_ task: SessionTask) {}
    public func taskCancelled(_ task: SessionTask) {}
    public func requestSent(_ task: SessionTask, request: HTTPRequest) {}
    public func responseHeadReceived(_ task: SessionTask, response: HTTPResponse) {}
    public func uploadProgress(_ task: SessionTask, progress: TransferProgress) {}
    public func downloadProgress(_ task: SessionTask, progress: TransferProgress) {}
    public func metricsCollected(_ task: SessionTask, metrics: TransferMetrics) {}
    public func redirecting(_ task: SessionTask, response: HTTPResponse, to request: HTTPRequest) {}
    public func retrying(_ task: SessionTask, attempt: Int, delay: Duration) {}
    public func downloadMoved(_ task: SessionTask, to fileURL: URL) {}
    public func taskCompleted(_ task: SessionTask, response: HTTPResponse) {}
    public func taskFailed(_ task: SessionTask, error: CourierError) {}
}
