import FoundationEssentials
import HTTPTypes

/// One lifecycle event as a value: what ``EventStream`` delivers and `CourierTesting`'s
/// recorder keeps. ``Kind`` is a struct, so new kinds never break a `switch`.
public struct TaskEvent: Sendable {
    /// Which event.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// The event's name, matching the ``EventListener`` method, e.g. `taskResumed`.
        public let name: String
        init(_ name: String) { self.name = name }

        public static let taskCreated = Kind("taskCreated")
        public static let taskResumed = Kind("taskResumed")
        public static let taskSuspended = Kind("taskSuspended")
        public static let taskCancelled = Kind("taskCancelled")
        public static let requestSent = Kind("requestSent")
        public static let responseHeadReceived = Kind("responseHeadReceived")
        public static let uploadProgress = Kind("uploadProgress")
        public static let downloadProgress = Kind("downloadProgress")
        public static let metricsCollected = Kind("metricsCollected")
        public static let redirecting = Kind("redirecting")
        public static let retrying = Kind("retrying")
        public static let downloadMoved = Kind("downloadMoved")
        public static let taskCompleted = Kind("taskCompleted")
        public static let taskFailed = Kind("taskFailed")

        /// The name.
        public var description: String { name }
    }

    /// Which event.
    public var kind: Kind
    /// The task it concerns.
    public var task: SessionTask
    /// The request, for `requestSent` and `redirecting` (the next hop).
    public var request: HTTPRequest?
    /// The response head, for `responseHeadReceived`, `redirecting` and `taskCompleted`.
    public var response: HTTPResponse?
    /// Progress, for `uploadProgress` and `downloadProgress`.
    public var progress: TransferProgress?
    /// Metrics, for `metricsCollected`.
    public var metrics: TransferMetrics?
    /// The error, for `taskFailed`.
    public var error: CourierError?
    /// The next try's number and its delay, for `retrying`.
    public var retry: (attempt: Int, delay: Duration)?
    /// The destination, for `downloadMoved`.
    public var fileURL: URL?

    /// An event of `kind` about `task`.
    public init(kind: Kind, task: SessionTask) {
        self.kind = kind
        self.task = task
    }
}

/// An ``EventListener`` that turns every call into a ``TaskEvent`` and hands it to a closure:
/// the base of ``EventStream`` and of recorders.
public struct EventForwarder: EventListener {
    let deliver: @Sendable (TaskEvent) -> Void

    /// A listener calling `deliver` with each event, synchronously.
    public init(_ deliver: @escaping @Sendable (TaskEvent) -> Void) {
        self.deliver = deliver
    }

    private func send(_ kind: TaskEvent.Kind, _ task: SessionTask, _ fill: (inout TaskEvent) -> Void = { _ in }) {
        var event = TaskEvent(kind: kind, task: task)
        fill(&event)
        deliver(event)
    }

    public func taskCreated(_ task: SessionTask) { send(.taskCreated, task) }
    public func taskResumed(_ task: SessionTask) { send(.taskResumed, task) }
    public func taskSuspended(_ task: SessionTask) { send(.taskSuspended, task) }
    public func taskCancelled(_ task: SessionTask) { send(.taskCancelled, task) }
    public func requestSent(_ task: SessionTask, request: HTTPRequest) {
        send(.requestSent, task) { $0.request = request }
    }
    public func responseHeadReceived(_ task: SessionTask, response: HTTPResponse) {
        send(.responseHeadReceived, task) { $0.response = response }
    }
    public func uploadProgress(_ task: SessionTask, progress: TransferProgress) {
        send(.uploadProgress, task) { $0.progress = progress }
    }
    public func downloadProgress(_ task: SessionTask, progress: TransferProgress) {
        send(.downloadProgress, task) { $0.progress = progress }
    }
    public func metricsCollected(_ task: SessionTask, metrics: TransferMetrics) {
        send(.metricsCollected, task) { $0.metrics = metrics }
    }
    public func redirecting(_ task: SessionTask, response: HTTPResponse, to request: HTTPRequest) {
        send(.redirecting, task) { $0.response = response; $0.request = request }
    }
    public func retrying(_ task: SessionTask, attempt: Int, delay: Duration) {
        send(.retrying, task) { $0.retry = (attempt, delay) }
    }
    public func downloadMoved(_ task: SessionTask, to fileURL: URL) {
        send(.downloadMoved, task) { $0.fileURL = fileURL }
    }
    public func taskCompleted(_ task: SessionTask, response: HTTPResponse) {
        send(.taskCompleted, task) { $0.response = response }
    }
    public func taskFailed(_ task: SessionTask, error: CourierError) {
        send(.taskFailed, task) { $0.error = error }
    }
}
