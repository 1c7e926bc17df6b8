import CourierCore
import FoundationEssentials
import HTTPTypes

/// An ``CourierCore/EventListener`` that keeps every event, for assertions on order and content.
///
/// ```swift
/// let recorder = RecordingEventListener()
/// let session = Session(configuration: .init(eventListener: recorder), transport: transport)
/// _ = try await session.data(for: request)
/// #expect(recorder.names() == ["taskCreated", "taskResumed", "requestSent", "responseHeadReceived",
///                               "downloadProgress", "metricsCollected", "taskCompleted"])
/// ```
public final class RecordingEventListener: EventListener {
    private let recorded: Locked<[TaskEvent]>
    private let forwarder: EventForwarder

    /// A recorder with nothing recorded.
    public init() {
        let log = Locked<[TaskEvent]>([])
        recorded = log
        forwarder = EventForwarder { event in log.withLock { $0.append(event) } }
    }

    /// Every event so far, in order.
    public var events: [TaskEvent] { recorded.withLock { $0 } }

    /// The names of the events so far, optionally of one task only and without the kinds in
    /// `excluding` (progress events, whose count depends on chunking, are often left out).
    public func names(for task: SessionTask? = nil, excluding: Set<TaskEvent.Kind> = []) -> [String] {
        events
            .filter { task == nil || $0.task == task }
            .filter { !excluding.contains($0.kind) }
            .map(\.kind.name)
    }

    /// The events of one kind.
    public func events(of kind: TaskEvent.Kind) -> [TaskEvent] {
        events.filter { $0.kind == kind }
    }

    /// Forgets everything recorded.
    public func reset() { recorded.withLock { $0.removeAll() } }

    /// Progress kinds, for `names(excluding:)`.
    public static let progressKinds: Set<TaskEvent.Kind> = [.uploadProgress, .downloadProgress]

    public func taskCreated(_ task: SessionTask) { forwarder.taskCreated(task) }
    public func taskResumed(_ task: SessionTask) { forwarder.taskResumed(task) }
    public func taskSuspended(_ task: SessionTask) { forwarder.taskSuspended(task) }
    public func taskCancelled(_ task: SessionTask) { forwarder.taskCancelled(task) }
    public func requestSent(_ task: SessionTask, request: HTTPRequest) { forwarder.requestSent(task, request: request) }
    public func responseHeadReceived(_ task: SessionTask, response: HTTPResponse) {
        forwarder.responseHeadReceived(task, response: response)
    }
    public func uploadProgress(_ task: SessionTask, progress: TransferProgress) { forwarder.uploadProgress(task, progress: progress) }
    public func downloadProgress(_ task: SessionTask, progress: TransferProgress) { forwarder.downloadProgress(task, progress: progress) }
    public func metricsCollected(_ task: SessionTask, metrics: TransferMetrics) { forwarder.metricsCollected(task, metrics: metrics) }
    public func redirecting(_ task: SessionTask, response: HTTPResponse, to request: HTTPRequest) {
        forwarder.redirecting(task, response: response, to: request)
    }
    public func retrying(_ task: SessionTask, attempt: Int, delay: Duration) { forwarder.retrying(task, attempt: attempt, delay: delay) }
    public func downloadMoved(_ task: SessionTask, to fileURL: URL) { forwarder.downloadMoved(task, to: fileURL) }
    public func taskCompleted(_ task: SessionTask, response: HTTPResponse) { forwarder.taskCompleted(task, response: response) }
    public func taskFailed(_ task: SessionTask, error: CourierError) { forwarder.taskFailed(task, error: error) }
}

