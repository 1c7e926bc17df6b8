import FoundationEssentials
import HTTPTypes

/// Listeners called one after another, in the order given: what `a + b` builds.
public struct CompositeEventListener: EventListener {
    /// The listeners, in call order.
    public let listeners: [any EventListener]

    /// A composite of `listeners`; nested composites are flattened.
    public init(_ listeners: [any EventListener]) {
        self.listeners = listeners.flatMap { listener -> [any EventListener] in
            (listener as? CompositeEventListener)?.listeners ?? [listener]
        }
    }

    public func taskCreated(_ task: SessionTask) { for l in listeners { l.taskCreated(task) } }
    public func taskResumed(_ task: SessionTask) { for l in listeners { l.taskResumed(task) } }
    public func taskSuspended(_ task: SessionTask) { for l in listeners { l.taskSuspended(task) } }
    public func taskCancelled(_ task: SessionTask) { for l in listeners { l.taskCancelled(task) } }
    public func requestSent(_ task: SessionTask, request: HTTPRequest) {
        for l in listeners { l.requestSent(task, request: request) }
    }
    public func responseHeadReceived(_ task: SessionTask, response: HTTPResponse) {
        for l in listeners { l.responseHeadReceived(task, response: response) }
    }
    public func uploadProgress(_ task: SessionTask, progress: TransferProgress) {
        for l in listeners { l.uploadProgress(task, progress: progress) }
    }
    public func downloadProgress(_ task: SessionTask, progress: TransferProgress) {
        for l in listeners { l.downloadProgress(task, progress: progress) }
    }
    public func metricsCollected(_ task: SessionTask, metrics: TransferMetrics) {
        for l in listeners { l.metricsCollected(task, metrics: metrics) }
    }
    public func redirecting(_ task: SessionTask, response: HTTPResponse, to request: HTTPRequest) {
        for l in listeners { l.redirecting(task, response: response, to: request) }
    }
    public func retrying(_ task: SessionTask, attempt: Int, delay: Duration) {
        for l in listeners { l.retrying(task, attempt: attempt, delay: delay) }
    }
    public func downloadMoved(_ task: SessionTask, to fileURL: URL) {
        for l in listeners { l.downloadMoved(task, to: fileURL) }
    }
    public func taskCompleted(_ task: SessionTask, response: HTTPResponse) {
        for l in listeners { l.taskCompleted(task, response: response) }
    }
    public func taskFailed(_ task: SessionTask, error: CourierError) {
        for l in listeners { l.taskFailed(task, error: error) }
    }
}

/// Composes two listeners: `a` hears each event before `b`.
public func + (lhs: any EventListener, rhs: any EventListener) -> CompositeEventListener {
    CompositeEventListener([lhs, rhs])
}

/// A listener that hears nothing: the session's default.
struct SilentEventListener: EventListener {}
